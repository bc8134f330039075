#!/bin/sh
# ci/run.sh: make ci, make ci-quick, make report.  For every commit from
# the base to the head of the series, runs the steps of ci/steps.sh (build,
# checks, bench-vm, bench), each writing its records into
# $CI_OUT/<commit>/<step>/, then ci-report on all their records:
# $CI_OUT/report.{txt,md,json}, plots in $CI_OUT/plots, and the
# regression gate.  CI_OUT is $OUT/ci, and $OUT/quick for make quick: a
# quick look never replaces the full run's results.
#
#   run.sh [--report-only]
# Environment:
#   CI_COMMITS='REV...'  the commits, in order, the first being the base of
#                        the comparison (commit_list of scripts/lib.sh:
#                        base, head, any revision; default: the base and
#                        every series commit)
#   CI_QUICK=1           the first and the last of them only, NS_SIZE=4G,
#                        REBINDS=5, BENCH_ARGS=--quick (each unless set),
#                        in $OUT/quick (make report CI_QUICK=1 reports it)
#   CI_STEPS='build ...' the steps to run (default: all of ci/steps.sh)
#   CI_STEPS_FILE=FILE   the step definitions (tests use a fake one)
#   GATE_PCT=5           the gate: worse than the parent by more than this,
#                        with p < 0.05, fails the run
#   GATE_PCT_TCG=25      the same for guests under TCG with a wall clock
#                        (CLOCK=wall): on this project's machine, 'make'
#                        (100G, 30 rebinds) measured +10.1% and +17.6%
#                        (p < 0.05) for patches 1 and 4, which change no
#                        code on the path: between boots, TCG drifts more
#                        than the samples of one boot show
#   GATE_PCT_ICOUNT=1    guests under TCG with CLOCK=icount: their figures
#                        are exact (two boots of one kernel give the same
#                        samples), so there is no test: worse than the
#                        parent by more than this fails, whatever the sd
#   GATE_ACK=FILE        the maintainers' acknowledgements of changes the
#                        gate rightly flags (default ci/gate-ack.txt):
#                        commit, metric, the change accepted, why
#   GATE_ONLY='GLOB...'  what the gate looks at, "suite/case/metric" globs
#                        (default: the bench-vm rebind memmap init times;
#                        '*' for everything)
#   NS_SIZE, REBINDS, CPU, ACCEL, CLOCK (bench-vm: CLOCK=auto is icount
#                        under TCG, wall under KVM), BENCH_ARGS (bench)
# A step whose inputs hash equals its stamp ($OUT/ci/<commit>/<step>.stamp)
# is skipped, so a rerun after an interruption resumes where it stopped; a
# step that fails or is skipped leaves no stamp and runs again next time.
# Exit: 0; 1 when a step failed, a report could not be made or the gate
# found a regression; 2 usage.
set -eu
PROG=ci
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

CI_QUICK=${CI_QUICK:-}
if [ -n "$CI_QUICK" ]; then
	CI_OUT=${CI_OUT:-$OUT/quick}
else
	CI_OUT=${CI_OUT:-$OUT/ci}
fi
CI_STEPS_FILE=${CI_STEPS_FILE:-$TOP/ci/steps.sh}
GATE_PCT=${GATE_PCT:-5}
GATE_PCT_TCG=${GATE_PCT_TCG:-25}
GATE_PCT_ICOUNT=${GATE_PCT_ICOUNT:-1}
GATE_ACK=${GATE_ACK:-$TOP/ci/gate-ack.txt}
# ':-': make exports GATE_ONLY empty when it is not given
GATE_ONLY=${GATE_ONLY:-bench-vm/*/rebind/memmap_init_ms}
report_only=
case ${1:-} in
'') ;;
--report-only) report_only=1 ;;
*) usage_die "run.sh [--report-only]" ;;
esac
[ $# -le 1 ] || usage_die "run.sh [--report-only]"

if [ -n "$CI_QUICK" ]; then
	NS_SIZE=${NS_SIZE:-4G}
	REBINDS=${REBINDS:-5}
	BENCH_ARGS=${BENCH_ARGS:---quick}
fi
NS_SIZE=${NS_SIZE:-100G}
REBINDS=${REBINDS:-30}
CPU=${CPU:-max}
ACCEL=${ACCEL:-auto}
CLOCK=${CLOCK:-auto}
BENCH_ARGS=${BENCH_ARGS:-}
# one run for bench-vm/run.sh: why KVM is not used is said once
BENCH_VM_RUN=ci-$$-$(date +%s)
export NS_SIZE REBINDS CPU ACCEL CLOCK BENCH_ARGS BENCH_VM_RUN

# Helpers for the step definitions.
# sha256 of files (missing ones say so), for the inputs
files_hash() {
	for f in "$@"; do
		if [ -f "$f" ]; then
			printf '%s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "${f#"$TOP"/}"
		else
			printf 'missing %s\n' "${f#"$TOP"/}"
		fi
	done
}

skip() {
	printf '%s\n' "$2" >"$1/skipped"
	printf '%s: skipped: %s\n' "$PROG" "$2" >&2
	return 3
}

[ -r "$CI_STEPS_FILE" ] || die "steps: $CI_STEPS_FILE is missing"
# shellcheck source=steps.sh
. "$CI_STEPS_FILE"
CI_STEPS=${CI_STEPS:-$CI_ALL_STEPS}
tool_built ci-report

# the commits, in order
# shellcheck disable=SC2086 # CI_COMMITS: revisions, a word each
commits=$(commit_list ${CI_COMMITS:-}) || exit 1
if [ -n "$CI_QUICK" ]; then
	# shellcheck disable=SC2086 # commit ids, a word each
	set -- $commits
	first=$1
	shift $(($# - 1))
	commits="$first $1"
	[ "$first" != "$1" ] || commits=$first
fi
# shellcheck disable=SC2086 # commit ids, a word each
set -- $commits
n=$#

mkdir -p "$CI_OUT"
for c in $commits; do
	printf '%s\t%s\n' "$c" "$(kgit log -1 --format=%s "$c")"
done >"$CI_OUT/commits.txt"

# hash_of: sha256 of stdin
hash_of() {
	sha256sum | cut -d' ' -f1
}

# fn_of STEP: the shell name of a step ("bench-vm" -> "bench_vm")
fn_of() {
	printf '%s' "$1" | tr -c 'a-z0-9\n' '_'
}

failed='' skipped=''
summary=$CI_OUT/summary.txt
if [ -z "$report_only" ]; then
	printf '%-12s' commit >"$summary.tmp"
	for s in $CI_STEPS; do printf ' %-10s' "$s"; done >>"$summary.tmp"
	echo >>"$summary.tmp"
	i=0 parent=
	for c in $commits; do
		i=$((i + 1))
		short=$(printf %.12s "$c")
		line=$(printf '%-12s' "$short")
		for s in $CI_STEPS; do
			f=$(fn_of "$s")
			command -v "step_${f}_run" >/dev/null ||
				die "steps: '$s' is not a step of $CI_STEPS_FILE (steps: $CI_ALL_STEPS)"
			dir=$CI_OUT/$c/$s
			stamp=$CI_OUT/$c/$s.stamp
			inputs=$("step_${f}_inputs" "$c") ||
				die "$s: the inputs of $short cannot be read"
			hash=$(printf '%s\n' "$inputs" | hash_of)
			if stamp_fresh "$stamp" "$hash"; then
				progress "$i/$n $short" "$s: up to date (inputs $(printf %.12s "$hash"))"
				line="$line $(printf ' %-10s' same)"
				continue
			fi
			rm -rf "$dir" "$stamp"
			mkdir -p "$dir"
			printf '%s\n' "$inputs" >"$dir/inputs"
			progress "$i/$n $short" "$s: start (log: $dir/log)"
			t=$(date +%s)
			# no pipefail in POSIX sh: the status goes around tee
			{
				rc=0
				"step_${f}_run" "$c" "$dir" "$parent" || rc=$?
				echo "$rc" >"$dir/rc"
			} 2>&1 | tee "$dir/log" | sed 's/^/    /' >&2
			rc=$(cat "$dir/rc")
			t=$(($(date +%s) - t))
			case $rc in
			0)
				stamp_write "$stamp" "$hash"
				progress "$i/$n $short" "$s: ok in ${t}s"
				line="$line $(printf ' %-10s' ok)" ;;
			3)
				why=$(cat "$dir/skipped" 2>/dev/null || echo "no reason given")
				progress "$i/$n $short" "$s: skipped: $why"
				skipped="$skipped $short:$s"
				line="$line $(printf ' %-10s' skipped)" ;;
			*)
				progress "$i/$n $short" "$s: FAILED (exit $rc) after ${t}s: see $dir/log"
				failed="$failed $short:$s"
				line="$line $(printf ' %-10s' FAIL)" ;;
			esac
		done
		echo "$line" >>"$summary.tmp"
		parent=$c
	done
	mv "$summary.tmp" "$summary"
	cat "$summary" >&2
fi

# the report, from the records of these commits only
dirs=
for c in $commits; do
	[ -d "$CI_OUT/$c" ] && dirs="$dirs $CI_OUT/$c"
done
[ -n "$dirs" ] || die "report: no results under $CI_OUT for these commits: run 'make ci' first"
set --
# split on blanks, but no pathname expansion of the globs
set -f
for g in $GATE_ONLY; do set -- "$@" --gate-only "$g"; done
set +f
progress report "ci-report: $CI_OUT/report.txt, report.md, report.json, plots/"
# ci-report writes its files aside and renames them in when all are
# whole: a report that could not be made leaves the last one as it was.
# A new report.txt is a new file (inode) whatever the clock's resolution.
inode_of() {
	# shellcheck disable=SC2012 # ls -i: the one portable way to an inode
	ls -i "$1" 2>/dev/null | awk '{ print $1 }'
}
before=$(inode_of "$CI_OUT/report.txt")
rrc=0
# shellcheck disable=SC2086 # one path per commit
"$BIN/ci-report" --commits "$CI_OUT/commits.txt" --text "$CI_OUT/report.txt" \
	--markdown "$CI_OUT/report.md" --json "$CI_OUT/report.json" --plots "$CI_OUT/plots" \
	--gate-pct "$GATE_PCT" --gate-pct-tcg "$GATE_PCT_TCG" --gate-pct-icount "$GATE_PCT_ICOUNT" \
	${GATE_ACK:+--gate-ack "$GATE_ACK"} \
	"$@" $dirs || rrc=$?
made=$(inode_of "$CI_OUT/report.txt")
[ "$made" != "$before" ] || made=
plots_ok=1
if [ -z "$made" ]; then
	plots_ok=
elif command -v gnuplot >/dev/null; then
	cat "$CI_OUT/report.txt"
	for gp in "$CI_OUT"/plots/*.gp; do
		[ -f "$gp" ] || continue
		(cd "$CI_OUT/plots" && gnuplot "$(basename "$gp")") 2>"$gp.err" || {
			warn "plots: gnuplot failed on $gp: $(head -n 3 "$gp.err" | tr '\n' ' ')"
			plots_ok=
		}
	done
else
	cat "$CI_OUT/report.txt"
	warn "plots: gnuplot is not installed (Debian gnuplot-nox; run 'make deps'): the scripts are in $CI_OUT/plots, no images"
	plots_ok=
fi

status=0
[ -z "$skipped" ] || warn "skipped:$skipped (reasons above and in $CI_OUT/<commit>/<step>/skipped)"
if [ -n "$failed" ]; then
	printf '%s: steps failed:%s\n' "$PROG" "$failed" >&2
	status=1
fi
if [ -z "$made" ]; then
	printf '%s: report: not made: ci-report exited %s (the error is above); %s\n' "$PROG" "$rrc" \
		"the report files in $CI_OUT, if any, are an earlier run's, left whole" >&2
	progress 'done' "report: not made (exit 1)"
	exit 1
fi
if [ "$rrc" != 0 ]; then
	printf '%s: report: ci-report exited %s (a regression over GATE_PCT=%s%%, GATE_PCT_TCG=%s%% or GATE_PCT_ICOUNT=%s%% is named above; a change a maintainer accepts goes into %s)\n' \
		"$PROG" "$rrc" "$GATE_PCT" "$GATE_PCT_TCG" "$GATE_PCT_ICOUNT" "$GATE_ACK" >&2
	status=1
fi
[ -n "$plots_ok" ] || status=1
progress 'done' "report: $CI_OUT/report.md (exit $status)"
exit $status
