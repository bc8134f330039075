#!/bin/sh
# ci/run.sh: make ci, make ci-quick, make report.  For every commit from
# the base to the head of the series, runs the steps of ci/steps.sh (build,
# checks, bench-vm, bench), each writing its records into
# $CI_OUT/<commit>/<step>/, then ci-report on all their records:
# $CI_OUT/report.{txt,md,json}, plots in $CI_OUT/plots, and the
# regression gate.  CI_OUT is $OUT/ci, and $OUT/quick for make quick: a
# quick look never replaces the full run's results.
#
#   run.sh [--report-only | --plan | --view STEP]
# Its parts, a file a job: settings.sh (every setting defaulted and
# checked), step-run.sh, keys.sh, estimate.sh, queue.sh (the guest queue,
# run by guest-queue.sh), tables.sh (ci/README.md).
# Environment:
#   CI_COMMITS='REV...'  the commits, in order, the first being the base of
#                        the comparison (commit_list of scripts/lib.sh:
#                        base, head, any revision; default: the base and
#                        every series commit)
#   CI_SET=full          main: the mission's job (make, make quick):
#                        checks without the configs matrix, clang and
#                        KUnit; full: all of them (make ci)
#   CI_QUICK=1           the first and the last of them only, NS_SIZE=4G,
#                        REBINDS=5, BENCH_ARGS=--quick, CONFIGS=none (each
#                        unless set),
#                        in $OUT/quick (make report CI_QUICK=1 reports it)
#   CI_STEPS='build ...' the steps to run (default: all of ci/steps.sh)
#   CI_SCHEDULE=overlap  icount guests (bench-vm) beside the next builds,
#                        the host benchmark of every commit last, alone;
#                        serial: every step in its place (see below)
#   CI_VM_JOBS=2         icount guests at once when no build runs and the
#                        host's memory holds them (one beside a build)
#   CI_MEMINFO=FILE      where that memory is read (default /proc/meminfo,
#                        its MemAvailable; tests give their own)
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
#   COSTS='FILE...'      CPUs' cost tables (make costs) that price the cache
#                        model's binds in the report (default: every
#                        results/*/cost-table.jsonl and the newest of
#                        $OUT/costs; none: no prediction)
#   GATE_ACK=FILE        the maintainers' acknowledgements of changes the
#                        gate rightly flags (default ci/gate-ack.txt):
#                        commit, metric, the change accepted, why
#   GATE_ONLY='GLOB...'  what the gate looks at, "suite/case/metric" globs
#                        (default: the bench-vm rebind memmap init times;
#                        '*' for everything)
#   NS_SIZE, REBINDS, CPU, ACCEL, CLOCK (bench-vm: CLOCK=auto is icount
#                        under TCG, wall under KVM), BENCH_ARGS (bench)
#   MODEL=none|auto|cache  bench-vm's cache model (bench-vm/plugin) in the
#                        same guest; auto: where the guest is TCG with
#                        icount.  Default: none, auto under CI_QUICK: the
#                        model costs 1.8x a plain guest at 4G and 5
#                        rebinds, 4-5x at 100G and 30 (bench-vm/README.md);
#                        MODEL_ARGS its parameters
# A step whose inputs hash equals its stamp ($OUT/ci/<commit>/<step>.stamp)
# is skipped, so a rerun after an interruption resumes where it stopped; a
# step that fails or is skipped leaves no stamp and runs again next time.
# Exit: 0; 1 when a step failed, a report could not be made or the gate
# found a regression; 2 usage.
set -eu
PROG=ci
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
# shellcheck source=../report/report-lib.sh
. "$TOP/report/report-lib.sh"
# shellcheck source=step-lib.sh
. "$TOP/ci/step-lib.sh"
# shellcheck source=step-run.sh
. "$TOP/ci/step-run.sh"
# shellcheck source=keys.sh
. "$TOP/ci/keys.sh"
# shellcheck source=estimate.sh
. "$TOP/ci/estimate.sh"
# shellcheck source=queue.sh
. "$TOP/ci/queue.sh"
# shellcheck source=tables.sh
. "$TOP/ci/tables.sh"

CI_QUICK=${CI_QUICK:-}
case $CI_QUICK in
'' | 0) CI_QUICK= ;;
1) ;;
*) usage_die "CI_QUICK: '$CI_QUICK' is not 1 (base and head only) or 0 or empty (every commit)" ;;
esac
if [ -n "$CI_QUICK" ]; then
	CI_OUT=${CI_OUT:-$OUT/quick}
else
	CI_OUT=${CI_OUT:-$OUT/ci}
fi
CI_STEPS_FILE=${CI_STEPS_FILE:-$TOP/ci/steps.sh}
# (the gate's settings: report/report-lib.sh)
report_only='' view='' plan_only=''
case ${1:-} in
'') ;;
--report-only) report_only=1 ;;
--view) [ $# = 2 ] || usage_die "run.sh --view STEP"; view=$2; shift ;;
--plan) plan_only=1 ;;
*) usage_die "run.sh [--report-only | --plan | --view STEP]" ;;
esac
[ $# -le 1 ] || usage_die "run.sh [--report-only | --plan | --view STEP]"
[ -z "$view" ] || [ -z "$CI_QUICK" ] ||
	usage_die "CI_QUICK: make quick is the whole pipeline on base and head; a view (make $view) takes its commits from COMMITS="

# the run's settings, every one checked before anything is written
# shellcheck source=settings.sh
. "$TOP/ci/settings.sh"

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
# a commit given twice runs once, in its first place (its results are
# one directory: a second "run" would only find them up to date)
uniq_commits=
for c in $commits; do
	case " $uniq_commits " in
	*" $c "*) warn "commits: $(printf %.12s "$c") is given twice: once" ;;
	*) uniq_commits="$uniq_commits $c" ;;
	esac
done
commits=${uniq_commits# }
# shellcheck disable=SC2086 # commit ids, a word each
set -- $commits
n=$#

# One pipeline run writes into $OUT at a time (lib.sh: out_lock); the
# guest queue and its steps run under the run that started them (they
# hold its open lock, so the next run waits for them too); before the
# first write
out_lock "ci/run.sh${report_only:+ --report-only}${plan_only:+ --plan}${view:+ --view $view}${CI_QUICK:+ (make quick)}"

mkdir -p "$CI_OUT"
if [ -z "$view" ]; then
	# the whole series, base first: what a gate acknowledgement may
	# name, also when the report covers a part of it (quick, CI_COMMITS)
	series_commits=$(commit_list) || exit 1
	# shellcheck disable=SC2086 # commit ids, a word each
	write_file "$CI_OUT/commits.txt" commit_subjects $commits &&
		write_file "$CI_OUT/series.txt" commit_subjects $series_commits ||
		die "commits: cannot write $CI_OUT/commits.txt or series.txt"
fi
# $CI_OUT/.subjects: "COMMIT<tab>SUBJECT" of every commit a run of this
# CI_OUT has planned, the newest last: the estimate of a new commit's
# step is the seconds that step took for the commit it replaces (the
# same subject: a patch of the series reworked), when it ran there
if [ -z "$report_only" ]; then
	# (commits.txt has them, but for a view's commits)
	if [ -z "$view" ]; then
		cat "$CI_OUT/commits.txt"
	else
		# shellcheck disable=SC2086 # commit ids, a word each
		commit_subjects $commits
	fi | awk -F '\t' -v old="$CI_OUT/.subjects" '
		BEGIN { while ((getline l < old) > 0) { split(l, f, "\t"); o[++n] = l; c[n] = f[1] } }
		{ now[$1] = 1; add[++m] = $0 }
		END {
			for (i = 1; i <= n; i++) if (!(c[i] in now)) print o[i]
			for (i = 1; i <= m; i++) print add[i]
		}' | tail -n 500 | write_file "$CI_OUT/.subjects" ||
		die "commits: cannot write $CI_OUT/.subjects (disk full?)"
fi

# Results keyed by content.  A step that says what of a commit its result
# is made of (step_<name>_content: its tree, its parent's, its message) has
# a key: the hash of that and of its inputs, the commit id in them
# replaced by a word.  Under icount a guest's figures are a function of
# the kernel image, the initramfs, QEMU and the parameters alone, and a
# check's of what it reads: a changelog edit gives the commits after it
# new ids, not new results.  run_step finds the key's last results in
# $CI_OUT/.keys/<step>/<key> (the commit they were made for) and, when
# that commit's results are still the ones made with that key, makes them
# this commit's: record-reuse rewrites each record (commit, reused_from),
# the rest is copied; the report says "reused from".

# The schedule (CI_SCHEDULE=overlap, the default, or serial).  Steps run
# commit by commit, in order, but for two: a bench-vm run whose guest
# clock is icount counts emulated instructions, whatever else the machine
# does, so it goes into a queue that runs beside the next commits' build
# and checks, never holding them up: one guest (one TCG thread) beside a
# build, up to CI_VM_JOBS when none runs and the host's memory holds
# another (its NVDIMMs' struct pages are RAM); the host benchmark (bench,
# real time) runs for every commit at the end, alone.  A wall-clock guest
# (CLOCK=wall, or KVM) runs alone in its place.  Under CLOCK=auto, which
# clock the host gives is asked once the first kernel is built
# (step_bench_vm_clock: run.sh --print-clock, the KVM probe); where that
# cannot tell, the first bench-vm run, in the foreground, does (its
# records say).
# (CI_SCHEDULE and CI_VM_JOBS are checked above, with every variable)


RUN_DIR=$CI_OUT/.run
failed='' skipped=''
summary=$CI_OUT/summary.txt
times_last=$CI_OUT/times-last.txt
# a view's tables are its own: make send reads the full run's
[ -z "$view" ] || summary=$CI_OUT/.run/summary.txt times_last=$CI_OUT/.run/times.txt
if [ -z "$report_only" ]; then
	# made anew: no link can wait in it, its files are written with a
	# plain > (lib.sh: write_file)
	rm -rf "$RUN_DIR"
	mkdir -p "$RUN_DIR/scripts-of" || die "run: cannot create $RUN_DIR"
	# scripts_of's answers, for this run and its guest queue
	SO_MEMO=$RUN_DIR/scripts-of
	export SO_MEMO
	# the plan: which steps will run, and about how long each takes
	write_file "$RUN_DIR/plan" plan_lines || die "run: cannot write $RUN_DIR/plan (disk full?)"
	if [ -n "$plan_only" ]; then
		plan_print
		exit 0
	fi
	uptime_s && T_START=$up_now
	# overlap: is bench-vm of the background kind? (1 yes, 0 no, '' not known yet)
	bg_vm=
	# (PAGES_CHECKOUT=1 moves the worktree the builds use: alone too)
	if [ "$CI_SCHEDULE" = serial ] || [ "$CLOCK" = wall ] || [ "$ACCEL" = kvm ] ||
	   [ "${PAGES_CHECKOUT:-}" = 1 ]; then
		bg_vm=0
	elif [ "$CLOCK" = icount ]; then
		bg_vm=1
	fi
	defer_bench=
	[ "$CI_SCHEDULE" = serial ] || defer_bench=1
	vm_pid='' vm_queued=''
	trap stop_queue EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	progress plan "$(awk '$4 == 1 { r++ } END { printf "%d of %d steps to run", r, NR }' "$RUN_DIR/plan"), schedule $CI_SCHEDULE: about $(left) (earlier runs' step times, else typical ones)"

	i=0 parent=
	for c in $commits; do
		i=$((i + 1))
		for s in $CI_STEPS; do
			kind_of "$s"
			k=$kind
			if [ "$k" = host-bench ] && [ -n "$defer_bench" ]; then
				continue
			fi
			if [ "$k" = guest ] && [ "$bg_vm" = 1 ]; then
				[ "$vm_queued" = "$c" ] || vm_queue_say "$c" "$i" "$parent"
				continue
			fi
			[ "$k" != kernel ] || : >"$RUN_DIR/building"
			run_step "$s" "$c" "$i" "$parent"
			rm -f "$RUN_DIR/building"
			ran_eta "$c" "$s" "$i"
			[ "$k" != kernel ] || [ -n "$bg_vm" ] || vm_clock "$c" "$s"
			# a guest needs only its commit's kernel: queued once it is
			# built, so that it runs beside the commit's own checks too
			if [ "$k" = kernel ] && [ "$bg_vm" = 1 ] && [ -n "$GUEST_STEP" ]; then
				[ "$vm_queued" = "$c" ] || vm_queue_say "$c" "$i" "$parent"
			fi
			if [ "$k" = guest ] && [ -z "$bg_vm" ]; then
				# the first run says which clock this host gives (rs_where:
				# its results, whether they replaced the last good ones or
				# not; step_<guest>_ran_clock reads them)
				ran_clock=
				fn_of "$s"
				! command -v "step_${fn}_ran_clock" >/dev/null ||
					ran_clock=$("step_${fn}_ran_clock" "$rs_where") || ran_clock=
				case $ran_clock in
				*' icount')
					bg_vm=1
					progress plan "$s runs under icount here: the next ones run beside the builds, in a queue"
					;;
				?*)
					bg_vm=0
					progress plan "$s runs on a wall clock here: each runs alone"
					;;
				esac
			fi
		done
		parent=$c
	done
	vm_wait
	host_benches=
	for s in $CI_STEPS; do
		kind_of "$s"
		[ "$kind" != host-bench ] || host_benches="$host_benches $s"
	done
	if [ -n "$defer_bench" ] && [ -n "$host_benches" ]; then
		progress host-bench "${host_benches# } of every commit, now that nothing else of ours runs (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
		i=0 parent=
		for c in $commits; do
			i=$((i + 1))
			for s in $host_benches; do
				run_step "$s" "$c" "$i" "$parent"
				ran_eta "$c" "$s" "$i"
			done
			parent=$c
		done
	fi
	trap - EXIT INT TERM HUP

	tables_write
fi

# A view ends with its step's own table (step_<name>_report DIR..., the
# results of each commit as the full run's report would read them), not
# the report: exit 1 when a step failed or the table says so.
if [ -n "$view" ]; then
	set --
	for c in $commits; do
		if [ -e "$CI_OUT/$c/.$view.superseded" ]; then
			set -- "$@" "$CI_OUT/$c/.$view.attempt"
		else
			set -- "$@" "$CI_OUT/$c/$view"
		fi
	done
	status=0
	if command -v "step_${vf}_report" >/dev/null; then
		"step_${vf}_report" "$@" || status=1
	fi
	cat "$times_last"
	[ -z "$skipped" ] || warn "skipped:$skipped (reasons above and in $CI_OUT/<commit>/<step>/skipped)"
	if [ -n "$failed" ]; then
		printf '%s: steps failed:%s\n' "$PROG" "$failed" >&2
		status=1
	fi
	progress 'done' "make $view: results in $CI_OUT/<commit>/$view (exit $status)"
	exit $status
fi

# the report, from the records of these commits only (a step's results
# that a failed attempt superseded are left out), each a word of its own
# whatever its path holds
set --
for c in $commits; do
	[ -d "$CI_OUT/$c" ] || continue
	for d in "$CI_OUT/$c"/*; do
		[ -d "$d" ] || [ "${d%.jsonl}" != "$d" ] || continue
		[ ! -e "$CI_OUT/$c/.${d##*/}.superseded" ] || continue
		set -- "$@" "$d"
	done
done
[ $# -gt 0 ] || die "report: no results under $CI_OUT for these commits: run 'make ci' first"
report_make "$CI_OUT" "$CI_OUT/commits.txt" "$CI_OUT/series.txt" "$@"

# the report ends with where this run's time went, and, after a rerun
# that did nothing, that the table of the run that did work is kept
if [ -z "$report_only" ]; then
	cat "$times_last"
	[ -n "$did_work" ] ||
		echo "(every step up to date: $CI_OUT/times.txt keeps the table of the last run that did work)"
fi

status=0
[ -z "$skipped" ] || warn "skipped:$skipped (reasons above and in $CI_OUT/<commit>/<step>/skipped, or .<step>.attempt/skipped beside the last good results)"
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
