#!/bin/sh
# One flow: every producer writes its own records into the directory it is
# given (--results), once; the step of ci/run.sh reads nothing back,
# scrapes no progress line and copies nothing from out/<area>/.  On the
# series head, at the smallest size that runs each for real: the build
# (cached by t0050), the checks (changelog and checkpatch, no KUnit), the
# host bench (one quick experiment).  The records pass the strict reader,
# which also checks that each sits in its commit's directory.
# test-quick: no: builds kernel objects and boots
. "$(dirname "$0")/lib.sh"
need worktree
need series
HEAD=$SERIES_HEAD
need tool:record-write tool:changelog-lint tool:copy-bench tool:ci-report

# only_new DIR MARK: no file under DIR is newer than MARK (nothing written)
only_old() {
	[ ! -d "$1" ] || [ -z "$(find "$1" -newer "$2" -name '*.jsonl')" ] ||
		{ echo "written in $1:"; find "$1" -newer "$2" -name '*.jsonl'; return 1; }
}

test_expect_success 'build.sh --results: the build records, in that directory only' '
	[ -f "$OUT/build/$HEAD/arch/x86/boot/bzImage" ] || { echo "no build of the head: t0050 makes it"; exit 1; } &&
	: >mark && sleep 1 &&
	sh "$TOP/build/build.sh" --results "$SCRATCH/ci/$HEAD/build" "$HEAD" >out 2>err && cat err &&
	r=ci/$HEAD/build/records.jsonl &&
	for m in ok seconds warnings new_warnings; do
		grep -q "\"suite\":\"build\",\"case\":\"kernel\",\"metric\":\"$m\"" "$r" || exit 1
	done &&
	grep -q "\"metric\":\"ok\".*\"samples\":\[1.0\].*\"commit\":\"$HEAD\"" "$r" &&
	only_old "$OUT/build/$HEAD" mark &&
	"$BIN/ci-report" ci >/dev/null
'

test_expect_success 'checks.sh --results: findings and the verdict as records there, KUnit'"'"'s beside' '
	: >mark && sleep 1 &&
	KUNIT=0 CHECKS_ONLY="checkpatch changelog" sh "$TOP/checks/checks.sh" --results "$SCRATCH/ci/$HEAD/checks" "$HEAD" 2>err; rc=$?
	cat err; [ $rc = 0 ] && r=ci/$HEAD/checks/records.jsonl &&
	grep -q "\"suite\":\"checks\",\"case\":\"verdict\",\"metric\":\"verdict\".*\"verdict\":\"pass\"" "$r" &&
	[ -s ci/$HEAD/checks/verdict ] && [ -s ci/$HEAD/checks/summary.txt ] &&
	[ -z "$(ls ci/$HEAD/checks/*.tsv 2>/dev/null)" ] &&
	only_old "$OUT/checks/$HEAD" mark &&
	"$BIN/ci-report" ci >/dev/null
'

test_expect_success 'bench/run.sh --results: copy-bench writes the records there, no run directory elsewhere' '
	ls -d "$OUT"/bench/run-* 2>/dev/null | sort >runs.before &&
	COMMITS=$HEAD BENCH_ARGS="--quick --samples 2 --only memcpy-sweep" \
		sh "$TOP/bench/run.sh" --results "$SCRATCH/ci/$HEAD/bench" >out 2>err && cat err &&
	ls -d "$OUT"/bench/run-* 2>/dev/null | sort >runs.after && diff runs.before runs.after &&
	grep -q "\"suite\":\"bench\",\"case\":\"memcpy-sweep/" ci/$HEAD/bench/records.jsonl &&
	[ -s ci/$HEAD/bench/tables.txt ] &&
	"$BIN/ci-report" ci >/dev/null
'

test_expect_success 'the steps of ci/run.sh: each runs its producer with --results, nothing read back or copied' '
	# ci/steps.sh and the step files it sources (one per area)
	files="$TOP/ci/steps.sh $(sed -n "s|^\. \"\\\$TOP/\(.*\)\"\$|$TOP/\1|p" "$TOP/ci/steps.sh")" &&
	[ "$(echo $files | wc -w)" = 5 ] &&
	! grep -n "cp \|sed -n .*done: records\|records.tsv\|findings.tsv\|ci-record\|checks-record" $files &&
	for s in build checks bench-vm bench; do
		f=$(printf %s "$s" | tr - _) &&
		cat $files | sed -n "/^step_${f}_run()/,/^}/p" | grep -q -- "--results" ||
			{ echo "step $s gives its producer no --results"; exit 1; }
	done
'
done_testing
