# scripts/owner.sh: who owns a lock, a marker or a run directory.
# Sourced by scripts/lib.sh and bench-vm/rundir.sh (which its tests also
# source alone); POSIX sh, no other dependency.
#
# Owners of locks and markers.  A pid alone is given again to other
# processes: an owner is "PID START BOOT", the pid, its start time and the
# boot, and it is alive only while all three match (the am marker and
# worktree lock of scripts/lib.sh, the run directories of
# bench-vm/rundir.sh).
#
# proc_start PID: the process's start time, in clock ticks after boot
# (field 22 of /proc/PID/stat; the command name before it may hold
# blanks and parentheses, so the fields are counted after its last ')');
# nothing for a zombie, which is dead
proc_start() {
	case $1 in '' | *[!0-9]*) return 0 ;; esac
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '$1 != "Z" && $1 != "X" { print $20 }'
}

boot_id() {
	cat /proc/sys/kernel/random/boot_id
}

# proc_owner: this shell's owner record, "PID START BOOT"
proc_owner() {
	printf '%s %s %s\n' "$$" "$(proc_start $$)" "$(boot_id)"
}

# owner_alive PID START BOOT: that process is still running
owner_alive() {
	[ -n "${2:-}" ] && [ "${3:-}" = "$(boot_id)" ] && [ "$(proc_start "$1")" = "$2" ]
}
