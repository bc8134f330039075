#!/bin/sh
# bench: the tree's copy routines, built per simulated feature set, copy
# exactly like memcpy() (differential test, seeded); the ALTERNATIVE
# branches really differ per feature set; copy-bench writes valid records.
# No timing decides anything here.
# test-parallel: its scratch directories and out/test/bench-variants; reads kernel-tree
. "$(dirname "$0")/lib.sh"
BENCH=$BIN/copy-bench
GEN=$TOP/bench/gen.sh
need tool:copy-bench
need kernel
BASE=$PIN_BASE
SEEDS=$TOP/bench/seed-diffs
PATCHED="$BASE+$SEEDS/001-rep-movsb.diff+$SEEDS/000-flushcache-fastpaths.diff"
G=$TEST_OUT/bench-variants

test_expect_success 'gen.sh builds the base and the base with the seed diffs' '
	sh "$GEN" "$BASE" "$G/base" && test -f "$G/base/variants.so" &&
	[ "$(cat "$G/base/commit")" = "$BASE" ] &&
	[ "$(cat "$G/base/kernel")" = "$PIN_KVER" ] &&
	sh "$GEN" "$PATCHED" "$G/patched" && test -f "$G/patched/variants.so" &&
	[ "$(cat "$G/patched/commit")" = "$BASE+001-rep-movsb+000-flushcache-fastpaths" ]
'

test_expect_success '--list prints every line of variants.def and every experiment' '
	"$BENCH" --list >list && cat list &&
	n=$(grep -c "^VARIANT(" "$TOP/bench/variants.def") &&
	[ "$(sed -n "/^variants/,/^experiments/p" list | grep -c "^  ")" = "$n" ] &&
	grep -q "^  copy-user-short " list && grep -q "^  template-copy " list
'

# dis SO SYM: objdump of one symbol of a variants.so; fails when SO has no
# SYM, so that "! dis ... | grep" cannot pass on a missing symbol: use
# dis SO SYM >d && ! grep ... d for the negative checks
dis() {
	objdump -d --no-show-raw-insn "$1" | sed -n "/<$2>:/,/^\$/p" >"$SCRATCH/dis.$2" &&
	[ -s "$SCRATCH/dis.$2" ] || { echo "no symbol $2 in $1"; return 1; }
	cat "$SCRATCH/dis.$2"
}

test_expect_success 'ALTERNATIVE branches follow the simulated features (base)' '
	so=$G/base/variants.so &&
	dis "$so" m00___memcpy | sed -n 2p | grep -q "jmp .*<m00_memcpy_orig>" &&
	dis "$so" m10___memcpy | sed -n 2p | grep -q "jmp .*<m10_memcpy_orig>" &&
	dis "$so" m01___memcpy | grep -q "rep movsb" &&
	dis "$so" m01___memcpy >d && ! sed -n 2p d | grep -q jmp &&
	dis "$so" c10_rep_movs_alternative | grep -q "rep movsb" &&
	dis "$so" c00_rep_movs_alternative >d && ! grep -q "rep movsb" d &&
	dis "$so" c00_rep_movs_alternative | grep -q "rep movsq" &&
	dis "$so" c11_bench_copy_user | grep -q "rep movsb" &&
	dis "$so" c10_bench_copy_user | grep -q "call .*<c10_rep_movs_alternative>"
'

test_expect_success 'the REP MOVSB patch: ERMS without FSRM compares with 512, FSRM does not' '
	so=$G/patched/variants.so &&
	dis "$so" m10___memcpy | sed -n 2p | grep -q "cmp .*\$0x200,%rdx" &&
	dis "$so" m10___memcpy | sed -n 3p | grep -q "jb .*<m10_memcpy_orig>" &&
	dis "$so" m00___memcpy | sed -n 2p | grep -q "jmp .*<m00_memcpy_orig>" &&
	dis "$so" m11___memcpy >d && ! grep -q "cmp .*\$0x200" d
'

test_expect_success 'the flushcache fastpaths: inline 64 B is MOVNTI only with seed 000' '
	dis "$G/patched/variants.so" bench_fc_inline_64 >d && ! grep -q call d &&
	dis "$G/patched/variants.so" bench_fc_inline_64 | grep -q movnti &&
	dis "$G/base/variants.so" bench_fc_inline_64 | grep -q "call.*__memcpy_flushcache" &&
	dis "$G/base/variants.so" bench_fc_inline_16 >d && ! grep -q call d
'

test_expect_success 'every variant copies like memcpy(): base (seeded, sizes 0..4096, misalignments 0..63)' '
	"$BENCH" --variants "$G/base/variants.so" --selftest --seed 4 --cases 5000 >out &&
	tail -n 3 out && grep -q "^ok: 0 variant(s) failed" out &&
	[ "$(grep -c "^ok " out)" -ge 28 ]
'

test_expect_success 'every variant copies like memcpy(): base + seed diffs' '
	"$BENCH" --variants "$G/patched/variants.so" --selftest --seed 5 --cases 5000 >out &&
	tail -n 3 out && grep -q "^ok: 0 variant(s) failed" out
'

test_expect_success 'the selftest catches a broken copy (dropped store in memcpy_orig tail)' '
	mkdir -p src/arch/x86/lib src/arch/x86/include/asm &&
	for f in arch/x86/lib/memcpy_64.S arch/x86/lib/copy_user_64.S arch/x86/include/asm/string_64.h arch/x86/lib/usercopy_64.c; do
		git -C "$TOP/kernel-tree" show "$BASE:$f" >"src/$f" || exit 1
	done &&
	grep -q "movq %r9,[[:space:]]*-1\*8(%rdi, %rdx)" src/arch/x86/lib/memcpy_64.S &&
	sed -i "s/movq %r9,[[:space:]]*-1\*8(%rdi, %rdx)/nop/" src/arch/x86/lib/memcpy_64.S &&
	sh "$GEN" "dir:$SCRATCH/src" g &&
	expect_fail "$BENCH" --variants g/variants.so --selftest --cases 100 &&
	grep "^FAIL memcpy-erms0-fsrm0: len [0-9]* src+0 dst+0: byte 8 " "$SCRATCH/out" &&
	grep -q "^FAIL: 2 variant(s) failed" "$SCRATCH/out" &&
	grep -q "^ok memcpy-erms1-fsrm1" "$SCRATCH/out"
'

test_expect_success 'copy-bench writes one valid record per case, with CPU, host and load' '
	"$BENCH" --variants "$G/base/variants.so" --commit "$BASE" --kernel "$PIN_KVER" \
		--quick --samples 2 --only copy-user-short,memcpy-align,flushcache-fixed \
		--records r.jsonl >tables &&
	grep -q "ran on the host, pinned to CPU" tables &&
	python3 - r.jsonl "$BASE" "$PIN_KVER" <<-PY
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	assert len(recs) == 64 * 3 + 10 * 2 + 8 * 2, len(recs)
	for r in recs:
	    assert r["schema"] == "x86-copy-series/record/2" and r["suite"] == "bench"
	    assert r["accel"] == "host" and r["clock"] == "wall" and r["commit"] == sys.argv[2] and r["kernel"] == sys.argv[3]
	    assert len(r["samples"]) == 2 and all(isinstance(x, float) for x in r["samples"])
	    assert r["cpu"]["vendor"] and "family" in r["cpu"] and "flags" in r["cpu"]
	    assert r["host"] and r["time"] and r["loadavg"] and "pinned_cpu" in r
	    assert r["params"]["variant"]
	assert len({r["case"] for r in recs}) == len(recs)
	PY
'
test_expect_success '--rounds and sizes: every case once per round and size, in one process, round-tagged' '
	"$BENCH" --variants "$G/base/variants.so" --commit "$BASE" --kernel "$PIN_KVER" \
		--quick --samples 2 --only template-ways,flushcache-fixed --pages 4096,8192 \
		--rounds 3 --records r.jsonl >tables 2>err &&
	[ "$(grep -c "^=== round [1-3] of 3$" tables)" = 3 ] &&
	[ "$(grep -c "^copy-bench: round [1-3] of 3$" err)" = 3 ] &&
	python3 - r.jsonl <<-PY
	import collections, json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	ways = [r for r in recs if r["case"].startswith("template-ways/")]
	fixed = [r for r in recs if not r["case"].startswith("template-ways/")]
	per = collections.Counter((r["case"], r["params"].get("pages"), r["params"]["round"]) for r in recs)
	assert set(per.values()) == {1}, per
	cases = {r["case"] for r in ways}
	# template-ways: each way at both sizes (dax-mem a quarter of each) in every round
	assert len(ways) == len(cases) * 2 * 3, (len(ways), len(cases))
	assert {r["params"]["round"] for r in recs} == {1, 2, 3}
	assert len(fixed) == 10 * 3 and not any("pages" in r["params"] for r in fixed)
	assert {r["params"]["pages"] for r in ways} == {4096, 8192, 1024, 2048}
	PY
	for bad in "--rounds 0" "--rounds 1000" "--pages 1,,0" "--pages 1,2,3,4,5,6,7,8,9" "--pages ,"; do
		rc=0 && "$BENCH" --variants "$G/base/variants.so" $bad --only flushcache-fixed \
			>/dev/null 2>err || rc=$? &&
		[ $rc = 2 ] && grep -q "^copy-bench: usage: --" err || return 1
	done &&
	rc=0 && "$BENCH" --variants "$G/base/variants.so" --count w --rounds 2 2>/dev/null || rc=$? &&
	[ $rc = 2 ] && [ ! -e w ]
'

test_expect_success 'usage errors exit 2, a missing variants.so exits 1 and says how to build it' '
	{ rc=0; "$BENCH" >/dev/null 2>&1 || rc=$?; } && [ $rc = 2 ] &&
	{ rc=0; "$BENCH" --variants "$G/base/variants.so" --only no-such >/dev/null 2>err || rc=$?; } &&
	[ $rc = 2 ] && grep -q "no experiment .no-such." err &&
	expect_fail "$BENCH" --variants "$SCRATCH/none.so" --selftest &&
	grep_err "^copy-bench: variants: cannot load .*none.so.*bench/gen.sh"
'
done_testing
