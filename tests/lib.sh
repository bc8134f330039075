# tests/lib.sh: a tiny TAP harness for the toolkit's shell tests.
#
# API, in call order:
#   . "$(dirname "$0")/lib.sh"
#   plan N                         (optional) the number of tests;
#                                  done_testing fails when another number
#                                  ran.  Without it done_testing prints
#                                  the plan it counted
#   test_expect_success 'title' 'body'
#                                  run body (sh, -e not set: chain with &&)
#                                  in a fresh scratch dir $SCRATCH; ok/not ok
#   test_skip 'title' 'why'        a test that cannot run here, and why:
#                                  listed at the end of make test
#                                  (tests/run-suite.sh); under CI=true a
#                                  failure unless tests/ci-skips.txt
#                                  lets it skip there
#   test_result ok|fail 'title' [LOG]
#                                  a test decided elsewhere (a tool's own TAP
#                                  line); LOG's tail is shown when it failed
#   bail 'why'                     nothing more can run: "Bail out!"
#   need tool:NAME|cmd:NAME|kernel|worktree|series ...
#                                  the file's prerequisites, or bail
#                                  naming what sets each up
#   done_testing                   exit non-zero if any test failed
# Helpers for bodies: expect_fail CMD... (exit status 1, stderr in
# $SCRATCH/err), grep_err PATTERN, fake_series DIR (a three-commit
# series for ci/run.sh's tests), commit_with PARENT FILE SED MSG (a commit
# of the worktree's repository with one file edited, no ref moved).
#
# Environment: a test sees none of its caller's variables (make exports
# SEND, COMMITS, NS_SIZE, ...: a test must not send mail or measure another
# size because of them): lib.sh runs the test again under env -i with only
# the variables of KEEP.  LANG=C TZ=UTC; $TOP is the project root;
# $TEST_OUT is a scratch area shared by the tests of one run (out/test),
# kept for a look after a failure; OUT, WORKTREE and REF_NS point the
# scripts at it.  TEST_OUT and TEST_REF_NS let two runs of the suite share
# one checkout.
#
# Sanitizers: the C tools are built with ASan and UBSan, UBSan trapping
# into ASan's SIGILL report (make test, see the Makefile); the reports go
# to files under $TEST_OUT/sanitizer/<test>/ whatever a script does with
# stderr or exit statuses, and a report fails the test that was running
# (or done_testing, when none was).
KEEP='PATH HOME TERM TMPDIR USER LOGNAME OUT BIN TEST_OUT TEST_REF_NS FRESH_ROOT_CACHE CCACHE_DIR CI'
if [ -z "${XCS_TEST_ENV:-}" ]; then
	set --
	for v in $KEEP; do
		eval "[ -z \"\${$v+x}\" ] || set -- \"\$@\" \"$v=\$$v\""
	done
	# and with the default action for the signals the tests send: a suite
	# started in the background by a non-interactive shell inherits
	# SIGINT and SIGQUIT ignored, and a shell cannot trap a signal it was
	# started ignoring (POSIX), so the Ctrl-C tests would fail for the
	# runner's sake; perl (perl-base is Essential) resets them
	exec env -i "$@" XCS_TEST_ENV=1 perl -e \
		'$SIG{$_} = "DEFAULT" for qw(INT QUIT TERM HUP); exec @ARGV or die "exec: $!\n"' \
		/bin/sh "$0"
fi
set -u
LANG=C LC_ALL=C TZ=UTC
export LANG LC_ALL TZ
TOP=$(cd "$(dirname "$0")/.." && pwd)
TEST_OUT=${TEST_OUT:-$TOP/out/test}
mkdir -p "$TEST_OUT"
# Tests keep their refs apart from the user's refs/x86-copy-series/*, and
# their worktree and builds under $TEST_OUT.
REF_NS=${TEST_REF_NS:-refs/x86-copy-series-test}
BIN=${BIN:-${OUT:-$TOP/out}/bin}
OUT=$TEST_OUT
WORKTREE=$TEST_OUT/tree
# SANITIZE=1 for every make a test runs (make build, checks, quick...):
# the suite's tools are built so (make test-prep), and a make with other
# flags would relink them in $BIN while the other lane runs them
SANITIZE=1
# the smallest kernel that shows what a test checks: tinyconfig at -Os
# (build/kconfig.sh, kconfig_parts), 2-3 times quicker to build than the
# distro guest of make; a test of the distro guest says KCONFIG=distro
KCONFIG=tiny
export REF_NS BIN OUT WORKTREE SANITIZE KCONFIG
# Debian's python3, the one make deps installs python3-jsonschema for,
# ahead of a python3 earlier in PATH: this image's is
# pyenv's shim, a bash script of about 17 processes a call (5,865 of them
# in one make test-quick, 2026-12-07)
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	[ -L "$TEST_OUT/python/python3" ] || {
		mkdir -p "$TEST_OUT/python" && ln -sf /usr/bin/python3 "$TEST_OUT/python/python3"
	}
	PATH=$TEST_OUT/python:$PATH
	export PATH
fi
# a kernel build's identity, for records written by hand or by
# bench-vm-collect outside a run (bench-vm-collect --build)
BUILD_ID=$TOP/tests/fixtures/build-id.json
SAN_DIR=$TEST_OUT/sanitizer/$(basename "$0" .t)
rm -rf "$SAN_DIR" "$SAN_DIR.seen"
mkdir -p "$SAN_DIR"
ASAN_OPTIONS=exitcode=86:detect_leaks=1:handle_sigill=1:log_path=$SAN_DIR/asan
export ASAN_OPTIONS
T=0
FAILED=0
PLANNED=
# kselftest: line-buffered output so a crash keeps the last line
exec 2>&1

plan() {
	PLANNED=$1
	echo "1..$1"
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

bail() {
	echo "Bail out! $*"
	exit 255
}

# need WHAT...: the suite's shared prerequisites, each checked where a
# test file needs it, in one place with one message: without it the file
# cannot run, which is a setup error ("Bail out!", naming what sets it
# up), never a skip.
#   tool:NAME   $BIN/NAME is built (make tools)
#   cmd:NAME    NAME is installed (make deps)
#   kernel      the pinned kernel imported (make kernel-tree): PIN_BASE
#               its commit, series/pin.conf's settings (PIN_KVER ...) set
#   worktree    the tests' worktree at $WORKTREE (t0005 makes it)
#   series      the series applied there (t0030): SERIES_HEAD its head
need() {
	for nd; do
		case $nd in
		tool:?*) [ -x "$BIN/${nd#tool:}" ] || bail "$BIN/${nd#tool:} is not built: run 'make tools'" ;;
		cmd:?*) command -v "${nd#cmd:}" >/dev/null || bail "${nd#cmd:} is not installed: run 'make deps'" ;;
		kernel)
			# (the pin's settings for the test too: PIN_KVER, PIN_TAG)
			# shellcheck source=../series/pin.conf
			. "$TOP/series/pin.conf"
			PIN_BASE=$(git -C "$TOP/kernel-tree" rev-parse -q --verify "refs/tags/$PIN_TAG^{commit}") ||
				bail "the pinned kernel is not imported: run 'make kernel-tree'" ;;
		worktree) [ -f "$WORKTREE/.git" ] || bail "no worktree at $WORKTREE: t0005 sets it up" ;;
		series)
			SERIES_HEAD=$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series") ||
				bail "no series: t0030 applies it" ;;
		*) bail "need: '$nd' is not a prerequisite tests/lib.sh knows (tool:NAME, cmd:NAME, kernel, worktree, series)" ;;
		esac
	done
}

# sanitizer_reports: show the reports the sanitizers wrote since the last
# call and fail when there were any
sanitizer_reports() {
	[ -n "$(ls -A "$SAN_DIR")" ] || return 0
	mkdir -p "$SAN_DIR.seen"
	for f in "$SAN_DIR"/*; do
		echo "sanitizer report $f:"
		head -n 40 "$f"
		mv "$f" "$SAN_DIR.seen/"
	done
	return 1
}

# the skips of this file, for the suite's list (tests/run-suite.sh)
SKIP_FILE=$TEST_OUT/skips/$(basename "$0")
mkdir -p "$TEST_OUT/skips" && : >"$SKIP_FILE" || bail "cannot write $SKIP_FILE"
# the seconds each test took, for the suite's list of the slowest
TIME_FILE=$TEST_OUT/times/$(basename "$0")
mkdir -p "$TEST_OUT/times" && : >"$TIME_FILE" || bail "cannot write $TIME_FILE"
# the output of this file's failed tests, for the suite's end: prove
# shows a failure's "not ok" line but not the comments after it, and a
# CI log that ends with the summary said only which test failed
FAIL_FILE=$TEST_OUT/failures/$(basename "$0")
mkdir -p "$TEST_OUT/failures" && rm -f "$FAIL_FILE" || bail "cannot write $FAIL_FILE"

# failure_output TITLE [LOG]: the failed test's title and the last lines
# of its output into $FAIL_FILE (tests/run-suite.sh prints them at the end)
failure_output() {
	{
		printf '%s %s - %s\n' "$(basename "$0")" "$T" "$1"
		[ -z "$2" ] || tail -n 25 "$2" | sed 's/^/    /'
	} >>"$FAIL_FILE" 2>/dev/null || diag "cannot write $FAIL_FILE"
}

test_expect_success() {
	T=$((T + 1))
	SCRATCH=$(mktemp -d "$TEST_OUT/t.XXXXXX")
	export SCRATCH
	rc=0
	te_t0=$(date +%s)
	(cd "$SCRATCH" && eval "$2") >"$SCRATCH/.tap.log" 2>&1 || rc=$?
	printf '%s\t%s\t%s\t%s\n' "$(($(date +%s) - te_t0))" "${TIME_FILE##*/}" "$T" "$1" >>"$TIME_FILE" ||
		bail "cannot write $TIME_FILE"
	sanitizer_reports >>"$SCRATCH/.tap.log" 2>&1 || rc=sanitizer
	if [ "$rc" = 0 ]; then
		echo "ok $T - $1"
		rm -rf "$SCRATCH"
	else
		echo "not ok $T - $1"
		diag "scratch dir kept: $SCRATCH"
		tail -n 30 "$SCRATCH/.tap.log" | sed 's/^/# /'
		failure_output "$1" "$SCRATCH/.tap.log"
		FAILED=$((FAILED + 1))
	fi
}

# yaml_dump FILE: a YAML file (a workflow) as "path<TAB>value" lines, by
# whichever parser is present: python3's yaml module, else perl's core
# CPAN::Meta::YAML (a fresh Debian has perl, not python3-yaml)
yaml_dump() {
	if python3 -c 'import yaml' 2>/dev/null; then
		python3 - "$1" <<-\EOP
		import sys, yaml
		def walk(p, o):
		    if isinstance(o, dict):
		        for k, v in o.items(): walk(p + [str(k)], v)
		    elif isinstance(o, list):
		        for i, v in enumerate(o): walk(p + [str(i)], v)
		    else:
		        print("/".join(p) + "\t" + str(o))
		walk([], yaml.safe_load(open(sys.argv[1])))
		EOP
	elif perl -MCPAN::Meta::YAML -e 1 2>/dev/null; then
		perl -MCPAN::Meta::YAML -e '
			my $y = CPAN::Meta::YAML->read($ARGV[0]) or die CPAN::Meta::YAML->errstr;
			sub walk { my ($p, $o) = @_;
				if (ref $o eq "HASH") { walk("$p/$_", $o->{$_}) for sort keys %$o }
				elsif (ref $o eq "ARRAY") { walk("$p/$_", $o->[$_]) for 0 .. $#$o }
				else { print substr($p, 1), "\t$o\n" } }
			walk("", $y->[0]);' "$1"
	else
		echo "no YAML parser: python3 yaml and perl CPAN::Meta::YAML are missing" >&2
		return 1
	fi
}

test_result() {
	T=$((T + 1))
	if [ "$1" = ok ]; then
		echo "ok $T - $2"
	else
		echo "not ok $T - $2"
		[ -z "${3:-}" ] || tail -n 30 "$3" | sed 's/^/# /'
		failure_output "$2" "${3:-}"
		FAILED=$((FAILED + 1))
	fi
}

# A skip is never silent: it goes to the suite's list, and under CI=true
# (CI's own machine is this project's: everything can run there) it is a
# failure unless tests/ci-skips.txt has "<file>: <title>" with a reason.
test_skip() {
	T=$((T + 1))
	ts_name=$(basename "$0")
	printf '%s\t%s\t%s\t%s\n' "$ts_name" "$T" "$1" "$2" >>"$SKIP_FILE" ||
		bail "cannot write $SKIP_FILE"
	if [ "${CI:-}" = true ] &&
		! grep -v '^#' "$TOP/tests/ci-skips.txt" 2>/dev/null | cut -f1 |
			grep -qxF "$ts_name: $1"; then
		echo "not ok $T - $1 (would skip, but CI must run it: $2; tests/ci-skips.txt does not let it)"
		FAILED=$((FAILED + 1))
		return
	fi
	echo "ok $T - $1 # SKIP $2"
}

# pipeline_lock: the rest of this test (or of the file, called outside
# one) holds the suite's pipeline lock, $TEST_OUT/.pipeline.lock on fd 9.
# run-suite.sh runs the guests and checks lanes side by side, and both
# have tests that start ci/run.sh on $OUT, whose $OUT/.run.lock refuses
# a second run there (lib.sh: out_lock): such a test waits here until the
# other lane's has ended.  The kernel lets go when the test's subshell
# and what it started have closed fd 9.
pipeline_lock() {
	exec 9>>"$TEST_OUT/.pipeline.lock" && flock 9
}

# expect_fail CMD...: CMD must exit 1 (a failure, not a usage error or a
# crash); its stderr is left in $SCRATCH/err for the checks that follow.
expect_fail() {
	rc=0
	"$@" 2>"$SCRATCH/err" >"$SCRATCH/out" || rc=$?
	cat "$SCRATCH/err"
	[ "$rc" = 1 ] || { echo "expected exit 1, got $rc: $*"; return 1; }
}

# wait_file FILE: until FILE exists (a state a hook, a holder or a run
# writes); a bound of 120 s only keeps a broken run from hanging the suite
wait_file() {
	wf_n=0
	while [ ! -e "$1" ]; do
		wf_n=$((wf_n + 1))
		[ $wf_n -le 1200 ] || { echo "gave up waiting for $1"; return 1; }
		sleep 0.1
	done
}

# kill_when_running LOG SIG: in the background, SIG to the process
# group of the driver (its pid in ./driver.pid) once LOG says "fake:
# running" (or after 60 s); the helper's pid in $helper
kill_when_running() {
	{
		kw_n=0
		until grep -qs "fake: running" "$1" || [ $kw_n -gt 600 ]; do sleep 0.1; kw_n=$((kw_n + 1)); done
		kill -"$2" -"$(cat driver.pid)"
	} &
	helper=$!
}

# commit_with PARENT FILE SED MSG: a commit on PARENT whose FILE is edited
# by SED, made without touching any ref or the worktree
commit_with() {
	git -C "$WORKTREE" show "$1:$2" | sed "$3" >blob &&
	b=$(git -C "$WORKTREE" hash-object -w --stdin <blob) &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" read-tree "$1" &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" update-index --cacheinfo "100644,$b,$2" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" write-tree) &&
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$t" -p "$1" -m "$4"
}

# fake_series DIR: a git repository of three commits at DIR, the first
# the base ($REF_NS/base) and the last the series' head ($REF_NS/series):
# the series ci/run.sh's tests run their fake steps on
fake_series() {
	git init -q "$1" &&
	for n in 1 2 3; do
		echo $n >"$1/f" && git -C "$1" add f &&
		git -C "$1" -c user.name=T -c user.email=t@example.org commit -q -m "x: commit $n" ||
			return 1
	done &&
	git -C "$1" update-ref "$REF_NS/base" HEAD~2 &&
	git -C "$1" update-ref "$REF_NS/series" HEAD
}

# grep_err PATTERN: the last expect_fail's stderr matches PATTERN
grep_err() {
	grep -E -- "$1" "$SCRATCH/err" >/dev/null || { echo "stderr lacks /$1/"; return 1; }
}

done_testing() {
	if ! sanitizer_reports >"$TEST_OUT/.san.$$" 2>&1; then
		T=$((T + 1))
		echo "not ok $T - no sanitizer reports outside the test bodies"
		sed 's/^/# /' "$TEST_OUT/.san.$$"
		FAILED=$((FAILED + 1))
	fi
	rm -f "$TEST_OUT/.san.$$"
	# the plan the harness counted (TAP's plan at the end: a file that
	# dies before this line has none, which prove counts as a failure),
	# or the one the file gave, held against what ran
	if [ -z "$PLANNED" ]; then
		echo "1..$T"
	elif [ "$T" != "$PLANNED" ]; then
		echo "# planned $PLANNED tests, ran $T"
		exit 1
	fi
	[ "$FAILED" = 0 ]
}
