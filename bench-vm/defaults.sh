# bench-vm/defaults.sh: a guest run's settings, their defaults and the
# rules that resolve "auto", written once.  Sourced by bench-vm/run.sh (a
# run by hand) and by ci/run.sh (which exports them to every guest step,
# after make quick's own smaller guest), and the estimate of the guest
# step (bench-vm-step.sh) asks the same rules.  POSIX sh.
# shellcheck disable=SC2034 # read by the scripts that source this file
NS_SIZE=${NS_SIZE:-100G}
REBINDS=${REBINDS:-30}
CPU=${CPU:-max}
ACCEL=${ACCEL:-auto}
CLOCK=${CLOCK:-auto}
MODEL=${MODEL:-none}

# clock_of ACCEL: sets clock, the clock CLOCK gives a guest under ACCEL
# (kvm or tcg): auto is icount under TCG (exact counts), the wall clock
# under KVM; false for icount under KVM (icount needs TCG)
clock_of() {
	case $CLOCK/$1 in
	auto/tcg) clock=icount ;;
	auto/kvm) clock=wall ;;
	icount/kvm) return 1 ;;
	*) clock=$CLOCK ;;
	esac
}

# model_of ACCEL CLOCK: sets model, what MODEL gives a guest there: auto
# is the cache model where the guest is exact (TCG with icount), none
# elsewhere
model_of() {
	model=$MODEL
	[ "$model" != auto ] || case $1/$2 in
		tcg/icount) model=cache ;;
		*) model=none ;;
	esac
}
