#!/bin/sh
# ci/guest-queue.sh: the guest queue of a ci/run.sh run (the overlap
# schedule, ci/queue.sh): started by the run in a session of its own
# (setsid: its process group is stopped as a whole, the guests with it).
# The run appends "COMMIT I PARENT" to $CI_OUT/.run/vm-queue as a
# commit's turn comes (PARENT '-': none); the guests start in that order,
# as vm_room allows, each in a subshell that runs the guest step as the
# run would (run_step, its outcome in the run's directory), and the queue
# ends once the run has closed it ($CI_OUT/.run/vm-closed) and every one
# ended.  The run that queued the guests is CI_DRIVER (its owner record):
# killed outright (SIGKILL: its EXIT trap, stop_queue, never ran), the
# queue stops its guests as stop_queue would (TERM to the session: each
# guest's runner removes its NVDIMM files) and ends.
# Environment, from the run: CI_DRIVER, CI_OUT, CI_GUEST_STEP, CI_N (the
# number of commits), CI_VM_JOBS, CI_VM_KB, CI_VM_NS_KB, CI_SCHEDULE,
# CI_STEPS_FILE, CI_T0 and CI_T_START (its progress clock), and what it
# exports for its steps (CI_SETTINGS_<step>, SO_MEMO, the guest's
# settings).
set -eu
PROG=ci
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
# shellcheck source=step-lib.sh
. "$TOP/ci/step-lib.sh"
# shellcheck source=step-run.sh
. "$TOP/ci/step-run.sh"
# shellcheck source=keys.sh
. "$TOP/ci/keys.sh"
# shellcheck source=estimate.sh
. "$TOP/ci/estimate.sh"
# shellcheck source=queue.sh
. "$TOP/ci/queue.sh"

for v in CI_DRIVER CI_OUT CI_GUEST_STEP CI_N CI_VM_JOBS CI_VM_KB CI_SCHEDULE CI_STEPS_FILE CI_T0 CI_T_START; do
	eval "[ -n \"\${$v:-}\" ]" || usage_die "guest-queue.sh: $v is not set: ci/run.sh starts it"
done
# the names the sourced parts read, as the run has them (CI_OUT,
# CI_VM_JOBS and CI_SCHEDULE under their own)
GUEST_STEP=$CI_GUEST_STEP n=$CI_N VM_KB=$CI_VM_KB VM_NS_KB=${CI_VM_NS_KB:-}
T0=$CI_T0 T_START=$CI_T_START RUN_DIR=$CI_OUT/.run bg_vm=1
# the guest's settings (the run exported them resolved) and the steps
# shellcheck source=../bench-vm/defaults.sh
. "$TOP/bench-vm/defaults.sh"
[ -r "$CI_STEPS_FILE" ] || die "steps: $CI_STEPS_FILE is missing"
# shellcheck source=steps.sh
. "$CI_STEPS_FILE"

started=0 pids='' turn=0
while :; do
	# (once a second, not every turn: three processes a look)
	turn=$((turn + 1))
	# shellcheck disable=SC2086 # PID START BOOT, a word each
	if [ $((turn % 5)) = 1 ] && ! owner_alive $CI_DRIVER; then
		warn "$GUEST_STEP: the run that queued these guests (pid ${CI_DRIVER%% *}) is gone: stopping its guests"
		trap '' TERM
		kill -TERM 0 2>/dev/null || true
		wait || true
		exit 1
	fi
	keep=''
	for p in $pids; do
		if alive "$p"; then keep="$keep $p"; else wait "$p" || true; fi
	done
	pids=$keep
	# shellcheck disable=SC2086 # pids, a word each
	set -- $pids
	running=$#
	# whole lines only: one being appended has no newline yet
	queued=$(wc -l <"$RUN_DIR/vm-queue")
	if [ "$started" -lt "$queued" ] && vm_room "$running"; then
		started=$((started + 1))
		# shellcheck disable=SC2046 # COMMIT I PARENT, a word each
		set -- $(sed -n "${started}p" "$RUN_DIR/vm-queue")
		[ "$3" != - ] || set -- "$1" "$2" ""
		(
			run_step "$GUEST_STEP" "$1" "$2" "$3"
			ran_eta "$1" "$GUEST_STEP" "$2"
		) &
		pids="$pids $!"
		continue
	fi
	[ "$started" -lt "$queued" ] || [ "$running" -gt 0 ] || [ ! -f "$RUN_DIR/vm-closed" ] || break
	# a fifth of a second: the run waits on this loop at its end
	sleep 0.2
done
exit 0
