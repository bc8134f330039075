#!/bin/sh
# make reproduce ID=: the materials of one guest claim from make quick's
# records (t0670: the last two commits, 512M, one rebind): reproduce.sh
# boots both kernels and gets every sample of every metric of the case,
# here and in a fresh Debian 12 root (t0001's) with only the packages it
# names; a sample off by one is caught; another QEMU version stops it
# before booting; a changed material or a stale input (a kernel rebuilt
# since the records) is refused, the old materials kept.
# test-quick: no: boots guests (make reproduce's reproducer)
. "$(dirname "$0")/lib.sh"
need tool:ci-reproduce
MK="make -C $TOP --no-print-directory OUT=$OUT BIN=$BIN SANITIZE=1"
REPRO="sh $TOP/review/reproduce.sh"

# The guest claims, from make quick's records (t0670)
Q=$OUT/quick
if [ ! -s "$Q/report.json" ]; then
	for t in "make reproduce: the materials of a guest claim" "reproduce.sh: every sample" \
		"reproduce.sh: another QEMU" "make reproduce: a stale input" "reproduce.sh in a fresh Debian 12 root"; do
		test_skip "$t" "no make quick results in $Q (t0670 makes them)"
	done
	done_testing
	exit
fi
R=$TEST_OUT/t0700-repro
ID=series-icount/nd_pmem

test_expect_success 'make reproduce: the materials of a guest claim, every field named, checked against the inputs' '
	rm -rf "$R" && $MK reproduce CI_QUICK=1 ID=$ID REPRO_DIR="$R" >out 2>err; rc=$?
	cat err out; [ $rc = 0 ] &&
	from=$(cut -f1 "$Q/commits.txt" | head -n 1) to=$(cut -f1 "$Q/commits.txt" | tail -n 1) &&
	[ -x "$R/bin/ci-reproduce" ] && [ -s "$R/reproduce.sh" ] &&
	for c in $from $to; do
		cmp "$R/kernels/$c/arch/x86/boot/bzImage" "$OUT/build/$c/arch/x86/boot/bzImage" || return 1
	done &&
	(cd "$R" && sha256sum -c --quiet SHA256SUMS) &&
	python3 - "$R/metadata.json" "$from" "$to" "$(git -C "$WORKTREE" rev-parse "$to^{tree}")" \
		"$(qemu-system-x86_64 --version | head -n 1)" "$Q/$from/bench-vm/records.jsonl" <<-\PY
	import json, sys
	m = json.load(open(sys.argv[1]))
	fr, to, tree, qemu, recs = sys.argv[2:]
	assert m["schema"] == "x86-copy-series/reproduce/1"
	assert m["claim"]["id"] == "series-icount/nd_pmem"
	s = m["sides"]
	assert [x["commit"] for x in s] == [fr, to] and s[0]["case"] == "nd_pmem/rebind", s
	assert m["materials"]["to.tree"] == tree
	for k in ("from.config_sha256", "to.bzimage_sha256", "toolkit_commit", "from.qemu_command"):
	    assert m["materials"][k], k
	run = m["run"]
	assert run["qemu_version"] == qemu and run["clock"] == "icount" and run["accel"] == "tcg"
	assert run["ns_size"] == "512M" and run["rebinds"] == "1" and run["qemu_cpu"] == "max", run
	rec = [r for r in map(json.loads, open(recs))
	       if r["case"] == "nd_pmem/rebind" and r["metric"] == "memmap_init_ms"][0]
	assert s[0]["samples"] == rec["samples"] and m["exact"] is True
	PY
'

test_expect_success 'reproduce.sh: every sample equal to the record'"'"'s (tcg-icount)' '
	sh "$R/reproduce.sh" >out 2>err; rc=$?
	cat err out; [ $rc = 0 ] &&
	grep -q "^from .* nd_pmem/rebind memmap_init_ms: 1 samples, every one the record" out &&
	grep -q "^to .* nd_pmem/rebind memmap_init_ms: 1 samples, every one the record" out &&
	grep -qx "reproduced: every sample equal (exact: tcg-icount)" out &&
	grep -q "^     and every sample of its [0-9]* metrics of nd_pmem/rebind equal" out &&
	grep -q "bench-vm/run.sh.\{0,1\} --accel tcg --clock icount --cpu .\{0,1\}max.\{0,1\} --ns-size 512M --rebinds 1" out &&
	# the comparison can fail: a bind time one microsecond off is not the record
	python3 - "$R/metadata.json" m.json <<-\PY &&
	import json, sys
	m = json.load(open(sys.argv[1]))
	m["sides"][1]["case_metrics"]["bind_us"][0] += 1
	json.dump(m, open(sys.argv[2], "w"))
	PY
	{ "$R/bin/ci-reproduce" verify m.json "$R/run" >out; [ $? = 1 ]; } && cat out &&
	grep -q "^     nd_pmem/rebind bind_us: other samples than the record" out &&
	grep -qx "not reproduced: the samples differ from the record.s" out
'

test_expect_success 'reproduce.sh: another QEMU version, a changed material: a named error, nothing booted' '
	printf "#!/bin/sh\necho \"QEMU emulator version 9.9.9\"\n" >qemu && chmod +x qemu &&
	rm -rf "$R/run" && QEMU=$PWD/qemu sh "$R/reproduce.sh" >out 2>err; rc=$?
	cat err; [ $rc = 3 ] &&
	grep -q "^reproduce: qemu-version: .* is .QEMU emulator version 9.9.9.; the records. runs were .QEMU emulator version 7" err &&
	grep -q "Nothing was booted" err && [ ! -e "$R/run" ] &&
	cp -a "$R" r2 && echo x >>r2/bench-vm/run.sh &&
	sh r2/reproduce.sh >out 2>err; rc=$?
	cat err; [ $rc = 1 ] && grep -q "^reproduce: materials: .*bench-vm/run.sh.* differ from SHA256SUMS" err &&
	[ ! -e r2/run ]
'

test_expect_success 'make reproduce: a stale input (a kernel rebuilt since the records): an error, the old materials kept' '
	cp -a "$Q" q && from=$(cut -f1 q/commits.txt | head -n 1) &&
	sed -i "s/^[0-9a-f]\{64\} \(.*bzImage\)\$/0000000000000000000000000000000000000000000000000000000000000000 \1/" q/$from/bench-vm/inputs &&
	grep -q "^0\{64\} .*bzImage" q/$from/bench-vm/inputs &&
	before=$(cat "$R/SHA256SUMS") &&
	expect_fail env CI_OUT=$PWD/q REPRO_DIR=$R $REPRO $ID &&
	grep_err "reproduce: inputs: .*bzImage.* changed since the records of $from were made" &&
	[ "$(cat "$R/SHA256SUMS")" = "$before" ] && [ -z "$(ls -a "$TEST_OUT" | grep "^\.t0700-repro\.")" ]
'

# the reproducer in a fresh Debian 12 root: t0001's, with only what
# reproduce.sh names installed
FRESH_ROOT_CACHE=${FRESH_ROOT_CACHE:-$TEST_OUT/fresh-root}
export FRESH_ROOT_CACHE
libs='qemu-system-x86 libjson-c5 libgsl27'
! ldd "$BIN/ci-reproduce" | grep -q libasan || libs="$libs libasan8 libubsan1"
rc=0
FRESH_ROOT_COPY=$R sh "$TOP/scripts/fresh-root.sh" run tree \
	"apt-get install -y -q --no-install-recommends $libs >/tmp/apt.log 2>&1 || { tail /tmp/apt.log; exit 1; }; sh /copy/reproduce.sh" \
	>"$TEST_OUT/t0700-fresh.log" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
	test_skip "reproduce.sh in a fresh Debian 12 root" "$(tail -n 1 "$TEST_OUT/t0700-fresh.log")"
elif [ "$rc" = 0 ] && grep -qx "reproduced: every sample equal (exact: tcg-icount)" "$TEST_OUT/t0700-fresh.log"; then
	test_result ok "reproduce.sh in a fresh Debian 12 root ($libs installed): every sample equal"
else
	test_result fail "reproduce.sh in a fresh Debian 12 root (exit $rc)" "$TEST_OUT/t0700-fresh.log"
fi
done_testing
