#!/bin/sh
# ci/run.sh and the inputs of its steps: every variable of every step of
# a run is checked before anything is removed or any step runs (each
# step's own check, ci/steps.sh: build.sh, checks.sh, bench-vm/run.sh and
# bench/run.sh asked with --check), and the gate's percents too; a step
# that fails or is skipped leaves its last good results and their stamp,
# its attempt aside; the plan counts the steps that will run, whatever
# their last run took; the view of a step's log dies with nobody's
# Ctrl-C: the step's last words reach its log, its cleanup runs; and the
# real stamps: in a clone of the toolkit, an edit of a file a step runs
# or sources, or a variable it reads, reruns exactly the steps that do;
# every file the shell sources on the way to a step script's --check
# (sh -x) is hashed in the step's inputs (pin.conf, owner.sh).
# Fake steps (CI_STEPS_FILE) with the real checks of ci/steps.sh, on a
# three-commit repository.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:ci-report tool:record-write tool:copy-bench

# check_scripts STEPS: "step:script" for each step whose check runs a
# script of the toolkit ('sh "$TOP/X" --check'), in the step files that
# STEPS (ci/steps.sh of a toolkit) sources, in their order
check_scripts() {
	cs_top=$(dirname "$(dirname "$1")")
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	awk '/^step_[a-z_]+_check\(\)/ { n = $1; sub(/^step_/, "", n); sub(/_check\(\)$/, "", n); gsub(/_/, "-", n) }
		/sh "\$TOP\/[^"]*" --check/ && n { match($0, /"\$TOP\/[^"]*"/); print n ":" substr($0, RSTART + 6, RLENGTH - 7); n = "" }' \
		$(sed -n "s|^\. \"\\\$TOP/\(.*\)\"\$|$cs_top/\1|p" "$1")
}

# real_steps FILE DIR: a steps file of the toolkit in DIR, its ci/steps.sh
# as it is (checks, inputs, kinds), only each run faked: "STEP COMMIT"
# into $SCRATCH/ran and one record
real_steps() {
	printf '. "%s/ci/steps.sh"\nBUILD_ID=%s\n' "$2" "$BUILD_ID" >"$1" &&
	cat >>"$1" <<-\EOS
	for s in build checks bench-vm bench; do
		f=$(printf %s "$s" | tr - _)
		eval "step_${f}_run() { echo \"$s \$1\" >>\"$SCRATCH/ran\"; \"\$BIN/record-write\" --to \"\$2/records.jsonl\" --suite $s --json \"build=\$(cat \"\$BUILD_ID\")\" --case x --metric y --unit ms --commit \"\$1\" 1; }"
	done
	EOS
}

setup() {
	fake_series repo &&
	C1=$(git -C repo rev-parse HEAD~2) && C2=$(git -C repo rev-parse HEAD~1) && C3=$(git -C repo rev-parse HEAD) &&
	# the real steps (their checks), their runs and inputs faked
	cat >steps.sh <<-EOS
	. "$TOP/ci/steps.sh"
	EOS
	cat >>steps.sh <<-\EOS
	CI_ALL_STEPS="build checks bench-vm bench"
	for s in build checks bench-vm bench; do
		f=$(printf %s "$s" | tr - _)
		eval "step_${f}_inputs() { echo \"commit \$1 opt \${FAKE_OPT:-0}\"; }"
		eval "step_${f}_run() { fake $s \"\$@\"; }"
	done
	# fake STEP COMMIT DIR: a record; FAIL_AT=<commit> fails there,
	# SKIP_AT=<commit> skips there, FAIL_ALL=1 fails everywhere (at once)
	fake() {
		echo "$1 $2" >>"$SCRATCH/ran"
		[ "${FAIL_ALL:-}" != 1 ] && [ "$2" != "${FAIL_AT:-}" ] || { echo "fake: $1 failed" >&2; return 1; }
		[ "$2" != "${SKIP_AT:-}" ] || { skip "$3" "fake: skipped on purpose"; return; }
		c=nd_pmem/rebind
		[ "$1" = bench-vm ] || c=$1/rebind
		"$BIN/record-write" --to "$3/records.jsonl" --suite bench-vm --json "build=$(cat "$TOP/tests/fixtures/build-id.json")" --case "$c" \
			--metric memmap_init_ms --unit ms --commit "$2" --accel tcg --clock icount \
			${FAKE_SAMPLES:-10 11 12}
	}
	EOS
}

ci() {
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci CLOCK=${CLOCK:-icount} \
		GATE_ACK=${GATE_ACK:-$SCRATCH/ack} sh "$TOP/ci/run.sh" >ci.out 2>ci.err
}

# with VAR=VALUE: ci with that one variable set (empty included)
with() {
	# shellcheck disable=SC2163 # VAR=VALUE, exported as such
	(export "$1" && ci)
}

test_expect_success 'the real stamps: a file a step sources or runs, or a variable it reads, reruns that step, and only the steps that read it; every file a step script sources on its way (its sh -x trace) is in its inputs' '
	# a clone of the toolkit, whose files can change; the real steps, only their runs faked
	fake_series repo && git clone -q "$TOP" tk &&
	real_steps rsteps.sh "$SCRATCH/tk" &&
	rci() {
		: >ran && : >ack && KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/rsteps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/rci \
			GATE_ACK=$SCRATCH/ack sh tk/ci/run.sh >rci.out 2>rci.err || { cat rci.err >&2; return 1; }
		sort -u ran | cut -d" " -f1 | sort -u | tr "\n" " "
	}
	[ "$(rci)" = "bench bench-vm build checks " ] && [ "$(rci)" = "" ] &&
	for f in bench-vm/rundir.sh bench-vm/initramfs.sh bench-vm/pdeath.sh bench-vm/pages/bench_vm_pages.c; do
		echo "# changed" >>"tk/$f" && [ "$(rci)" = "bench-vm " ] || { echo "file $f"; return 1; }
	done &&
	echo "# changed" >>tk/scripts/lib.sh && [ "$(rci)" = "bench bench-vm build checks " ] &&
	# a variable reaches the stamp through the step'"'"'s settings (its check):
	# two of them here, with the real driver; that every variable a step
	# reads changes its settings, and no other step'"'"'s, is the last test
	for v in MODEL_ARGS=top=5 NS_SIZE=8G; do
		# shellcheck disable=SC2163 # VAR=VALUE, exported as such
		[ "$(export "$v" && rci)" = "bench-vm " ] && [ "$(rci)" = "bench-vm " ] || { echo "variable $v"; return 1; }
	done &&
	# inputs that cannot drift
	C1=$(git -C repo rev-parse HEAD~2) &&
	# each step and the script its check runs, from steps.sh itself
	steps=$(check_scripts tk/ci/steps.sh) &&
	[ "$(echo "$steps" | cut -d: -f1 | tr "\n" " ")" = "build checks bench-vm bench " ] &&
	for e in $steps; do
		s=${e%%:*} f=${e#*:}
		# the oracle: what the shell itself sources, not what scripts_of reads
		KERNEL_TREE=$SCRATCH/repo sh -x "tk/$f" --check 2>&1 >/dev/null | sed -n "s/^+* \. //p" >src.$s &&
		[ -s src.$s ] || { echo "$s: no file sourced in the trace of $f --check"; return 1; }
		for p in $(cat src.$s); do
			r=$(realpath "$p") && r=${r#"$SCRATCH/tk/"} &&
			grep -q "^[0-9a-f]\{64\} $r\$" "rci/$C1/$s/inputs" ||
				{ echo "$s: $f sources $r, which its inputs do not hash"; cat "rci/$C1/$s/inputs"; return 1; }
		done
	done &&
	grep -q "tk/series/pin.conf" src.build && grep -q "tk/scripts/owner.sh" src.bench-vm &&
	echo "# changed" >>tk/series/pin.conf && [ "$(rci)" = "bench bench-vm build checks " ] &&
	echo "# changed" >>tk/scripts/owner.sh && [ "$(rci)" = "bench bench-vm build checks " ] &&
	echo "# changed" >>tk/build/kernel.config && [ "$(rci)" = "build checks " ] &&
	echo "# changed" >>tk/scripts/deps.list && [ "$(rci)" = "" ]
'

test_expect_success 'a mistyped variable of any step, or of the gate: exit 2 before any step runs, every result as it was' '
	setup && : >ack && ci && cp -a ci before && : >ran || return 1
	for e in CLOCK=bogus ACCEL=KVM NS_SIZE=1x REBINDS=-1 MEM_NS=2 PAGES=yes TIMEOUT=0 GUEST_MEM_MB=0 \
		KUNIT=yes COCCI_SET=our CHECKS_ONLY=checkpach CONFIGS_TARGETS=mm/x.c JOBS=0 BUILD_TARGETS="bzImage;x" \
		BENCH_ARGS=--nope BENCH_ARGS="--samples x" BENCH_ARGS="--only nope" \
		GATE_PCT=-1 GATE_PCT=0x10 GATE_PCT=1e GATE_PCT= GATE_PCT=. GATE_PCT=1.2.3 GATE_PCT_TCG=-1 \
		GATE_PCT_ICOUNT=1e GATE_PCT_ICOUNT= CI_SCHEDULE=fast CI_VM_JOBS=0 CI_QUICK=yes CI_STEPS=biuld \
		NVDIMM_DIR=/nonexistent GATE_ACK=/nonexistent; do
		want=2
		case $e in NVDIMM_DIR=* | GATE_ACK=*) want=1 ;; esac
		v=${e%%=*} opt=--$(printf %s "${e%%=*}" | tr A-Z_ a-z-)
		rc=0
		FAKE_OPT=1 with "$e" || rc=$?
		cat ci.err
		[ $rc = $want ] || { echo "not refused: $e (exit $rc)"; return 1; }
		grep -q -e "$v" -e "$opt" ci.err || { echo "$e: not named"; return 1; }
		[ ! -s ran ] && diff -r before ci || { echo "changed by $e"; return 1; }
	done
	with CLOCK=bogus; [ $? = 2 ] && cat ci.err &&
	grep -q "^bench-vm: usage: --clock: .bogus. is not auto, icount or wall" ci.err &&
	grep -q "^ci: check: the bench-vm step refuses its variables (above): nothing ran, every result is as it was" ci.err &&
	with GATE_PCT=-1; [ $? = 2 ] &&
	grep -q "^ci: usage: GATE_PCT: .-1. is not a percent: a non-negative decimal number" ci.err &&
	for p in 0 5 2.5 10.; do
		GATE_PCT=$p GATE_PCT_TCG=$p GATE_PCT_ICOUNT=$p ci || { cat ci.err; return 1; }
	done
'

test_expect_success 'a step that fails or is skipped: its last good results and their stamp stay, its attempt aside and named; the rerun with the old inputs runs nothing there' '
	setup && : >ack && ci && cp -a ci before && : >ran &&
	{ rc=0; FAKE_OPT=1 FAIL_AT=$C2 SKIP_AT=$C3 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	for s in build checks bench-vm bench; do
		cmp before/$C2/$s/records.jsonl ci/$C2/$s/records.jsonl && cmp before/$C2/$s.stamp ci/$C2/$s.stamp &&
		grep -q "^fake: $s failed" ci/$C2/.$s.attempt/log &&
		grep -q "$s: FAILED (exit 1) after [0-9]*s: see $SCRATCH/ci/$C2/.$s.attempt/log ($SCRATCH/ci/$C2/$s keeps the last good results, inputs [0-9a-f]*)" ci.err &&
		cmp before/$C3/$s/records.jsonl ci/$C3/$s/records.jsonl && cmp before/$C3/$s.stamp ci/$C3/$s.stamp &&
		grep -q "skipped on purpose" ci/$C3/.$s.attempt/skipped &&
		! cmp -s before/$C1/$s.stamp ci/$C1/$s.stamp && [ ! -e ci/$C1/.$s.attempt ] || return 1
	done &&
	grep -q "Average of rebinds for nd_pmem driver: 11.00 ms" ci/report.txt &&
	# the kept results were made with other inputs: not in the report
	grep -q "2/3 [0-9a-f]*: bench-vm: its kept results are not in the report: this run.s inputs are others" ci.err &&
	python3 -c "import json, sys; d = json.load(open(\"ci/report.json\")); \
		cols = set(c[\"column\"] for r in d[\"rows\"] for c in r[\"cells\"]); \
		assert cols == {\"$C1\"}, cols" &&
	: >ran && ci && cat ci.err &&
	python3 -c "import json, sys; d = json.load(open(\"ci/report.json\")); \
		cols = set(c[\"column\"] for r in d[\"rows\"] for c in r[\"cells\"]); \
		assert cols == {\"$C1\", \"$C2\", \"$C3\"}, cols" &&
	grep -q "2/3 [0-9a-f]*: bench-vm: up to date" ci.err && grep -q "3/3 [0-9a-f]*: build: up to date" ci.err &&
	[ "$(sort ran | tr "\n" " ")" = "bench $C1 bench-vm $C1 build $C1 checks $C1 " ]
'

test_expect_success 'a step that fails with no good run to keep: its attempt is its result, the error said' '
	setup && : >ack && { rc=0; FAIL_AT=$C2 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "^fake: build failed" ci/$C2/build/log && [ ! -e ci/$C2/build.stamp ] && [ ! -e ci/$C2/.build.attempt ] &&
	grep -q "build: FAILED (exit 1) after [0-9]*s: see $SCRATCH/ci/$C2/build/log$" ci.err
'

test_expect_success 'the plan agrees with what runs: steps that failed at once are counted as to run' '
	setup && : >ack && { rc=0; FAIL_ALL=1 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "plan: 12 of 12 steps to run" ci.err &&
	: >ran && { rc=0; FAIL_ALL=1 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "plan: 12 of 12 steps to run" ci.err && [ "$(wc -l <ran)" = 12 ] &&
	: >ran && ci && grep -q "plan: 12 of 12 steps to run" ci.err && [ "$(wc -l <ran)" = 12 ] &&
	: >ran && { FAIL_AT=$C2 FAKE_OPT=1 ci; [ $? = 1 ]; } && cat ci.err &&
	grep -q "plan: 12 of 12 steps to run" ci.err && [ "$(wc -l <ran)" = 12 ] &&
	: >ran && ci && cat ci.err && grep -q "plan: 8 of 12 steps to run" ci.err && [ "$(wc -l <ran)" = 8 ] &&
	[ "$(grep -c ": start (log: " ci.err)" = 8 ] &&
	: >ran && ci && grep -q "plan: 0 of 12 steps to run" ci.err && [ ! -s ran ]
'

# A Ctrl-C of the run (INT to its process group) while a step runs whose
# cleanup writes after the signal, as bench-vm/run.sh does: its last line
# reaches the log, and its cleanup runs to its end (the step died of
# SIGPIPE there when the view of its log died first).
test_expect_success 'Ctrl-C while a step runs: the view of its log outlives it, its last line in the log, its cleanup done' '
	setup && : >ack && mkdir shm &&
	cat >>steps.sh <<-\EOS
	step_build_run() {
		[ "$1" = "$(git -C "$SCRATCH/repo" rev-parse HEAD~1)" ] || { fake build "$@"; return; }
		echo $$ >"$SCRATCH/driver.pid" && mkdir "$SCRATCH/shm/guest" &&
		sh -c "trap \"echo fake: cleaning up >&2; sleep 1; echo fake: interrupted by SIGINT, partial results kept >&2; rm -rf $SCRATCH/shm/guest; exit 130\" INT TERM
			echo fake: running >&2; while :; do sleep 0.1; done"
	}
	EOS
	kill_when_running ci/$C2/.build.attempt/log INT
	rc=0
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci GATE_ACK=$SCRATCH/ack \
		setsid -w sh "$TOP/ci/run.sh" >ci.out 2>ci.err || rc=$?
	wait $helper; cat ci.err && [ $rc = 130 ] &&
	n=0 && until [ ! -e shm/guest ] || [ $n -gt 100 ]; do sleep 0.1; n=$((n + 1)); done &&
	cat ci/$C2/.build.attempt/log && [ ! -e shm/guest ] &&
	[ "$(tail -n 1 ci/$C2/.build.attempt/log)" = "fake: interrupted by SIGINT, partial results kept" ] &&
	grep -q "^    fake: interrupted by SIGINT, partial results kept" ci.err && [ ! -e ci/$C2/build.stamp ]
'
# The variables every step reads, walked.  The oracle: each variable that
# a shell file of the step's inputs reads from the environment
# (${VAR:-...}, the toolkit's one way of taking one).  Each is either in
# VALUES, another value it may take, or in NOT_INPUTS with why it decides
# nothing a step keeps; a new one in neither fails.  Set to its value,
# it changes the settings (the stamp) of exactly the steps whose files
# read it.  The defaults of ci/run.sh come first, as ci passes them.
NOT_INPUTS='
BIN the tools directory: each tool is hashed as a file
BENCH_VM_RUN the marker of one run (why KVM is not used, said once)
BOOT_TIMEOUT a watchdog limit: a run it cuts is an error record, not a figure
TMPDIR where temporary files go
CHECKS_TREE where the checks worktree is, not what is in it
COMMITS which commits: the commit, its tree, is the step'"'"'s key
KCONFIG_NAME the name of a FRAGMENT build (bench-vm/checked.sh'"'"'s) in its identity: without FRAGMENT, KCONFIG names it; the fragment'"'"'s sha256 is in the stamp
DEBIAN_CONFIG where the reference of the codegen check is: its sha256, not its path, is in the checks stamp
DEPS_LIST the packages to install, not a result (deps.list: "# not an input")
FROM the sender of make send
JOBS how many at once, not what is built or checked
VM_NS_KB the driver NVDIMM size of a guest, from NS_SIZE: the estimate only
CHECKED_BASE read by bench-vm/checked.sh (a checked boot), hashed with the scripts of bench-vm/ but no part of a step
KERNEL_BASE KERNEL_TREE REF_NS WORKTREE XCS_WORKTREE_LOCK where the commits are: their ids and trees are the key
KUNIT_TIMEOUT a limit: a run it cuts is an error, not a result
KVM_DEV KVM_PROBE_CACHE KVM_PROBE_TIMEOUT KVM_REPROBE the KVM probe: under ACCEL=auto its verdict picks kvm or tcg, which every record names (the stamp holds ACCEL, not the verdict)
OUT where the results go
PAGES_CHECKOUT whether the worktree may move for the pages module build
PDEATH_PARENT the runner'"'"'s pid, for pdeath.sh: who QEMU dies with
PROG the name in messages
TIMEOUT a watchdog limit: a run it cuts is an error record, not a figure
V verbose output of bench/gen.sh
'
test_expect_success 'every variable a step reads: another value reruns exactly the steps whose files read it, or it is listed as deciding nothing they keep' '
	fake_series repo &&
	real_steps wsteps.sh "$TOP" &&
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/wsteps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/wci GATE_ACK=/dev/null \
		sh "$TOP/ci/run.sh" >wci.out 2>wci.err || { cat wci.err; return 1; }
	C1=$(git -C repo rev-parse HEAD~2) &&
	for s in build checks bench-vm bench; do
		# the oracle: the variables the step'"'"'s hashed shell files take
		awk "{ print \$2 }" "wci/$C1/$s/inputs" | grep -E "\.(sh|conf)\$" | sed "s|^|$TOP/|" >files.$s &&
		[ -s files.$s ] || { echo "$s: no shell file in its inputs"; return 1; }
		grep -ohE "\\$\\{[A-Z_][A-Z0-9_]*:?[-=+?]" $(cat files.$s) |
			sed -E "s/^..([A-Z0-9_]+).*/\\1/" | sort -u >vars.$s || return 1
	done &&
	mkdir bin2 && cp "$BIN"/bench-vm-agent "$BIN"/bench-vm-collect "$BIN"/gen_init_cpio "$BIN"/bench-vm-model.so bin2/ &&
	echo >>bin2/bench-vm-agent && cp bin2/gen_init_cpio gic && echo >>gic &&
	printf "#!/bin/sh\nexec qemu-system-x86_64 \"\$@\"\n" >qemu && chmod +x qemu &&
	cp "$TOP/build/kernel.config" frag.config && echo "CONFIG_PRINTK_TIME=y" >>frag.config &&
	# KCONFIG=distro: the codegen check names its reference, read offline
	(. "$TOP/series/pin.conf" && printf "#\n# Linux/x86 %s Kernel Configuration\n" "$PIN_KVER") >debian.config &&
	VALUES="FRAGMENT=$SCRATCH/frag.config BUILD_TARGETS=vmlinux KUNIT=0 COCCI_SET=ours CHECKS_ONLY=sparse CONFIGS=arm64 CONFIGS_TARGETS=mm/mm_init.o
		KUNIT_SUITES=memcpy KUNIT_VARIANTS=erms NS_SIZE=8G REBINDS=3 CPU=max,-erms ACCEL=tcg CLOCK=wall
		MODEL=cache MODEL_ARGS=top=5 MEM_NS=0 GUEST_MEM_MB=1024 KERNEL_ARGS=quiet PAGES=1 HMM=1 BUILD_LLVM=1 GUEST_MITIGATIONS=cpu HEADER_USERS_MAX=1 KCONFIG=distro
		NVDIMM_DIR=$SCRATCH QEMU=$SCRATCH/qemu BENCH_VM_BIN=$SCRATCH/bin2 GEN_INIT_CPIO=$SCRATCH/gic
		BENCH_ARGS=--quick CC=cc" &&
	# settings VAR=VALUE: each step'"'"'s check with it, a file a step
	settings() {
		(
			export KERNEL_TREE="$SCRATCH/repo" NS_SIZE=100G REBINDS=30 CPU=max ACCEL=auto CLOCK=auto MODEL=none BENCH_ARGS= \
				DEBIAN_CONFIG="$SCRATCH/debian.config" &&
			# shellcheck disable=SC2163 # VAR=VALUE, exported as such
			{ [ -z "$1" ] || export "$1"; } &&
			. "$TOP/ci/steps.sh" &&
			for s in build checks bench-vm bench; do
				"step_$(printf %s "$s" | tr - _)_check" >"set.$s" || { echo "$s: its check refuses $1"; exit 1; }
			done
		)
	}
	settings "" && for s in build checks bench-vm bench; do mv set.$s default.$s; done &&
	all=$(cat vars.* | sort -u) &&
	for v in $all; do
		printf "%s\n" "$NOT_INPUTS" | grep -qE "^([A-Z_0-9]+ )*$v( |\$)" && continue
		e=$(printf "%s\n" $VALUES | grep "^$v=") ||
			{ echo "$v: read by $(grep -lx "$v" vars.* | sed "s/^vars.//" | tr "\n" " ")but neither in VALUES nor in NOT_INPUTS"; return 1; }
		settings "$e" || return 1
		for s in build checks bench-vm bench; do
			if grep -qx "$v" vars.$s; then
				! cmp -s default.$s set.$s || { echo "$e: the $s step reads $v, its settings do not change"; return 1; }
			else
				cmp -s default.$s set.$s || { echo "$e: the $s step does not read $v, its settings change:"; diff default.$s set.$s; return 1; }
			fi
		done
	done &&
	# the oracle found the variables of every area
	for v in FRAGMENT KUNIT_VARIANTS MEM_NS BENCH_ARGS CC; do grep -qx "$v" vars.*; done
'
done_testing
