#!/bin/sh
# cost-fit (bench/cost-fit.c, lib/costs.h): from synthetic timings made
# of known costs, on the model's real counts of copy-bench's kernels
# (results/2026-12-02-costs-amd-epyc), the fit gives back those costs,
# and a replica pass's check is the known prediction; bad inputs are
# clear errors that write no table.  The classes and sides are computed
# here a second time, in Python, from lib/costs.h's definitions.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
plan 3
FIT=$BIN/cost-fit
RES=$TOP/results/2026-12-02-costs-amd-epyc
[ -x "$FIT" ] || bail "$FIT is not built: run 'make tools'"

# synth COSTS: records.jsonl of the results with every sample replaced
# by what COSTS (class=ns,...) make of its window's counts
synth() {
	python3 - "$1" "$RES" <<-'PY'
	import json, sys
	costs = dict(kv.split("=") for kv in sys.argv[1].split(","))
	costs = {k: float(v) for k, v in costs.items()}
	res = sys.argv[2]
	side = {"insn": 0, "load": 0, "store": 0, "rep_byte": 0, "rep_start": 0,
	        "l1_load_miss": 1, "l1_store_miss": 1, "llc_load": 1, "llc_store": 1,
	        "writeback": 1, "nt_line": 1, "fence": 2, "nt_reread": 2}
	def classes(e):
	    r = e["rep_iters"]
	    return {"insn": e["insns"] - r, "load": max(e["loads"] - r, 0),
	            "store": e["stores"] - r, "rep_byte": e["rep_bytes"],
	            "rep_start": e["rep_starts"],
	            "l1_load_miss": e["l1d_load_misses"] - e["llc_load_misses"],
	            "l1_store_miss": e["l1d_store_misses"] - e["llc_store_misses"],
	            "llc_load": e["llc_load_misses"], "llc_store": e["llc_store_misses"],
	            "writeback": e["llc_writebacks"], "nt_line": e["nt_bytes"] / 64,
	            "fence": e["sfences"] + e["mfences"], "nt_reread": e["nt_rereads"]}
	def predict(e):
	    a = classes(e)
	    s = [sum(a[k] * costs[k] for k in a if side[k] == i) for i in range(3)]
	    return max(s[0], s[1]) + s[2]
	names = [dict(f.split("=", 1) for f in l.split("\t")[1:])
	         for l in open(res + "/cost-classes.windows").read().splitlines()]
	counts = [dict((k, float(v)) for k, v in (f.split("=") for f in l.split("\t")[1:]))
	          for l in open(res + "/cost-classes.counts").read().splitlines()
	          if l.startswith("window\t")]
	t = {w["case"]: predict(c) for w, c in zip(names, counts)}
	for line in open(res + "/records.jsonl"):
	    r = json.loads(line)
	    if r["case"] in t:
	        r["samples"] = [t[r["case"]]] * len(r["samples"])
	        print(json.dumps(r))
	PY
}

# costs near this machine's, other than any table's: each kernel stays bound by its side
COSTS="insn=0.1,load=0.05,store=0.08,rep_byte=0.01,rep_start=11,l1_load_miss=2.5,l1_store_miss=1.2,llc_load=7,llc_store=6,writeback=1.5,nt_line=3.5,fence=120,nt_reread=450"

test_expect_success 'the fit gives back the costs the synthetic timings were made of' '
	synth "$COSTS" >times.jsonl &&
	[ "$(wc -l <times.jsonl)" -ge 13 ] &&
	"$FIT" --times times.jsonl --counts "$RES/cost-classes" --table table.jsonl >fit.txt &&
	cat fit.txt &&
	python3 -c "
import json, sys
want = dict(kv.split(\"=\") for kv in sys.argv[1].split(\",\"))
got = {json.loads(l)[\"case\"][5:]: json.loads(l)[\"samples\"][0] for l in open(\"table.jsonl\")}
assert set(got) == set(want), (sorted(got), sorted(want))
bad = [k for k in want if abs(got[k] - float(want[k])) > 1e-4 * float(want[k])]
assert not bad, [(k, got[k], want[k]) for k in bad]
tab = [json.loads(l) for l in open(\"table.jsonl\")]
assert all(r[\"suite\"] == \"cost-table\" and len(r[\"params\"][\"cov\"]) == 13 and r[\"cpu\"][\"vendor\"] for r in tab)
" "$COSTS"
'

test_expect_success 'a kernel not bound by the side it prices: no table, and why' '
	# instructions 10 times dearer: the streaming kernels are bound by them
	synth "$(echo "$COSTS" | sed "s/insn=0.1,/insn=1,/")" >times.jsonl &&
	expect_fail "$FIT" --times times.jsonl --counts "$RES/cost-classes" --table t.jsonl &&
	grep "cost/nt-mem .*its side is not 1.5 times the other" out &&
	grep_err "kernels are not bound by the side they price .above.: the table would be wrong on this CPU; no table written" &&
	[ ! -e t.jsonl ]
'

test_expect_success 'bad inputs: a clear error, and no table written' '
	synth "$COSTS" >times.jsonl &&
	cp "$RES/cost-classes.windows" w.windows && cp "$RES/cost-classes.counts" w.counts &&
	expect_fail "$FIT" --times times.jsonl --counts nowhere --table t.jsonl &&
	grep_err "counts: nowhere.windows: No such file" && [ ! -e t.jsonl ] &&
	grep -v "^end" w.counts >cut.counts && cp w.windows cut.windows &&
	expect_fail "$FIT" --times times.jsonl --counts cut --table t.jsonl &&
	grep_err "cut.counts: no .end. line: the counting run did not finish" && [ ! -e t.jsonl ] &&
	sed "s/bad_markers=0/bad_markers=1/" w.counts >bm.counts && cp w.windows bm.windows &&
	expect_fail "$FIT" --times times.jsonl --counts bm --table t.jsonl &&
	grep_err "markers were wrong or a write failed" && [ ! -e t.jsonl ] &&
	head -n 3 w.windows >few.windows && cp w.counts few.counts &&
	expect_fail "$FIT" --times times.jsonl --counts few --table t.jsonl &&
	grep_err "more windows counted than few.windows names" && [ ! -e t.jsonl ] &&
	sed "s/\"bound\": *\"[a-z]*\", *//" times.jsonl >nobound.jsonl &&
	expect_fail "$FIT" --times nobound.jsonl --counts w --table t.jsonl &&
	grep_err "has no params.bound" && [ ! -e t.jsonl ] &&
	grep -v "cost/alu" times.jsonl >fewer.jsonl &&
	expect_fail "$FIT" --times fewer.jsonl --counts w --table t.jsonl &&
	grep_err "the fit needs at least 13" && [ ! -e t.jsonl ] &&
	head -n 1 times.jsonl | sed "s/\"time\": *\"[^\"]*\"/\"time\": \"2000-01-01T00:00:00Z\"/" >>times.jsonl &&
	expect_fail "$FIT" --times times.jsonl --counts w --table t.jsonl &&
	grep_err "measured twice: give one run.s records" && [ ! -e t.jsonl ]
'
