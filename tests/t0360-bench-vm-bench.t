#!/bin/sh
# make bench-vm (bench-vm/bench.sh) on the series head's kernel at the
# smallest size that runs the real path (2 NVDIMMs of 512M, one rebind):
# run.sh per commit, the records with their accel and clock, the report;
# why KVM is not used is said once for the whole run; a commit without a
# kernel is named with the way out and fails the run.
# test-quick: no: boots guests
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
for t in bench-vm-agent bench-vm-collect bench-vm-report gen_init_cpio; do
	[ -x "$BENCH_VM_BIN/$t" ] || bail "$BENCH_VM_BIN/$t is not built: run 'make tools'"
done
plan 2
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "bench.sh on the head" "a commit without a kernel"
	done_testing
	exit
fi
HEAD=$(git -C "$WORKTREE" rev-parse "$REF_NS/series^{commit}")

test_expect_success 'bench.sh on the head, twice: records with accel and clock, the report, why KVM is not used said once' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=512M REBINDS=1 sh "$TOP/bench-vm/bench.sh" "$HEAD" "$HEAD" >rep 2>err; rc=$?
	cat err rep && [ $rc = 0 ] &&
	r=$OUT/bench-vm/$HEAD/records.jsonl &&
	records_check "$r" "len(one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 1" &&
	records_check "$r" "len(one(\"dax_pmem/first\", \"bind_us\")[\"samples\"]) == 1" &&
	records_check "$r" "all(r[\"commit\"] == \"$HEAD\" and r[\"clock\"] == {\"tcg\": \"icount\", \"kvm\": \"wall\"}[r[\"accel\"]] for r in recs)" &&
	records_check "$r" "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	# the second run of the commit replaced the first one'"'"'s records: the
	# report counts them once, one kernel, no change against itself
	[ "$(grep -c "^$(printf %.12s "$HEAD") (kernel " rep)" = 1 ] && ! grep -q "^Change " rep &&
	grep -q "records.jsonl: [0-9]* record(s) read before .*counted once" err &&
	grep -Eq "^  Average of rebinds for nd_pmem driver: [0-9.]+ ms \(sd 0.00, n 1\) \[(tcg-icount|kvm)\]$" rep &&
	[ "$(grep -c "bench-vm: start" err)" = 2 ] &&
	if grep -q "accel: tcg" err; then
		[ "$(grep -c "accel: tcg: KVM is not used: " err)" = 1 ] &&
		[ "$(grep -c "accel: tcg (KVM is not used: see above" err)" = 1 ]
	else
		! grep -q "KVM is not used" err
	fi &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'

test_expect_success 'a commit without a kernel: named with the way out, exit 1' '
	p=$(git -C "$WORKTREE" rev-parse "$HEAD^") &&
	[ ! -e "$OUT/build/$p/arch/x86/boot/bzImage" ] &&
	NVDIMM_DIR=$SCRATCH NS_SIZE=512M REBINDS=1 expect_fail sh "$TOP/bench-vm/bench.sh" "$p" &&
	grep_err "kernel: .*/build/$p/arch/x86/boot/bzImage is missing: run .make build." &&
	grep_err "report: no kernel produced records" &&
	NVDIMM_DIR=$SCRATCH expect_fail sh "$TOP/bench-vm/bench.sh" no-such-commit &&
	grep_err "commits: .no-such-commit. is not a commit"
'
done_testing
