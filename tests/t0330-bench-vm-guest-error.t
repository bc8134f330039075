#!/bin/sh
# bench-vm, on the series head's kernel: a failure inside the guest (the
# kernel refuses an align) ends the run at once with a clear error, an error record, the samples taken
# so far, and no QEMU left running.
# test-quick: no: boots a guest
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "a guest failure" "an unknown agent option"
	done_testing
	exit
fi

test_expect_success 'a guest failure (devdax align=3M): error record, partial samples, exit 1, no QEMU left' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
		expect_fail $RUN --kernel "$KERNEL" --commit err --results res --agent-opt dax_align=3M &&
	grep_err "guest: devdax-setup: write .3145728. to /sys/bus/nd/devices/dax1\.[0-9]+/align: Invalid argument" &&
	grep_err "err failed after" &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"last_step\"] == \"devdax-setup\"" &&
	records_check res/records.jsonl "len(one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 1" &&
	records_check res/records.jsonl "not [r for r in recs if r[\"case\"].startswith(\"dax_pmem\")]" &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'

test_expect_success 'an unknown agent option: the guest says so and powers off' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G TIMEOUT=120 \
		expect_fail $RUN --kernel "$KERNEL" --commit err --results res --agent-opt bogus=1 &&
	grep_err "guest: options: unknown option .bogus=1." && no_qemu_under "$SCRATCH"
'
done_testing
