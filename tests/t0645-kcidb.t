#!/bin/sh
# make kcidb (report/kcidb.sh, report/out-kcidb.c): a run's records as
# KCIDB v5.3 JSON, validated against the schema kept in report/kcidb/.
# What the file says is checked from the records themselves, not from
# what ci-report wrote: one test per record of a committed set, its
# number the median of the record's samples, its build the record's
# kernel image; a checkout's patchset hash as KCIDB defines it, computed
# here from the patch files, only where the commit's diff is its patch's;
# a gate regression an issue with its incident.  A wrong field fails the
# validation; bad inputs change nothing.
# test-parallel: its scratch directories and KCIDB_OUT files only; the report directories of its own sets
. "$(dirname "$0")/lib.sh"
REC=$TOP/tests/fixtures/ci/rec.sh
SET=$TOP/results/2026-12-05-series-v3-distro/vm-icount-100G
SCHEMA=$TOP/report/kcidb/schema-v5.3.json
VALIDATE=$TOP/report/kcidb/validate.py
need tool:ci-report
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
	bail "Debian's python3-jsonschema is missing: run 'make deps'"

# tiny_tree: a repository at ./tree (a base and two commits) and their
# patches in ./patches (git format-patch, a series file), as KERNEL_TREE
# and PATCHES give them; commits.txt lists the three
tiny_tree() {
	git init -q tree &&
	for n in 0 1 2; do
		echo "line $n" >>tree/f && git -C tree add f &&
		git -C tree -c user.name=T -c user.email=t@example.org commit -q -m "x: change $n" || return 1
	done &&
	mkdir patches && git -C tree format-patch -q --thread -o "$SCRATCH/patches" HEAD~2 &&
	{ echo "# series"; (cd patches && ls 0*.patch) | sed "s/$/ applied/"; } >patches/series &&
	git -C tree log --reverse --format="%H%x09%s" >commits.txt
}

# icount_recs SET_DIR V0 V1 V2: records of the three commits, exact
# (icount) memmap_init_ms of V0, V1 and V2 ms, into SET_DIR
icount_recs() {
	ir_dir=$1
	shift
	mkdir -p "$ir_dir" && cp commits.txt "$ir_dir/" &&
	for c in $(cut -f1 commits.txt); do
		# shellcheck disable=SC2046 # one sample a word
		sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms "$c" tcg cpu h "{}" $(seq 5 | sed "s/.*/$1/") |
			sed "s/\"accel\":\"tcg\"/\"accel\":\"tcg\",\"clock\":\"icount\"/" >"$ir_dir/$c.jsonl" || return 1
		shift
	done
}

# kcidb SET: report/kcidb.sh of SET, into ./k.json, the tiny tree given
kcidb() {
	KCIDB_OUT=$SCRATCH/k.json KERNEL_TREE=$SCRATCH/tree PATCHES=$SCRATCH/patches \
		REPORT_OUT=$SCRATCH/report GATE_ACK=${ACK:-/dev/null} sh "$TOP/report/kcidb.sh" "$@"
}

test_expect_success 'a committed set: valid, one test per record, its median, unit, build and CPU' '
	mkdir tree && git -C tree init -q &&
	git -C tree -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m empty &&
	KCIDB_OUT=$SCRATCH/k.json KERNEL_TREE=$SCRATCH/tree REPORT_OUT=$SCRATCH/report \
		sh "$TOP/report/kcidb.sh" "$SET" >out 2>err && cat err &&
	grep -q "^kcidb: .*/k.json: valid KCIDB 5.3: 8 checkouts, 8 builds, 208 tests " out &&
	grep -q "patchsets: from commit 1: .* is not in the kernel tree" err &&
	python3 - "$SET" k.json <<-\EOP
	import glob, json, statistics, sys
	recs = [json.loads(l) for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")) for l in open(f)]
	k = json.load(open(sys.argv[2]))
	base = open(sys.argv[1] + "/commits.txt").readline().split("\t")[0]
	assert k["version"] == {"major": 5, "minor": 3}, k["version"]
	assert len(k["tests"]) == len(recs), (len(k["tests"]), len(recs))
	builds = {b["id"]: b for b in k["builds"]}
	left = list(k["tests"])
	for r in recs:
	    path = ".".join([r["suite"]] + r["case"].split("/") + [r["metric"]])
	    t = [t for t in left if t["path"] == path and t["build_id"].split(":")[1] == r["commit"]]
	    assert len(t) == 1, (path, r["commit"], len(t))
	    t = t[0]
	    left.remove(t)
	    assert t["number"]["value"] == statistics.median(r["samples"]), (path, t["number"])
	    assert t["number"].get("unit") == (None if r["unit"] == "count" else r["unit"]), t["number"]
	    assert t["misc"]["samples"] == r["samples"]
	    assert t["start_time"] == r["time"]
	    b = builds[t["build_id"]]
	    assert t["build_id"].endswith(":" + r["build"]["bzimage_sha256"][:16])
	    assert b["misc"]["build"] == r["build"] and b["compiler"] == r["build"]["cc"]
	    assert t["environment"]["misc"]["cpu"] == r["cpu"]
	    assert t["environment"]["misc"]["host_cpu"] == r["host_cpu"]
	    assert t["environment"]["misc"]["qemu_version"] == r["params"]["qemu_version"]
	    gated = r["case"].endswith("/rebind") and r["metric"] == "memmap_init_ms" and \
	        r["commit"] != base
	    assert t["status"] == ("PASS" if gated else "DONE"), (path, t["status"])
	for c, line in zip(k["checkouts"], open(sys.argv[1] + "/commits.txt")):
	    commit = line.split("\t")[0]
	    assert c["id"] == "x86_copy_series:" + commit and c["git_commit_hash"] == commit
	    assert c["patchset_hash"] == "", c
	assert not k["issues"] and not k["incidents"]
	EOP
'

test_expect_success 'patchsets as KCIDB hashes them, where the diff is the patch; a regression is an issue' '
	tiny_tree && icount_recs set 100 50 80 && c2=$(tail -n 1 commits.txt | cut -f1) &&
	printf "{\"schema\":\"x86-copy-series/record/1\",\"suite\":\"bench-vm\",\"case\":\"run\",\"metric\":\"error\",\"unit\":\"count\",\"samples\":[],\"commit\":\"%s\",\"error\":\"qemu: watchdog\"}\n" "$c2" >>"set/$c2.jsonl" &&
	{ rc=0; kcidb set >out 2>err || rc=$?; } && cat err out && [ "$rc" = 1 ] &&
	grep -q "^\[ *[0-9]*s\] kcidb: 2 of 2 commits after the base checked against their patches" err &&
	grep -q "^kcidb: .*/k.json: valid KCIDB 5.3: 3 checkouts, 3 builds, 4 tests (DONE 1, ERROR 1, FAIL 1, PASS 1), 1 issues" out &&
	grep -q "^kcidb: the report exited 1 (above); its gate regressions are the issues in " err &&
	python3 - k.json patches commits.txt <<-\EOP &&
	import hashlib, json, sys
	k = json.load(open(sys.argv[1]))
	commits = [l.split("\t")[0] for l in open(sys.argv[3])]
	names = [l.split()[0] for l in open(sys.argv[2] + "/series") if not l.startswith("#")]
	hashes = ""
	for i, c in enumerate(k["checkouts"]):
	    assert c["misc"]["commit"] == commits[i]
	    if i == 0:
	        assert c["git_commit_hash"] == commits[0] and c["patchset_hash"] == ""
	        continue
	    hashes += hashlib.sha256(open(sys.argv[2] + "/" + names[i - 1], "rb").read()).hexdigest() + "\n"
	    assert c["git_commit_hash"] == commits[0], c
	    assert c["patchset_hash"] == hashlib.sha256(hashes.encode()).hexdigest(), c
	    assert c["misc"]["last_patch"] == names[i - 1]
	fail = [t for t in k["tests"] if t["status"] == "FAIL"]
	assert len(fail) == 1 and fail[0]["build_id"].split(":")[1] == commits[2], fail
	assert fail[0]["misc"]["gate_rule"] == "exact" and fail[0]["misc"]["gate_worse_pct"] == 60.0
	issue, inc = k["issues"][0], k["incidents"][0]
	assert inc["issue_id"] == issue["id"] and inc["test_id"] == fail[0]["id"], (issue, inc)
	assert inc["issue_version"] == issue["version"] == 1 and issue["culprit"] == {"code": True}
	assert " 60.0% worse than its parent with no acknowledgment (exact rule, threshold 1%)" in issue["comment"], issue
	err = [t for t in k["tests"] if t["status"] == "ERROR"]
	assert len(err) == 1 and err[0]["log_excerpt"] == "qemu: watchdog", err
	assert err[0]["path"] == "bench-vm.run.error" and err[0]["build_id"] == "x86_copy_series:%s:host" % commits[2]
	EOP
	sed -i "s/^+line 1/+line one/" patches/0001-*.patch &&
	{ kcidb set >out 2>err || :; } && cat err &&
	grep -q "patchsets: from commit 1: the diff of [0-9a-f]* is not 0001-x-change-1.patch.s (git patch-id): the set is of another version of the series; from there on a checkout names its commit, with no patchset" err &&
	python3 - k.json commits.txt <<-\EOP &&
	import json, sys
	k = json.load(open(sys.argv[1]))
	commits = [l.split("\t")[0] for l in open(sys.argv[2])]
	assert [(c["git_commit_hash"], c["patchset_hash"]) for c in k["checkouts"]] == [(c, "") for c in commits]
	EOP
	sed -n "1p;3p" commits.txt >skip.txt && mkdir skip && cp skip.txt skip/commits.txt &&
	cp "set/$(head -n 1 commits.txt | cut -f1).jsonl" "set/$c2.jsonl" skip/ &&
	{ kcidb skip >out 2>err || :; } && cat err &&
	grep -q "patchsets: from commit 1: the parent of $c2 is not the commit before it" err
'

test_expect_success 'a regression an acknowledgment accepts: PASS, the reason beside it, no issue' '
	tiny_tree && icount_recs set 100 50 80 && c2=$(tail -n 1 commits.txt | cut -f1) &&
	echo "$c2 bench-vm/nd_pmem/rebind/memmap_init_ms 70 the copy streams: slower here, right" >ack.txt &&
	ACK=$SCRATCH/ack.txt kcidb set >out 2>err && cat err out &&
	grep -q "valid KCIDB 5.3: 3 checkouts, 3 builds, 3 tests (DONE 1, PASS 2), 0 issues" out &&
	python3 - k.json "$c2" <<-\EOP
	import json, sys
	k = json.load(open(sys.argv[1]))
	t = [t for t in k["tests"] if t["build_id"].split(":")[1] == sys.argv[2]]
	assert len(t) == 1 and t[0]["status"] == "PASS", t
	m = t[0]["misc"]
	assert m["gate_accepted_reason"] == "the copy streams: slower here, right", m
	assert m["gate_accepted_line"] == 1 and m["gate_accepted_by"].endswith("/ack.txt"), m
	assert not k["issues"] and not k["incidents"]
	EOP
'

test_expect_success 'a wrong field fails the validation, by its path' '
	tiny_tree && icount_recs set 100 100 100 && kcidb set >out 2>&1 &&
	/usr/bin/python3 "$VALIDATE" "$SCHEMA" k.json &&
	for edit in "t[\"status\"] = \"OK\"" "t[\"number\"][\"unit\"] = None" "t[\"start_time\"] = \"2026-11-30 12:00:00\"" \
		"t[\"start_time\"] = \"2026-11-30T12:00:00\"" "t[\"path\"] = \"bench vm\"" "t[\"build_id\"] = \"x86_copy_series:nope\"" \
		"t[\"id\"] = k[\"tests\"][1][\"id\"]" "t[\"colour\"] = 1" "k[\"version\"][\"major\"] = 4" \
		"k[\"checkouts\"][0][\"git_commit_hash\"] = \"abc\""; do
		python3 -c "import json; k = json.load(open(\"k.json\")); t = k[\"tests\"][0]; $edit; json.dump(k, open(\"bad.json\", \"w\"))" &&
		expect_fail /usr/bin/python3 "$VALIDATE" "$SCHEMA" bad.json &&
		grep_err "^kcidb: bad.json: [0-9]+ fault.s.: not valid KCIDB 5.3$" &&
		grep_err "^kcidb: bad.json: (tests|version|checkouts)" || { echo "passed: $edit"; return 1; }
	done &&
	printf "{\"version\": " >bad.json && expect_fail /usr/bin/python3 "$VALIDATE" "$SCHEMA" bad.json &&
	grep_err "^kcidb: bad.json: not JSON: "
'

test_expect_success 'bad inputs: a clear error, the last file left whole' '
	tiny_tree && icount_recs set 100 100 100 &&
	printf "%s\tnothex\tx\tp\n" "$(head -n 1 commits.txt | cut -f1)" >ps.tsv &&
	expect_fail "$BIN/ci-report" --commits commits.txt --text r.txt --kcidb k2.json --kcidb-patchsets ps.tsv set/*.jsonl &&
	grep_err "^ci-report: kcidb: ps.tsv:1: not COMMIT<TAB>BASE<TAB>SHA256<TAB>PATCH" && [ ! -e k2.json ] && [ ! -e r.txt ] &&
	rc=0 && "$BIN/ci-report" --commits commits.txt --text r.txt --kcidb-patchsets ps.tsv set/*.jsonl 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "usage: ci-report" err &&
	kcidb set >out 2>&1 && cp k.json k.before &&
	echo "{\"schema\":" >>set/$(head -n 1 commits.txt | cut -f1).jsonl &&
	{ rc=0; kcidb set >out 2>err || rc=$?; } && cat err && [ "$rc" = 1 ] &&
	grep -q "^kcidb: not written: the report exited 1 (the error is above); .*/k.json is an earlier run.s, left whole" err &&
	cmp k.json k.before &&
	KCIDB_OUT=$SCRATCH/dir/ expect_fail sh "$TOP/report/kcidb.sh" set &&
	grep_err "KCIDB_OUT: .* names a directory: name the file" &&
	OUT=$SCRATCH/empty expect_fail sh "$TOP/report/kcidb.sh" &&
	grep_err "records: .*/empty/ci/commits.txt is missing: no run here to describe" &&
	rc=0 && sh "$TOP/report/kcidb.sh" a b 2>err || rc=$? && [ "$rc" = 2 ] &&
	grep -q "usage: make kcidb" err
'

test_expect_success 'make kcidb: the target, RESULTS as written' '
	tiny_tree && icount_recs "set a" 100 100 100 &&
	make -C "$TOP" -s kcidb BIN="$BIN" SANITIZE=1 RESULTS="$SCRATCH/set a" KCIDB_OUT="$SCRATCH/k.json" KERNEL_TREE="$SCRATCH/tree" \
		PATCHES="$SCRATCH/patches" REPORT_OUT="$SCRATCH/report" GATE_ACK=/dev/null >out 2>&1 || { cat out; false; } &&
	grep -q "valid KCIDB 5.3: 3 checkouts" out && grep -q "2 of 2 commits after the base checked" out
'

done_testing
