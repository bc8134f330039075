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
# shellcheck source=../report/report-lib.sh
. "$(dirname "$0")/../report/report-lib.sh"

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
NS_SIZE=${NS_SIZE:-100G}
REBINDS=${REBINDS:-30}
CPU=${CPU:-max}
ACCEL=${ACCEL:-auto}
CLOCK=${CLOCK:-auto}
MODEL=${MODEL:-none}
BENCH_ARGS=${BENCH_ARGS:-}
# one run for bench-vm/run.sh: why KVM is not used is said once
BENCH_VM_RUN=${BENCH_VM_RUN:-ci-$$-$(date +%s)}
export NS_SIZE REBINDS CPU ACCEL CLOCK MODEL BENCH_ARGS BENCH_VM_RUN

# Helpers for the step definitions.
# sha256 of files (missing ones say so), for the inputs: "HASH PATH" a
# line in the order given, PATH relative to the toolkit; one sha256sum
# for all (a step's inputs are read for every commit of a run)
files_hash() {
	# (NUL-separated: a path with a blank, under OUT or CI_OUT, is one)
	for f in "$@"; do
		[ ! -f "$f" ] || printf '%s\0' "$f"
	done | xargs -0 -r sha256sum | awk -v top="$TOP/" '
		BEGIN { n = ARGC - 1; for (i = 1; i <= n; i++) { want[i] = ARGV[i]; delete ARGV[i] } }
		{ sum[substr($0, 67)] = substr($0, 1, 64) }
		END {
			for (i = 1; i <= n; i++) {
				f = want[i]; r = f
				if (index(f, top) == 1) r = substr(f, length(top) + 1)
				if (f in sum) printf "%s %s\n", sum[f], r; else printf "missing %s\n", r
			}
		}' "$@"
}

# scripts_of SCRIPT...: each SCRIPT and every file it names as "$TOP/X"
# or "$(dirname "$0")/X" (what it sources, runs, copies or reads: a
# fragment, a module's source), transitively through the shell scripts
# among them; sorted, a path a line.  The files of a step's inputs are
# found from its scripts, never from a list kept beside them that drifts
# (lib.sh's pin.conf, rundir.sh's owner.sh and checks.sh's kernel.config
# were missing).  A line that says "# not an input" names a file that
# decides nothing a step keeps (deps.list); a directory is the step's to
# list (find).  A level of the search at a time: one realpath, one awk.
# A run asks it the same for every commit: its first answer is kept in
# $SO_MEMO (the run's directory) for the rest of the run.
scripts_of() {
	so_k=$* so_m=
	if [ -n "${SO_MEMO:-}" ]; then
		while :; do
			case $so_k in
			*/*) so_m=$so_m${so_k%%/*}% so_k=${so_k#*/} ;;
			*) so_m=$SO_MEMO/$so_m$so_k && break ;;
			esac
		done
		if [ -f "$so_m" ]; then
			while IFS= read -r so_l; do printf '%s\n' "$so_l"; done <"$so_m"
			return
		fi
	fi
	so_todo=$* so_seen=
	while [ -n "$so_todo" ]; do
		so_new=
		# shellcheck disable=SC2086 # a path a word, no blanks in our paths
		for so_f in $(realpath -m $so_todo); do
			case " $so_seen " in *" $so_f "*) continue ;; esac
			[ -f "$so_f" ] || continue
			so_seen="$so_seen $so_f"
			case $so_f in *.sh) so_new="$so_new $so_f" ;; esac
		done
		so_todo=
		[ -n "$so_new" ] || break
		# shellcheck disable=SC2086 # as above
		so_todo=$(awk -v top="$TOP" '
			/^[[:space:]]*#/ || /# not an input/ { next }
			{
				l = $0
				while (match(l, /\$TOP\/[A-Za-z0-9_.\/-]+|\$\(dirname "\$0"\)\/[A-Za-z0-9_.\/-]+/)) {
					m = substr(l, RSTART, RLENGTH); l = substr(l, RSTART + RLENGTH)
					if (substr(m, 1, 5) == "$TOP/") { print top "/" substr(m, 6); continue }
					d = FILENAME; sub(/\/[^\/]*$/, "", d)
					print d "/" substr(m, index(m, ")/") + 2)
				}
			}' $so_new)
	done
	# shellcheck disable=SC2086 # as above
	so_seen=$(printf '%s\n' $so_seen | LC_ALL=C sort)
	printf '%s\n' "$so_seen"
	[ -z "$so_m" ] || { printf '%s\n' "$so_seen" >"$so_m.$$" && mv -f "$so_m.$$" "$so_m"; } 2>/dev/null ||
		rm -f "$so_m.$$"
}

skip() {
	printf '%s\n' "$2" >"$1/skipped"
	printf '%s: skipped: %s\n' "$PROG" "$2" >&2
	return 3
}

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

# hash_of: sha256 of stdin
hash_of() {
	sha256sum | cut -d' ' -f1
}

# outcome_of COMMIT STEP: sets ow and osec, the word and seconds of the
# step's outcome in this run (outcome_write); false when there is none.
# A read, no process: the tables ask it for every commit and step.
outcome_of() {
	ow='' osec=''
	read -r ow osec 2>/dev/null <"$RUN_DIR/$1.$2" || [ -n "$ow" ]
}

# short_of ID: sets short, its first 12 characters (printf %.12s), no
# process
short_of() {
	case $1 in
	????????????*) short=${1%"${1#????????????}"} ;;
	*) short=$1 ;;
	esac
}

# inputs STEP COMMIT: sets inputs, what the step's result on the commit
# depends on, and hash, their sha256 (what its stamp holds): the one
# reading of both for the plan and for run_step
inputs() {
	fn_of "$1"
	inputs=$("step_${fn}_inputs" "$2") ||
		die "$1: the inputs of $(printf %.12s "$2") cannot be read"
	hash=$(printf '%s\n' "$inputs" | sha256sum) && hash=${hash%% *}
}

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

# content_key STEP COMMIT: sets key (none when the step has no content)
# from the inputs that inputs() read
content_key() {
	key=
	fn_of "$1" && ck_f=step_${fn}_content
	command -v "$ck_f" >/dev/null || return 0
	ck=$("$ck_f" "$2") || die "$1: what $(printf %.12s "$2") is made of cannot be read"
	key=$({ printf '%s\n' "$ck"; printf '%s\n' "$inputs" | sed "s/$2/COMMIT/g"; } | hash_of)
}

# reuse_source STEP KEY COMMIT: the commit whose last good results of STEP
# were made with KEY (their stamp there, their key file KEY, not
# superseded); false when there is none
reuse_source() {
	[ -n "$2" ] && [ -f "$CI_OUT/.keys/$1/$2" ] || return 1
	rsrc=$(cat "$CI_OUT/.keys/$1/$2") || return 1
	[ "$rsrc" != "$3" ] && [ -f "$CI_OUT/$rsrc/$1.stamp" ] &&
		[ "$(cat "$CI_OUT/$rsrc/$1/key" 2>/dev/null)" = "$2" ] &&
		[ ! -e "$CI_OUT/$rsrc/.$1.superseded" ] || return 1
	echo "$rsrc"
}

# reuse_results STEP FROM COMMIT DIR: FROM's results of STEP as COMMIT's,
# into DIR (which holds COMMIT's inputs and key already)
reuse_results() {
	ru_src=$CI_OUT/$2/$1
	echo "the same content as $2 (key $(cat "$4/key")): its results, reused, nothing run"
	(cd "$ru_src" && find . -type f ! -name inputs ! -name key ! -name rc ! -name seconds \
		! -name log ! -name '*.jsonl' ! -name reused-from -print) | while read -r ru_f; do
		mkdir -p "$4/$(dirname "$ru_f")" && cp -p "$ru_src/$ru_f" "$4/$ru_f" || exit 1
	done || { echo "cannot copy $ru_src into $4 (disk full?)"; return 1; }
	(cd "$ru_src" && find . -type f -name '*.jsonl' -print) | while read -r ru_f; do
		mkdir -p "$4/$(dirname "$ru_f")" &&
			"$BIN/record-reuse" --from "$2" --commit "$3" --to "$4/$ru_f" "$ru_src/$ru_f" ||
			exit 1
	done || { echo "the records of $ru_src cannot be reused (above)"; return 1; }
	cat "$ru_src/reused-from" 2>/dev/null >"$4/reused-from" || echo "$2" >"$4/reused-from"
}

# key_write STEP COMMIT KEY: the key's results are now COMMIT's (the
# commit first made them, when COMMIT reused them)
key_write() {
	[ -n "$3" ] || return 0
	kw_c=$(cat "$CI_OUT/$2/$1/reused-from" 2>/dev/null || echo "$2")
	# the first commit's results may be gone or others since
	[ "$(cat "$CI_OUT/$kw_c/$1/key" 2>/dev/null)" = "$3" ] && [ -f "$CI_OUT/$kw_c/$1.stamp" ] ||
		kw_c=$2
	mkdir -p "$CI_OUT/.keys/$1" && printf '%s\n' "$kw_c" | write_file "$CI_OUT/.keys/$1/$3" ||
		die "$1: cannot write $CI_OUT/.keys/$1/$3 (disk full?)"
}

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

# typical_seconds STEP COMMIT I: the seconds a step takes on this project's
# 2-core machine, for the estimate when no earlier run of it is known: the
# step's own reckoning (step_<name>_typical), else a minute
typical_seconds() {
	fn_of "$1" && ts_f=step_${fn}_typical
	if command -v "$ts_f" >/dev/null; then
		"$ts_f" "$2" "$3"
	else
		echo 60
	fi
}

# settings_of: the lines of a step's inputs (stdin) that are settings
# (NS_SIZE's "ns_size 100G", ...): not its commit, a file's or a tool's hash
settings_of() {
	awk '$1 != "commit" && $1 != "tool" && $1 != "missing" && !(NF == 2 && $1 ~ /^[0-9a-f]+$/)' | sort
}

# ran_seconds COMMIT STEP: sets rsec, the seconds of COMMIT's last good
# run of STEP when the step ran there (not results reused from another
# commit, or a build linked from one: seconds that say nothing of a run)
# with the settings it has now ($inputs: 30 rebinds take longer than 5)
ran_seconds() {
	rsec=
	[ -f "$CI_OUT/$1/$2.stamp" ] && [ ! -e "$CI_OUT/$1/$2/reused-from" ] || return 1
	[ "$(settings_of <"$CI_OUT/$1/$2/inputs" 2>/dev/null)" = "$(printf '%s\n' "$inputs" | settings_of)" ] ||
		return 1
	read -r rsec 2>/dev/null <"$CI_OUT/$1/$2/seconds" || return 1
	case $rsec in '' | *[!0-9]*) rsec= && return 1 ;; esac
	! grep -qs '"reused_from"' "$CI_OUT/$1/$2/records.jsonl" || { rsec= && return 1; }
}

# prior_seconds COMMIT STEP: sets rsec from the newest other commit of
# COMMIT's subject ($CI_OUT/.subjects) whose STEP ran (ran_seconds)
prior_seconds() {
	rsec=
	ps_s=$(awk -F '\t' -v c="$1" '$1 == c { print substr($0, length($1) + 2); exit }' "$CI_OUT/.subjects" 2>/dev/null)
	[ -n "$ps_s" ] || return 1
	for ps_c in $(awk -F '\t' -v c="$1" -v s="$ps_s" '$1 != c && substr($0, length($1) + 2) == s { print $1 }' \
		"$CI_OUT/.subjects" | tac); do
		! ran_seconds "$ps_c" "$2" || return 0
	done
	return 1
}

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

# vm_room RUNNING: may another guest start beside RUNNING of them?  The
# first always; more only when no build runs, up to CI_VM_JOBS, and while
# the memory available holds them all, their growth to come included
vm_room() {
	[ "$1" -lt "$CI_VM_JOBS" ] || return 1
	[ "$1" != 0 ] || return 0
	[ ! -e "$RUN_DIR/building" ] && [ "$VM_KB" -gt 0 ] || return 1
	avail=$(awk '/^MemAvailable:/ { print $2 }' "${CI_MEMINFO:-/proc/meminfo}")
	[ "${avail:-0}" -ge $((VM_KB * ($1 + 1) + 1048576)) ]
}

# alive PID: the process is there and not a zombie (a child that ended
# and was not waited for yet is one)
alive() {
	# (a read, no process: the queue asks it of every guest 5 times a second)
	st=
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) } st=${st%% *}
	[ -n "$st" ] && [ "$st" != Z ]
}

RUN_DIR=$CI_OUT/.run
# A step's outcome, for the summary, the estimate and the time table:
# $RUN_DIR/<commit>.<step>: "WORD SECONDS" (ok, same, skipped, FAIL)
outcome_write() {
	printf '%s %s\n' "$3" "$4" | write_file "$RUN_DIR/$1.$2" ||
		die "run: cannot write $RUN_DIR/$1.$2 (disk full?)"
}

# log_view LOG: the output of a step (stdin) into LOG and, indented, onto
# stderr, until the step's last word.  Ctrl-C (INT to the foreground
# group) and the TERM that stops the guest queue reach the view too: a
# view that died first would cut LOG before the step's last line (the
# "interrupted" one) and kill the step with SIGPIPE in its cleanup
# (bench-vm/run.sh: the NVDIMM files left in /dev/shm).  So both ignore
# them and end when the step has ended; tee -p writes on into LOG when
# stderr is gone (the sed of the view dead).
log_view() {
	(trap '' INT TERM HUP && exec tee -p "$1") |
		(trap '' INT TERM HUP && exec sed 's/^/    /') >&2
}

# run_step STEP COMMIT I PARENT: the step on the commit, unless its stamp
# says its inputs are those of its last good run; its outcome written.
# The step runs in a directory of its own, $CI_OUT/<commit>/.<step>.attempt
# (a dot: ci-report does not read it), and only a success replaces the
# results of the last good run (those with a stamp) in <step>/: renames,
# the stamp removed first, written last.  A step that fails, is skipped
# or is interrupted leaves the last good results and their stamp as they
# were, its attempt kept aside; with no good run to keep, the attempt
# becomes <step>/ (its partial or error records are the result).
run_step() {
	rs_s=$1 rs_c=$2 rs_i=$3 rs_parent=$4
	fn_of "$rs_s" && rs_f=$fn
	short_of "$rs_c" && rs_short=$short
	rs_dir=$CI_OUT/$rs_c/$rs_s
	rs_stamp=$CI_OUT/$rs_c/$rs_s.stamp
	inputs "$rs_s" "$rs_c"
	rs_inputs=$inputs rs_hash=$hash
	content_key "$rs_s" "$rs_c"
	rs_key=$key
	if stamp_fresh "$rs_stamp" "$rs_hash"; then
		short_of "$rs_hash"
		progress "$rs_i/$n $rs_short" "$rs_s: up to date (inputs $short)"
		outcome_write "$rs_c" "$rs_s" same 0
		rm -f "$CI_OUT/$rs_c/.$rs_s.superseded"
		# results made before keys were kept: their key is this one
		if [ -n "$rs_key" ] && [ ! -f "$rs_dir/key" ]; then
			printf '%s\n' "$rs_key" | write_file "$rs_dir/key" ||
				die "$rs_s: cannot write $rs_dir/key (disk full?)"
		fi
		[ "$(cat "$CI_OUT/.keys/$rs_s/$rs_key" 2>/dev/null)" != "" ] ||
			key_write "$rs_s" "$rs_c" "$rs_key"
		rs_where=$rs_dir
		return 0
	fi
	# (made anew: the step writes its files there with a plain >)
	rs_new=$CI_OUT/$rs_c/.$rs_s.attempt
	rs_old=$CI_OUT/$rs_c/.$rs_s.old
	rm -rf "$rs_new" "$rs_old" && mkdir -p "$rs_new" &&
		printf '%s\n' "$rs_inputs" >"$rs_new/inputs" &&
		{ [ -z "$rs_key" ] || printf '%s\n' "$rs_key" >"$rs_new/key"; } ||
		die "$rs_s: cannot make $rs_new (disk full?): the results of $rs_short are as they were"
	# kept, but made with other inputs than this run's: marked before the
	# step starts, so that a run killed in it (a power cut) leaves them
	# out of the report as well (a figure of another NS_SIZE beside its
	# parent's would be compared as if it were this run's); a success,
	# or a run that finds them up to date, removes the mark
	[ ! -f "$rs_stamp" ] || write_file "$CI_OUT/$rs_c/.$rs_s.superseded" true ||
		die "$rs_s: cannot write $CI_OUT/$rs_c/.$rs_s.superseded (disk full?)"
	rs_from=$(reuse_source "$rs_s" "$rs_key" "$rs_c") || rs_from=
	if [ -n "$rs_from" ]; then
		progress "$rs_i/$n $rs_short" "$rs_s: the same content as $(printf %.12s "$rs_from"): its results, reused (log: $rs_new/log)"
	else
		progress "$rs_i/$n $rs_short" "$rs_s: start (log: $rs_new/log)"
	fi
	uptime_s && rs_t=$up_now
	# no pipefail in POSIX sh: the status goes around the view.  A reuse
	# that fails (a record refused) says why, and the step runs.
	{
		rc=0
		if [ -z "$rs_from" ] || ! reuse_results "$rs_s" "$rs_from" "$rs_c" "$rs_new"; then
			[ -z "$rs_from" ] || {
				echo "reuse of $rs_from's results failed (above): running the step"
				find "$rs_new" -mindepth 1 ! -name inputs ! -name key -exec rm -rf {} + 2>/dev/null
				rs_from=
			}
			"step_${rs_f}_run" "$rs_c" "$rs_new" "$rs_parent" || rc=$?
		fi
		echo "$rc" >"$rs_new/rc"
	} 2>&1 | log_view "$rs_new/log"
	rc=$(cat "$rs_new/rc")
	uptime_s && rs_t=$((up_now - rs_t))
	echo "$rs_t" >"$rs_new/seconds"
	rs_why=
	[ "$rc" != 3 ] || rs_why=$(cat "$rs_new/skipped" 2>/dev/null || echo "no reason given")
	rs_kept=
	if [ "$rc" = 0 ] || [ ! -f "$rs_stamp" ]; then
		# (stamp first: a kill in between leaves no stamp, never a stamp
		# of other results)
		rm -f "$rs_stamp" &&
			{ [ ! -e "$rs_dir" ] || mv "$rs_dir" "$rs_old"; } &&
			mv "$rs_new" "$rs_dir" && rm -rf "$rs_old" &&
			rm -f "$CI_OUT/$rs_c/.$rs_s.superseded" ||
			die "$rs_s: moving $rs_new to $rs_dir failed (the reason is above)"
		rs_where=$rs_dir
	else
		# kept, marked superseded before the step started (above)
		rs_where=$rs_new
		rs_kept=" ($rs_dir keeps the last good results, inputs $(printf %.12s "$(cat "$rs_stamp")"))"
	fi
	case $rc in
	0)
		stamp_write "$rs_stamp" "$rs_hash"
		key_write "$rs_s" "$rs_c" "$rs_key"
		if [ -f "$rs_dir/reused-from" ]; then
			outcome_write "$rs_c" "$rs_s" reused "$rs_t"
			progress "$rs_i/$n $rs_short" "$rs_s: reused from $(printf %.12s "$(cat "$rs_dir/reused-from")") in ${rs_t}s"
		else
			outcome_write "$rs_c" "$rs_s" ok "$rs_t"
			progress "$rs_i/$n $rs_short" "$rs_s: ok in ${rs_t}s"
		fi ;;
	3)
		outcome_write "$rs_c" "$rs_s" skipped "$rs_t"
		progress "$rs_i/$n $rs_short" "$rs_s: skipped: $rs_why$rs_kept" ;;
	*)
		outcome_write "$rs_c" "$rs_s" FAIL "$rs_t"
		progress "$rs_i/$n $rs_short" "$rs_s: FAILED (exit $rc) after ${rs_t}s: see $rs_where/log$rs_kept" ;;
	esac
	[ -z "$rs_kept" ] ||
		progress "$rs_i/$n $rs_short" "$rs_s: its kept results are not in the report: this run's inputs are others"
}

# stale_why STEP COMMIT: why the step of the commit runs, from the inputs
# inputs() read against those of its last good run: the first line that
# differs ("build/build.sh changed", "settings: kconfig distro")
stale_why() {
	sw_old=$CI_OUT/$2/$1/inputs
	if [ ! -f "$CI_OUT/$2/$1.stamp" ] || [ ! -f "$sw_old" ]; then
		echo "never run"
		return
	fi
	printf '%s\n' "$inputs" | awk -v old="$sw_old" '
		BEGIN { while ((getline l < old) > 0) had[l] = 1 }
		!($0 in had) {
			if (NF == 2 && $1 ~ /^[0-9a-f]+$/) print $2 " changed"
			else if ($1 == "missing") print $2 " is missing"
			else print "now " $0
			found = 1; exit
		}
		END { if (!found) print "an input is gone" }'
}

# plan_print: the plan, as --plan shows it without running anything: per
# commit and step, whether it runs and why, its expected seconds (the
# last good run's, else those of the commit of the same subject it
# replaces, else typical ones); then the estimate of the whole
plan_print() {
	awk '{ why = $0; for (i = 1; i <= 5; i++) sub(/^[^ ]+ /, "", why)
		printf "%.12s %-9s %-8s %s\n", $1, $2, $4 == 1 ? ("~" $3 "s") : "-", why }' "$RUN_DIR/plan"
	bg_vm=1
	[ "$CI_SCHEDULE" != serial ] && [ "$CLOCK" != wall ] && [ "$ACCEL" != kvm ] || bg_vm=0
	printf '%s, schedule %s: about %s (earlier runs'"'"' step times, else typical ones)\n' \
		"$(awk '$4 == 1 { r++ } END { printf "%d of %d steps to run", r, NR }' "$RUN_DIR/plan")" \
		"$CI_SCHEDULE" "$(left)"
}

# left: the estimate of what is left, from the plan and the outcomes
left() {
	awk -v dir="$RUN_DIR" -v overlap="$bg_vm" '
		{
			f = dir "/" $1 "." $2
			if ((getline line < f) > 0) { close(f); next }
			close(f)
			if ($5 == "guest") vm += $3; else if ($5 == "host-bench") hb += $3; else fg += $3
		}
		END {
			t = (overlap == 1) ? (fg > vm ? fg : vm) : fg + vm
			t += hb
			printf "%d min %02d s", int(t / 60), t % 60
		}' "$RUN_DIR/plan"
}
# ran_eta COMMIT STEP I: after a step that ran (not one up to date),
# the time spent so far and the estimate of what is left
ran_eta() {
	! outcome_of "$1" "$2" || [ "$ow" != same ] || return 0
	short_of "$1" && uptime_s
	progress "$3/$n $short" "spent $(( (up_now - T_START) / 60 )) min, about $(left) left (earlier runs' step times, else typical ones)"
}
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
				# its records, whether they replaced the last good ones or not)
				if grep -q '"clock":"icount"' "$rs_where/records.jsonl" 2>/dev/null; then
					bg_vm=1
					progress plan "$s runs under icount here: the next ones run beside the builds, in a queue"
				elif [ -f "$rs_where/records.jsonl" ]; then
					bg_vm=0
					progress plan "$s runs on a wall clock here: each runs alone"
				fi
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

	# the summary and the time table, from the outcomes (lib.sh:
	# write_file: each written whole, a link at its name replaced)
	summary_table() {
		printf '%-12s' commit
		for s in $CI_STEPS; do printf ' %-10s' "$s"; done
		echo
		for c in $commits; do
			printf '%-12.12s' "$c"
			for s in $CI_STEPS; do
				outcome_of "$c" "$s" || ow=lost
				printf ' %-10s' "$ow"
			done
			echo
		done
	}
	times_table() {
		echo "Where the time went (seconds; 0: up to date; schedule $CI_SCHEDULE, ${GUEST_STEP:-guests} in the background: $([ "$bg_vm" = 1 ] && echo yes || echo no)):"
		printf '%-12s' commit
		for s in $CI_STEPS; do printf ' %9s' "$s"; done
		echo
		for c in $commits; do
			printf '%-12.12s' "$c"
			for s in $CI_STEPS; do
				outcome_of "$c" "$s" || osec=-
				printf ' %9s' "$osec"
			done
			echo
		done
		printf '%-12s' total
		for s in $CI_STEPS; do
			tt=0
			for c in $commits; do
				outcome_of "$c" "$s" || continue
				case $osec in '' | *[!0-9]*) ;; *) tt=$((tt + osec)) ;; esac
			done
			printf ' %9s' "$tt"
		done
		echo
		uptime_s && echo "wall clock: $((up_now - T_START)) s"
	}
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
