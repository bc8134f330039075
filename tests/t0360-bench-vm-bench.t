#!/bin/sh
# make bench-vm (ci/run.sh --view bench-vm) on the series head's kernel at
# the smallest size that runs the real path (3 NVDIMMs of 512M, one
# rebind): the build step (up to date) and the guest, the records with
# their accel and clock, the report; why KVM is not used is said once for
# the whole run; a commit given twice runs once; a second view finds it
# all up to date and boots nothing; a commit whose kernel does not build
# has its guest skipped, named, and fails the view.
# test-quick: no: boots guests
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-agent tool:bench-vm-collect tool:bench-vm-report tool:gen_init_cpio
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "make bench-vm on the head" "a second view" "a commit without a kernel"
	done_testing
	exit
fi
HEAD=$(git -C "$WORKTREE" rev-parse "$REF_NS/series^{commit}")
H12=$(printf %.12s "$HEAD")
# the results of this file's views, the tests' own (kept across them)
CI_DIR=$(mktemp -d "$TEST_OUT/t0360-ci.XXXXXX")
# (the NVDIMMs' directory is one of a guest's settings: one for all)
NV_DIR=$CI_DIR.nvdimm
mkdir -p "$NV_DIR"
# the view as make runs it
bench_vm_view() {
	CI_OUT=$CI_DIR NVDIMM_DIR=$NV_DIR make -C "$TOP" --no-print-directory -s bench-vm \
		OUT="$OUT" BIN="$BIN" NS_SIZE=512M REBINDS=1 "$@"
}

# every test here starts ci/run.sh (make bench-vm): the file holds the lock
pipeline_lock

test_expect_success 'make bench-vm COMMITS="head head": built, booted once, records with accel and clock, the report, why KVM is not used said once' '
	bench_vm_view COMMITS="$HEAD $HEAD" >rep 2>err; rc=$?
	cat err rep && [ $rc = 0 ] && cp rep "$CI_DIR.rep" &&
	r=$CI_DIR/$HEAD/bench-vm/records.jsonl &&
	records_check "$r" "len(one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 1" &&
	records_check "$r" "len(one(\"dax_pmem/first\", \"bind_us\")[\"samples\"]) == 1" &&
	records_check "$r" "all(r[\"commit\"] == \"$HEAD\" and r[\"clock\"] == {\"tcg\": \"icount\", \"kvm\": \"wall\"}[r[\"accel\"]] for r in recs)" &&
	records_check "$r" "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	grep -q "commits: $H12 is given twice: once" err &&
	grep -q "1/1 $H12: build: " err && ! grep -q "2/2" err &&
	[ "$(grep -c "bench-vm: start" err)" = 1 ] &&
	[ "$(grep -c "^$H12 (kernel " rep)" = 1 ] && ! grep -q "^Change " rep &&
	grep -Eq "^  Average of rebinds for nd_pmem driver: [0-9.]+ ms \(sd 0.00, n 1\) \[(tcg-icount|kvm)\]$" rep &&
	grep -q "done: make bench-vm: results in $CI_DIR/<commit>/bench-vm (exit 0)" err &&
	if grep -q "accel: tcg" err; then
		[ "$(grep -c "accel: tcg: KVM is not used: " err)" = 1 ] &&
		[ "$(grep -c "accel: tcg (KVM is not used: see above" err)" = 1 ]
	else
		! grep -q "KVM is not used" err
	fi &&
	# a view replaces none of the full run'"'"'s tables
	[ ! -e "$CI_DIR/summary.txt" ] && [ ! -e "$CI_DIR/times.txt" ] &&
	[ ! -e "$CI_DIR/commits.txt" ] && [ ! -e "$CI_DIR/report.txt" ] &&
	no_qemu_under "$NV_DIR"
'

test_expect_success 'a second view: every step up to date, nothing booted, the same report' '
	bench_vm_view COMMITS="$HEAD" >rep2 2>err2; rc=$?
	cat err2 && [ $rc = 0 ] &&
	grep -q "plan: 0 of 2 steps to run" err2 &&
	grep -q "bench-vm: up to date" err2 && ! grep -q "bench-vm: start" err2 &&
	grep "^  Average of rebinds for nd_pmem driver" "$CI_DIR.rep" >a && grep "^  Average of rebinds for nd_pmem driver" rep2 >b &&
	cmp a b
'

test_expect_success 'a commit whose kernel does not build: its guest skipped, named, exit 1; a bad revision refused' '
	broken=$(commit_with "$HEAD" mm/mm_init.c "s/^void __init mm_core_init(void)$/this does not compile;\n&/" "test: break the build") &&
	# ci/run.sh itself, for its exit status (make says 2 for any failure)
	CI_OUT=$CI_DIR NVDIMM_DIR=$NV_DIR NS_SIZE=512M REBINDS=1 BUILD_TARGETS=mm/mm_init.o \
		CI_COMMITS="$broken" expect_fail sh "$TOP/ci/run.sh" --view bench-vm &&
	grep_err "build: FAILED" &&
	grep_err "bench-vm: skipped: no kernel: the build of $broken did not succeed" &&
	grep_err "no kernel produced records" &&
	[ ! -e "$CI_DIR/$broken/bench-vm/records.jsonl" ] &&
	rm -rf "$OUT/build/$broken" &&
	CI_OUT=$CI_DIR CI_COMMITS=no-such-commit expect_fail sh "$TOP/ci/run.sh" --view bench-vm &&
	grep_err "commits: .no-such-commit. is not a commit"
'
rm -rf "$CI_DIR" "$CI_DIR.rep" "$NV_DIR"
done_testing
