# Shared helpers for the x86-copy-series shell glue.  Source it; POSIX sh.
# This file is the base (the environment, errors, safe writes, progress);
# it sources the rest, a file a job: lib-git.sh (the kernel repository,
# the worktree, the series' commits), lib-lock.sh (one run at a time),
# lib-build.sh (stamps, ccache).  Nothing is checked at source time: a
# script that works on the kernel repository calls kernel_settings_check
# first (lib-git.sh).
#
# Error format everywhere: "prog: step: what failed: why", on stderr,
# exit 1 for failures, 2 for usage.

LANG=C LC_ALL=C TZ=UTC
export LANG LC_ALL TZ

# (no dirname, no basename: every script sources this, and a process
# costs milliseconds on a VM; a $0 without a slash is in the current
# directory)
case $0 in */*) TOP=${0%/*}/.. ;; *) TOP=.. ;; esac
TOP=$(cd "$TOP" && pwd)
if [ -z "${PROG:-}" ]; then
	PROG=${0##*/} && PROG=${PROG%.sh}
fi
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
	# (renamed in, nothing is left there: no rm, a process saved a write)
	[ ! -e "$wf_t" ] || rm -f "$wf_t"
	return "$wf_rc"
}

# line_of FILE: sets line to FILE's first line, what $(cat FILE) gives
# of a one-line file (a key, a stamp, a status), without a process; false
# when FILE cannot be read or is empty
line_of() {
	line=''
	IFS= read -r line 2>/dev/null <"$1" || [ -n "$line" ]
}

# rm_there PATH...: rm -rf PATH... when one of them is there (a link
# too), else nothing: no process for what a run removes "in case" for
# every step of every commit.  rm's status.
rm_there() {
	for rt_p; do
		if [ -e "$rt_p" ] || [ -L "$rt_p" ]; then
			rm -rf -- "$@"
			return
		fi
	done
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

# shellcheck source=../scripts/lib-git.sh
. "$TOP/scripts/lib-git.sh"
# shellcheck source=../scripts/lib-lock.sh
. "$TOP/scripts/lib-lock.sh"
# shellcheck source=../scripts/lib-build.sh
. "$TOP/scripts/lib-build.sh"
