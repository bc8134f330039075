#!/bin/sh
# ci/run.sh's stamps: an interrupted run resumes at the step that did not
# finish; a rerun with nothing changed runs nothing; a changed option
# reruns every commit; a skipped step says why and keeps no stamp.  A fake
# step (CI_STEPS_FILE) on a three-commit repository stands in for the
# builds and VM runs.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
# the fake series here hold none of the commits ci/gate-ack.txt names
# (ci-report refuses an acknowledgement of a commit outside the series)
GATE_ACK=/dev/null
export GATE_ACK
need tool:ci-report tool:record-write

setup() {
	fake_series repo &&
	cat >steps.sh <<-\EOS
	CI_ALL_STEPS="fake skipper"
	step_fake_inputs() { echo "commit $1 opt ${FAKE_OPT:-0} slow ${SLOW_HEAD:-0}"; }
	step_fake_run() {
		echo "$1" >>"$SCRATCH/ran"
		# FAIL_AT=<commit>: this step dies there, as an interrupted run would
		[ "$1" != "${FAIL_AT:-}" ] || { echo "fake: interrupted" >&2; return 1; }
		"$BIN/record-write" --to "$2/records.jsonl" --suite bench-vm --json "build=$(cat "$TOP/tests/fixtures/build-id.json")" --case nd_pmem/rebind \
			--metric memmap_init_ms --unit ms --commit "$1" --accel tcg ${FAKE_SAMPLES:-10 11 12}
		# SLOW_HEAD=1: a host benchmark 20% slower at the head
		[ "${SLOW_HEAD:-0}" = 1 ] || return 0
		v="100 101 99 100 102 98"
		[ "$1" != "$(git -C "$SCRATCH/repo" rev-parse HEAD)" ] || v="120 121 119 120 122 118"
		"$BIN/record-write" --to "$2/records.jsonl" --suite bench --case memcpy-sweep/v/64 \
			--metric ns_per_call --unit ns --commit "$1" --accel host $v
	}
	step_skipper_inputs() { echo "commit $1"; }
	step_skipper_run() { skip "$2" "nothing to do here, on purpose"; }
	EOS
}

ci() {
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err
}

test_expect_success 'a step that fails at commit 2: exit 1, the others go on; the rerun runs only it' '
	setup && c2=$(git -C repo rev-parse HEAD~1) &&
	{ rc=0; FAIL_AT=$c2 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "steps failed: $(printf %.12s $c2):fake" ci.err &&
	[ "$(wc -l <ran)" = 3 ] && [ ! -f ci/$c2/fake.stamp ] &&
	: >ran && ci && cat ci.err &&
	[ "$(cat ran)" = "$c2" ] &&
	grep -q "1/3 .*fake: up to date" ci.err && grep -q "3/3 .*fake: up to date" ci.err
'

test_expect_success 'nothing changed: nothing runs; a changed option reruns all' '
	setup && ci && : >ran && ci && [ ! -s ran ] &&
	FAKE_OPT=1 ci && [ "$(wc -l <ran)" = 3 ]
'

test_expect_success 'a skipped step says why and keeps no stamp' '
	setup && ci &&
	grep -q "skipper: skipped: nothing to do here, on purpose" ci.err &&
	[ -z "$(ls ci/*/skipper.stamp 2>/dev/null)" ] &&
	grep -q "warning: skipped:" ci.err
'

test_expect_success 'the report is made from the steps'"'"' records; the default gate passes' '
	setup && ci && [ -s ci/report.md ] && [ -s ci/report.json ] &&
	grep -A1 "^Average of rebinds for nd_pmem driver: 11.00 ms$" ci/report.txt | grep -q "^  (+0.0% vs parent"
'
test_expect_success 'the default gate is the rebind times, also with GATE_ONLY exported empty' '
	setup && GATE_ONLY= SLOW_HEAD=1 ci && cat ci.err &&
	grep -q "memcpy-sweep/v/64" ci/report.md &&
	! grep -q "gate: .*memcpy-sweep" ci.err &&
	{ rc=0; GATE_ONLY="*" SLOW_HEAD=1 ci || rc=$?; } && cat ci.err && [ $rc = 1 ] &&
	grep -q "gate: .*bench.memcpy-sweep/v/64.ns_per_call .* worse than in the parent" ci.err
'

test_expect_success 'a report that cannot be made (a NaN record): exit 1, said so, the last report whole' '
	setup && ci && cp -r ci before && c2=$(git -C repo rev-parse HEAD~1) &&
	sed "s/\"samples\":\[10.0/\"samples\":[NaN/" ci/$c2/fake/records.jsonl >x && mv x ci/$c2/fake/records.jsonl &&
	{ rc=0; KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" --report-only >out 2>err || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "ci-report: records: .*/fake/records.jsonl:1: field .samples\[0\]. is NaN" err &&
	grep -q "report: not made: ci-report exited 1" err && grep -q "done: report: not made" err &&
	! grep -q "done: report: .*report.md" err && [ ! -s out ] &&
	for f in report.txt report.md report.json; do cmp before/$f ci/$f || exit 1; done &&
	diff -r before/plots ci/plots && [ -z "$(ls -d ci/*.tmp-* 2>/dev/null)" ] &&
	[ -z "$(ls -d ci/.report.* 2>/dev/null)" ]
'

test_expect_success 'make quick has its own place: the full run'"'"'s results and report stay as they were' '
	setup && KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/o \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err && cp -r o/ci full &&
	FAKE_SAMPLES="20 21 22" CI_QUICK=1 KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh \
		OUT=$SCRATCH/o sh "$TOP/ci/run.sh" >q.out 2>q.err && cat q.err &&
	diff -r full o/ci && grep -q "Average of rebinds for nd_pmem driver: 21.00 ms" o/quick/report.txt &&
	[ "$(ls -d o/quick/*/fake | wc -l)" = 2 ] && grep -q "done: report: .*/o/quick/report.md" q.err &&
	FAKE_SAMPLES="20 21 22" CI_QUICK=1 KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh \
		OUT=$SCRATCH/o sh "$TOP/ci/run.sh" --report-only >r.out 2>r.err &&
	grep -q "21.00 ms" o/quick/report.txt && diff -r full o/ci
'
# A step killed outright (SIGKILL of the whole run, a power cut) while
# it reruns with other inputs than its last good run's: the results it
# keeps are already marked superseded (ci/run.sh: run_step), so no
# report takes them for this run's.  The mark was written once the step
# had ended, which a killed run never reaches.  (Its own step, whose
# records name their kernel build, as bench-vm records must.)
test_expect_success 'a step killed outright as it reruns: its kept results were marked superseded before it started' '
	fake_series repo && c2=$(git -C repo rev-parse HEAD~1) &&
	cat >steps.sh <<-EOS &&
	CI_ALL_STEPS=fake
	BUILD_JSON=\$(cat "$BUILD_ID")
	EOS
	cat >>steps.sh <<-\EOS &&
	step_fake_inputs() { echo "commit $1 opt ${FAKE_OPT:-0}"; }
	step_fake_run() {
		if [ "${FAKE_OPT:-0}" = 1 ] && [ "$1" = "$(git -C "$SCRATCH/repo" rev-parse HEAD~1)" ]; then
			echo $$ >"$SCRATCH/driver.pid" && echo "fake: running" >&2
			while :; do sleep 0.1; done
		fi
		"$BIN/record-write" --to "$2/records.jsonl" --suite bench-vm --case nd_pmem/rebind \
			--metric memmap_init_ms --unit ms --commit "$1" --accel tcg --json "build=$BUILD_JSON" 10 11 12
	}
	EOS
	ci && [ -f ci/$c2/fake.stamp ] && [ ! -e ci/$c2/.fake.superseded ] && cp -a ci before || return 1
	kill_when_running ci/$c2/.fake.attempt/log KILL
	rc=0
	FAKE_OPT=1 KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		setsid -w sh "$TOP/ci/run.sh" >ci.out 2>ci.err || rc=$?
	wait $helper; cat ci.err && [ $rc != 0 ] &&
	cmp before/$c2/fake/records.jsonl ci/$c2/fake/records.jsonl &&
	cmp before/$c2/fake.stamp ci/$c2/fake.stamp && [ -e ci/$c2/.fake.superseded ] &&
	# found up to date again (the old inputs): no longer superseded
	ci && grep -q "2/3 [0-9a-f]*: fake: up to date" ci.err && [ ! -e ci/$c2/.fake.superseded ]
'
# Every path of a run with a blank in it: the repository, the step file,
# OUT, CI_OUT and TMPDIR.  The records reach the report whole (they were
# split at the blank: "records: /tmp/bl: cannot open").
test_expect_success 'paths with blanks (KERNEL_TREE, CI_STEPS_FILE, OUT, CI_OUT, TMPDIR): the run, the rerun and the report' '
	setup && mkdir "a b" "a b/t mp" && mv repo "a b/re po" && cp steps.sh "a b/st eps.sh" &&
	bci() {
		KERNEL_TREE="$SCRATCH/a b/re po" CI_STEPS_FILE="$SCRATCH/a b/st eps.sh" OUT="$SCRATCH/a b/o ut" \
			CI_OUT="$SCRATCH/a b/c i" TMPDIR="$SCRATCH/a b/t mp" sh "$TOP/ci/run.sh" >ci.out 2>ci.err
	} &&
	bci && cat ci.err && [ "$(wc -l <ran)" = 3 ] &&
	grep -q "Average of rebinds for nd_pmem driver: 11.00 ms" "a b/c i/report.txt" &&
	grep -q "done: report: $SCRATCH/a b/c i/report.md (exit 0)" ci.err &&
	: >ran && bci && [ ! -s ran ] && grep -q "done: report: $SCRATCH/a b/c i/report.md (exit 0)" ci.err &&
	[ -z "$(ls -A "a b/t mp")" ]
'
done_testing
