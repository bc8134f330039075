# scripts/owner.sh: who owns a lock, a marker or a run directory.
# Sourced by scripts/lib.sh and bench-vm/rundir.sh (which its tests also
# source alone); POSIX sh; the directory functions call the includer's
# die and progress.
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

# Directories of a run (its stages, its scratch): each has an owner
# file, .owner, so that the next run can tell a live run from a dead one
# and remove what a run killed outright (SIGKILL: no EXIT trap ran) left.

# run_alive DIR: DIR's owner is alive (same pid, start time and boot)
run_alive() {
	[ -f "$1/.owner" ] || return 1
	read -r ra_pid ra_start ra_boot 2>/dev/null <"$1/.owner" || return 1
	owner_alive "$ra_pid" "$ra_start" "$ra_boot"
}

# dir_in_use DIR: a running process names DIR/ in its command line (a
# QEMU of the run: its NVDIMM and output paths).  awk takes DIR from its
# environment, so that its own command line does not name it.
dir_in_use() {
	cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' |
		D="$1/" awk 'index($0, ENVIRON["D"]) { found = 1 } END { exit !found }'
}

# run_dir_make PARENT NAME: run_dir, a fresh PARENT/NAME.XXXXXX (mode
# 0700, as mktemp makes it) owned by this shell (.owner)
run_dir_make() {
	run_dir=$(mktemp -d "$1/$2.XXXXXX") || die "run: cannot create a directory in $1"
	# (one short write: another run's runs_clean sees no file, an empty
	# one, which it treats as no file, or the whole line)
	proc_owner | cat >"$run_dir/.owner" || {
		rm -rf "$run_dir"
		die "run: writing $run_dir/.owner failed (the reason is above: a full disk?): free space there"
	}
}

# runs_clean PARENT GLOB WHAT: a directory without an owner file (or
# with an empty one: run_dir_make between creating it and writing it)
# was made by an older run, or is being made right now: it goes only when nothing
# running names it and it has not changed for 10 minutes.  Another
# user's (a shared TMPDIR) is never looked into.
runs_clean() {
	for rc_d in "$1"/$2; do
		[ -d "$rc_d" ] && [ ! -L "$rc_d" ] && [ -O "$rc_d" ] || continue
		if [ -s "$rc_d/.owner" ]; then
			run_alive "$rc_d" && continue
			rc_who="run $(cut -d' ' -f1 "$rc_d/.owner" 2>/dev/null), no longer alive"
		else
			[ -z "$(find "$rc_d" -maxdepth 0 -mmin -10)" ] && ! dir_in_use "$rc_d" || continue
			rc_who="no owner file, nothing running names it"
		fi
		rm -rf "$rc_d" || die "run: cannot remove $rc_d ($3 of a run that is no longer alive)"
		progress "${label:-run}" "removed $rc_d: $3 of a dead run ($rc_who)"
	done
}

# stage_make PARENT NAME WHAT: run_dir, a fresh PARENT/NAME.XXXXXX owned
# by this run, once the NAME.XXXXXX that dead runs left in PARENT are
# removed (WHAT names them in the message; six characters after the dot,
# as mktemp makes them: NAME.XXXXXX.old, a user's previous results moved
# aside, is not one)
stage_make() {
	runs_clean "$1" "$2.??????" "$3"
	run_dir_make "$1" "$2"
}
