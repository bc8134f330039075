# ci/settings.sh: the settings of a ci/run.sh run, each defaulted and
# checked before anything is written: the set of checks (CI_SET), make
# quick's smaller defaults, the guest's (bench-vm/defaults.sh), the
# steps (ci/steps.sh) and a view's, each step's kind and its own check of
# its variables, the guest step and a guest's footprint.  Sourced by
# ci/run.sh after its modes; POSIX sh.
# shellcheck disable=SC2034,SC2154 # the run's globals (view, report_only, CI_QUICK: ci/run.sh; fn: step-lib.sh)

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

# A view: its step and the steps it needs, in the pipeline's order, on its
# commits.
if [ -n "$view" ]; then
	case " $CI_ALL_STEPS " in
	*" $view "*) ;;
	*) usage_die "--view: '$view' is not a step of $CI_STEPS_FILE (steps: $CI_ALL_STEPS)" ;;
	esac
	[ -z "${CI_STEPS:-}" ] ||
		usage_die "CI_STEPS: 'make $view' runs its own steps; CI_STEPS='$CI_STEPS' is for make ci"
	fn_of "$view" && vf=$fn
	needs=$(step_const "$view" needs)
	CI_STEPS=
	for s in $CI_ALL_STEPS; do
		case " $needs $view " in *" $s "*) CI_STEPS="$CI_STEPS $s" ;; esac
	done
	CI_STEPS=${CI_STEPS# }
	if [ -z "${CI_COMMITS:-}" ]; then
		CI_COMMITS=$(step_const "$view" commits) || exit 2
	fi
	CI_COMMITS=${CI_COMMITS:-}
	export CI_STEPS CI_COMMITS
fi
CI_STEPS=${CI_STEPS:-$CI_ALL_STEPS}
CI_SCHEDULE=${CI_SCHEDULE:-overlap}
CI_VM_JOBS=${CI_VM_JOBS:-2}

# Each step's kind, the step's own word, asked once here (its constant,
# ci/steps.sh): foreground (the default), kernel, guest or host-bench;
# the driver knows no step by its name.
# kind_of STEP sets kind from it, in this shell (the loops call it for
# every commit).
for s in $CI_STEPS; do
	kind=$(step_const "$s" kind) && fn_of "$s" && f=$fn
	eval "KIND_$f=\${kind:-foreground}"
done
kind_of() {
	fn_of "$1" && eval "kind=\${KIND_$fn}"
}

# Every variable of the run is checked before anything is written or
# removed and before the first step starts: the driver's own here, each
# step's by its step_<name>_check (ci/steps.sh), which asks the step's own
# program and runs nothing.  A mistyped one (CLOCK=bogus) ends the run
# here, exit 2, every result as it was.
if [ -z "$view" ]; then
	report_check
fi
if [ -z "$report_only" ]; then
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
		*) die "steps: $s's kind is '$kind' (step_${f}_kind, or the table of $CI_STEPS_FILE), not foreground, kernel, guest or host-bench" ;;
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
