#!/bin/sh
# bench-vm, on the series head's kernel: a hung guest (agent option
# hang=1) is ended by the watchdog, whose clock starts at the agent's
# hello, so the outcome is the same on a fast or a slow, idle or loaded
# machine; the error says so, what arrived is kept, no QEMU is left
# running.
# test-quick: no: boots a guest
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "a hung guest"
	done_testing
	exit
fi

# BOOT_TIMEOUT: the allowance before the hello, set far beyond any boot so
# that only the hang decides (a TCG boot here takes 1-2 s)
test_expect_success 'a hung guest: killed 5 s after its hello, error record, hello kept, no QEMU left' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G TIMEOUT=5 BOOT_TIMEOUT=900 \
		expect_fail $RUN --kernel "$KERNEL" --commit hang --results res --agent-opt hang=1 &&
	grep_err "watchdog: QEMU killed 5s after the agent.s hello" &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"last_step\"] == \"hang\"" &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"error\"].startswith(\"watchdog: QEMU killed 5s after\")" &&
	records_check res/records.jsonl "one(\"boot\", \"agent_start_ms\")[\"samples\"][0] > 0" &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'
done_testing
