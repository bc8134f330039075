# bench-vm/bench-vm-step.sh: the guest step of the pipeline (ci/run.sh,
# its list in ci/steps.sh): the QEMU NVDIMM rebind benchmark of one
# commit's kernel, bench-vm/run.sh.  Kind "guest": under icount its
# figures are counts of emulated instructions, whatever else the host
# does, so it runs in a queue beside the next commits' steps; on a wall
# clock, alone in its place.

# the settings' defaults and rules (ci/run.sh has sourced them: again,
# so that this file says where clock_of and model_of come from)
# shellcheck source=defaults.sh
. "$TOP/bench-vm/defaults.sh"

# Its kind (guest), what make bench-vm needs first (build: the kernels,
# up to date when they are) and its commits (the base and the head
# unless COMMITS=): ci/steps.sh's table.

# step_bench_vm_report DIR...: make bench-vm's table, the
# changelog-shaped comparison of the kernels' records, the first the
# reference (bench-vm-report)
step_bench_vm_report() {
	# each a word, whatever CI_OUT holds (a blank)
	for bvr_d; do
		shift
		[ ! -f "$bvr_d/records.jsonl" ] || set -- "$@" "$bvr_d/records.jsonl"
	done
	[ $# -gt 0 ] || {
		echo "$PROG: bench-vm: no kernel produced records" >&2
		return 1
	}
	"${BENCH_VM_BIN:-$BIN}/bench-vm-report" "$@"
}

# run.sh --check: every option and variable of a run checked as a run
# checks them, then those that decide its results, a line each (MEM_NS,
# GUEST_MEM_MB, KERNEL_ARGS, PAGES, NVDIMM_DIR, QEMU, the tools too)
step_bench_vm_check() {
	sh "$TOP/bench-vm/run.sh" --check --ns-size "$NS_SIZE" --rebinds "$REBINDS" --cpu "$CPU" \
		--accel "$ACCEL" --clock "$CLOCK" --model "${MODEL:-none}"
}

# the files: the kernel, the tools, what run.sh names (scripts_of: the
# scripts it sources or runs, the module's sources), every script of
# bench-vm/ (this one too) and the module of pages/ (by directory, so a
# new one counts too)
step_bench_vm_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_bench_vm?ci/run.sh: step_bench_vm_check did not run}"
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash "$OUT/build/$1/arch/x86/boot/bzImage" "$BIN/bench-vm-agent" \
		"$BIN/bench-vm-collect" \
		$({ scripts_of "$TOP/bench-vm/run.sh"; find "$TOP/bench-vm" -maxdepth 1 -type f -name '*.sh'
		    find "$TOP/bench-vm/pages" -type f; } | LC_ALL=C sort -u)
}

# a guest is its kernel (the bzImage, in the inputs) and the module built
# against its tree
step_bench_vm_content() {
	echo "tree $(tree_of "$1")"
}

# step_bench_vm_footprint: "ns_kb N host_kb N", a guest's NVDIMM size
# and what it takes of the host's memory, as run.sh reckons them: how
# many guests the driver lets run at once (optional for a guest step)
step_bench_vm_footprint() {
	sh "$TOP/bench-vm/run.sh" --print-footprint --ns-size "$NS_SIZE"
}

# step_bench_vm_clock COMMIT DIR: "ACCEL CLOCK" (tcg icount, kvm wall...)
# that its runs get on this host, the KVM probe's verdict included: how
# the driver schedules the guests (optional for a guest step)
step_bench_vm_clock() {
	[ "$(cat "$OUT/build/$1/result" 2>/dev/null)" = ok ] || return 1
	sh "$TOP/bench-vm/run.sh" --print-clock --ns-size "$NS_SIZE" --cpu "$CPU" \
		--accel "$ACCEL" --clock "$CLOCK" --results "$2" "$1"
}

# step_bench_vm_ran_clock DIR: "ACCEL CLOCK" that the run whose results
# are in DIR was given (run.sh writes DIR/clock before the boot); nothing
# when run.sh stopped before it
step_bench_vm_ran_clock() {
	cat "$1/clock" 2>/dev/null
}

step_bench_vm_run() {
	c=$1 dir=$2
	[ "$(cat "$OUT/build/$c/result" 2>/dev/null)" = ok ] ||
		skip "$dir" "no kernel: the build of $c did not succeed ($OUT/build/$c/result)" || return
	sh "$TOP/bench-vm/run.sh" --ns-size "$NS_SIZE" --rebinds "$REBINDS" \
		--cpu "$CPU" --accel "$ACCEL" --clock "$CLOCK" --model "${MODEL:-none}" \
		--results "$dir" "$c"
}

# step_bench_vm_typical COMMIT I: a guest's time is its boot and its
# binds, which scale with NS_SIZE (VM_NS_KB, the driver's, from the
# footprint) and REBINDS; one whose tree's build has been linked from a
# build a guest ran on will be reused (its key is known only once the
# kernel is there)
step_bench_vm_typical() {
	for ts in $(grep -lsx "tree $(tree_of "$1")" "$OUT"/build/*/stamp); do
		tc=${ts%/stamp}
		tc=${tc##*/}
		if [ "$tc" != "$1" ] && [ -f "$CI_OUT/$tc/bench-vm.stamp" ]; then
			echo 1
			return 0
		fi
	done
	# 20 s to boot, 2.3 s a bind of 100G, three NVDIMMs (idle machine);
	# with the cache model under TCG, 13.6 s a bind of 100G
	# (bench-vm/README.md).  The model a run gets is the run's rule
	# (defaults.sh); ACCEL=auto is priced as TCG, what these machines
	# run (nested KVM boots no guest here)
	b=23 es_accel=$ACCEL
	[ "$es_accel" != auto ] || es_accel=tcg
	clock_of "$es_accel" || clock=icount
	model_of "$es_accel" "$clock"
	[ "$model" != cache ] || b=136
	echo $((20 + (REBINDS + 1) * 3 * b * ${VM_NS_KB:-104857600} / 1048576 / 1000))
}
