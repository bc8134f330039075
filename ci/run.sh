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
. "$(dirname "$0")/../report/report-lib.sh"
# shellcheck source=step-lib.sh
. "$(dirname "$0")/step-lib.sh"
# shellcheck source=step-run.sh
. "$(dirname "$0")/step-run.sh"
# shellcheck source=keys.sh
. "$(dirname "$0")/keys.sh"
# shellcheck source=estimate.sh
. "$(dirname "$0")/estimate.sh"
# shellcheck source=queue.sh
. "$(dirname "$0")/queue.sh"
# shellcheck source=tables.sh
. "$(dirname "$0")/tables.sh"

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
report_only='' one_step='' vm_runner='' view='' plan_only=''
case ${1:-} in
'') ;;
--report-only) report_only=1 ;;
--view) [ $# = 2 ] || usage_die "run.sh --view STEP"; view=$2; shift ;;
# ci/run.sh's own background job (see the schedule below)
--one-step) [ $# = 5 ] || usage_die "run.sh --one-step STEP COMMIT I PARENT"; one_step="$2 $3 $4 $5"; shift 4 ;;
--vm-runner) vm_runner=1 ;;
--plan) plan_only=1 ;;
*) usage_die "run.sh [--report-only | --plan | --view STEP]" ;;
esac
[ $# -le 1 ] || usage_die "run.sh [--report-only | --plan | --view STEP]"
[ -z "$view" ] || [ -z "$CI_QUICK" ] ||
	usage_die "CI_QUICK: make quick is the whole pipeline on base and head; a view (make $view) takes its commits from COMMITS="

# CI_SET=main (make, make quick): the mission's job: build, checkpatch,
# the changelog lint, sparse, coccinelle and the codegen check, the
# guests, the host benchmark, the report; full (make ci, the default):
# the superset CI runs, with the configs matrix, clang and KUnit, which
# build whole kernels of other configurations (doc/measurements.md)
CI_SET=${CI_SET:-full}
case $CI_SET in
main)
	CHECKS_ONLY=${CHECKS_ONLY:-checkpatch changelog sparse cocci codegen}
	KUNIT=${KUNIT:-0}
	export CHECKS_ONLY KUNIT
	;;
full) ;;
*) usage_die "CI_SET: '$CI_SET' is not main (the mission's job: make) or full (with the configs matrix, clang and KUnit: make ci)" ;;
esac
if [ -n "$CI_QUICK" ]; then
	NS_SIZE=${NS_SIZE:-4G}
	REBINDS=${REBINDS:-5}
	BENCH_ARGS=${BENCH_ARGS:---quick}
	MODEL=${MODEL:-auto}
	# the configs check's whole kernels (checks/configs.sh): not for a
	# quick look
	CONFIGS=${CONFIGS:-none}
	export CONFIGS
fi
# the guest's settings and defaults: bench-vm/defaults.sh, once
# shellcheck source=../bench-vm/defaults.sh
. "$TOP/bench-vm/defaults.sh"
BENCH_ARGS=${BENCH_ARGS:-}
# one run for bench-vm/run.sh: why KVM is not used is said once
BENCH_VM_RUN=${BENCH_VM_RUN:-ci-$$-$(date +%s)}
export NS_SIZE REBINDS CPU ACCEL CLOCK MODEL BENCH_ARGS BENCH_VM_RUN

[ -r "$CI_STEPS_FILE" ] || die "steps: $CI_STEPS_FILE is missing"
# shellcheck source=steps.sh
. "$CI_STEPS_FILE"

# fn_of STEP: sets fn, the shell name of a step ("bench-vm" ->
# "bench_vm"); no process (the loops ask it for every commit and step)
fn_of() {
	fn='' fo_r=$1
	while [ -n "$fo_r" ]; do
		fo_c=${fo_r%"${fo_r#?}"} fo_r=${fo_r#?}
		case $fo_c in [a-z0-9]) fn=$fn$fo_c ;; *) fn=${fn}_ ;; esac
	done
}

# A view: its step and the steps it needs, in the pipeline's order, on its
# commits.  Exported: the guest queue's runs (run.sh --one-step) count
# the same commits and steps.
if [ -n "$view" ]; then
	case " $CI_ALL_STEPS " in
	*" $view "*) ;;
	*) usage_die "--view: '$view' is not a step of $CI_STEPS_FILE (steps: $CI_ALL_STEPS)" ;;
	esac
	[ -z "${CI_STEPS:-}" ] ||
		usage_die "CI_STEPS: 'make $view' runs its own steps; CI_STEPS='$CI_STEPS' is for make ci"
	fn_of "$view" && vf=$fn needs=
	! command -v "step_${vf}_needs" >/dev/null || needs=$("step_${vf}_needs")
	CI_STEPS=
	for s in $CI_ALL_STEPS; do
		case " $needs $view " in *" $s "*) CI_STEPS="$CI_STEPS $s" ;; esac
	done
	CI_STEPS=${CI_STEPS# }
	if [ -z "${CI_COMMITS:-}" ] && command -v "step_${vf}_commits" >/dev/null; then
		CI_COMMITS=$("step_${vf}_commits") || exit 2
	fi
	CI_COMMITS=${CI_COMMITS:-}
	export CI_STEPS CI_COMMITS
fi
CI_STEPS=${CI_STEPS:-$CI_ALL_STEPS}
CI_SCHEDULE=${CI_SCHEDULE:-overlap}
CI_VM_JOBS=${CI_VM_JOBS:-2}

# Each step's kind, the step's own word, asked once here
# (step_<name>_kind, ci/steps.sh): foreground (the default), kernel,
# guest or host-bench; the driver knows no step by its name.
# kind_of STEP sets kind from it, in this shell (the loops call it for
# every commit).
for s in $CI_STEPS; do
	fn_of "$s" && f=$fn kind=foreground
	! command -v "step_${f}_kind" >/dev/null || kind=$("step_${f}_kind")
	eval "KIND_$f=\$kind"
done
kind_of() {
	fn_of "$1" && eval "kind=\${KIND_$fn}"
}

# Every variable of the run is checked before anything is written or
# removed and before the first step starts: the driver's own here, each
# step's by its step_<name>_check (ci/steps.sh), which asks the step's own
# program and runs nothing.  A mistyped one (CLOCK=bogus) ends the run
# here, exit 2, every result as it was.  (The background jobs below are
# this run's: checked already.)
if [ -z "$one_step$vm_runner$view" ]; then
	report_check
fi
if [ -z "$one_step$vm_runner$report_only" ]; then
	case $CI_SCHEDULE in overlap | serial) ;; *) usage_die "CI_SCHEDULE: '$CI_SCHEDULE' is not overlap or serial" ;; esac
	case $CI_VM_JOBS in '' | *[!0-9]* | 0*) usage_die "CI_VM_JOBS: '$CI_VM_JOBS' is not a number of guests, 1 or more" ;; esac
	guests=
	for s in $CI_STEPS; do
		fn_of "$s" && f=$fn
		command -v "step_${f}_run" >/dev/null && command -v "step_${f}_inputs" >/dev/null ||
			usage_die "CI_STEPS: '$s' is not a step of $CI_STEPS_FILE (steps: $CI_ALL_STEPS)"
		kind_of "$s"
		case $kind in
		foreground | kernel | host-bench) ;;
		guest) guests="$guests $s" ;;
		*) die "steps: step_${f}_kind says '$kind', not foreground, kernel, guest or host-bench ($CI_STEPS_FILE)" ;;
		esac
	done
	case $guests in
	*" "*" "*) die "steps: more than one guest step ($guests): one queue of guests only ($CI_STEPS_FILE)" ;;
	esac
	# Each check runs once: what it prints (the settings that decide the
	# step's results besides the commit) is CI_SETTINGS_<step>, which
	# the step's inputs (its stamp) print again for every commit, also
	# in the background runs of the guest queue, which inherit it.
	for s in $CI_STEPS; do
		fn_of "$s" && f=$fn
		command -v "step_${f}_check" >/dev/null || continue
		crc=0
		# shellcheck disable=SC2034 # read by the eval below
		settings=$("step_${f}_check") || crc=$?
		[ "$crc" = 0 ] ||
			die_rc "$crc" "check: the $s step refuses its variables (above): nothing ran, every result is as it was"
		eval "CI_SETTINGS_$f=\$settings"
		export "CI_SETTINGS_$f"
	done
fi
[ -n "$view" ] || tool_built ci-report
# the guest step of the run, if any (its queue, its clock, its footprint)
GUEST_STEP=
for s in $CI_STEPS; do
	kind_of "$s"
	[ "$kind" != guest ] || GUEST_STEP=$s
done

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
	*" $c "*) [ -n "$one_step$vm_runner" ] || warn "commits: $(printf %.12s "$c") is given twice: once" ;;
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
if [ -z "$one_step" ] && [ -z "$vm_runner" ]; then
	out_lock "ci/run.sh${report_only:+ --report-only}${plan_only:+ --plan}${view:+ --view $view}${CI_QUICK:+ (make quick)}"
fi

mkdir -p "$CI_OUT"
if [ -z "$one_step$vm_runner$view" ]; then
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
if [ -z "$one_step$vm_runner$report_only" ]; then
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

# VM_NS_KB, VM_KB: the size of a guest's NVDIMMs and what one guest
# takes of the host's memory (its RAM, the struct pages on the tmpfs of
# its NVDIMMs), in KiB, as the guest runner reckons them
# (step_<guest>_footprint: bench-vm/run.sh --print-footprint, the one
# model of a guest's memory); none when the guest step has no such
# function or the run no guests: then one guest at a time, and the
# estimate takes 100G
VM_NS_KB='' VM_KB=0
[ -z "$GUEST_STEP" ] || fn_of "$GUEST_STEP"
if [ -n "$GUEST_STEP" ] && [ -z "$report_only" ] &&
	command -v "step_${fn}_footprint" >/dev/null; then
	fp=$("step_${fn}_footprint") ||
		die "$GUEST_STEP: step_${fn}_footprint failed (above)"
	case $fp in
	"ns_kb "[0-9]*" host_kb "[0-9]*) ;;
	*) die "$GUEST_STEP: step_${fn}_footprint printed '$fp', not 'ns_kb N host_kb N'" ;;
	esac
	read -r _ VM_NS_KB _ VM_KB <<EOF
$fp
EOF
fi

RUN_DIR=$CI_OUT/.run
# --one-step STEP COMMIT I PARENT: one step, for the guest queue below
if [ -n "$one_step" ]; then
	# the progress clock of the run that started it
	T0=${CI_T0:-$T0} T_START=${CI_T_START:-$T0} bg_vm=1
	# shellcheck disable=SC2086 # STEP COMMIT I PARENT, a word each
	set -- $one_step
	[ "$4" != - ] || set -- "$1" "$2" "$3" ""
	run_step "$@"
	ran_eta "$2" "$1" "$3"
	exit 0
fi

# --vm-runner: the guest queue, run.sh itself in a session of its own (its
# process group is stopped as a whole, the guests with it).  The run
# appends "COMMIT I PARENT" to $RUN_DIR/vm-queue as a commit's turn comes;
# they start in that order, as vm_room allows, and the runner ends once
# the run has closed the queue ($RUN_DIR/vm-closed) and every one ended.
# The run that queued the guests is CI_DRIVER (its owner record): killed
# outright (SIGKILL: its EXIT trap, stop_queue, never ran), the runner
# stops its guests as stop_queue would (TERM to the session: each guest's
# runner removes its NVDIMM files) and ends.
if [ -n "$vm_runner" ]; then
	[ -n "${CI_DRIVER:-}" ] || usage_die "run.sh --vm-runner: CI_DRIVER (the owner record of the run that queues) is not set"
	started=0 pids='' turn=0
	while :; do
		# (once a second, not every turn: three processes a look)
		turn=$((turn + 1))
		# shellcheck disable=SC2086 # PID START BOOT, a word each
		if [ $((turn % 5)) = 1 ] && ! owner_alive $CI_DRIVER; then
			warn "$GUEST_STEP: the run that queued these guests (pid ${CI_DRIVER%% *}) is gone: stopping its guests"
			trap '' TERM
			kill -TERM 0 2>/dev/null || true
			wait || true
			exit 1
		fi
		keep=''
		for p in $pids; do
			if alive "$p"; then keep="$keep $p"; else wait "$p" || true; fi
		done
		pids=$keep
		# shellcheck disable=SC2086 # pids, a word each
		set -- $pids
		running=$#
		# whole lines only: one being appended has no newline yet
		queued=$(wc -l <"$RUN_DIR/vm-queue")
		if [ "$started" -lt "$queued" ] && vm_room "$running"; then
			started=$((started + 1))
			# shellcheck disable=SC2046 # COMMIT I PARENT, a word each
			set -- $(sed -n "${started}p" "$RUN_DIR/vm-queue")
			sh "$0" --one-step "$GUEST_STEP" "$1" "$2" "$3" &
			pids="$pids $!"
			continue
		fi
		[ "$started" -lt "$queued" ] || [ "$running" -gt 0 ] || [ ! -f "$RUN_DIR/vm-closed" ] || break
		# a fifth of a second: the run waits on this loop at its end
		sleep 0.2
	done
	exit 0
fi

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
	# The plan, "COMMIT STEP SECONDS RUN KIND": which steps will run (RUN 1:
	# their stamps are stale, as run_step sees them) and what each is
	# expected to take: its last good run's seconds, else those of the
	# commit it replaces (the same subject), else typical ones (a failed
	# run's say nothing: it may have failed at once; nor do a reuse's)
	i=0
	for c in $commits; do
		i=$((i + 1))
		for s in $CI_STEPS; do
			inputs "$s" "$c"
			content_key "$s" "$c"
			if stamp_fresh "$CI_OUT/$c/$s.stamp" "$hash"; then
				e="0 0" why="up to date"
			elif rsrc=$(reuse_source "$s" "$key" "$c"); then
				e="1 1" why="reused: the same content as $(printf %.12s "$rsrc")"
			else
				why=$(stale_why "$s" "$c")
				if ran_seconds "$c" "$s" || prior_seconds "$c" "$s"; then
					e="$rsec 1"
				else
					e="$(typical_seconds "$s" "$c" "$i") 1"
				fi
			fi
			kind_of "$s"
			printf '%s %s %s %s %s\n' "$c" "$s" "$e" "$kind" "$why"
		done
	done >"$RUN_DIR/plan" || die "run: cannot write $RUN_DIR/plan (disk full?)"
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
	vm_pid=
	# stop the guest queue with us, whatever ends us, and end after it: a
	# guest's runner removes its NVDIMM files on TERM, which takes a
	# moment (30 s at most here, then we end anyway)
	stop_queue() {
		[ -n "$vm_pid" ] || return 0
		kill -TERM "-$vm_pid" 2>/dev/null || kill -TERM "$vm_pid" 2>/dev/null || return 0
		sq=0
		while kill -0 "-$vm_pid" 2>/dev/null && [ "$sq" -lt 150 ]; do
			sleep 0.2
			sq=$((sq + 1))
		done
	}
	trap stop_queue EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	progress plan "$(awk '$4 == 1 { r++ } END { printf "%d of %d steps to run", r, NR }' "$RUN_DIR/plan"), schedule $CI_SCHEDULE: about $(left) (earlier runs' step times, else typical ones)"

	# vm_queue COMMIT I PARENT: its guest into the queue, the runner
	# started with the first
	vm_queue() {
		printf '%s %s %s\n' "$1" "$2" "${3:--}" >>"$RUN_DIR/vm-queue" ||
			die "run: cannot write $RUN_DIR/vm-queue (disk full?)"
		[ -z "$vm_pid" ] || return 0
		CI_DRIVER=$(proc_owner) CI_T0=$T0 CI_T_START=$T_START setsid sh "$0" --vm-runner &
		vm_pid=$!
	}
	vm_queued=
	vm_queue_say() {
		vm_queue "$@"
		vm_queued=$1
		progress "$2/$n $(printf %.12s "$1")" "$GUEST_STEP: queued, in the background (icount: the builds beside it change no figure)"
	}
	# vm_wait: the queue closed, every guest in it ended
	vm_wait() {
		[ -n "$vm_pid" ] || return 0
		: >"$RUN_DIR/vm-closed"
		if alive "$vm_pid"; then
			vm_left=$(while read -r vc _; do [ -f "$RUN_DIR/$vc.$GUEST_STEP" ] || echo "$vc"; done <"$RUN_DIR/vm-queue" | wc -l)
			progress "$GUEST_STEP" "$vm_left guest run(s) still to end, up to $CI_VM_JOBS at once"
		fi
		wait "$vm_pid" || true
		vm_pid=
	}
	# vm_clock COMMIT STEP: after the first kernel step (STEP), which clock
	# the guests get here, when the guest step can tell (step_<guest>_clock)
	vm_clock() {
		[ -n "$GUEST_STEP" ] || return 0
		fn_of "$GUEST_STEP" && vc_f=step_${fn}_clock
		command -v "$vc_f" >/dev/null || return 0
		! outcome_of "$1" "$2" || [ "$ow" != FAIL ] || return 0
		if ! ck=$("$vc_f" "$1" "$RUN_DIR/clock"); then
			warn "plan: which clock the guests get here is not known yet: the first $GUEST_STEP run tells"
			return 0
		fi
		case $ck in
		*" icount")
			bg_vm=1
			progress plan "$GUEST_STEP runs under $ck here: the guests run beside the builds, in a queue" ;;
		*" wall")
			bg_vm=0
			progress plan "$GUEST_STEP runs under $ck here (a wall clock): each runs alone" ;;
		*)
			warn "plan: $vc_f said '$ck', not 'ACCEL icount' or 'ACCEL wall': the first $GUEST_STEP run tells" ;;
		esac
	}

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

	write_file "$times_last" times_table ||
		die "run: cannot write $times_last (disk full?)"
	# times.txt: the last run that did work; a rerun with every step
	# up to date (a table of zeros) leaves it and has times-last.txt only
	did_work=
	for c in $commits; do
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" && [ "$ow" = same ] || did_work=1
		done
	done
	if [ -z "$view" ] && { [ -n "$did_work" ] || [ ! -f "$CI_OUT/times.txt" ]; }; then
		write_file "$CI_OUT/times.txt" cat "$times_last" ||
			die "run: cannot write $CI_OUT/times.txt (disk full?)"
	fi
	for c in $commits; do
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" || ow=lost
			short_of "$c"
			case $ow in
			skipped) skipped="$skipped $short:$s" ;;
			FAIL | lost) failed="$failed $short:$s" ;;
			esac
		done
	done
	write_file "$summary" summary_table || die "run: cannot write $summary (disk full?)"
	cat "$summary" >&2
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
