#!/bin/sh
# cost-fit (bench/cost-fit.c, lib/costs.h): from synthetic timings made
# of known costs, on the model's real counts of copy-bench's kernels and
# replica (RES: make costs' two-run set), the fit gives back those costs
# on its 13 degrees of freedom, every kernel held out is predicted
# exactly (model error 0), a second run 10% slower is a run-to-run spread
# of 10%/sqrt(2), and the replica passes whose priced mix is a fit
# kernel's are marked in sample; timings the additive model cannot make
# (one kernel 60% off) are refused as a table that does not fit, as is a
# fit with no kernel to hold out (one kernel a class, as 2026-12-02's); bad
# inputs are clear errors that write no table, and so are records of a
# copy-bench from before REP was priced on the serial side.  A run of
# rounds (copy-bench --rounds, make costs) is fitted on its odd rounds and
# checked on its even ones, its spread the rounds' own; a round missing
# or timed twice, or a run of one round, is refused.  --owed (owed
# write-backs priced as write-backs) fits timings that pay them, writes no
# table, and refuses counts of a plugin without them.  The classes and sides
# are computed here a second time, in Python, from lib/costs.h.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
FIT=$BIN/cost-fit
RES=$TOP/results/2026-12-06-costs-amd-epyc-rep-serial
need tool:cost-fit
[ -f "$RES/cost-classes.counts" ] || bail "$RES: no counted kernels"

# synth COSTS [RECORDS] [FACTOR] [CASE=FACTOR]: RECORDS (default: the
# set's first run) with every sample replaced by what COSTS
# (class=ns,...) make of its window's counts (the kernels in ns, the
# replica's passes in ms), times FACTOR, and CASE's times its own FACTOR;
# OWED=1: a window's owed write-backs priced as write-backs (cost-fit --owed)
synth() {
	python3 - "$1" "$RES" "${2:-$RES/records.jsonl}" "${3:-1}" "${4:-}" <<-'PY'
	import glob, json, os, sys
	costs = {k: float(v) for k, v in (kv.split("=") for kv in sys.argv[1].split(","))}
	res, recs, factor, odd = sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
	owed = os.environ.get("OWED") == "1"
	side = {"insn": 0, "load": 0, "store": 0, "rep_byte": 2, "rep_start": 2,
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
	            "writeback": e["llc_writebacks"] + (e["owed_writebacks"] if owed else 0),
	            "nt_line": e["nt_bytes"] / 64,
	            "fence": e["sfences"] + e["mfences"], "nt_reread": e["nt_rereads"]}
	def predict(e):
	    a = classes(e)
	    s = [sum(a[k] * costs[k] for k in a if side[k] == i) for i in range(3)]
	    return max(s[0], s[1]) + s[2]
	t = {}
	for w in glob.glob(res + "/*.windows"):
	    names = [dict(f.split("=", 1) for f in l.split("\t")[1:])
	             for l in open(w).read().splitlines()]
	    counts = [dict((k, float(v)) for k, v in (f.split("=") for f in l.split("\t")[1:]))
	              for l in open(w[:-8] + ".counts").read().splitlines()
	              if l.startswith("window\t")]
	    for n, c in zip(names, counts):
	        t[(n["case"], float(n["pages"]))] = predict(c)
	oc, of = odd.split("=") if odd else ("", 1)
	for line in open(recs):
	    r = json.loads(line)
	    k = (r["case"], float(r["params"].get("pages", 0)))
	    if k in t:
	        v = t[k] / (1e6 if r["metric"] == "ms_per_pass" else 1) * factor
	        v *= float(of) if r["case"] == oc else 1
	        r["samples"] = [v] * len(r["samples"])
	        print(json.dumps(r))
	PY
}

# costs near this machine's, other than any table's: each kernel stays bound by its side
COSTS="insn=0.1,load=0.05,store=0.08,rep_byte=0.01,rep_start=11,l1_load_miss=2.5,l1_store_miss=1.2,llc_load=7,llc_store=6,writeback=1.5,nt_line=3.5,fence=120,nt_reread=450"
counts() {
	for c in "$RES"/*.counts; do printf -- "--counts %s\n" "${c%.counts}"; done
}

test_expect_success 'the fit gives back the costs, on 13 degrees of freedom; each kernel held out exact; the spread of a run 10% slower' '
	synth "$COSTS" >times.jsonl && synth "$COSTS" "$RES/records-2.jsonl" 1.1 >times2.jsonl &&
	[ "$(grep -c "\"cost/" times.jsonl)" = 26 ] &&
	"$FIT" --times times.jsonl --check-times times2.jsonl $(counts) --table table.jsonl \
		--check check.jsonl >fit.txt &&
	cat fit.txt &&
	grep -q "chi^2 0.0 on 13 degrees of freedom" fit.txt &&
	grep -q "model error, the kernels held out (RMS): 0.0%; run-to-run spread: 7.1% (26 kernels" fit.txt &&
	! grep "held out  *[+-][0-9.]*%" fit.txt | grep -v "held out  *[+-]0.0%" &&
	grep -q "^  template-copy/fc-inline-64 .* in sample: cost/nt-mem.s priced mix" fit.txt &&
	grep -q "^  template-copy/tmpl-memcpy-64 .* out of sample" fit.txt &&
	python3 -c "
import json, math, sys
want = dict(kv.split(\"=\") for kv in sys.argv[1].split(\",\"))
tab = [json.loads(l) for l in open(\"table.jsonl\")]
got = {r[\"case\"][5:]: r[\"samples\"][0] for r in tab}
assert set(got) == set(want), (sorted(got), sorted(want))
bad = [k for k in want if abs(got[k] - float(want[k])) > 1e-4 * float(want[k])]
assert not bad, [(k, got[k], want[k]) for k in bad]
assert all(r[\"suite\"] == \"cost-table\" and len(r[\"params\"][\"cov\"]) == 13 and r[\"cpu\"][\"vendor\"] for r in tab)
assert all(r[\"params\"][\"dof\"] == 13 and r[\"params\"][\"model_error_rel\"] < 1e-4 for r in tab)
serial = {\"fence\", \"nt_reread\", \"rep_byte\", \"rep_start\"}
core = {\"insn\", \"load\", \"store\"}
assert all(r[\"params\"][\"side\"] == (\"serial\" if r[\"case\"][5:] in serial else
           \"core\" if r[\"case\"][5:] in core else \"memory\") for r in tab), tab
assert all(abs(r[\"params\"][\"run_spread_rel\"] - 0.1 / math.sqrt(2)) < 1e-9 for r in tab)
chk = [json.loads(l) for l in open(\"check.jsonl\")]
assert chk and all(r[\"params\"][\"run\"] == \"another\" for r in chk)
# the check run is 10% slower than the table: every pass -1/11
bad = [r for r in chk if abs(r[\"samples\"][0] - 100 * (1 / 1.1 - 1)) > 1e-2]
assert not bad, bad[0]
ins = [r for r in chk if r[\"params\"][\"sample\"] == \"in\"]
assert ins and all(r[\"params\"][\"same_mix_as\"].startswith(\"cost/\") for r in ins)
" "$COSTS" &&
	# one kernel 20% off the additive model: the model error is the RMS of
	# the held-out errors fit.txt prints, kernel by kernel
	python3 -c "
import json
for l in open(\"times.jsonl\"):
    r = json.loads(l)
    if r[\"case\"] == \"cost/store-mem\":
        r[\"samples\"] = [s * 1.2 for s in r[\"samples\"]]
    print(json.dumps(r))
" >off.jsonl &&
	"$FIT" --times off.jsonl --check-times times2.jsonl $(counts) --table off-table.jsonl \
		--max-held-out-pct 1000 >off.txt &&
	python3 -c "
import json, math, re
held = [float(m) for m in re.findall(r\"held out +([+-][0-9.]+)%\", open(\"off.txt\").read())]
assert len(held) == 26 and max(map(abs, held)) > 1, held
rms = math.sqrt(sum(h * h for h in held) / len(held)) / 100
got = json.loads(open(\"off-table.jsonl\").readline())[\"params\"][\"model_error_rel\"]
assert abs(got - rms) < 5e-4, (got, rms)
"
'

test_expect_success 'one kernel 60% off what the others say: the table does not fit, said, no table' '
	synth "$COSTS" "" 1 cost/load-llc-4m=1.6 >times.jsonl &&
	expect_fail "$FIT" --times times.jsonl $(counts) --table t.jsonl --check c.jsonl &&
	cat out && grep -q "the table does not fit: [0-9]* kernels held out miss by more than 25%" out &&
	grep_err "the table does not fit this CPU: [0-9]* kernels held out miss by more than 25%" &&
	[ ! -e t.jsonl ] && [ ! -e c.jsonl ] &&
	"$FIT" --times times.jsonl $(counts) --max-held-out-pct 1000 --table t.jsonl >fit.txt && [ -s t.jsonl ]
'

test_expect_success 'one kernel a class (13, as the set of 2026-12-02 had): nothing to hold out, no table' '
	grep -E "\"case\": *\"cost/(alu|load-l1|store-l1|load-llc|store-llc|load-mem|store-mem|rmw-mem|nt-mem|fence|reread|rep-l1|rep-short)\"" \
		"$RES/records.jsonl" >one.jsonl && [ "$(grep -c . one.jsonl)" = 13 ] &&
	expect_fail "$FIT" --times one.jsonl $(counts) --table t.jsonl &&
	grep -q "chi^2 0.0 on 0 degrees of freedom .none left: the fit cannot be seen to fail." out &&
	grep_err "no kernel can be held out .every class has one kernel.: no table written" && [ ! -e t.jsonl ]
'

test_expect_success 'a kernel not bound by the side it prices: no table, and why' '
	# instructions 10 times dearer: the streaming kernels are bound by them
	synth "$(echo "$COSTS" | sed "s/insn=0.1,/insn=1,/")" >times.jsonl &&
	expect_fail "$FIT" --times times.jsonl $(counts) --table t.jsonl &&
	grep "cost/nt-mem .*its side is not 1.5 times the other" out &&
	grep_err "kernels are not bound by the side they price .above.: the table would be wrong on this CPU; no table written" &&
	[ ! -e t.jsonl ]
'

test_expect_success 'bad inputs: a clear error, and no table written' '
	synth "$COSTS" | grep "\"case\": \"cost/" >times.jsonl &&
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
	grep "cost/alu\"" times.jsonl >one.jsonl &&
	expect_fail "$FIT" --times one.jsonl --counts w --table t.jsonl &&
	grep_err "the fit needs at least 13" && [ ! -e t.jsonl ] &&
	head -n 1 times.jsonl | sed "s/\"time\": *\"[^\"]*\"/\"time\": \"2000-01-01T00:00:00Z\"/" >>times.jsonl &&
	expect_fail "$FIT" --times times.jsonl --counts w --table t.jsonl &&
	grep_err "measured twice: give one run.s records" && [ ! -e t.jsonl ] &&
	sed "/\"case\": *\"cost\/rep-short\"/ s/\"bound\": *\"serial\"/\"bound\": \"core\"/" \
		"$RES/records.jsonl" >core-rep.jsonl && ! cmp -s core-rep.jsonl "$RES/records.jsonl" &&
	expect_fail "$FIT" --times core-rep.jsonl $(counts) --table t.jsonl &&
	grep_err "core-rep.jsonl:[0-9]*: cost/rep-short makes REP copies and is bound by the core side: records of a copy-bench from before REP was priced as serial .2026-12-06.: run .make costs. again" &&
	[ ! -e t.jsonl ]
'

# rounds IN FACTOR...: IN's records once per factor, params.round 1, 2, ...,
# each round's samples times its factor
rounds() {
	python3 - "$@" <<-'PY'
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	for n, f in enumerate(sys.argv[2:], 1):
	    for r in recs:
	        q = json.loads(json.dumps(r))
	        q["params"]["round"] = n
	        q["samples"] = [x * float(f) for x in q["samples"]]
	        print(json.dumps(q))
	PY
}

test_expect_success 'a run of rounds: fitted on the odd ones, checked on the even ones, its spread between rounds' '
	synth "$COSTS" >one.jsonl && rounds one.jsonl 1 1.1 1 1.1 >r.jsonl &&
	"$FIT" --times r.jsonl $(counts) --table table.jsonl --check check.jsonl >fit.txt &&
	cat fit.txt &&
	grep -q "from 26 kernels of the 2 odd rounds of r.jsonl" fit.txt &&
	grep -q "chi^2 0.0 on 13 degrees of freedom" fit.txt &&
	grep -q "run-to-run spread: 4.8% (one round.s figure: RMS over the 4 rounds of 26 kernels)" fit.txt &&
	grep -q "^check: .* on the 2 even rounds" fit.txt &&
	grep -q "^  template-copy/tmpl-memcpy-64 .* -9.1%     4.8%  out of sample" fit.txt &&
	python3 -c "
import json, sys
want = dict(kv.split(\"=\") for kv in sys.argv[1].split(\",\"))
tab = [json.loads(l) for l in open(\"table.jsonl\")]
got = {r[\"case\"][5:]: r[\"samples\"][0] for r in tab}
bad = [k for k in want if abs(got[k] - float(want[k])) > 1e-4 * float(want[k])]
assert not bad, [(k, got[k], want[k]) for k in bad]
assert all(r[\"params\"][\"rounds\"] == 4 and \"check_times\" not in r[\"params\"] for r in tab)
assert all(abs(r[\"params\"][\"run_spread_rel\"] - 0.05 / 1.05) < 1e-9 for r in tab)
chk = [json.loads(l) for l in open(\"check.jsonl\")]
assert chk and all(r[\"params\"][\"run\"] == \"another\" for r in chk)
assert all(abs(r[\"samples\"][0] - 100 * (1 / 1.1 - 1)) < 1e-2 for r in chk)
assert all(abs(r[\"params\"][\"rounds_spread_rel\"] - 0.05 / 1.05) < 1e-9 for r in chk)
" "$COSTS"
'

test_expect_success 'a run of rounds with a round missing or twice, of one round, or with a second run: refused, no table' '
	synth "$COSTS" >one.jsonl && rounds one.jsonl 1 1 1 1 >r.jsonl &&
	awk "!(/\"cost\/fence\"/ && /\"round\": 3/)" r.jsonl >miss.jsonl &&
	[ "$(grep -c . miss.jsonl)" = "$(($(grep -c . r.jsonl) - 1))" ] &&
	expect_fail "$FIT" --times miss.jsonl $(counts) --table t.jsonl &&
	grep_err "times: miss.jsonl: cost/fence .pages 0. has 3 of the 4 rounds: a record is missing" &&
	[ ! -e t.jsonl ] &&
	grep "\"cost/fence\"" r.jsonl | grep "\"round\": 2" |
		sed "s/\"time\": *\"[^\"]*\"/\"time\": \"2000-01-01T00:00:00Z\"/" >>miss.jsonl &&
	expect_fail "$FIT" --times miss.jsonl $(counts) --table t.jsonl &&
	grep_err "cost/fence measured twice in round 2" && [ ! -e t.jsonl ] &&
	rounds one.jsonl 1 >r1.jsonl &&
	expect_fail "$FIT" --times r1.jsonl $(counts) --table t.jsonl &&
	grep_err "times: r1.jsonl has one round: the fit and its check need two at least" &&
	[ ! -e t.jsonl ] &&
	expect_fail "$FIT" --times r.jsonl --check-times one.jsonl $(counts) --table t.jsonl &&
	grep_err "times: r.jsonl has rounds .params.round. and one.jsonl is another run" &&
	expect_fail "$FIT" --times one.jsonl --check-times r.jsonl $(counts) --table t.jsonl &&
	grep_err "times: r.jsonl has rounds .params.round. and one.jsonl is another run" &&
	sed "s/\"round\": 2/\"round\": 2.5/" r.jsonl >frac.jsonl &&
	expect_fail "$FIT" --times frac.jsonl $(counts) --table t.jsonl &&
	grep_err "params.round 2.5 is not a round from 1 to 999" && [ ! -e t.jsonl ]
'

test_expect_success '--owed: timings that pay the owed write-backs fit exactly with it, not without; no table with it; counts without owed_writebacks refused' '
	NEW=$TOP/results/2026-12-07-costs-amd-epyc-flushed/run-2 &&
	( RES=$NEW && export OWED=1 && synth "$COSTS" "$NEW/records.jsonl" ) >owed.jsonl &&
	[ "$(grep -c "\"cost/" owed.jsonl)" = 260 ] &&
	( RES=$NEW && "$FIT" --times owed.jsonl $(counts) --owed ) >with.txt &&
	grep -q "chi^2 0.0 on 13 degrees of freedom" with.txt &&
	grep -q "held out (RMS): 0.0%" with.txt &&
	{ rc=0; ( RES=$NEW && "$FIT" --times owed.jsonl $(counts) ) >without.txt 2>err || rc=$?; } &&
	grep -q "held out (RMS)" without.txt && ! grep -q "held out (RMS): 0.0%" without.txt &&
	{ rc=0; ( RES=$NEW && "$FIT" --times owed.jsonl $(counts) --owed --table t.jsonl ) \
		>/dev/null 2>err || rc=$?; } &&
	[ "$rc" = 2 ] && grep -q "owed is an experiment" err && [ ! -e t.jsonl ] &&
	synth "$COSTS" >times.jsonl &&
	expect_fail "$FIT" --times times.jsonl $(counts) --owed &&
	grep_err "has no owed_writebacks .counted before the plugin had it: count again."
'

done_testing
