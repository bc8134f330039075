#!/bin/sh
# ci-report --costs: the cache model's binds of the series
# (results/2026-12-02-series-v2-model-8G) priced by this machine's cost
# table (results/2026-12-02-costs-amd-epyc): the label on every line that
# shows a prediction, in text, Markdown and JSON, and beside the claims;
# a table whose one class costs more changes exactly the predictions of
# the binds whose larger side counts that class (a class no bind counts:
# none); records of a plugin before nt_rereads and rep_starts get no
# prediction, and say why; a table without a class is refused.  That
# table has no model error or run-to-run spread (fitted before cost-fit
# measured them): its label says the interval is the fit's alone; with
# the two terms the interval widens by them, and the heading names them.
# A table's records name each class's side (params.side, cost-fit since
# REP is serial); a table that names none is read with REP on the core
# side, as it was fitted; one that names it in part, or names no side, is
# refused.  And every prediction computed again from the records and a
# table built to make each term count (serial classes of a tenth of a
# bind, nt_rereads in a top function, correlated costs, both error
# terms) by tests/fixtures/ci/predict-reference.py, from the rules of
# lib/costs.h, not from ci-report's code.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
SET=$TOP/results/2026-12-02-series-v2-model-8G
TABLE=$TOP/results/2026-12-02-costs-amd-epyc/cost-table.jsonl
need tool:ci-report
LABEL="predicted from the cost table of AMD EPYC on vm, fit [0-9T:Z-]* [(]AMD EPYC family 25 model 1[)], not measured; [+]- the fit's alone"

# report TABLE...: the set's report as r.txt, r.md, r.json
report() {
	args=
	for t; do args="$args --costs $t"; done
	# shellcheck disable=SC2086 # one option per table, no blanks in the paths
	"$REPORT" --commits "$SET/commits.txt" --series "$TOP/patches/series" --markdown r.md \
		--json r.json $args "$SET"/*.jsonl >r.txt
}

# scale CLASS FACTOR: the table with one class's cost times FACTOR
scale() {
	python3 -c "
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r[\"case\"] == \"cost/\" + sys.argv[2]:
        r[\"samples\"] = [r[\"samples\"][0] * float(sys.argv[3])]
    print(json.dumps(r))
" "$TABLE" "$1" "$2"
}

test_expect_success 'every line that shows a prediction carries the label' '
	report "$TABLE" &&
	sed -n "/^Predicted on AMD EPYC family 25 model 1:/,/^[A-Z]/p" r.txt >section &&
	grep " ms " section >lines && [ "$(wc -l <lines)" -ge 42 ] &&
	! grep -v "$LABEL" lines &&
	grep "^ *predicted: " r.txt >claims && [ "$(wc -l <claims)" -ge 2 ] &&
	! grep -v "$LABEL" claims &&
	grep "^| [0-9a-f]\{12\} | .*/rebind | [0-9.]* -> " r.md >mdrows && [ "$(wc -l <mdrows)" -ge 21 ] &&
	! grep -v "$LABEL |$" mdrows &&
	python3 -c "
import json, re
p = json.load(open(\"r.json\"))[\"predictions\"]
assert len(p) == 42, len(p)
assert all(re.fullmatch(\"$LABEL\", x[\"label\"]) and \"pct\" in x for x in p), p[0]
c = [x for x in json.load(open(\"r.json\"))[\"claims\"] if x[\"predicted\"]]
assert c and all(re.search(\"$LABEL\", x[\"predicted\"]) for x in c)
"
'

test_expect_success 'one class costs more: the commits that count it move, no other' '
	report "$TABLE" && cp r.json a.json &&
	scale nt_line 2 >nt2.jsonl && report nt2.jsonl && cp r.json b.json &&
	scale nt_reread 2 >rr2.jsonl && report rr2.jsonl && cp r.json c.json &&
	python3 -c "
import json
def preds(f):
    return {(x[\"commit\"], x[\"case\"]): x for x in json.load(open(f))[\"predictions\"]}
a, b, c = preds(\"a.json\"), preds(\"b.json\"), preds(\"c.json\")
# the binds whose memory side is the larger and streams: patch 6 and 7
# (inline MOVNTI); patch 5 streams too, but its binds are bound by the
# core side (the out-of-line copy): the max of the sides leaves them
streams = {\"3c18334838a68017b677b22d56ba2f9d2b618318\", \"f8a265032be19b2101727461d3c8e058a7e3e855\"}
for k in a:
    moved = a[k][\"ms\"] != b[k][\"ms\"]
    assert moved == (k[0] in streams), (k, a[k][\"ms\"], b[k][\"ms\"])
    assert a[k] == c[k], k
"
'

test_expect_success 'records of a plugin before nt_rereads: no prediction, and why' '
	printf "%s\tbase\n%s\thead\n" e9b351700f1fb9ee55c5a86ce98422658526b81c \
		f8a265032be19b2101727461d3c8e058a7e3e855 >commits.txt &&
	"$REPORT" --commits commits.txt --costs "$TABLE" "$TOP/tests/fixtures/ci/model-base.jsonl" \
		"$TOP/tests/fixtures/ci/model-head.jsonl" >r.txt &&
	grep "f8a265032be1 nd_pmem/rebind *no prediction: .*nt_rereads, rep_starts: records of a plugin before them; rerun the model" r.txt &&
	! sed -n "/^Predicted on/,/^[A-Z]/p" r.txt | grep " ms "
'

test_expect_success 'a table without a class is refused, naming it' '
	grep -v "cost/nt_line" "$TABLE" >partial.jsonl &&
	expect_fail "$REPORT" --commits "$SET/commits.txt" --costs partial.jsonl "$SET"/*.jsonl &&
	grep_err "costs: .*partial.jsonl: table .AMD EPYC on vm, fit .* has no cost/nt_line" &&
	: >none.jsonl &&
	expect_fail "$REPORT" --commits "$SET/commits.txt" --costs none.jsonl "$SET"/*.jsonl &&
	grep_err "costs: none.jsonl: no record of suite cost-table" &&
	expect_fail "$REPORT" --commits "$SET/commits.txt" --costs "$TABLE" --costs "$SET" \
		"$SET"/*.jsonl &&
	grep_err "costs: .*2026-12-02-series-v2-model-8G: no record of suite cost-table"
'

# terms M R: the table with params.model_error_rel M and run_spread_rel R
terms() {
	python3 -c "
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    r[\"params\"][\"model_error_rel\"] = float(sys.argv[2])
    r[\"params\"][\"run_spread_rel\"] = float(sys.argv[3])
    print(json.dumps(r))
" "$TABLE" "$1" "$2"
}

test_expect_success 'a table with the model error and the run spread: no "fit alone", the interval holds both' '
	report "$TABLE" && cp r.json a.json && grep -q "The interval is the fit.s alone" r.txt &&
	terms 0.1 0.05 >t.jsonl && report t.jsonl && cp r.json b.json &&
	grep -q "The interval also holds the model.s error (kernels held out: 10.0% RMS)" r.txt &&
	grep -q "run-to-run spread (5.0%)" r.txt && ! grep -q "fit.s alone" r.txt r.md &&
	python3 -c "
import json, math
a = json.load(open(\"a.json\"))[\"predictions\"]
b = json.load(open(\"b.json\"))[\"predictions\"]
assert len(a) == len(b) == 42
n = 0
for x, y in zip(a, b):
    if \"pct\" not in x:
        continue
    f, t = x[\"parent_ms\"], x[\"ms\"]
    extra = 1.96 * 100 * math.sqrt(0.0125 * (f * f + t * t)) / f
    want = math.sqrt(x[\"pct_ci95\"] ** 2 + extra ** 2)
    assert abs(y[\"pct_ci95\"] - want) < 1e-6 + 1e-6 * want, (x, y, want)
    assert y[\"pct\"] == x[\"pct\"]
    n += 1
assert n >= 21, n
"
'

# sides MAP: the table with params.side of each class as MAP says
# (class=side,...; the others: their side before REP was serial)
sides() {
	python3 -c "
import json, sys
side = {\"insn\": \"core\", \"load\": \"core\", \"store\": \"core\", \"rep_byte\": \"core\",
        \"rep_start\": \"core\", \"fence\": \"serial\", \"nt_reread\": \"serial\"}
side.update(kv.split(\"=\") for kv in sys.argv[2].split(\",\") if kv)
for l in open(sys.argv[1]):
    r = json.loads(l)
    c = r[\"case\"][5:]
    if side.get(c, \"memory\") != \"-\":
        r[\"params\"][\"side\"] = side.get(c, \"memory\")
    print(json.dumps(r))
" "$TABLE" "$1"
}

test_expect_success 'params.side: the old sides named change nothing; REP serial raises exactly the binds that REP; a part or a bad side refused' '
	report "$TABLE" && cp r.json a.json &&
	sides "" >v1.jsonl && report v1.jsonl && cp r.json b.json &&
	sides rep_byte=serial,rep_start=serial >rs.jsonl && report rs.jsonl && cp r.json c.json &&
	python3 -c "
import json
def preds(f):
    return {(x[\"commit\"], x[\"case\"]): x for x in json.load(open(f))[\"predictions\"]}
a, b, c = preds(\"a.json\"), preds(\"b.json\"), preds(\"c.json\")
assert a == b
# max(core - rep, memory) + rep is never below max(core, memory)
assert all(c[k][\"ms\"] >= a[k][\"ms\"] * (1 - 1e-9) for k in a), k
# the -Os binds that copy each struct page from a template with a REP
# MOVSL (2/7: nd_pmem; 3/7 and 4/7: both) rise, by 17-25%; no other by 1%
up = {(k[0][:12], k[1].split(\"/\")[0]) for k in a if c[k][\"ms\"] > a[k][\"ms\"] * 1.01}
want = {(\"e256ccee59ed\", \"nd_pmem\")} | {(x, y) for x in (\"2eab674c85ce\", \"69b8e55a6e1d\")
        for y in (\"nd_pmem\", \"dax_pmem\", \"dax_pmem_mem\")}
assert up == want, sorted(up)
" &&
	sides rep_start=- >part.jsonl &&
	expect_fail "$REPORT" --commits "$SET/commits.txt" --costs part.jsonl "$SET"/*.jsonl &&
	grep_err "costs: .*part.jsonl: table .AMD EPYC on vm, fit .* names params.side in 12 of its 13 records" &&
	sides insn=ports >bad.jsonl &&
	expect_fail "$REPORT" --commits "$SET/commits.txt" --costs bad.jsonl "$SET"/*.jsonl &&
	grep_err "bad.jsonl:1: params.side .ports. is not core, memory or serial"
'

# reference_inputs: ./set, the distro model set with 1000 nt_rereads and
# 1000 MFENCEs a bind in 6/7's nd_pmem top functions and window (no
# record of the series has either), and ./table.jsonl: a
# table whose fence and nt_reread cost enough to matter, whose costs
# correlate (0.3), with a model error and a run spread
DISTRO=$TOP/results/2026-12-05-series-v3-distro/model-8G
reference_inputs() {
	cp -r "$DISTRO" set && python3 - "$TABLE" set <<-\EOP
	import json, sys
	cost = {"insn": 0.1, "load": 0.05, "store": 0.08, "rep_byte": 0.02, "rep_start": 5.0,
	        "l1_load_miss": 1.0, "l1_store_miss": 1.5, "llc_load": 10.0, "llc_store": 12.0,
	        "writeback": 5.0, "nt_line": 3.0, "fence": 2000.0, "nt_reread": 500.0}
	side = {"insn": "core", "load": "core", "store": "core", "rep_byte": "serial",
	        "rep_start": "serial", "fence": "serial", "nt_reread": "serial"}
	recs = [json.loads(l) for l in open(sys.argv[1])]
	names = [r["case"][5:] for r in recs]
	sd = {n: cost[n] * 0.05 for n in names}
	with open("table.jsonl", "w") as out:
	    for r in recs:
	        n = r["case"][5:]
	        r["samples"] = [cost[n]]
	        r["params"].update(sd=sd[n], side=side.get(n, "memory"), model_error_rel=0.05,
	                           run_spread_rel=0.07, table="reference CPU on test, fit 2026-12-06T00:00:00Z",
	                           cov=[sd[n] * sd[m] * (1.0 if m == n else 0.3) for m in names])
	        out.write(json.dumps(r) + "\n")
	f = sys.argv[2] + "/8aa5b4df2b7ac0d7824c8d7b75a2046ab4b8bfcf.jsonl"
	recs = [json.loads(l) for l in open(f)]
	for r in recs:
	    if r["case"] == "nd_pmem/rebind" and r.get("model") and r["metric"] in ("nt_rereads", "mfences"):
	        r["samples"] = [s + 1000 for s in r["samples"]]
	    if r["case"] == "nd_pmem/rebind" and r.get("model") and r["metric"] == "est_cycles":
	        for fns in r["functions"]:
	            fns[0]["nt_rereads"] += 1000
	            fns[1]["mfences"] += 1000
	open(f, "w").write("".join(json.dumps(r) + "\n" for r in recs))
	EOP
}

test_expect_success 'every prediction equal to one computed from the records and the rules of lib/costs.h' '
	reference_inputs &&
	"$REPORT" --commits set/commits.txt --series "$TOP/patches/series" --json r.json \
		--costs table.jsonl set/*.jsonl >r.txt &&
	python3 "$TOP/tests/fixtures/ci/predict-reference.py" set table.jsonl r.json >ref.out && cat ref.out &&
	grep -q "^42 predictions equal; the serial side up to [1-9][0-9.]*% of a bind; covariance off the diagonal [1-9]" ref.out
'

done_testing
