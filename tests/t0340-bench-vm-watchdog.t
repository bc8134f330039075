#!/bin/sh
# bench-vm: a hung guest (agent option hang=1) is ended by the watchdog;
# the error says so, what arrived is kept, no QEMU is left running.
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
plan 1
if ! KERNEL=$(bench_vm_kernel); then
	test_skip "a hung guest" "no kernel built: run 'make build' (or set BENCH_VM_KERNEL)"
	done_testing
	exit
fi

test_expect_success 'a hung guest: killed by the watchdog, error record, hello kept, no QEMU left' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G TIMEOUT=15 \
		expect_fail $RUN --kernel "$KERNEL" --commit hang --results res --agent-opt hang=1 &&
	grep_err "watchdog: QEMU killed after 15s" &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"last_step\"] == \"hang\"" &&
	records_check res/records.jsonl "one(\"boot\", \"agent_start_ms\")[\"samples\"][0] > 0" &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'
done_testing
