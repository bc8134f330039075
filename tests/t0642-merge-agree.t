#!/bin/sh
# make merge says whether the exact (icount) records of two hosts agree by
# what is exact, never by the number of samples: the distinct values to
# the metric's resolution (memmap_init_ms: the kernel prints whole ms;
# counts to the last digit), the agent's own clock (bind_us, unbind_us)
# bind by bind within its documented tolerance.  The records are the
# Intel host's icount run of the 8 commits of v2
# (results/2026-12-01-series-v2/vm-icount-100G, 5 rebinds), and the same
# run as another host would give it: fewer rebinds, bind_us 2 us later.
# Those agree; one kernel's memmap figure changed by 2 ms does not.  An
# empty input is a clear error, no crash; so is a commits line without an id.
# Records of two QEMU builds (params.qemu_version) are never compared as
# exact: each build is its own row, its setup naming it.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:ci-merge
RES=$TOP/results/2026-12-01-series-v2/vm-icount-100G

# hosts: intel/ (the records as kept), amd/ (another host: SUBSET rebinds,
# the agent's times +2 us), commits.txt (the series in its order)
hosts() {
	mkdir intel amd && cp "$RES"/*.jsonl intel/ &&
	python3 - "$RES" "${1:-2}" <<-\EOF &&
	import glob, json, os, sys
	for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
	    with open("amd/" + os.path.basename(f), "w") as out:
	        for line in open(f):
	            r = json.loads(line)
	            r["host_cpu"] = {"vendor": "AuthenticAMD", "family": 25, "model": 1, "stepping": 1,
	                             "model_name": "AMD EPYC 7763 64-Core Processor", "flags": ["erms", "fsrm"]}
	            if r["case"].endswith("/rebind"):
	                r["samples"] = r["samples"][:int(sys.argv[2])]
	            if r["metric"] in ("bind_us", "unbind_us"):
	                r["samples"] = [x + 2 for x in r["samples"]]
	            out.write(json.dumps(r, separators=(",", ":")) + "\n")
	EOF
	grep -E "^[0-9a-f]{12} \(kernel" "$RES/report.txt" | cut -c1-12 | while read -r c; do
		printf '%s\tcommit\n' "$(basename "$RES/$c"*.jsonl .jsonl)"
	done >commits.txt && [ "$(wc -l <commits.txt)" = 8 ]
}

test_expect_success 'the same figures with other numbers of samples agree: no DIFFER' '
	hosts 2 && "$BIN/ci-merge" --commits commits.txt intel amd >m.md 2>err && cat err &&
	! grep -q "DIFFER\*\*" m.md && ! grep -q "do not agree" err &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | e9b351700f1f | .* 1115.00 ± 0.00 (n 2) | 1115.00 ± 0.00 (n 5) | equal |$" m.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.pages (count) | e9b351700f1f | .* (n 2) | .* (n 5) | equal |$" m.md &&
	grep -q "^| bench-vm.dax_pmem_mem/rebind.memmap_init_ms (ms) | 2eab674c85ce | .* | agree: up to 1 ms apart (the kernel prints whole ms) |$" m.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.bind_us (us) | e9b351700f1f | .* | agree: up to 2 us apart (agent clock: 20 us or 20 ppm) |$" m.md &&
	[ "$(grep -c "| equal |$" m.md)" -gt 100 ]
'

test_expect_success 'one kernel whose memmap figure changed on one host: DIFFER, named' '
	hosts 3 && f=$(ls amd/e256ccee59ed*.jsonl) &&
	sed -i "/\"case\":\"nd_pmem\/rebind\",\"metric\":\"memmap_init_ms\"/s/934\.0/936.0/g" "$f" &&
	"$BIN/ci-merge" --commits commits.txt intel amd >m.md 2>err && cat err &&
	grep -q "merge: 1 tcg-icount row(s) whose hosts or runs do not agree to the metric.s resolution" err &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | e256ccee59ed | .* 936.00 ± 0.00 (n 3) .* 934.00 ± 0.00 (n 5) .* | \*\*DIFFER\*\*: 2 ms apart, beyond 1 ms (the kernel prints whole ms) |$" m.md &&
	[ "$(grep -c "DIFFER\*\*" m.md)" = 1 ]
'

test_expect_success 'two runs of one host, other numbers of rebinds: they agree, runs_differ false' '
	hosts 2 && mkdir run2 && for f in amd/*.jsonl; do
		sed "s/AMD EPYC 7763 64-Core Processor/Intel(R) Xeon(R) Processor/; s/AuthenticAMD\",\"family\":25/GenuineIntel\",\"family\":6/" "$f" >run2/${f#amd/} || return 1
	done &&
	"$BIN/ci-merge" --commits commits.txt --json m.json intel run2 >m.md 2>err && cat err &&
	! grep -q "DIFFER\*\*" m.md &&
	python3 -c "import json; r = json.load(open(\"m.json\")); assert not any(c.get(\"runs_differ\") for w in r[\"rows\"] for c in w[\"cells\"]); assert max(c[\"n\"] for w in r[\"rows\"] for c in w[\"cells\"]) == 7" &&
	f=$(ls run2/e256ccee59ed*.jsonl) && sed -i "/\"case\":\"nd_pmem\/rebind\",\"metric\":\"memmap_init_ms\"/s/934\.0/936.0/g" "$f" &&
	"$BIN/ci-merge" --commits commits.txt --json m.json intel run2 >m.md 2>err && cat err &&
	grep -q "merge: 1 tcg-icount row" err &&
	python3 -c "import json; r = json.load(open(\"m.json\")); assert sum(bool(c.get(\"runs_differ\")) for w in r[\"rows\"] for c in w[\"cells\"]) == 1"
'

test_expect_success 'an empty file or directory: an error naming it, no crash' '
	printf "%s\tbase\n" 1111111111111111111111111111111111111111 >commits.txt &&
	: >empty.jsonl && mkdir none &&
	expect_fail "$BIN/ci-merge" --commits commits.txt empty.jsonl &&
	grep_err "^ci-merge: records: empty.jsonl: no records in it " &&
	expect_fail "$BIN/ci-merge" --commits commits.txt none &&
	grep_err "^ci-merge: records: none: no records in it " &&
	expect_fail "$BIN/ci-report" empty.jsonl && grep_err "^ci-report: records: no samples" &&
	printf "\tno id\n" >bad.txt && expect_fail "$BIN/ci-merge" --commits bad.txt "$RES" &&
	grep_err "^ci-merge: commits: bad.txt:1: .. is not a commit id"
'
test_expect_success 'two QEMU builds: their rows apart, named, never called DIFFER' '
	hosts 2 && for d in intel amd; do
		python3 - "$d" <<-\EOF || return 1
		import glob, json, sys
		v = {"intel": "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)",
		     "amd": "QEMU emulator version 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1)"}[sys.argv[1]]
		for f in glob.glob(sys.argv[1] + "/*.jsonl"):
		    rs = [json.loads(l) for l in open(f)]
		    for r in rs:
		        r["params"]["qemu_version"] = v
		        if sys.argv[1] == "amd" and r["metric"] == "memmap_init_ms":
		            r["samples"] = [x + 50 for x in r["samples"]]
		    open(f, "w").write("".join(json.dumps(r) + "\n" for r in rs))
		EOF
	done &&
	"$BIN/ci-merge" --commits commits.txt intel amd >m.md 2>err && cat err &&
	! grep -q "DIFFER\*\*" m.md && ! grep -q "do not agree" err &&
	grep -q "compared only with\$" m.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | e9b351700f1f | .*QEMU 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3).* 1115.00 ± 0.00 (n 5) |" m.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | e9b351700f1f | .*QEMU 8.2.2 (Debian 1:8.2.2+ds-0ubuntu1).* 1165.00 ± 0.00 (n 2) |" m.md
'
done_testing
