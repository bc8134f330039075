#!/bin/sh
# run-suite.sh: make test.  prove runs every test file; then the tests
# that skipped are listed with their reasons (tests/lib.sh test_skip),
# then the ten slowest tests (tests/lib.sh keeps each test's seconds),
# and prove's summary is repeated so that it stays the last lines.
# Files that share nothing run beside the others (see the lanes below).
# TEST_QUICK=1 (make test-quick): every file but those whose header says
# '# test-quick: no: <why>' (they build a kernel or boot a guest), and
# the ones left out are named before the summary.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
TEST_OUT=${TEST_OUT:-$TOP/out/test}
mkdir -p "$TEST_OUT" || exit 1
rm -rf "$TEST_OUT/skips" "$TEST_OUT/times" "$TEST_OUT/failures"
log=$TEST_OUT/prove.log
rc=0
files=tests/
left_out=
if [ "${TEST_QUICK:-}" = 1 ]; then
	left_out=$(grep -l '^# test-quick: no: ' tests/*.t)
	files=$(grep -L '^# test-quick: no: ' tests/*.t)
fi
# The lanes (prove -j, run by tests/harness.pl, which says what prove's
# --rules cannot): the files that share the run's state (the worktree,
# its refs, the kernel builds, the guests: they set it up or use it) one
# after the other in name order, but for two lanes of them side by side:
# the files whose header says '# test-lane: guests: <why>' (the head's
# kernel, build.sh's builds, bench-vm's outputs) and those that say
# '# test-lane: checks: <why>' (the checks worktree, its objects and the
# KUnit kernels; no build.sh, no guest), once every shared file before
# them has ended, and the shared files after them once both lanes are
# done.  A test of either lane that starts ci/run.sh (whose lock on
# $OUT refuses a second run) takes tests/lib.sh's pipeline_lock first;
# tests/t0003 checks both rules.  Beside all of it, the files whose
# header says '# test-parallel: <why>' (each keeps to its own scratch
# directories), as many at once as the jobs left allow.  Without the two
# lanes the shared files ran alone for the last 40 of a cold run's 65
# minutes (2026-12-06), one core idle while a guest or a single-threaded
# check ran.
# The shared files take a free job before a parallel file.  One job more
# than cores: a good part of the suite waits (the kernel tree's disk
# writes, the signal tests' sleeps, fake guests that never boot);
# measured on 2 cores, make test-quick's prove took 214 s with 3 jobs,
# 239 s with 2.  TEST_JOBS=1: every file one after the other.
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
# shellcheck disable=SC2086 # test files, a word each
set -- $files
[ -d "$1" ] && set -- "$1"*.t
lane_of() {
	sed -n 's/^# test-lane: \([a-z]*\): .*/\1/p; s/^# test-parallel: .*/parallel/p' "$1" | head -n 1
}
pre='' post='' guests='' checks='' par=''
for f; do
	case $(lane_of "$f") in
	parallel) par="$par $f" ;;
	guests) guests="$guests,$f" ;;
	checks) checks="$checks,$f" ;;
	?*) echo "run-suite.sh: $f: '# test-lane: $(lane_of "$f")': no such lane (guests, checks)" >&2
		exit 2 ;;
	*) if [ -z "$guests$checks" ]; then pre="$pre,$f"; else post="$post,$f"; fi ;;
	esac
done
# The parallel files, the longest first by the last run's prove.log: a
# long one started last keeps a core busy after all else has ended.
# Those it did not time (new, failed, no log: a clean clone) come
# first, in name order.
if [ -f "$log" ]; then
	# shellcheck disable=SC2086 # test files, a word each
	par=$(printf '%s\n' $par | awk -v plog="$log" '
		BEGIN {
			while ((getline l < plog) > 0)
				if (match(l, /tests\/[^ ]+\.t \.+ ok +[0-9]+ ms/)) {
					split(substr(l, RSTART, RLENGTH), w, " ")
					ms[w[1]] = w[4]
				}
		}
		NF { print (($0 in ms) ? ms[$0] : 999999999), $0 }' | sort -k1,1nr -k2,2 | cut -d" " -f2)
fi
# merge: one pipe a file.  tests/lib.sh sends stderr to stdout, and
# the stderr pipe's early end made prove's reader wait on that file's
# stdout alone until its next line: a parallel file's end was seen only
# when the shared lane's file ended (measured: t0075, 0.4 s alone, took
# 72 s beside t0050), and the lane stood still meanwhile.
# timer: each file's line starts with the time it ended and ends with
# the milliseconds it took: where the suite's time goes
# shellcheck disable=SC2086 # test files, a word each
perl tests/harness.pl "$jobs" "${pre#,}" "${guests#,}" "${checks#,}" -- "${post#,}" -- $par 2>&1 |
	tee "$log" || rc=1
# tee hides prove's exit status: the summary says it
grep -qx 'Result: PASS' "$log" || rc=1
echo
n=$(cat "$TEST_OUT"/skips/* 2>/dev/null | wc -l)
if [ "$n" = 0 ]; then
	echo "skipped: none"
else
	echo "skipped: $n test(s), and why:"
	cat "$TEST_OUT"/skips/* | awk -F '\t' '{ printf "  %s %s - %s: %s\n", $1, $2, $3, $4 }'
fi
if [ -n "$left_out" ]; then
	echo
	echo "left out by make test-quick (they build a kernel or boot a guest; make test runs them):"
	# shellcheck disable=SC2086 # test files, a word each
	grep -H '^# test-quick: no: ' $left_out | sed 's/:# test-quick: no: /: /; s/^/  /'
fi
echo
echo "slowest tests (seconds, file, number, title):"
cat "$TEST_OUT"/times/* 2>/dev/null | sort -t "$(printf '\t')" -k1,1nr | head -n 10 |
	awk -F '\t' '{ printf "  %4d s  %s %s - %.70s\n", $1, $2, $3, $4 }'
if [ -n "$(ls -A "$TEST_OUT/failures" 2>/dev/null)" ]; then
	echo
	echo "failed tests, the last lines of each one's output (scratch directories kept in $TEST_OUT):"
	cat "$TEST_OUT"/failures/*
fi
echo
# prove's summary again, from "Test Summary Report" or "All tests" on
sed -n '/^Test Summary Report/,$p; /^All tests successful/,$p' "$log"
exit $rc
