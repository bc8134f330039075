# ci/steps.sh: the steps of the CI pipeline (ci/run.sh), as data and one
# pair of functions per step.  Sourced by run.sh, POSIX sh.
#
#   step_<name>_inputs COMMIT      print everything the result depends on
#                                  besides the code of run.sh (hashed into
#                                  the step's stamp)
#   step_<name>_run COMMIT DIR PARENT
#                                  run it; records to DIR/records.jsonl;
#                                  exit 0 done, 3 skipped (reason in
#                                  DIR/skipped), anything else failed
# "<name>" is the step with '-' as '_'.  Helpers from run.sh: files_hash
# FILE... (inputs), skip DIR WHY (exit 3 with the reason).

CI_ALL_STEPS="build checks bench-vm bench"

# -- build: scripts/build.sh, and build records (result, seconds, warnings)

step_build_inputs() {
	echo "commit $1"
	echo "cc $(gcc --version | head -n 1)"
	echo "targets ${BUILD_TARGETS:-bzImage}"
	files_hash "$TOP/scripts/build.sh" "$TOP/bench-vm/kernel.config"
}

step_build_run() {
	c=$1 dir=$2 parent=$3 o=$OUT/build/$1 rc=0
	sh "$TOP/scripts/build.sh" "$c" || rc=$?
	[ -f "$o/result" ] || { echo "$PROG: build: $o/result is missing after scripts/build.sh" >&2; return 1; }
	ok=0
	[ "$(cat "$o/result")" = ok ] && ok=1
	new=0
	if [ -n "$parent" ] && [ -f "$OUT/build/$parent/warnings.txt" ]; then
		new=$(LC_ALL=C comm -13 "$OUT/build/$parent/warnings.txt" "$o/warnings.txt" | wc -l)
	fi
	{
		"$BIN/ci-record" --suite build --case kernel --metric ok --unit count --commit "$c" "$ok" &&
		"$BIN/ci-record" --suite build --case kernel --metric seconds --unit s --commit "$c" "$(cat "$o/seconds")" &&
		"$BIN/ci-record" --suite build --case kernel --metric warnings --unit count --commit "$c" "$(wc -l <"$o/warnings.txt")" &&
		"$BIN/ci-record" --suite build --case kernel --metric new_warnings --unit count --commit "$c" "$new"
		[ $ok = 1 ] || "$BIN/ci-record" --suite build --case kernel --metric error --unit count \
			--commit "$c" --error "the kernel does not build: $o/build.log"
	} >"$dir/records.jsonl"
	return $rc
}

# -- checks: the checks area's own target, when there is one

step_checks_inputs() {
	echo "commit $1"
	if [ -d "$TOP/checks" ]; then
		files_hash $(find "$TOP/checks" -type f | LC_ALL=C sort)
	else
		echo "no checks/"
	fi
}

step_checks_run() {
	c=$1 dir=$2
	[ -f "$TOP/checks/checks.mk" ] ||
		skip "$dir" "no checks/checks.mk in $TOP: the checks area is not there yet" || return
	make -C "$TOP" -n checks >/dev/null 2>&1 ||
		skip "$dir" "'make checks' does not exist or cannot run ('make -n checks' fails)" || return
	make -C "$TOP" --no-print-directory checks COMMITS="$c" || return 1
	rec=$OUT/checks/$c/records.jsonl
	[ -f "$rec" ] || {
		echo "$PROG: checks: 'make checks COMMITS=$c' wrote no $rec" >&2
		return 1
	}
	cp "$rec" "$dir/records.jsonl"
}

# -- bench-vm: the QEMU NVDIMM rebind benchmark of the commit's kernel

step_bench_vm_inputs() {
	echo "commit $1"
	echo "ns_size $NS_SIZE rebinds $REBINDS cpu $CPU accel $ACCEL clock $CLOCK"
	files_hash "$OUT/build/$1/arch/x86/boot/bzImage" "$TOP/bench-vm/run.sh" \
		"$BIN/bench-vm-agent" "$BIN/bench-vm-collect"
}

step_bench_vm_run() {
	c=$1 dir=$2
	[ "$(cat "$OUT/build/$c/result" 2>/dev/null)" = ok ] ||
		skip "$dir" "no kernel: the build of $c did not succeed ($OUT/build/$c/result)" || return
	sh "$TOP/bench-vm/run.sh" --ns-size "$NS_SIZE" --rebinds "$REBINDS" \
		--cpu "$CPU" --accel "$ACCEL" --clock "$CLOCK" --results "$dir" "$c"
}

# -- bench: the host microbenchmarks of the commit's copy routines

step_bench_inputs() {
	echo "commit $1"
	echo "args $BENCH_ARGS"
	files_hash "$BIN/copy-bench" "$TOP/bench/run.sh" "$TOP/bench/gen.sh" \
		$(find "$TOP/bench/kernel" "$TOP/bench/shim" -type f 2>/dev/null | LC_ALL=C sort)
}

step_bench_run() {
	c=$1 dir=$2 rc=0
	COMMITS=$c BENCH_ARGS=$BENCH_ARGS sh "$TOP/bench/run.sh" 2>"$dir/bench.err" || rc=$?
	cat "$dir/bench.err" >&2
	# bench/run.sh names its run directory in its last progress line
	rec=$(sed -n 's/.*done: records: \(.*\), tables: .*/\1/p' "$dir/bench.err" | tail -n 1)
	[ $rc = 0 ] || return $rc
	[ -n "$rec" ] && [ -f "$rec" ] || {
		echo "$PROG: bench: bench/run.sh did not name its records file ('done: records: ...' line)" >&2
		return 1
	}
	cp "$rec" "$dir/records.jsonl"
}
