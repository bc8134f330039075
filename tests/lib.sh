# tests/lib.sh: a tiny TAP harness for the toolkit's shell tests.
#
# API, in call order:
#   . "$(dirname "$0")/lib.sh"
#   plan N                         the number of tests
#   test_expect_success 'title' 'body'
#                                  run body (sh, -e not set: chain with &&)
#                                  in a fresh scratch dir $SCRATCH; ok/not ok
#   test_skip 'title' 'why'        a test that cannot run here, and why
#   test_result ok|fail 'title' [LOG]
#                                  a test decided elsewhere (a tool's own TAP
#                                  line); LOG's tail is shown when it failed
#   bail 'why'                     nothing more can run: "Bail out!"
#   done_testing                   exit non-zero if any test failed
# Helpers for bodies: expect_fail CMD... (exit status 1, stderr in $SCRATCH/err)
#
# Environment: LANG=C TZ=UTC; $TOP is the project root; $TEST_OUT is a
# scratch area shared by the tests of one run (out/test), kept for a look
# after a failure; OUT, WORKTREE and REF_NS point the scripts at it.
set -u
LANG=C LC_ALL=C TZ=UTC
export LANG LC_ALL TZ
TOP=$(cd "$(dirname "$0")/.." && pwd)
TEST_OUT=${TEST_OUT:-$TOP/out/test}
mkdir -p "$TEST_OUT"
# Tests keep their refs apart from the user's refs/x86-copy-series/*, and
# their worktree and builds under $TEST_OUT.
REF_NS=refs/x86-copy-series-test
BIN=${BIN:-${OUT:-$TOP/out}/bin}
OUT=$TEST_OUT
WORKTREE=$TEST_OUT/tree
export REF_NS BIN OUT WORKTREE
unset KERNEL_TREE KERNEL_BASE
T=0
FAILED=0
# kselftest: line-buffered output so a crash keeps the last line
exec 2>&1

plan() {
	echo "1..$1"
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

bail() {
	echo "Bail out! $*"
	exit 255
}

test_expect_success() {
	T=$((T + 1))
	SCRATCH=$(mktemp -d "$TEST_OUT/t.XXXXXX")
	export SCRATCH
	if (cd "$SCRATCH" && eval "$2") >"$SCRATCH/.tap.log" 2>&1; then
		echo "ok $T - $1"
		rm -rf "$SCRATCH"
	else
		echo "not ok $T - $1"
		diag "scratch dir kept: $SCRATCH"
		tail -n 30 "$SCRATCH/.tap.log" | sed 's/^/# /'
		FAILED=$((FAILED + 1))
	fi
}

test_result() {
	T=$((T + 1))
	if [ "$1" = ok ]; then
		echo "ok $T - $2"
	else
		echo "not ok $T - $2"
		[ -z "${3:-}" ] || tail -n 30 "$3" | sed 's/^/# /'
		FAILED=$((FAILED + 1))
	fi
}

test_skip() {
	T=$((T + 1))
	echo "ok $T - $1 # SKIP $2"
}

# expect_fail CMD...: CMD must exit 1 (a failure, not a usage error or a
# crash); its stderr is left in $SCRATCH/err for the checks that follow.
expect_fail() {
	rc=0
	"$@" 2>"$SCRATCH/err" >"$SCRATCH/out" || rc=$?
	cat "$SCRATCH/err"
	[ "$rc" = 1 ] || { echo "expected exit 1, got $rc: $*"; return 1; }
}

# grep_err PATTERN: the last expect_fail's stderr matches PATTERN
grep_err() {
	grep -E -- "$1" "$SCRATCH/err" >/dev/null || { echo "stderr lacks /$1/"; return 1; }
}

done_testing() {
	[ "$FAILED" = 0 ]
}
