#!/bin/sh
# ci-report on records of bench-vm's cache model (run.sh --model cache):
# base and head of the series, 2 GiB NVDIMMs, 2 rebinds, the plugin's top
# 5 functions per bind (tests/fixtures/ci/model-*.jsonl, cut from a real
# run of both kernels).  Every line that shows a model figure carries the
# model's label; "where the work goes" names the functions whose counts
# changed most against the parent, largest first, "-" (never 0) where a
# function is below a bind's top; each claim has the model's change beside
# it; the gate leaves the model out unless --gate-only names a model
# metric, and then decides it by the exact rule; the strict reader refuses
# a model record without its label and functions that do not match the
# samples.  And every function of the distro model set's 7 commits (3
# rebinds, top 20) computed again from the records by
# tests/fixtures/ci/functions-reference.py, nulls included.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
FX=$TOP/tests/fixtures/ci
need tool:ci-report
BASE=e9b351700f1fb9ee55c5a86ce98422658526b81c
HEAD=f8a265032be19b2101727461d3c8e058a7e3e855
LABEL="model: write-allocate, streaming stores bypass; not hardware time"

# report [OPTION...]: base and head, with the series of patches/
report() {
	printf '%s\tbase\n%s\tx86/lib: Use REP MOVSB for large memcpy() on ERMS CPUs without FSRM\n' \
		$BASE $HEAD >commits.txt &&
	"$REPORT" --commits commits.txt --series "$TOP/patches/series" --markdown r.md \
		--json r.json "$@" "$FX/model-base.jsonl" "$FX/model-head.jsonl" >r.txt
}

test_expect_success 'every line with a model figure carries its label' '
	report && cat r.txt &&
	grep "est_cycles\|insns\|nt_stores\|llc_store_misses" r.txt | grep "bench-vm\." >model-lines &&
	[ "$(wc -l <model-lines)" -ge 8 ] &&
	! grep -v "cache model L1d 48 KiB, LLC 16 MiB ($LABEL)" model-lines &&
	grep "bench-vm\..*memmap_init_ms" r.txt | grep -v "cache model" | grep -q . &&
	grep -q "They are a model, exact on every boot, not hardware time" r.txt &&
	grep -q "^### bench-vm.nd_pmem/rebind.est_cycles (cycles) \[.*($LABEL)\]$" r.md
'

test_expect_success 'where the work goes: the functions that changed most, largest first; - where below the top' '
	report &&
	sed -n "/^Where the work goes: f8a265032be1 /,/^\$/p" r.txt >w.txt && cat w.txt &&
	grep -q "^  \[.*$LABEL)\]$" w.txt &&
	grep -q "^  nd_pmem/rebind: est_cycles 87824767 -> 32636610 (-62.8%)$" w.txt &&
	sed -n "/^  nd_pmem\/rebind/,/^  dax_pmem/p" w.txt | sed -n "3p" |
		grep -q "^      __init_single_page  *71584266 -> 1079172  *-70505094  *-7218162  *-4640250  *+0  *-515583$" &&
	sed -n "/^  nd_pmem\/rebind/,/^  dax_pmem/p" w.txt | sed -n "4p" |
		grep -q "^      memmap_init_zone_device  *9807608 -> 30432341  *+20624733  *+7734838  *-1031131  *+4124664  *-1$" &&
	grep -q "^      __init_zone_device_page  *5156465 -> -  *- " w.txt &&
	! grep "^      " w.txt | grep -q " 0 " &&
	grep -q "^## Where the work goes (model)$" r.md &&
	grep -q "^| .__init_single_page. | 71584266 | 1079172 | -70505094 |" r.md &&
	python3 - <<-\PY
	import json
	r = json.load(open("r.json"))
	d = {e["case"]: e for e in r["functions"]}
	assert sorted(d) == ["dax_pmem/rebind", "nd_pmem/rebind"], sorted(d)
	f = d["nd_pmem/rebind"]["functions"]
	keys = [abs((x["commit"]["est_cycles"] or 0) - (x["parent"]["est_cycles"] or 0)) for x in f]
	assert keys == sorted(keys, reverse=True), keys
	z = [x for x in f if x["name"] == "__init_zone_device_page"][0]
	assert z["commit"]["est_cycles"] is None and z["parent"]["est_cycles"] == 5156465, z
	assert d["nd_pmem/rebind"]["top"] == 5
	PY
	# a second record of the head without functions (a run that kept
	# none): its binds know no function, so the head side is "-", no crash
	grep "\"metric\":\"est_cycles\"" "$FX/model-head.jsonl" |
		python3 -c "import json, sys
for l in sys.stdin:
    r = json.loads(l); del r[\"functions\"]; r[\"time\"] = \"2026-12-02T01:00:00Z\"; print(json.dumps(r))" >nofn.jsonl &&
	"$REPORT" --commits commits.txt "$FX/model-base.jsonl" "$FX/model-head.jsonl" nofn.jsonl >n.txt &&
	grep -q "^      __init_single_page  *71584266 -> -  *- " n.txt &&
	! sed -n "/^Where the work goes/,/^\$/p" n.txt | grep "^      [a-z_]" | grep -v "^      function  " |
		grep -v " -> -  " | grep -q .
'

test_expect_success 'each claim has the model beside it: the same cases and commits in est_cycles' '
	report &&
	grep -A1 "^  series-icount/nd_pmem  *claimed " r.txt | tail -n 1 |
		grep -q "^  *the model: est_cycles 87824767 -> 32636610 (-62.8%; $LABEL)$" &&
	grep -q "^| series-icount/dax_pmem | .* | est_cycles 90039696 -> 28599102 (-68.2%; $LABEL) |$" r.md &&
	python3 - <<-\PY
	import json
	c = {x["id"]: x for x in json.load(open("r.json"))["claims"]}
	assert abs(c["series-icount/nd_pmem"]["model_pct"] - (32636610 / 87824767.5 - 1) * 100) < 1e-6
	# a claim of no bench-vm figure has no model beside it
	assert all(x["model"] is None for x in c.values() if x["reproduced_from"] is None)
	PY
'

test_expect_success 'the gate leaves the model out unless --gate-only names it; then the exact rule decides' '
	# base and head swapped: every count gets worse, est_cycles by 169.1%
	printf "%s\tbase\n%s\thead\n" $BASE $HEAD >commits.txt &&
	sed "s/$BASE/$HEAD/" "$FX/model-base.jsonl" >h.jsonl &&
	sed "s/$HEAD/$BASE/" "$FX/model-head.jsonl" >b.jsonl &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 1 --markdown r.md \
		b.jsonl h.jsonl &&
	grep_err "gate: .*bench-vm.nd_pmem/rebind.memmap_init_ms .* worse than in the parent" &&
	! grep -q "est_cycles\|insns\|nt_stores\|llc_store" err &&
	grep -q "a model.s counts (bench-vm --model, not hardware time): only where --gate-only names them, by the rule of their clock" r.md &&
	! sed -n "/^Regression gate:/,\$p" out | grep -q "est_cycles" &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 1 \
		--gate-only "bench-vm/*/est_cycles" b.jsonl h.jsonl &&
	grep_err "gate: .*bench-vm.nd_pmem/rebind.est_cycles \[.*$LABEL\)\] is 169.1% worse than in the parent .*exact rule" &&
	[ "$(grep -c "gate: .* worse than in the parent" err)" = 2 ] &&
	sed -n "/^Regression gate:/,\$p" out | grep -q "bench-vm.dax_pmem/rebind.est_cycles .*: +214.8% vs parent: exact rule"
'

test_expect_success 'the reader refuses a model record without its label, and functions that do not match the samples' '
	grep "\"metric\":\"est_cycles\"" "$FX/model-base.jsonl" | head -n 1 >est.jsonl &&
	sed "s/,\"model_label\":\"[^\"]*\"//" est.jsonl >nolabel.jsonl &&
	expect_fail "$REPORT" nolabel.jsonl &&
	grep_err "nolabel.jsonl:1: model .cache. without its model_label" &&
	python3 -c "
import json
r = json.loads(open(\"est.jsonl\").read())
r[\"functions\"] = r[\"functions\"][:1]
open(\"short.jsonl\", \"w\").write(json.dumps(r) + \"\n\")
r = json.loads(open(\"est.jsonl\").read())
r[\"functions\"][0][0][\"insns\"] = \"many\"
open(\"str.jsonl\", \"w\").write(json.dumps(r) + \"\n\")
r = json.loads(open(\"est.jsonl\").read())
del r[\"model\"], r[\"model_label\"]
open(\"nomodel.jsonl\", \"w\").write(json.dumps(r) + \"\n\")
" &&
	expect_fail "$REPORT" short.jsonl &&
	grep_err "short.jsonl:1: field .functions. is not an array of one list per sample \(2\)" &&
	expect_fail "$REPORT" str.jsonl &&
	grep_err "str.jsonl:1: field .functions\[0\]\[0\].insns. is string, not a number" &&
	expect_fail "$REPORT" nomodel.jsonl &&
	grep_err "nomodel.jsonl:1: field .functions. in a record of no model"
'
test_expect_success 'every function of a whole series equal to one computed from the records' '
	SET=$TOP/results/2026-12-05-series-v3-distro/model-8G &&
	"$REPORT" --commits "$SET/commits.txt" --series "$TOP/patches/series" --json f.json "$SET"/*.jsonl >f.txt &&
	python3 "$FX/functions-reference.py" "$SET" f.json >ref.out && cat ref.out &&
	grep -q "^[1-9][0-9]* functions equal, [1-9][0-9]* counts null" ref.out
'

done_testing
