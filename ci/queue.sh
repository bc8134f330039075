# ci/queue.sh: what the guest queue asks before it starts a guest: room
# (jobs, a kernel build beside it, memory) and whether a child lives.
# Sourced by ci/run.sh.  POSIX sh.

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
