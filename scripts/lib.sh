# Shared helpers for the x86-copy-series shell glue.  Source it; POSIX sh.
#
# Error format everywhere: "prog: step: what failed: why", on stderr,
# exit 1 for failures, 2 for usage.

LANG=C LC_ALL=C TZ=UTC
export LANG LC_ALL TZ

TOP=$(cd "$(dirname "$0")/.." && pwd)
PROG=${PROG:-$(basename "$0" .sh)}
OUT=${OUT:-$TOP/out}
# the C tools (make tools)
BIN=${BIN:-$OUT/bin}
# Every ref this toolkit writes in a kernel repository lives here, so a
# user's own branches and tags are never touched.
REF_NS=${REF_NS:-refs/x86-copy-series}

# shellcheck source=../series/pin.conf
. "$TOP/series/pin.conf"

# Our git calls must not depend on the user's configuration (autocrlf,
# filters, hooks, signing) or they stop being deterministic.
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL

# The maintainer's identity, "Name <address>", for the mails export.sh
# writes and send.sh sends: FROM if set; else user.name and user.email of
# the user's own git configuration (read past the two settings above,
# which are for the toolkit's other git calls); else SERIES_IDENT_DEFAULT,
# a placeholder that is no one's address (the series' own patches carry
# it until a maintainer exports them).
SERIES_IDENT_DEFAULT='x86-copy-series <x86-copy-series@example.org>'
# (one line: the identity goes into mail headers, From: and Message-Id:,
# where a line break would be a header of its own; refused, exit 2)
series_ident() {
	if [ -n "${FROM:-}" ]; then
		si=$FROM
	else
		si_name=$(unset GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL; git -C "$TOP" config user.name) || si_name=
		si_email=$(unset GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL; git -C "$TOP" config user.email) || si_email=
		si=$SERIES_IDENT_DEFAULT
		[ -z "$si_email" ] || si="${si_name:+$si_name }<$si_email>"
	fi
	case $si in
	*[[:cntrl:]]*) usage_die "the sender ${FROM:+(FROM) }has a line break or a control character: one line, 'Name <you@example.org>'" ;;
	esac
	printf '%s\n' "$si"
}

# The toolkit's external dependencies: name, then packages (tests give
# another list).
DEPS_LIST=${DEPS_LIST:-$TOP/scripts/deps.list} # not an input: what is installed, no result
# deps_packages [NAME...]: the packages of $DEPS_LIST, one a line; with
# NAMEs, those of these names only (an unknown name is an error)
# shellcheck disable=SC2120 # NAMEs are optional: none means every name
deps_packages() {
	[ -r "$DEPS_LIST" ] || die "deps: $DEPS_LIST is missing"
	for dp_name in "$@"; do
		awk -v n="$dp_name" '!/^#/ && $1 == n { f = 1 } END { exit !f }' "$DEPS_LIST" ||
			die "'$dp_name' is not a name of $DEPS_LIST"
	done
	awk -v names=" $* " '!/^#/ && NF && (names == "  " || index(names, " " $1 " ")) {
		for (i = 2; i <= NF; i++) print $i }' "$DEPS_LIST"
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

# write_file [-e] [-k] FILE [CMD [ARG...]]: CMD's output (no CMD: stdin)
# becomes FILE's whole new text.  The one way the scripts write a file of
# a fixed name where something else may have put a link first (OUT's
# files, the caches, patches/, whose links a pulled commit can carry):
# the text goes into a new file beside FILE (tmp_beside), which is
# renamed over FILE (mv -T: rename(2), which replaces a link at FILE and
# never writes through it; -T: a link to a directory is replaced too,
# not entered).  FILE is all of the new text or what it was; a failure
# (a full disk) leaves no temporary file.  -e: CMD's stderr goes into
# FILE too (a log, as 2>&1); -k: FILE is renamed in also when CMD fails
# (a log, kept to say why).  A device or a pipe at FILE (/dev/null, a
# FIFO) is written in place, never replaced.  CMD's status, or 1 when the
# temporary file could not be made or renamed (mktemp and mv say why),
# is returned: callers name FILE in the error they raise.  CMD may be a
# function of the caller (it runs in this shell), but must not call
# write_file (sh has no locals).  In a directory the run made itself
# (mktemp -d, or removed and made anew) no link can be waiting: a plain
# > is enough there.  lib/outfile.h is the same for the C tools.
write_file() {
	wf_e='' wf_k=''
	while :; do
		case ${1:-} in
		-e) wf_e=1 ;;
		-k) wf_k=1 ;;
		*) break ;;
		esac
		shift
	done
	wf_f=$1
	shift
	[ $# -gt 0 ] || set -- cat
	if [ -e "$wf_f" ] && [ ! -f "$wf_f" ] && [ ! -d "$wf_f" ] && [ ! -L "$wf_f" ]; then
		wf_t=$wf_f
	elif ! wf_tmp "$wf_f"; then
		wf_t=$(tmp_beside "$wf_f") || return 1
	fi
	wf_rc=0
	if [ -n "$wf_e" ]; then
		"$@" >"$wf_t" 2>&1 || wf_rc=$?
	else
		"$@" >"$wf_t" || wf_rc=$?
	fi
	[ "$wf_t" != "$wf_f" ] || return "$wf_rc"
	if [ "$wf_rc" = 0 ] || [ -n "$wf_k" ]; then
		mv -f -T "$wf_t" "$wf_f" || { [ "$wf_rc" != 0 ] || wf_rc=1; }
	fi
	rm -f "$wf_t"
	return "$wf_rc"
}

# wf_tmp FILE: sets wf_t to a new, empty file beside FILE,
# ".NAME.<pid>.<n>", made as mktemp makes its files (O_EXCL: the shell's
# noclobber, when nothing is at the name) with the mode a plain > gives;
# no process (a run writes hundreds of files).  False when anything is
# at that name, a link above all (noclobber would open a link to a
# device or a FIFO), or what was made is not a plain file: tmp_beside
# (mktemp, a random name) then.
wf_tmp() {
	wf_n=$((${wf_n:-0} + 1))
	case $1 in */*) wf_t=${1%/*}/.${1##*/}.$$.$wf_n ;; *) wf_t=.$1.$$.$wf_n ;; esac
	[ ! -e "$wf_t" ] && [ ! -L "$wf_t" ] || return 1
	case $- in *C*) wf_c=1 ;; *) wf_c= && set -C ;; esac
	wf_ok=0
	printf '' 2>/dev/null >"$wf_t" || wf_ok=1
	[ -n "$wf_c" ] || set +C
	[ "$wf_ok" = 0 ] && [ -f "$wf_t" ] && [ ! -L "$wf_t" ]
}

# tmp_beside FILE: the path of a new, empty file in FILE's directory,
# ".NAME.XXXXXX" (mktemp: O_EXCL, a name nothing had), with the mode a
# plain > gives (mktemp's is 0600): write_file's first half, for the
# writers that rename several files in together (mv -f -T TMP FILE)
tmp_beside() {
	tb_t=$(mktemp "$(dirname "$1")/.${1##*/}.XXXXXX") || return 1
	chmod "$(printf %o $((0666 & ~$(umask))))" "$tb_t" || { rm -f "$tb_t"; return 1; }
	printf '%s\n' "$tb_t"
}

# no_link FILE...: none of FILE is a symbolic link, or 1 with the first
# one named on stderr.  For the few files that are not written whole but
# added to, or held open, while a run goes on (a log, a queue, a lock):
# called before each >>, it refuses a link planted there instead of
# appending through it.
no_link() {
	for nl_f; do
		[ -L "$nl_f" ] || continue
		printf '%s: write: %s is a symbolic link (to %s): not written through; remove it\n' \
			"$PROG" "$nl_f" "$(readlink "$nl_f")" >&2
		return 1
	done
}

# patches_plain [DIR...]: every entry under DIR (default: $PATCHES) is a
# regular file or a directory: a symlink in patches/ (tracked: a pulled
# commit can carry one) would have apply, send or the checks read a file
# outside it, and trailers or export write through it.  Called by every
# tool of patches/ before it reads or changes anything: a refusal names
# the entry and changes nothing.  DIR itself may be a link (a copy of
# patches/ the user names); the C tools' rule is the same
# (lib/mbox.c: mbox_dir_plain).
patches_plain() {
	[ $# -gt 0 ] || set -- "$PATCHES"
	for pp_d; do
		[ -d "$pp_d" ] || continue
		pp_bad=$(find "$pp_d/" -mindepth 1 ! -type f ! -type d -printf '%y %p\n' | head -n 1)
		[ -n "$pp_bad" ] || continue
		case ${pp_bad%% *} in
		l) pp_what="a symbolic link (to '$(readlink "${pp_bad#* }")')" ;;
		p) pp_what='a FIFO' ;;
		*) pp_what="not a regular file (find -type ${pp_bad%% *})" ;;
		esac
		die "patches: '${pp_bad#* }' is $pp_what: patches/ holds regular files only, none is read or written through a link; put the file itself there (git rm the link, git add the file); nothing changed"
	done
}

# die_rc RC MSG...: die, but with the status of the tool that failed when
# it was more than a plain failure (a crash, a sanitizer's 86), so that the
# caller sees what the tool said, not a flattened 1
die_rc() {
	rc=$1
	shift
	printf '%s: %s\n' "$PROG" "$*" >&2
	[ "$rc" -gt 1 ] 2>/dev/null || rc=1
	exit "$rc"
}

usage_die() {
	printf '%s: usage: %s\n' "$PROG" "$*" >&2
	exit 2
}

warn() {
	printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

# claims_lint SERIES FIGURES: claims-lint on them (paths from here, made
# absolute: it runs at the top of the checkout, where the records named
# in FIGURES are); its refusals on stderr, its exit status
claims_lint() {
	set -- "$(realpath -m "$1")" "$(realpath -m "$2")" "$(realpath -m "$BIN")"
	(cd "$TOP" && "$3/claims-lint" --series "$1" --figures "$2") >/dev/null
}

# tool_built NAME...: the C tools NAME are built in $BIN, or say how
tool_built() {
	for tb_name in "$@"; do
		[ -x "$BIN/$tb_name" ] || die "tools: $BIN/$tb_name is not built: run 'make tools'"
	done
}

# tools_plain WHY: $BIN is not the test suite's sanitized build (make
# test-prep writes -fsanitize into the flags file beside it): WHY says
# what that build would spoil
tools_plain() {
	! grep -qs -e -fsanitize "$(dirname "$BIN")/cflags" ||
		die "tools: $BIN is the test suite's sanitized build ($(dirname "$BIN")/cflags): $1; 'make costs' or 'make tools' builds them plain"
}

# uptime_s: sets up_now, whole seconds since the boot (/proc/uptime): a
# read, no process, for the elapsed times of progress lines and steps
# (a run prints hundreds); the same boot for a run and its children
uptime_s() {
	read -r up_now _ </proc/uptime
	up_now=${up_now%.*}
}
uptime_s
T0=$up_now
# progress STEP MSG: what is going on now, with the elapsed time
progress() {
	uptime_s
	printf '[%4ss] %s: %s\n' "$((up_now - T0))" "$1" "$2" >&2
}

# The kernel repository the toolkit works on: the pinned submodule, or the
# user's own clone (KERNEL_TREE=...), which is only ever used through a
# linked worktree and refs under $REF_NS.
kernel_repo() {
	if [ -n "${KERNEL_TREE:-}" ]; then
		printf '%s\n' "$KERNEL_TREE"
	else
		printf '%s\n' "$TOP/kernel-tree"
	fi
}
# REF_NS (tests give their own) stays in the toolkit's namespace: with
# KERNEL_TREE it is written in the user's repository.
case $REF_NS in
refs/x86-copy-series|refs/x86-copy-series-?*) ;;
*) usage_die "REF_NS='$REF_NS' must be refs/x86-copy-series or refs/x86-copy-series-<name>: the toolkit writes no other refs" ;;
esac
# KERNEL_BASE names a commit of the user's own tree; the pinned tree's
# base is the pin.  Without KERNEL_TREE it would be ignored: refuse it.
[ -z "${KERNEL_BASE:-}" ] || [ -n "${KERNEL_TREE:-}" ] ||
	usage_die "KERNEL_BASE='$KERNEL_BASE' is for your own linux clone: set KERNEL_TREE=<its path> too (the pinned kernel-tree's base is the pin, $PIN_TAG)"
# git_dir_ok DIR: git reads the repository at DIR, or 1 (the caller says
# why it needs one); where git refuses it as another user's (its
# safe.directory check, "dubious ownership"), the run stops with git's own
# words and the remedies that work, never with a guess of its own (that
# it is no repository, or another repository's worktree)
git_dir_ok() {
	gdo_err=$(git -C "$1" rev-parse --git-dir 2>&1 >/dev/null) && return 0
	case $gdo_err in
	*"dubious ownership"*)
		gdo_owner=$(stat -c %U "$1" 2>/dev/null) || gdo_owner='another user'
		die "git: $1: git refuses it: $(printf '%s' "$gdo_err" | tr '\n\t' '  ' | tr -s ' ')
  it belongs to $gdo_owner, and this run is $(id -un): run as $gdo_owner, or, trusting its files (git runs their hooks and config), do what git says above; nothing changed" ;;
	esac
	return 1
}

# KERNEL_TREE is the top of a repository (or a bare one), not a directory
# in one: git would work on whatever repository is above it.
# One git a sourcing (every script of a run sources this file): bare or
# not, its git directory, its top (a bare one has none); where git reads
# nothing there, git_dir_ok says why if git refused another user's tree.
if [ -n "${KERNEL_TREE:-}" ]; then
	kt_dir=$(cd "$KERNEL_TREE" 2>/dev/null && pwd -P) || kt_dir=
	kt_out=
	[ -z "$kt_dir" ] ||
		kt_out=$(git -C "$kt_dir" rev-parse --is-bare-repository --absolute-git-dir --show-toplevel 2>/dev/null) || true
	kt_bare='' kt_gd='' kt_top=''
	{ read -r kt_bare; read -r kt_gd; read -r kt_top; } <<-EOF || true
	$kt_out
	EOF
	case $kt_bare in
	true) kt_top=$kt_gd ;;
	false) ;;
	*) kt_top= && [ -z "$kt_dir" ] || git_dir_ok "$kt_dir" || true ;;
	esac
	[ -n "$kt_dir" ] && [ "$(cd "${kt_top:-/nonexistent}" 2>/dev/null && pwd -P)" = "$kt_dir" ] ||
		die "repo: KERNEL_TREE='$KERNEL_TREE' is not a git repository${kt_top:+ (it is a directory inside $kt_top)}: name the top of your linux clone"
fi

# The worktree where patches are applied and commits are checked out for
# building; never the user's own working tree.
WORKTREE=${WORKTREE:-$OUT/tree}

# (kernel_repo's choice without its subshell: a run calls this hundreds
# of times)
kgit() {
	git -C "${KERNEL_TREE:-$TOP/kernel-tree}" "$@"
}

wgit() {
	git -C "$WORKTREE" "$@"
}

# wam ARG...: git am in $WORKTREE, with its gc --auto in the foreground:
# one it detached would hold the run's worktree_lock long after the run
wam() {
	wgit -c gc.autoDetach=false -c maintenance.autoDetach=false am "$@"
}

# worktree_check: $WORKTREE exists and is a worktree of $(kernel_repo).
# Check it before moving the worktree or writing a ref: with KERNEL_TREE
# naming another repository, commits and refs would land in two places.
worktree_check() {
	[ -e "$WORKTREE/.git" ] ||
		die "worktree: $WORKTREE is missing: run 'make kernel-tree' first"
	git_dir_ok "$(kernel_repo)" || true
	git_dir_ok "$WORKTREE" || true
	wt_common=$(cd "$WORKTREE" && cd "$(git rev-parse --git-common-dir)" && pwd -P) ||
		die "worktree: $WORKTREE is not a git worktree: remove it and run 'make kernel-tree'"
	wt_mine=$(cd "$(kernel_repo)" 2>/dev/null && cd "$(git rev-parse --git-common-dir)" && pwd -P) ||
		die "repo: '$(kernel_repo)' is not a git repository"
	[ "$wt_common" = "$wt_mine" ] ||
		die "worktree: $WORKTREE belongs to the repository $wt_common, not to $(kernel_repo) (KERNEL_TREE): use the repository it belongs to, or remove it ('rm -rf $WORKTREE; git -C $wt_common worktree prune'); nothing changed"
}

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

# A git am of the toolkit in $WORKTREE (apply, repin) leaves this marker in
# the worktree's own git directory while it runs: a run killed outright
# (SIGKILL, a power cut) is then known to be ours, and the next one cleans
# what it left, instead of calling it the user's local changes.  It holds
# the owner record of the run, then what it does (am_marker_write WHAT);
# a marker whose owner is alive is a run's that goes on, never cleaned.
am_marker() {
	printf '%s/x86-copy-series-am\n' "$(wgit rev-parse --absolute-git-dir)"
}

am_marker_write() {
	printf '%s %s\n' "$(proc_owner)" "$1" | write_file "$(am_marker)"
}

# am_restore PATCH: put the files PATCH names back as HEAD has them (a new
# file of it is removed): what a git am cut short in PATCH leaves behind
am_restore() {
	sed -n 's|^--- a/\([^	]*\).*|\1|p; s|^+++ b/\([^	]*\).*|\1|p
		s|^rename from ||p; s|^rename to ||p; s|^copy to ||p' "$1" | sort -u |
	while IFS= read -r p; do
		if wgit cat-file -e "HEAD:$p" 2>/dev/null; then
			wgit checkout -q HEAD -- "$p"
		else
			wgit rm -q --cached --ignore-unmatch -- "$p" >/dev/null
			rm -f "$WORKTREE/$p"
		fi
	done
}

# index_lock_free GITDIR: GITDIR holds no index.lock: one a running
# process has open (a git of this run, ending) is waited for, up to 300
# looks; one that no process has open (a git killed in the middle) is
# removed.  /proc shows the lock by its resolved path: GITDIR is resolved
# too (a symlinked OUT), or a live lock would look unheld and be removed.
index_lock_free() {
	ilf=$(cd "$1" && pwd -P)/index.lock || return 1
	ilf_n=0
	while [ -e "$ilf" ]; do
		if [ -z "$(find /proc/[0-9]*/fd -lname "$ilf" 2>/dev/null | head -n 1)" ]; then
			rm -f "$ilf" || return 1
			continue
		fi
		ilf_n=$((ilf_n + 1))
		[ "$ilf_n" -le 300 ] || {
			echo "a running git holds $ilf (ls -l /proc/[0-9]*/fd | grep index.lock finds it)" >&2
			return 1
		}
		sleep 0.1
	done
}

# am_undo [COMMIT]: end the toolkit's git am in $WORKTREE whatever state
# a signal, a kill or a failure left git in (index.lock behind, the am in
# progress, the files of a patch half written, a file staged), and, with
# COMMIT, check COMMIT out (the caller's run began with a clean tree: a
# file staged that HEAD lacks is removed).  It runs in a subshell with set -e off, so it
# never ends its caller half-way (a trap, under set -e): 0 when no am is
# left and, with COMMIT, the worktree is at COMMIT and clean; else 1 and
# the reason on stderr.
am_undo() (
	set +e
	gd=$(wgit rev-parse --absolute-git-dir) || {
		echo "git cannot read $WORKTREE" >&2
		exit 1
	}
	index_lock_free "$gd" || exit 1
	[ ! -f "$gd/rebase-apply/patch" ] || am_restore "$gd/rebase-apply/patch" 2>/dev/null
	index_lock_free "$gd" || exit 1
	# with COMMIT, the caller's run owns the tree, clean when it began: a
	# file staged that HEAD lacks is the run's, and the abort and the
	# checkout would leave it behind, untracked
	[ -z "${1:-}" ] ||
		wgit diff --cached --name-only --no-renames --diff-filter=A -z HEAD 2>/dev/null |
		(cd "$WORKTREE" && xargs -0 -r rm -f --)
	if [ -d "$gd/rebase-apply" ]; then
		# git am wants a committer even to abort
		committer_env
		wgit am --abort >/dev/null 2>&1 || wgit am --quit >/dev/null 2>&1 || {
			echo "git am --abort and --quit failed in $WORKTREE" >&2
			exit 1
		}
	fi
	[ -n "${1:-}" ] || exit 0
	au_err=$(wgit checkout -q -f --detach "$1" 2>&1) || {
		echo "git checkout of $1 failed: $au_err" >&2
		exit 1
	}
	[ "$(wgit rev-parse HEAD 2>/dev/null)" = "$(wgit rev-parse "$1^{commit}" 2>/dev/null)" ] &&
	[ -z "$(wgit status --porcelain --untracked-files=no 2>/dev/null)" ] || {
		echo "$WORKTREE is not clean at $1 after the checkout (git -C $WORKTREE status)" >&2
		exit 1
	}
)

# worktree_idle: refuse $WORKTREE while a git operation that the toolkit
# did not start is in progress there, as git itself tells them apart (the
# worktree's own git directory, wt_status_get_state()): a rebase
# (rebase-merge/, or rebase-apply/ of git rebase --apply), a merge, a
# cherry-pick or revert (one commit, or a sequence: sequencer/), a
# bisect.  apply, repin and range-diff check other commits out and run
# git am there: under a rebase stopped at 'edit', or a bisect, they broke
# it.  Each is named with the command that ends it; nothing changes.  (A
# git am is am_clean_stale's: a killed run of ours leaves one.)  Call it
# under worktree_lock, before anything moves.
worktree_idle() {
	wi_gd=$(wgit rev-parse --absolute-git-dir) ||
		die "worktree: $WORKTREE: git cannot read it"
	wi_git="git -C $WORKTREE"
	if [ -d "$wi_gd/rebase-merge" ] || [ -f "$wi_gd/rebase-apply/rebasing" ]; then
		wi_what="a rebase" wi_end="'$wi_git rebase --continue' until it ends, or '$wi_git rebase --abort'"
	elif [ -f "$wi_gd/MERGE_HEAD" ]; then
		wi_what="a merge" wi_end="commit it, or '$wi_git merge --abort'"
	elif [ -f "$wi_gd/CHERRY_PICK_HEAD" ]; then
		wi_what="a cherry-pick" wi_end="'$wi_git cherry-pick --continue', or '$wi_git cherry-pick --abort'"
	elif [ -f "$wi_gd/REVERT_HEAD" ]; then
		wi_what="a revert" wi_end="'$wi_git revert --continue', or '$wi_git revert --abort'"
	elif [ -d "$wi_gd/sequencer" ]; then
		# a sequence whose commit in hand is done: its next is in todo
		wi_cmd=revert
		[ "$(sed -n '1s/[[:space:]].*//p' "$wi_gd/sequencer/todo" 2>/dev/null)" = revert ] ||
			wi_cmd=cherry-pick
		wi_what="a $wi_cmd of several commits" wi_end="'$wi_git $wi_cmd --continue', or '$wi_git $wi_cmd --abort'"
	elif [ -f "$wi_gd/BISECT_START" ]; then
		wi_what="a bisect" wi_end="'$wi_git bisect reset'"
	else
		return 0
	fi
	die "worktree: $wi_what that the toolkit did not start is in progress in $WORKTREE: end it ($wi_end), then run this again; nothing changed"
}

# am_clean_stale: end a git am of ours that a killed run left in $WORKTREE,
# and restore the files of the patch it was applying; refuse an am that is
# not ours, another operation in progress (worktree_idle), and a marker
# whose run is alive.  Call it under worktree_lock.
am_clean_stale() {
	worktree_idle
	gd=$(wgit rev-parse --absolute-git-dir) && mk=$(am_marker) ||
		die "worktree: $WORKTREE: git cannot read it"
	if [ ! -f "$mk" ]; then
		[ ! -d "$gd/rebase-apply" ] ||
			die "worktree: a git am that the toolkit did not start is in progress in $WORKTREE: end it ('git -C $WORKTREE am --abort'), then run this again; nothing changed"
		return 0
	fi
	acs_pid='' acs_start='' acs_boot='' acs_what=''
	read -r acs_pid acs_start acs_boot acs_what <"$mk" 2>/dev/null || true
	! owner_alive "$acs_pid" "$acs_start" "$acs_boot" ||
		die "worktree: a run of the toolkit is applying patches in $WORKTREE: ${acs_what:-a git am}, pid $acs_pid: wait for it to end; nothing changed"
	progress worktree "cleaning up after an interrupted run ($(head -n 1 "$mk"))"
	acs_why=$(am_undo 2>&1) ||
		die "worktree: could not end the interrupted git am in $WORKTREE: $acs_why: run 'git -C $WORKTREE am --abort'"
	rm -f "$mk"
}

# The commit the series applies to.
base_commit() {
	bc=$(kgit rev-parse --verify -q "$REF_NS/base^{commit}") ||
		die "base: $REF_NS/base is not set in $(kernel_repo): run 'make kernel-tree' first"
	# KERNEL_BASE is honoured or refused, never ignored
	if [ -n "${KERNEL_BASE:-}" ]; then
		want=$(kgit rev-parse --verify -q "$KERNEL_BASE^{commit}") ||
			die "base: KERNEL_BASE='$KERNEL_BASE' is not a commit in $(kernel_repo)"
		[ "$want" = "$bc" ] ||
			die "base: KERNEL_BASE='$KERNEL_BASE' is $want, but $REF_NS/base is $bc: run 'make kernel-tree KERNEL_TREE=$KERNEL_TREE KERNEL_BASE=$KERNEL_BASE' to move the base"
	fi
	echo "$bc"
}

# commit_list [WORD...]: the one commit resolver of build, checks, bench,
# bench-vm and ci.  The commit ids of WORDs, one a line, in order; a WORD
# is "base" (the series' base), "head" (its last commit) or any git
# revision.  No WORD: the base and every series commit.  A tool whose
# default is shorter says it in words ("base head").  Use as
# commits=$(commit_list "$@") || exit 1
commit_list() {
	if [ $# = 0 ]; then
		cl_base=$(base_commit) || exit 1
		cl_head=$(commit_list head) || exit 1
		echo "$cl_base"
		kgit rev-list --reverse "$cl_base..$cl_head"
		return
	fi
	for cl_word in "$@"; do
		case $cl_word in
		base) base_commit || exit 1 ;;
		head)
			kgit rev-parse -q --verify "$REF_NS/series^{commit}" ||
				die "series: $REF_NS/series is not set in $(kernel_repo): run 'make apply' first, or name the commits"
			;;
		*)
			kgit rev-parse --verify -q "$cl_word^{commit}" ||
				die "commits: '$cl_word' is not a commit in $(kernel_repo)"
			;;
		esac
	done
}

# commit_subjects ID...: "ID<TAB>SUBJECT" a line, in the order given: the
# commits files ci-report, ci-merge and the results sets read
commit_subjects() {
	for cs_c; do
		cs_s=$(kgit log -1 --format=%s "$cs_c") || return 1
		printf '%s\t%s\n' "$cs_c" "$cs_s" || return 1
	done
}

# tree_of COMMIT: its tree id: what a build or a guest run of it is made
# of (a changelog edit gives a commit a new id and the same tree)
tree_of() {
	kgit rev-parse --verify -q "$1^{tree}" ||
		die "commits: '$1' has no tree in $(kernel_repo)"
}

# tool_versions PROG...: "PROG <the first line of PROG --version>" a line
# each, "PROG absent" for one that is not installed: what of the toolchain
# a step's results are made of (its stamp, its caches)
tool_versions() {
	for tv_p; do
		if command -v "$tv_p" >/dev/null; then
			printf '%s %s\n' "$tv_p" "$("$tv_p" --version 2>&1 | sed -n '/./{p;q;}')"
		else
			printf '%s absent\n' "$tv_p"
		fi
	done
}

# stamp_fresh FILE TEXT: FILE holds TEXT, the inputs of what it stamps:
# that is up to date.  stamp_write FILE TEXT: the stamp, written whole,
# as the last thing a step does.  The one stamp of build, KUnit and ci.
stamp_fresh() {
	[ -f "$1" ] || return 1
	# read by the shell, not cat (a run asks this of every commit and
	# step), its trailing newlines dropped as $(cat) drops them
	sf_t='' sf_l='' sf_nl='
'
	while IFS= read -r sf_l || [ -n "$sf_l" ]; do
		sf_t=$sf_t$sf_l$sf_nl
		sf_l=
	done <"$1" || return 1
	while :; do
		case $sf_t in *"$sf_nl") sf_t=${sf_t%"$sf_nl"} ;; *) break ;; esac
	done
	[ "$sf_t" = "$2" ]
}

stamp_write() {
	printf '%s\n' "$2" | write_file "$1"
}

# cover_version FILE: the version its Subject gives ("[PATCH vN m/n]",
# "[RFC PATCH vN ...]"; none: 1), or nothing when it is no cover's
cover_version() {
	sed -n '/^$/q; s/^Subject: \[\(RFC \)\{0,1\}PATCH \(v\([0-9][0-9]*\) \)\{0,1\}0*[0-9][0-9]*\/[0-9][0-9]*\].*/v\3/p' "$1" |
		head -n 1 | sed 's/^v$/1/; s/^v//'
}

# report_of VALUE: the report.json a REPORT= value names: the file, or
# the one in the directory (a report's, out/report/<set>); a committed
# result set, or nothing there, is refused with the way in
report_of() {
	if [ -d "$1" ] && [ -f "$1/report.json" ]; then
		printf '%s\n' "${1%/}/report.json"
	elif [ -d "$1" ] && [ -f "$1/commits.txt" ]; then
		die "report: $1 is a result set, not a report: 'make report RESULTS=$1' makes its report (out/report/<set>), then REPORT= that directory"
	elif [ -f "$1" ]; then
		printf '%s\n' "$1"
	else
		die "report: $1 is missing: run 'make' (or make ci) first; or 'make report RESULTS=<set>' for a committed set, then REPORT= its directory"
	fi
}

# ccache_share DIR...: ccache serves a kernel build whatever the path of
# this checkout and of the build.  The compile's own directory (each
# commit's O=) is left out of the hash (CCACHE_NOHASHDIR), and absolute
# paths under the common parent of DIRs (the source tree and the O=
# directories) are given to the compiler relative to it (CCACHE_BASEDIR):
# without that, a fresh clone, whose paths are others, missed for every
# object (measured: a clone's make quick rebuilt the base cold).  Nothing
# of a path lands in the objects: the configs have no debug info, and
# kbuild maps the source tree's prefix out of __FILE__.  A common parent
# that is / shares nothing: ccache is told no base directory then.
# A miss is compiled in ccache's depend mode (CCACHE_DEPEND): the
# compiler's own dependency file (kbuild's -Wp,-MMD) names the headers,
# so no preprocessor run is made only to hash its output.  Measured
# (tinyconfig + build/kernel.config, mm/ kernel/ lib/, 336 objects,
# an empty cache, 2 cores): 280 -> 211 s of CPU, 146 -> 109 s wall; the
# objects and kbuild's .cmd files byte for byte the same; hits as before.
ccache_share() {
	cs_base=$(realpath -m "$1")
	shift
	for cs_d; do
		cs_d=$(realpath -m "$cs_d")
		while [ "$cs_base" != / ]; do
			case $cs_d/ in "$cs_base"/*) break ;; esac
			cs_base=$(dirname "$cs_base")
		done
	done
	CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
	export CCACHE_NOHASHDIR CCACHE_DEPEND
	if [ "$cs_base" != / ]; then
		CCACHE_BASEDIR=$cs_base
		export CCACHE_BASEDIR
	fi
}

# tree_paths_out TREE O: compiler messages (stdin) with the tree's path
# taken out, in both forms the compiler may have been given it: absolute,
# or relative to the build directory O (ccache_share), so that findings
# of builds made either way compare
tree_paths_out() {
	sed -e "s|$1/||g" -e "s|$(realpath -m --relative-to="$2" "$1")/||g"
}

# Fixed committer identity and date: re-applying gives the same commit ids.
committer_env() {
	GIT_COMMITTER_NAME=$PIN_IDENT_NAME
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL
	GIT_COMMITTER_DATE=$PIN_DATE
	export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
}

# import_tarball DIR TARBALL VERSION SHA256 DATE: extract Debian's
# $PIN_PACKAGE source tarball into a new repository at DIR and commit it
# as one commit with the fixed identity, DATE and message of the pin, so
# that the same tarball always gives the same commit id.  The one import
# for kernel-tree.sh (the pin) and repin.sh (TO_DEBIAN): a re-pin's commit
# is the one a fresh clone's 'make kernel-tree' makes from the new pin.
import_tarball() {
	dir=$1 tarball=$2 version=$3 sha=$4 date=$5
	progress import "extracting $tarball"
	mkdir -p "$dir"
	xz -dc -T0 "$tarball" | tar -x --no-same-owner --strip-components=1 -C "$dir" ||
		die "import: extracting '$tarball' failed (disk full? see the message above)"
	progress import "committing $(find "$dir" -type f | wc -l) files"
	git -C "$dir" init -q -b import
	# Debian's top-level .gitignore ignores everything: force the add.
	# Every blob over one byte goes straight into one pack, no delta
	# search (core.bigFileThreshold=1: git add's bulk checkin), instead
	# of 92k loose objects that a 'git gc --auto' packs again; gc.auto=0:
	# no gc started behind the import, racing the tests for the CPUs
	# (or, left loose, the first commit in a worktree of it).  zlib's
	# level 1, as for loose objects: level 6 costs the add 11 s more of
	# its ~25 s for a pack 16% smaller.  The trees and the commit, loose,
	# are packed too (repack -d: those alone), so the repository is
	# whole and packed before it is moved in place.
	git -C "$dir" -c core.bigFileThreshold=1 -c pack.compression=1 -c gc.auto=0 add -f -A .
	GIT_AUTHOR_NAME=$PIN_IDENT_NAME GIT_AUTHOR_EMAIL=$PIN_IDENT_EMAIL \
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_NAME=$PIN_IDENT_NAME \
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL GIT_COMMITTER_DATE=$date \
		git -C "$dir" -c gc.auto=0 commit -q --no-verify -m "Import $PIN_PACKAGE $version

Debian's $PIN_PACKAGE source ($PIN_TARBALL),
sha256 $sha, imported as one commit by x86-copy-series." &&
	git -C "$dir" repack -q -d
}
