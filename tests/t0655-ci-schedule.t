#!/bin/sh
# ci/run.sh's schedule: icount bench-vm runs go into a queue beside the
# next commits' builds, never holding them up, up to CI_VM_JOBS at once
# when no build runs and the memory holds them; the host benchmark runs
# for every commit at the end with nothing else of ours running; a
# wall-clock guest, or CI_SCHEDULE=serial, runs each step in its place.
# Which clock the guests get is asked after the first build
# (step_bench_vm_clock), else told by the first guest's run (its clock
# file, step_bench_vm_ran_clock).  The
# plan, the estimate of what is left after each step, and the table of
# where the time went.  A TERM while a guest runs in the background stops
# it too.  Fake steps (CI_STEPS_FILE) on a three-commit repository log
# when each starts and ends.  Each decides on order and state, never on
# seconds: a step that must overlap another waits for that one's start
# (WAITS); the wait's bound (60 s) only ends a run whose schedule is
# wrong, which then fails on the order it logged.  The memory the run
# sees for its guests is the test's (CI_MEMINFO).
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
# the fake series here hold none of the commits ci/gate-ack.txt names
# (ci-report refuses an acknowledgement of a commit outside the series)
GATE_ACK=/dev/null
export GATE_ACK
need tool:ci-report tool:record-write

setup() {
	rm -rf repo ci order ./*.running &&
	fake_series repo &&
	C1=$(git -C repo rev-parse HEAD~2) && C2=$(git -C repo rev-parse HEAD~1) && C3=$(git -C repo rev-parse HEAD) &&
	# the real step files: their kinds, estimates and the guest's
	# footprint; their checks, clocks, contents, inputs and runs faked
	cat >steps.sh <<-EOS
	. "$TOP/ci/steps.sh"
	EOS
	cat >>steps.sh <<-\EOS
	unset -f step_build_check step_checks_check step_bench_vm_check step_bench_check \
		step_bench_vm_clock step_checks_content step_bench_vm_content step_bench_content
	CI_ALL_STEPS="build bench-vm bench"
	# step NAME COMMIT: log its start and end, hold NAME.COMMIT.running;
	# WAITS='NAME COMMIT LINE;...': before it ends, it waits until LINE
	# is in the order log (at most 60 s)
	step() {
		echo "start $1 $2" >>"$SCRATCH/order"
		: >"$SCRATCH/$1.$2.running"
		printf '%s\n' "${WAITS:-}" | tr ';' '\n' | while read -r wn wc wl; do
			[ "$wn $wc" = "$1 $2" ] || continue
			n=0
			until grep -qx "$wl" "$SCRATCH/order" || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
		done
		rm -f "$SCRATCH/$1.$2.running"
		echo "end $1 $2" >>"$SCRATCH/order"
	}
	step_build_inputs() { echo "commit $1"; echo "jobs ${FAKE_JOBS:-2}"; }
	step_build_run() { step build "$1"; }
	# not in CI_ALL_STEPS: for CI_STEPS that name it
	step_checks_inputs() { echo "commit $1"; }
	step_checks_run() { step checks "$1"; }
	step_bench_vm_inputs() { echo "commit $1 ${FAKE_CLOCK:-icount}"; }
	step_bench_vm_run() {
		step bench-vm "$1" && [ "$1" != "${FAIL_VM:-}" ] &&
		echo "tcg ${FAKE_CLOCK:-icount}" >"$2/clock" &&
		"$BIN/record-write" --to "$2/records.jsonl" --suite bench-vm --json "build=$(cat "$TOP/tests/fixtures/build-id.json")" --case nd_pmem/rebind \
			--metric memmap_init_ms --unit ms --commit "$1" --accel tcg \
			--clock "${FAKE_CLOCK:-icount}" 10 10 10
	}
	step_bench_inputs() { echo "commit $1"; }
	step_bench_run() {
		ls "$SCRATCH"/*.running >/dev/null 2>&1 && echo "bench $1 beside: $(ls "$SCRATCH"/*.running)" >>"$SCRATCH/order"
		step bench "$1"
	}
	EOS
}

# hook CLOCK: the steps can tell the guests' clock after a build
hook() {
	echo "step_bench_vm_clock() { echo \"tcg $1\"; }" >>steps.sh
}

ci() {
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=${CI_STEPS_FILE:-$SCRATCH/steps.sh} OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" "$@" >ci.out 2>ci.err
}

# before A B: line A of the order log comes before line B
before() {
	a=$(grep -n -x "$1" order | cut -d: -f1) && b=$(grep -n -x "$2" order | cut -d: -f1) &&
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] || { echo "not before: '$1', '$2'"; cat order; return 1; }
}

test_expect_success 'icount, CI_VM_JOBS=1: a guest beside the next build, one at a time; the host benchmark last, alone' '
	setup && WAITS="bench-vm $C2 start build $C3" CI_VM_JOBS=1 ci && cat ci.err order &&
	# CLOCK=auto: the first guest runs alone and its records say icount
	before "end bench-vm $C1" "start build $C2" &&
	before "start build $C3" "end bench-vm $C2" &&
	before "end bench-vm $C2" "start bench-vm $C3" &&
	before "end bench-vm $C3" "start bench $C1" &&
	! grep -q beside order && [ "$(grep -c "^end bench " order)" = 3 ] &&
	grep -q "bench-vm runs under icount here: the next ones run beside the builds, in a queue" ci.err &&
	grep -q "plan: 9 of 9 steps to run, schedule overlap: about [0-9]* min [0-9]* s" ci.err &&
	grep -q "spent 0 min, about [0-9]* min [0-9]* s left" ci.err &&
	[ "$(sed -n "2,4p" ci/summary.txt | grep -c "ok  *ok  *ok")" = 3 ]
'

test_expect_success 'two guests at once when no build runs; one at a time when the memory does not hold two' '
	# the memory the run sees is the one of the test: room for two 512M guests, then for one
	printf "MemTotal: 67108864 kB\nMemAvailable: 33554432 kB\n" >roomy &&
	printf "MemTotal: 67108864 kB\nMemAvailable: 1800000 kB\n" >tight &&
	setup && WAITS="bench-vm $C2 start bench-vm $C3" CI_MEMINFO=$SCRATCH/roomy NS_SIZE=512M ci && cat ci.err order &&
	before "start bench-vm $C3" "end bench-vm $C2" &&
	before "end bench-vm $C3" "start bench $C1" && ! grep -q beside order &&
	grep -q "guest run(s) still to end, up to 2 at once" ci.err &&
	setup && CI_MEMINFO=$SCRATCH/tight NS_SIZE=512M ci && cat order &&
	before "end bench-vm $C2" "start bench-vm $C3" &&
	{ rc=0; CI_VM_JOBS=0 ci || rc=$?; } && [ $rc = 2 ] && grep -q "CI_VM_JOBS: .0. is not a number of guests" ci.err
'

test_expect_success 'the clock told after the first build: each guest queued once its kernel is built, beside its own checks; a wall clock runs each in place' '
	setup && hook icount && WAITS="checks $C1 start bench-vm $C1;bench-vm $C1 start build $C2" \
		CI_VM_JOBS=1 CI_STEPS="build checks bench-vm bench" ci && cat ci.err order &&
	grep -q "bench-vm runs under tcg icount here: the guests run beside the builds, in a queue" ci.err &&
	before "start bench-vm $C1" "end checks $C1" &&
	before "start build $C2" "end bench-vm $C1" && before "end bench-vm $C1" "start bench-vm $C2" &&
	[ "$(grep -c "bench-vm: queued" ci.err)" = 3 ] &&
	before "end bench-vm $C3" "start bench $C1" &&
	[ "$(sed -n "2,4p" ci/summary.txt | grep -c "ok  *ok  *ok  *ok")" = 3 ] &&
	setup && hook wall && ci && cat ci.err order &&
	grep -q "bench-vm runs under tcg wall here (a wall clock): each runs alone" ci.err &&
	before "end bench-vm $C1" "start build $C2" && before "end bench-vm $C2" "start build $C3"
'

test_expect_success 'the estimate before a first run: whole builds for the base and a header, a guest by NS_SIZE and REBINDS' '
	setup && echo "#define X 1" >repo/x.h && git -C repo add x.h &&
	git -C repo -c user.name=T -c user.email=t@example.org commit -q -m "x: a header" &&
	git -C repo update-ref "$REF_NS/series" HEAD &&
	# (no records to report: the run exits 1 after its plan)
	{ CI_STEPS="build" ci || :; } && cat ci.err &&
	# KCONFIG=tiny (the tests): the base 450 s, a header 350 s, the others 70 s
	grep -q "plan: 4 of 4 steps to run, schedule overlap: about 15 min 40 s" ci.err &&
	setup && rm -rf ci && CI_STEPS="bench-vm" NS_SIZE=100G REBINDS=30 CI_VM_JOBS=1 ci && cat ci.err &&
	grep -q "plan: 3 of 3 steps to run, schedule overlap: about 11 min 39 s" ci.err
'

test_expect_success 'a reworked patch (a new commit, the same subject): its steps expected to take what they took for the one it replaces, never a reuse'"'"'s seconds or another setting'"'"'s' '
	setup && { CI_STEPS=build ci || :; } && echo 123 >"ci/$C3/build/seconds" && echo 77 >"ci/$C2/build/seconds" &&
	echo 3b >repo/f && git -C repo commit -q -a --amend --no-edit && N3=$(git -C repo rev-parse HEAD) &&
	git -C repo update-ref "$REF_NS/series" HEAD && [ "$N3" != "$C3" ] &&
	{ CI_STEPS=build ci --plan || { cat ci.out ci.err; return 1; }; } &&
	cat ci.out && grep -q "^$(printf %.12s "$N3") build  *~123s " ci.out &&
	grep -q "^$(printf %.12s "$C2") build  *- *up to date" ci.out &&
	# the seconds of a run that reused another commit'"'"'s results are none
	echo "$C2" >"ci/$C3/build/reused-from" && CI_STEPS=build ci --plan &&
	cat ci.out && grep -q "^$(printf %.12s "$N3") build  *~70s " ci.out &&
	rm "ci/$C3/build/reused-from" &&
	# nor those of a build linked from another commit'"'"'s (build/build.sh: built-from)
	echo "$C2" >"ci/$C3/build/built-from" && CI_STEPS=build ci --plan &&
	grep -q "^$(printf %.12s "$N3") build  *~70s " ci.out && rm "ci/$C3/build/built-from" &&
	grep -q "x: commit 3" ci/.subjects &&
	[ "$(grep -c "x: commit 3" ci/.subjects)" = 2 ] &&
	# seconds of other settings say nothing either: typical ones
	FAKE_JOBS=4 CI_STEPS=build ci --plan && cat ci.out &&
	grep -q "^$(printf %.12s "$N3") build  *~70s " ci.out &&
	grep -q "^$(printf %.12s "$C2") build  *~70s  *now jobs 4" ci.out &&
	CI_STEPS=build ci --plan && grep -q "^$(printf %.12s "$N3") build  *~123s " ci.out
'

test_expect_success 'the table of where the time went: a row per commit, the totals, up to date is 0; a rerun that did nothing keeps the last one that did' '
	setup && ci && cat ci/times.txt &&
	grep -q "^Where the time went (seconds; 0: up to date; schedule overlap, bench-vm in the background: yes):" ci/times.txt &&
	[ "$(grep -Ec "^[0-9a-f]{12} +[0-9]+ +[0-9]+ +[0-9]+$" ci/times.txt)" = 3 ] &&
	grep -Eq "^total +[0-9]+ +[0-9]+ +[0-9]+$" ci/times.txt && grep -q "^wall clock: [0-9]* s$" ci/times.txt &&
	# the totals are the sums of the rows
	awk "length(\$1) == 12 && \$1 ~ /^[0-9a-f]+\$/ { for (i = 2; i <= 4; i++) t[i] += \$i } /^total / { for (i = 2; i <= 4; i++) if (\$i != t[i]) bad = 1 } END { exit bad }" ci/times.txt &&
	[ "$(grep -Ec "^[0-9a-f]{12} +[0-9]+ +[0-9]+ +[0-9]+$" ci/times-last.txt)" = 3 ] &&
	cp ci/times.txt worked.txt &&
	: >order && ci && [ ! -s order ] && grep -Eq "^$(printf %.12s "$C2") +0 +0 +0$" ci/times-last.txt &&
	grep -q "plan: 0 of 9 steps to run" ci.err &&
	# the rerun that did nothing keeps the table of the run that did work
	cmp worked.txt ci/times.txt &&
	grep -q "every step up to date: .*/times.txt keeps the table of the last run that did work" ci.out
'

test_expect_success 'a wall-clock guest, or CI_SCHEDULE=serial: every step in its place' '
	setup && FAKE_CLOCK=wall ci && cat order &&
	grep -q "bench-vm runs on a wall clock here: each runs alone" ci.err &&
	before "end bench-vm $C2" "start build $C3" && before "end bench-vm $C3" "start bench $C1" &&
	setup && CI_SCHEDULE=serial ci && cat order &&
	before "end bench $C1" "start build $C2" && before "end bench-vm $C2" "start bench $C2" &&
	before "end bench $C2" "start build $C3" &&
	{ rc=0; CI_SCHEDULE=fast ci || rc=$?; } && [ $rc = 2 ] && grep -q "CI_SCHEDULE: .fast. is not overlap or serial" ci.err
'

# queue_gone: no process of this test's guest queue is left (the queue,
# ci/guest-queue.sh, runs each guest in a subshell of its own: one with
# its command line and this test's CI_OUT in its environment), after
# up to 10 s for them to end
queue_procs() {
	for qp in /proc/[0-9]*; do
		tr '\0' '\n' <"$qp/environ" 2>/dev/null | grep -qx "CI_OUT=$SCRATCH/ci" &&
			tr '\0' ' ' <"$qp/cmdline" 2>/dev/null | grep -q "ci/guest-queue.sh" &&
			echo "${qp#/proc/}"
	done
}
queue_gone() {
	n=0; while [ -n "$(queue_procs)" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	[ -z "$(queue_procs)" ] || { echo "left: $(queue_procs)"; return 1; }
}

test_expect_success 'TERM while a guest runs in the background: it is stopped too, no stamp' '
	setup &&
	# the guest of C2 waits for a line that never comes: only the TERM ends it
	{ WAITS="bench-vm $C2 never" KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err & } && pid=$! &&
	n=0; until { grep -q "start build $C3" order && grep -q "start bench-vm $C2" order; } 2>/dev/null ||
		[ $n -gt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
	grep -q "start bench-vm $C2" order && [ -n "$(queue_procs)" ] && kill -TERM $pid &&
	{ rc=0; wait $pid || rc=$?; } && cat ci.err order && [ $rc = 143 ] &&
	queue_gone &&
	! grep -q "end bench-vm $C2" order && [ ! -f "ci/$C2/bench-vm.stamp" ]
'

test_expect_success 'KILL of the run while a guest runs in the background: the queue stops its guest and ends; the next run is not held up' '
	setup &&
	{ WAITS="bench-vm $C2 never" KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err & } && pid=$! &&
	n=0; until grep -qs "start bench-vm $C2" order || [ $n -gt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
	grep -q "start bench-vm $C2" order && [ -n "$(queue_procs)" ] && kill -KILL $pid &&
	{ wait $pid || true; } &&
	queue_gone &&
	cat ci.err order &&
	grep -q "bench-vm: the run that queued these guests (pid $pid) is gone: stopping its guests" ci.err &&
	! grep -q "end bench-vm $C2" order && [ ! -f "ci/$C2/bench-vm.stamp" ] &&
	ci && cat ci.err && [ -f "ci/$C2/bench-vm.stamp" ]
'

test_expect_success 'a second run on the same OUT while one goes on: refused at once, naming the first; the first unharmed' '
	setup &&
	{ WAITS="bench-vm $C2 go" KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err & } && pid=$! &&
	n=0; until grep -qs "start bench-vm $C2" order || [ $n -gt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
	cp ci/.run/plan plan.before &&
	for o in ci ci2; do
		rc=0
		KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/$o \
			sh "$TOP/ci/run.sh" --plan >two.out 2>two.err || rc=$?
		cat two.err && [ $rc = 1 ] &&
		grep -q "ci: lock: another run is running on $SCRATCH/run-out: ci/run.sh, pid $pid: wait for it to end (or stop it: kill $pid); nothing changed" two.err || return 1
	done &&
	[ ! -e ci2 ] && cmp plan.before ci/.run/plan &&
	echo go >>order && { rc=0; wait $pid || rc=$?; } && cat ci.err && [ $rc = 0 ] &&
	[ -f "ci/$C3/bench.stamp" ] &&
	ci && cat ci.err
'

test_expect_success 'a guest that fails in the background: the run says so and exits 1' '
	setup &&
	{ rc=0; FAIL_VM=$C2 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "steps failed: $(printf %.12s "$C2"):bench-vm" ci.err &&
	grep -q "^$(printf %.12s "$C2") *ok  *FAIL  *ok" ci/summary.txt
'
# renamed FILE: the fake steps under other names, their kinds said by
# themselves: the schedule must come from the kinds, never the names
renamed() {
	sed -e "s/step_build_/step_compile_/g; s/step_bench_vm_/step_boot_/g; s/step_bench_/step_perf_/g" \
		-e "s/^CI_ALL_STEPS=.*/CI_ALL_STEPS=\"compile boot perf\"/" \
		-e "s/step build /step compile /; s/step bench-vm /step boot /; s/step bench /step perf /" steps.sh >"$1" &&
	cat >>"$1" <<-\EOS
	step_compile_kind() { echo kernel; }
	step_boot_kind() { echo guest; }
	step_perf_kind() { echo host-bench; }
	step_boot_footprint() { step_bench_vm_footprint; }
	step_boot_ran_clock() { step_bench_vm_ran_clock "$@"; }
	EOS
}

test_expect_success 'the driver knows no step by its name: renamed steps of the same kinds are scheduled alike; a kind it does not know, or two guest steps, are refused' '
	setup && renamed r.sh && grep -q "step_boot_run()" r.sh &&
	! grep -q -e "step_build_run()" -e "step_bench_vm_run()" -e "step_bench_run()" r.sh &&
	WAITS="boot $C2 start compile $C3" CI_VM_JOBS=1 CI_STEPS_FILE=$SCRATCH/r.sh ci && cat ci.err order &&
	before "end boot $C1" "start compile $C2" && before "start compile $C3" "end boot $C2" &&
	before "end boot $C3" "start perf $C1" && ! grep -q beside order &&
	[ "$(grep -c "^end perf " order)" = 3 ] && grep -q "boot: queued, in the background" ci.err &&
	grep -q "^Where the time went .*boot in the background: yes" ci/times.txt &&
	setup && renamed r.sh && echo "step_perf_kind() { echo benchmark; }" >>r.sh &&
	{ rc=0; CI_STEPS_FILE=$SCRATCH/r.sh ci || rc=$?; } && [ $rc = 1 ] && [ ! -s order ] &&
	grep -q "perf.s kind is .benchmark. (step_perf_kind, or the table of .*), not foreground, kernel, guest or host-bench" ci.err &&
	setup && renamed r.sh && echo "step_perf_kind() { echo guest; }" >>r.sh &&
	{ rc=0; CI_STEPS_FILE=$SCRATCH/r.sh ci || rc=$?; } && [ $rc = 1 ] && [ ! -s order ] &&
	grep -q "more than one guest step ( boot perf)" ci.err
'
# the estimate prices the model the run would get (bench-vm/defaults.sh's
# rule): MODEL=auto on a wall clock is no model, under icount the cache
# model; 20 s of boot and 31 x 3 binds of 100G at 2.3 s, or 13.6 s
test_expect_success 'the guest step'"'"'s estimate prices the model the run'"'"'s own rule gives: MODEL=auto with a wall clock is no model' '
	est() {
		(ACCEL=$1 CLOCK=$2 MODEL=$3 REBINDS=30 VM_NS_KB=104857600 OUT=$SCRATCH/none CI_OUT=$SCRATCH/none &&
		 . "$TOP/bench-vm/bench-vm-step.sh" && tree_of() { echo t; } && step_bench_vm_typical c 1)
	} &&
	[ "$(est auto wall auto)" = 233 ] && [ "$(est auto auto auto)" = 1284 ] &&
	[ "$(est kvm auto auto)" = 233 ] && [ "$(est tcg icount cache)" = 1284 ] &&
	[ "$(est auto auto none)" = 233 ]
'
done_testing
