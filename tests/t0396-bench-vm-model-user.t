#!/bin/sh
# bench-vm's model plugin in user mode (qemu-x86_64, as bench/costs.sh
# counts copy-bench): a static program whose windows are written in
# assembly (tests/fixtures/model-user/count-me.c) is counted exactly,
# streaming-store rereads (nt_rereads) and REP starts (rep_starts)
# included; a second thread is refused, not counted into the first's
# caches.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
PLUGIN=$BENCH_VM_BIN/bench-vm-model.so
need cmd:qemu-x86_64

# window N FIELD: the count FIELD of window N in m.out
window() {
	awk -v seq="seq=$1" -v key="$2" -F '\t' '$1 == "window" && $2 == seq {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' m.out
}

test_expect_success 'a static program: its three windows counted exactly' '
	gcc -O2 -static -pthread -o count-me "$TOP/tests/fixtures/model-user/count-me.c" &&
	qemu-x86_64 -plugin "$PLUGIN,out=$SCRATCH/m.out" ./count-me >out &&
	grep -qx counted out &&
	grep -qx "end	windows=3	bad_markers=0	write=ok" m.out &&
	[ "$(window 1 stores)" = 1000 ] && [ "$(window 1 loads)" = 0 ] &&
	[ "$(window 1 llc_store_misses)" = 125 ] && [ "$(window 1 nt_rereads)" = 0 ] &&
	[ "$(window 2 nt_stores)" = 100 ] && [ "$(window 2 sfences)" = 100 ] &&
	[ "$(window 2 llc_load_misses)" = 100 ] &&
	[ "$(window 2 nt_rereads)" = 100 ] &&
	[ "$(window 3 rep_iters)" = 800 ] && [ "$(window 3 rep_bytes)" = 3200 ] &&
	[ "$(window 3 rep_starts)" = 50 ] && [ "$(window 3 nt_rereads)" = 0 ]
'

test_expect_success 'the same program counted twice: the same counts' '
	gcc -O2 -static -pthread -o count-me "$TOP/tests/fixtures/model-user/count-me.c" &&
	qemu-x86_64 -plugin "$PLUGIN,out=$SCRATCH/m.out" ./count-me >out &&
	qemu-x86_64 -plugin "$PLUGIN,out=$SCRATCH/m2.out" ./count-me >out &&
	cmp m.out m2.out
'

test_expect_success 'a second thread is refused with the reason' '
	gcc -O2 -static -pthread -o count-me "$TOP/tests/fixtures/model-user/count-me.c" &&
	! qemu-x86_64 -plugin "$PLUGIN,out=$SCRATCH/m3.out" ./count-me thread 2>err &&
	cat err && grep -q "bench-vm-model: vCPU 1: the model counts 1 (a second thread in user mode)" err
'

done_testing
