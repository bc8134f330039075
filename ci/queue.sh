# ci/queue.sh: the guest queue of the overlap schedule.  The run's side
# (ci/run.sh): a guest queued, the queue started with the first and
# stopped with the run, waited for at the end, and which clock the guests
# get; the queue's side (ci/guest-queue.sh): room for another guest (jobs,
# a kernel build beside it, memory) and whether a child lives.  Sourced by
# both.  POSIX sh.
# shellcheck disable=SC2034,SC2154 # the run's globals (n, vm_pid, bg_vm, GUEST_STEP, RUN_DIR: ci/run.sh), ow and fn set by the helpers

# vm_room RUNNING: may another guest start beside RUNNING of them?  The
# first always; more only when no build runs, up to CI_VM_JOBS, and while
# the memory available holds them all, their growth to come included
vm_room() {
	[ "$1" -lt "$CI_VM_JOBS" ] || return 1
	[ "$1" != 0 ] || return 0
	[ ! -e "$RUN_DIR/building" ] && [ "$VM_KB" -gt 0 ] || return 1
	avail=$(awk '/^MemAvailable:/ { print $2 }' "${CI_MEMINFO:-/proc/meminfo}")
	[ "${avail:-0}" -ge $((VM_KB * ($1 + 1) + 1048576)) ]
}

# alive PID: the process is there and not a zombie (a child that ended
# and was not waited for yet is one)
alive() {
	# (a read, no process: the queue asks it of every guest 5 times a second)
	st=
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) } st=${st%% *}
	[ -n "$st" ] && [ "$st" != Z ]
}

# stop the guest queue with us, whatever ends us, and end after it: a
# guest's runner removes its NVDIMM files on TERM, which takes a
# moment (30 s at most here, then we end anyway)
stop_queue() {
	[ -n "$vm_pid" ] || return 0
	kill -TERM "-$vm_pid" 2>/dev/null || kill -TERM "$vm_pid" 2>/dev/null || return 0
	sq=0
	while kill -0 "-$vm_pid" 2>/dev/null && [ "$sq" -lt 150 ]; do
		sleep 0.2
		sq=$((sq + 1))
	done
}

# vm_queue COMMIT I PARENT: its guest into the queue, the queue
# (ci/guest-queue.sh) started with the first
vm_queue() {
	printf '%s %s %s\n' "$1" "$2" "${3:--}" >>"$RUN_DIR/vm-queue" ||
		die "run: cannot write $RUN_DIR/vm-queue (disk full?)"
	[ -z "$vm_pid" ] || return 0
	CI_DRIVER=$(proc_owner) CI_GUEST_STEP=$GUEST_STEP CI_N=$n CI_VM_JOBS=$CI_VM_JOBS \
		CI_VM_KB=$VM_KB CI_VM_NS_KB=$VM_NS_KB CI_SCHEDULE=$CI_SCHEDULE CI_OUT=$CI_OUT \
		CI_STEPS_FILE=$CI_STEPS_FILE CI_T0=$T0 CI_T_START=$T_START \
		setsid sh "$TOP/ci/guest-queue.sh" &
	vm_pid=$!
}
# vm_queue_say COMMIT I PARENT: vm_queue, said; vm_queued is the commit
vm_queue_say() {
	vm_queue "$@"
	vm_queued=$1
	progress "$2/$n $(printf %.12s "$1")" "$GUEST_STEP: queued, in the background (icount: the builds beside it change no figure)"
}
# vm_wait: the queue closed, every guest in it ended
vm_wait() {
	[ -n "$vm_pid" ] || return 0
	: >"$RUN_DIR/vm-closed"
	if alive "$vm_pid"; then
		vm_left=$(while read -r vc _; do [ -f "$RUN_DIR/$vc.$GUEST_STEP" ] || echo "$vc"; done <"$RUN_DIR/vm-queue" | wc -l)
		progress "$GUEST_STEP" "$vm_left guest run(s) still to end, up to $CI_VM_JOBS at once"
	fi
	wait "$vm_pid" || true
	vm_pid=
}
# vm_clock COMMIT STEP: after the first kernel step (STEP), which clock
# the guests get here, when the guest step can tell (step_<guest>_clock)
vm_clock() {
	[ -n "$GUEST_STEP" ] || return 0
	fn_of "$GUEST_STEP" && vc_f=step_${fn}_clock
	command -v "$vc_f" >/dev/null || return 0
	! outcome_of "$1" "$2" || [ "$ow" != FAIL ] || return 0
	if ! ck=$("$vc_f" "$1" "$RUN_DIR/clock"); then
		warn "plan: which clock the guests get here is not known yet: the first $GUEST_STEP run tells"
		return 0
	fi
	case $ck in
	*" icount")
		bg_vm=1
		progress plan "$GUEST_STEP runs under $ck here: the guests run beside the builds, in a queue" ;;
	*" wall")
		bg_vm=0
		progress plan "$GUEST_STEP runs under $ck here (a wall clock): each runs alone" ;;
	*)
		warn "plan: $vc_f said '$ck', not 'ACCEL icount' or 'ACCEL wall': the first $GUEST_STEP run tells" ;;
	esac
}
