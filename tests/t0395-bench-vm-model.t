#!/bin/sh
# bench-vm's store and cache model (bench-vm/plugin, run.sh --model cache)
# in a guest (the series head's kernel; t0394 tests it on the host): the agent's
# synthetic copies (synthetic=1M) counted as they must be, identical on
# two boots with a busy CPU beside the second; and the binds of 8G
# NVDIMMs (3 rebinds) with the model: the same icount figures as without
# it, model counts identical between two boots.
# test-quick: no: boots guests with the model
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"

if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "synthetic copies" "synthetic copies: two boots" "binds under the model" "binds: model vs none"
	done_testing
	exit
fi
diag "kernel: $KERNEL"
BOOTS=$TEST_OUT/t0395-boots
# the metrics of a window: the events of plugin/events.def and est_cycles
METRICS=$(($(grep -c "^MODEL_EVENT(" "$TOP/bench-vm/plugin/events.def") + 1))
rm -rf "$BOOTS"
mkdir -p "$BOOTS"

# synthetic BOOT: the synthetic copies of 1 MiB under the model
synthetic() {
	$RUN --accel tcg --clock icount --model cache --ns-size 512M --mem-ns 0 --rebinds 0 \
		--agent-opt synthetic=1M --kernel "$KERNEL" --commit syn --results "$BOOTS/$1"
}

test_expect_success 'synthetic copies: the model counts the MOV, MOVNTI, MOVNTDQ and REP MOVSB loops as it says' '
	synthetic s1 &&
	python3 - "$BOOTS/s1/records.jsonl" <<-\PY
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	assert not [r for r in recs if r["metric"] == "error"], recs
	n = 1 << 20
	def win(kind, m):
	    return [r for r in recs if r["case"] == "synthetic/" + kind and r["metric"] == m][0]["samples"][0]
	def user(kind, m):
	    r = [r for r in recs if r["case"] == "synthetic/" + kind and r["metric"] == "est_cycles"][0]
	    return [f for f in r["functions"][0] if f["name"] == "[user]"][0][m]
	for k in ("mov", "movnti", "movntdq", "rep_movsb"):
	    print(k, {m: win(k, m) for m in ("insns", "nt_stores", "nt_bytes", "rep_bytes", "llc_store_misses", "est_cycles")})
	# streaming stores: one a MOVNTI (8 bytes), one a MOVNTDQ (16), none else
	assert win("movnti", "nt_stores") == n / 8 and win("movntdq", "nt_stores") == n / 16
	assert win("mov", "nt_stores") == 0 and win("rep_movsb", "nt_stores") == 0
	assert win("movnti", "nt_bytes") == n and win("movntdq", "nt_bytes") == n
	# REP MOVS bytes: the buffer, by the agent, for REP MOVSB only (a timer
	# interrupt inside a window adds REP STOS/MOVS of the kernel)
	assert user("rep_movsb", "rep_bytes") == n and user("rep_movsb", "rep_iters") == n
	assert all(user(k, "rep_bytes") == 0 for k in ("mov", "movnti", "movntdq"))
	# write-allocate: every destination line misses; streaming: below 1% of that
	assert win("mov", "llc_store_misses") >= n / 64 and win("rep_movsb", "llc_store_misses") >= n / 64
	assert win("movnti", "llc_store_misses") < win("mov", "llc_store_misses") / 100
	assert win("movntdq", "llc_store_misses") < win("mov", "llc_store_misses") / 100
	# the MOV loop is 6 instructions per 8 bytes, in user space
	assert user("mov", "insns") >= 6 * n / 8
	assert win("mov", "est_cycles") > win("movnti", "est_cycles")
	PY
'

test_expect_success 'synthetic copies: a second boot, with a busy CPU beside it: every count identical' '
	( while :; do :; done ) &
	hog=$! &&
	synthetic s2; rc=$?; kill "$hog"; wait "$hog" 2>/dev/null
	[ "$rc" = 0 ] &&
	python3 - "$BOOTS/s1/records.jsonl" "$BOOTS/s2/records.jsonl" "$METRICS" <<-\PY
	import json, sys
	a, b = ({(r["case"], r["metric"]): r for r in map(json.loads, open(f)) if r.get("model")} for f in sys.argv[1:3])
	# 4 windows of every event (plugin/events.def) and est_cycles each
	assert len(a) == 4 * int(sys.argv[3]) and a.keys() == b.keys(), (len(a), a.keys() ^ b.keys())
	for k in sorted(a):
	    assert a[k]["samples"] == b[k]["samples"], (k, a[k]["samples"], b[k]["samples"])
	    assert a[k].get("functions") == b[k].get("functions"), k
	PY
'

# Exact: run.sh keeps every host-timed input out of an icount guest (its
# random seed, wall clock and the agent port's kicks), so each window's
# counts, per function too, are the same on every boot.  Before it did,
# the instructions of a bind moved by up to 4e-6 between boots and small
# miss counts by up to 0.6% (SLUB and page-allocator state seeded from
# RDRAND and the wall clock; port completions timed by the host).
test_expect_success 'binds under the model: two boots give identical counts per bind and per function' '
	for r in m1 m2; do
		$RUN --accel tcg --clock icount --model cache --ns-size 8G --rebinds 3 \
			--kernel "$KERNEL" --commit det --results "$BOOTS/$r" || return 1
	done &&
	python3 - "$BOOTS/m1/records.jsonl" "$BOOTS/m2/records.jsonl" "$METRICS" <<-\PY
	import json, sys
	a, b = ({(r["case"], r["metric"]): r for r in map(json.loads, open(f)) if r.get("model")} for f in sys.argv[1:3])
	# 6 bind cases of every event and est_cycles each
	assert len(a) == 6 * int(sys.argv[3]) and a.keys() == b.keys(), (len(a), a.keys() ^ b.keys())
	differ = [k for k in sorted(a) if a[k]["samples"] != b[k]["samples"] or a[k].get("functions") != b[k].get("functions")]
	for k in differ:
	    print("differs:", k, a[k]["samples"], b[k]["samples"])
	assert not differ, differ
	PY
'

test_expect_success 'binds: loading the model changes no icount figure' '
	$RUN --accel tcg --clock icount --ns-size 8G --rebinds 3 \
		--kernel "$KERNEL" --commit det --results "$BOOTS/plain" &&
	python3 - "$BOOTS/m1/records.jsonl" "$BOOTS/plain/records.jsonl" <<-\PY
	import json, sys
	a, b = ({(r["case"], r["metric"]): r for r in map(json.loads, open(f)) if not r.get("model")} for f in sys.argv[1:])
	n = 0
	for k in a:
	    if k[1] == "memmap_init_ms":
	        assert a[k]["samples"] == b[k]["samples"], (k, a[k]["samples"], b[k]["samples"])
	        n += 1
	    if k[1] == "bind_us":
	        for x, y in zip(a[k]["samples"], b[k]["samples"]):
	            assert abs(x - y) <= 1e-4 * x, (k, x, y)
	assert n == 6, n
	PY
'
done_testing
