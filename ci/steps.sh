# ci/steps.sh: the steps of the CI pipeline (ci/run.sh), as data and one
# pair of functions per step.  Sourced by run.sh, POSIX sh.
#
#   step_<name>_inputs COMMIT      print everything the result depends on
#                                  besides the code of run.sh (hashed into
#                                  the step's stamp)
#   step_<name>_run COMMIT DIR PARENT
#                                  run it; exit 0 done, 3 skipped (reason
#                                  in DIR/skipped), anything else failed
#   step_<name>_check              (optional) the variables the step
#                                  reads are ones it can run with: the
#                                  step's own program is asked, which runs
#                                  and writes nothing; else its usage error
#                                  on stderr, non-zero.  run.sh calls it
#                                  once for every step of the run before
#                                  anything is removed or any step starts
#   step_<name>_content COMMIT     (optional) what of the commit the
#                                  result is made of (its tree, its
#                                  parent's, its message): with the
#                                  inputs, the key under which another
#                                  commit id's results are reused
#   step_bench_vm_clock COMMIT DIR (optional) the guests' clock here
#   step_bench_vm_footprint        (optional) a guest's size and memory
# Every step's producer writes its own records into DIR (its --results):
# nothing is read back, reshaped or copied here.  "<name>" is the step
# with '-' as '_'.  Helpers from run.sh: files_hash FILE... (inputs),
# scripts_of SCRIPT... (the files a script names, transitively: what an
# inputs function hashes of the toolkit), skip DIR WHY (exit 3 with the
# reason).

# shellcheck disable=SC2034 # read by ci/run.sh, which sources this file
CI_ALL_STEPS="build checks bench-vm bench"

# -- build: scripts/build.sh, its build records (result, seconds, warnings)

# build.sh --check: its variables checked, then what decides a build
# besides the commit (the fragment's hash, the compiler, the targets):
# run once by ci/run.sh, which keeps what it printed in CI_SETTINGS_build
step_build_check() {
	sh "$TOP/scripts/build.sh" --check
}

step_build_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_build?ci/run.sh: step_build_check did not run}"
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash $(scripts_of "$TOP/scripts/build.sh") "$BIN/record-write"
}

# a kernel that does not build is a result (an error record), not a
# failed step; a record that cannot be written fails it
step_build_run() {
	c=$1 dir=$2 rc=0
	sh "$TOP/scripts/build.sh" --results "$dir" "$c" || rc=$?
	[ -f "$dir/records.jsonl" ] || {
		echo "$PROG: build: scripts/build.sh wrote no $dir/records.jsonl (exit $rc)" >&2
		return "$(( rc ? rc : 1 ))"
	}
	return $rc
}

# -- checks: checks/checks.sh (and KUnit on the base and the head)

# what checks read of a commit: its tree and its parent's (file-level
# checks compare the two), its mail (checkpatch and changelog-lint judge
# author and message), and whether it is the series head (KUnit runs on
# the base and the head); not its id
step_checks_content() {
	cp_p=$(kgit rev-parse -q --verify "$1^" || true)
	echo "tree $(tree_of "$1")"
	echo "parent-tree $([ -z "$cp_p" ] && echo none || tree_of "$cp_p")"
	echo "mail $(kgit log -1 --format='%an <%ae>%n%B' "$1" | sha256sum | cut -d' ' -f1)"
	echo "head $([ "$1" = "$(kgit rev-parse -q --verify "$REF_NS/series^{commit}" || true)" ] &&
		echo yes || echo no)"
}

# checks.sh --check: KUNIT, COCCI_SET, CHECKS_ONLY checked and printed
step_checks_check() {
	[ ! -f "$TOP/checks/checks.sh" ] || sh "$TOP/checks/checks.sh" --check
}

step_checks_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_checks?ci/run.sh: step_checks_check did not run}"
	# every file of checks/ but its make fragment, which no check reads
	# (the tools it builds are hashed as binaries), and what checks.sh
	# names elsewhere (the kernel fragment of its builds)
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash $({ find "$TOP/checks" -type f ! -name "*.mk"; scripts_of "$TOP/checks/checks.sh"; } |
		LC_ALL=C sort -u) "$BIN/record-write" "$BIN/changelog-lint" "$BIN/kunit-records"
}

step_checks_run() {
	c=$1 dir=$2
	[ -f "$TOP/checks/checks.sh" ] ||
		skip "$dir" "no checks/checks.sh in $TOP: the checks area is not there" || return
	sh "$TOP/checks/checks.sh" --results "$dir" "$c"
}

# -- bench-vm: the QEMU NVDIMM rebind benchmark of the commit's kernel

# run.sh --check: every option and variable of a run checked as a run
# checks them, then those that decide its results, a line each (MEM_NS,
# GUEST_MEM_MB, KERNEL_ARGS, PAGES, NVDIMM_DIR, QEMU too)
step_bench_vm_check() {
	sh "$TOP/bench-vm/run.sh" --check --ns-size "$NS_SIZE" --rebinds "$REBINDS" --cpu "$CPU" \
		--accel "$ACCEL" --clock "$CLOCK" --model "${MODEL:-none}"
}

# the files: the kernel, the tools, what run.sh names (scripts_of: the
# scripts it sources or runs, the module's sources), every script of
# bench-vm/ and the module of pages/ (by directory, so a new one counts
# too)
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
# many guests run.sh's schedule lets run at once.  Optional for a steps
# file.
step_bench_vm_footprint() {
	sh "$TOP/bench-vm/run.sh" --print-footprint --ns-size "$NS_SIZE"
}

# step_bench_vm_clock COMMIT DIR: "ACCEL CLOCK" (tcg icount, kvm wall...)
# that its runs get on this host, the KVM probe's verdict included: how
# run.sh schedules the guests.  Optional for a steps file.
step_bench_vm_clock() {
	[ "$(cat "$OUT/build/$1/result" 2>/dev/null)" = ok ] || return 1
	sh "$TOP/bench-vm/run.sh" --print-clock --ns-size "$NS_SIZE" --cpu "$CPU" \
		--accel "$ACCEL" --clock "$CLOCK" --results "$2" "$1"
}

step_bench_vm_run() {
	c=$1 dir=$2
	[ "$(cat "$OUT/build/$c/result" 2>/dev/null)" = ok ] ||
		skip "$dir" "no kernel: the build of $c did not succeed ($OUT/build/$c/result)" || return
	sh "$TOP/bench-vm/run.sh" --ns-size "$NS_SIZE" --rebinds "$REBINDS" \
		--cpu "$CPU" --accel "$ACCEL" --clock "$CLOCK" --model "${MODEL:-none}" \
		--results "$dir" "$c"
}

# -- bench: the host microbenchmarks of the commit's copy routines

# bench/run.sh --check: BENCH_ARGS as copy-bench parses them, then the
# options and the versions of the compiler and perf
step_bench_check() {
	BENCH_ARGS=$BENCH_ARGS sh "$TOP/bench/run.sh" --check
}

step_bench_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_bench?ci/run.sh: step_bench_check did not run}"
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash "$BIN/copy-bench" $(scripts_of "$TOP/bench/run.sh") \
		$(find "$TOP/bench/kernel" "$TOP/bench/shim" -type f 2>/dev/null | LC_ALL=C sort)
}

# the copy routines are built from the commit's files
step_bench_content() {
	echo "tree $(tree_of "$1")"
}

step_bench_run() {
	COMMITS=$1 BENCH_ARGS=$BENCH_ARGS sh "$TOP/bench/run.sh" --results "$2"
}
