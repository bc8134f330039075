#!/bin/sh
# make bench (bench/run.sh) on the base and on the base with the seed
# diffs, and the copy-bench experiments that t0400 leaves out
# (memcpy-states, memcpy-sweep, template-copy, peer): every case gives
# records of the right shape, every claim the experiments back shows a
# reproduced figure, the peer check runs against perf.  Only a few samples
# each: what is checked is the path and the shape, never a time.
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
BENCH=$BIN/copy-bench
need tool:copy-bench
need kernel
BASE=$PIN_BASE
SEEDS=$TOP/bench/seed-diffs
PATCHED="$BASE+$SEEDS/001-rep-movsb.diff+$SEEDS/000-flushcache-fastpaths.diff"

# count CASE_PREFIX METRIC FILE: records of that case prefix and metric
count() {
	python3 - "$1" "$2" "$3" <<-'PY'
	import json, sys
	n = 0
	for l in open(sys.argv[3]):
	    r = json.loads(l)
	    assert r["schema"] == "x86-copy-series/record/2" and r["suite"] == "bench", r
	    assert r["samples"] and all(isinstance(x, float) and x >= 0 for x in r["samples"]), r
	    assert r["accel"] == "host" and r["cpu"]["model_name"] and r["commit"], r
	    n += r["case"].startswith(sys.argv[1]) and r["metric"] == sys.argv[2]
	print(n)
	PY
}

test_expect_success 'bench/run.sh: both commits built, selftested, measured; records and tables' '
	COMMITS="$BASE $PATCHED" BENCH_ARGS="--quick --samples 2 --only memcpy-sweep,flushcache-fixed" \
		sh "$TOP/bench/run.sh" >tables 2>err && cat err &&
	rec=$(sed -n "s/.*done: records: \(.*\), tables: .*/\1/p" err) && [ -f "$rec" ] &&
	grep -q "^### commit $BASE, kernel $PIN_KVER" tables &&
	grep -q "^### commit $BASE+001-rep-movsb+000-flushcache-fastpaths, kernel" tables &&
	grep -q "^### load: " tables && grep -q "^### load after: " tables &&
	[ "$(python3 -c "import json,sys; print(len({json.loads(l)[\"commit\"] for l in open(sys.argv[1])}))" "$rec")" = 2 ] &&
	[ "$(count memcpy-sweep/ ns_per_call "$rec")" -ge 100 ] &&
	! grep -q "no peer check" err
'

test_expect_success 'memcpy-states (65536 calls, as the changelog): three states, three variants, the claims' '
	"$BENCH" --variants "$OUT/bench/$BASE+001-rep-movsb+000-flushcache-fastpaths/variants.so" --commit p \
		--kernel "$PIN_KVER" --samples 2 --only memcpy-states --records r.jsonl >t && cat t &&
	[ "$(count memcpy-state/ ms_per_pass r.jsonl)" = 9 ] &&
	for st in L2-to-hot-page cold-to-hot-buffer hot-to-cold-page; do
		grep -q "^   $st  *[0-9.]* \[" t || return 1
	done &&
	[ "$(grep -c "^    reproduced [0-9.]* / [0-9.]* ms, [-+][0-9.]*% (threshold variant" t)" = 3 ]
'

test_expect_success 'template-copy: the three struct page sizes against the NT store limit, the claim' '
	"$BENCH" --variants "$OUT/bench/$BASE+001-rep-movsb+000-flushcache-fastpaths/variants.so" --commit p \
		--kernel "$PIN_KVER" --quick --samples 2 --only template-copy --records r.jsonl >t && cat t &&
	[ "$(count template-copy/ ms_per_pass r.jsonl)" = 12 ] &&
	[ "$(count nt-store-bandwidth/movnti/ bandwidth r.jsonl)" = 3 ] &&
	if grep -qw avx512f /proc/cpuinfo; then kinds=6; else kinds=3; fi &&
	[ "$(count nt-store-bandwidth/ bandwidth r.jsonl)" = $kinds ] &&
	for sz in 64 80 96; do
		grep -q "^ *$sz  fc-inline  *[0-9.]* \[" t || return 1
	done &&
	grep -q "^    reproduced template copy alone, 100000 x 64 B: out of line [0-9.]* -> inline [0-9.]* ms" t
'

test_expect_success 'peer: perf bench mem memcpy and copy-bench on the same cases, the ratios compared' '
	"$BENCH" --variants "$OUT/bench/$BASE/variants.so" --commit b --kernel "$PIN_KVER" \
		--quick --samples 2 --only peer --perf "$(command -v perf)" --records r.jsonl >t && cat t &&
	[ "$(count peer/perf/ bandwidth r.jsonl)" = 4 ] && [ "$(count peer/copy-bench/ bandwidth r.jsonl)" = 4 ] &&
	[ "$(grep -c "movsb/unrolled: perf [0-9.]*, copy-bench [0-9.]*: [-+][0-9.]*% apart, \(agree\|DISAGREE\)" t)" = 2 ]
'
done_testing
