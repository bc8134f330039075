# scripts/lib-lock.sh: one run at a time where two would spoil each
# other's work (the worktree, OUT, the checks worktree), and renames that
# a Ctrl-C cannot cut.  Sourced by scripts/lib.sh; POSIX sh.

# signals_held FUNC: run FUNC (a function of the caller: renames that
# must all happen or none) where a Ctrl-C cannot cut it.  Ctrl-C goes to
# the whole process group, so trapping it in this shell would not do:
# each mv would still die of it.  FUNC runs in a subshell that ignores
# INT, TERM and HUP, which the programs it starts inherit; a signal that
# came meanwhile is in $late (130, 143, 129: the caller exits with it once
# it has said so), empty when none did.  FUNC's status is returned.
# Then INT, TERM and HUP exit 130, 143, 129 (the caller's EXIT trap
# runs), as the toolkit's scripts set them.
signals_held() {
	# shellcheck disable=SC2034 # the caller's
	late=
	trap 'late=130' INT
	trap 'late=143' TERM
	trap 'late=129' HUP
	sh_rc=0
	(
		trap '' INT TERM HUP
		"$1"
	) || sh_rc=$?
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	return "$sh_rc"
}

# Owners of locks and markers: proc_start, boot_id, proc_owner,
# owner_alive
# shellcheck source=../scripts/owner.sh
. "$TOP/scripts/owner.sh"

# lock_take FD FILE ENV WHAT HELD: FILE, open on FD (6, 7 or 8) by the
# caller, is flock(1)'s lock for this run until it exits, or the run is
# refused at once, naming the live run that holds it: pid and WHAT (HELD
# says what the holder does, for the message).  The kernel lets go of an
# flock when the last process holding it ends, a SIGKILL included, so
# nothing stale is ever taken for a lock.  The file also names its holder
# (an owner record, then WHAT).  The processes of the run hold it too (a
# git am that goes on after its apply was killed, a guest being cleaned):
# the next run waits for them (up to 30 s), never working under them.  A
# run that the holder started (range-diff and trailers run apply.sh)
# goes on under its lock: it inherits the open
# lock, ENV names the file, and flock on that same open file succeeds,
# where any other run's open of the file waits.  ENV empty: no run
# inherits it, a nested one is refused as any other.
lock_take() {
	lt_fd=$1 lt_file=$2 lt_env=$3 lt_what=$4 lt_held=$5
	case $lt_fd in 6 | 7 | 8) ;; *) die "lock_take: fd '$lt_fd': not 6, 7 or 8" ;; esac
	lt_inherited=''
	case $lt_env in
	'') ;;
	XCS_[A-Z_]*) eval "lt_inherited=\${$lt_env:-}" ;;
	*) die "lock_take: '$lt_env': not an XCS_ variable" ;;
	esac
	[ -z "$lt_inherited" ] || [ "$lt_inherited" != "$lt_file" ] ||
		! flock -n "$lt_fd" 2>/dev/null || return 0
	# held open, the same file for every run (flock): not replaced but
	# opened where it is, and a link there refused
	no_link "$lt_file" || die "lock: cannot open '$lt_file' (see above); nothing changed"
	case $lt_fd in
	6) command exec 6>>"$lt_file" ;;
	7) command exec 7>>"$lt_file" ;;
	8) command exec 8>>"$lt_file" ;;
	esac || die "lock: cannot open '$lt_file' (see above); nothing changed"
	lt_n=0
	until flock -n "$lt_fd"; do
		lt_pid='' lt_start='' lt_boot='' lt_name=''
		read -r lt_pid lt_start lt_boot lt_name <"$lt_file" 2>/dev/null || true
		owner_alive "$lt_pid" "$lt_start" "$lt_boot" &&
			die "lock: another run is $lt_held: ${lt_name:-a run of the toolkit}, pid $lt_pid: wait for it to end (or stop it: kill $lt_pid); nothing changed"
		# its owner is gone: processes it started still hold the lock;
		# a new owner may be writing its name: look again
		lt_n=$((lt_n + 1))
		[ "$lt_n" -le 300 ] ||
			die "lock: processes of a run that is no longer alive (pid ${lt_pid:-unknown}) still hold $lt_file: end them (ls -l /proc/[0-9]*/fd | grep '$(basename "$lt_file")' finds them); nothing changed"
		[ "$lt_n" != 10 ] ||
			progress lock "waiting for the processes of a run that is no longer alive (pid ${lt_pid:-unknown}) to let go of $lt_file"
		sleep 0.1
	done
	no_link "$lt_file" && printf '%s %s\n' "$(proc_owner)" "$lt_what" >"$lt_file" ||
		die "lock: cannot write '$lt_file' (disk full?); nothing changed"
	[ -n "$lt_env" ] || return 0
	eval "$lt_env=\$lt_file"
	# shellcheck disable=SC2163 # the variable ENV names
	export "$lt_env"
}

# worktree_lock WHAT: this run is the only run of the toolkit that
# changes $WORKTREE (apply, repin, range-diff) until it exits (lock_take
# on $gitdir/x86-copy-series.lock, fd 8)
worktree_lock() {
	wl_file=$(wgit rev-parse --absolute-git-dir)/x86-copy-series.lock ||
		die "worktree: $WORKTREE: git cannot read it"
	lock_take 8 "$wl_file" XCS_WORKTREE_LOCK "$1" "changing $WORKTREE"
}

# out_lock WHAT: this run is the only pipeline run (ci/run.sh: make, make
# quick, make ci and their views) writing into $OUT until it exits
# (lock_take on $OUT/.run.lock, fd 6): two would build in one tree, write
# one step's attempt directory and stamps, and take each other's results.
# Not inherited: the guest queue and its steps take no lock (ci/run.sh),
# and any other run.sh started under a run is refused.
out_lock() {
	mkdir -p "$OUT" || die "out: cannot create '$OUT'"
	lock_take 6 "$OUT/.run.lock" '' "$1" "running on $OUT"
}

# checks_tree_lock TREE WHAT: this run is the only one that checks out
# commits in the checks worktree TREE until it exits (lock_take on
# TREE.lock, fd 7): two would build and check each other's commits and
# record them under their own (a KUnit kernel built while another run had
# checked out its commit).  kunit.sh, run by checks.sh, goes on under
# checks.sh's lock (XCS_CHECKS_LOCK).
checks_tree_lock() {
	mkdir -p "$(dirname "$1")" || die "checks: cannot create '$(dirname "$1")'"
	lock_take 7 "$1.lock" XCS_CHECKS_LOCK "$2" "checking out commits in $1"
}

