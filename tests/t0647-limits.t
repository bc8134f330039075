#!/bin/sh
# The limits beside each bind claim (report/limits.c): the work a bind
# does, the rates its claimed and reproduced times imply, their fractions
# of a CPU's measured ceilings (make costs' records) and of the published
# Optane ones, the timer's quantum.  Every number is computed here again
# from the records themselves (the pages metric, params.ns_size,
# build.hz, the ceilings' samples) and from lib/claims.def's WORK lines,
# never from what ci-report wrote; bad ceilings are refused.  The host
# claims (claims.def's PASS lines) the same way by the bytes of a pass
# (the records' params), against the streaming stores of the same run and
# against ceilings only of the records' own CPU; every other claim says
# why no limit applies.
# test-parallel: its scratch directories only
. "$(dirname "$0")/lib.sh"
SET=$TOP/results/2026-12-05-series-v3-distro/vm-icount-100G
CEIL=$TOP/results/2026-12-06-costs-amd-epyc-rounds/records.jsonl
need tool:ci-report

# report [OPTION...]: ci-report of the distro set into r.json and r.txt
report() {
	ln -sfn "$TOP/patches" patches &&
	{ "$BIN/ci-report" --commits "$SET/commits.txt" --json r.json "$@" "$SET"/*.jsonl >r.txt 2>err || [ $? = 1 ]; }
}

test_expect_success 'every bind claim: its work, rates, fractions and quantum, from the records' '
	report --ceilings "$CEIL" &&
	python3 - "$SET" "$CEIL" "$TOP/lib/claims.def" r.json <<-\EOP &&
	import json, re, statistics, sys
	set_dir, ceil, cdef, rj = sys.argv[1:]
	works = {m[0]: (float(m[1]) if m[1] != "GIB100" else 100 * 2**30, m[2], m[3] == "1")
	         for m in re.findall(r"^WORK\(\x22([^\x22]+)\x22, (\w+), \x22(\w+)\x22, ([01])\)", open(cdef).read(), re.M)}
	assert len(works) == 13, works
	cs = [json.loads(l) for l in open(ceil)]
	nt = statistics.median([x for r in cs if r["case"] == "nt-store-bandwidth/movnti/64" for x in r["samples"]])
	wa_recs = [r for r in cs if r["case"] == "cost/store-mem"]
	wa = wa_recs[0]["params"]["buffer_bytes"] / statistics.median([x for r in wa_recs for x in r["samples"]])
	claims = json.load(open(rj))["claims"]
	passes = re.findall(r"^PASS\(\x22([^\x22]+)\x22", open(cdef).read(), re.M)
	assert len(passes) == 8 and not set(passes) & set(works), passes
	assert sorted(c["id"] for c in claims if c["limits"]) == sorted(list(works) + passes), "limits of the WORK and PASS claims only"
	close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)
	for c in claims:
	    l = c["limits"]
	    if not l or c["id"] in passes:
	        continue
	    ns, mp, hw = works[c["id"]]
	    recs = [json.loads(x) for x in open("%s/%s.jsonl" % (set_dir, c["to"]["commit"]))]
	    pages = [r for r in recs if r["case"] == c["to"]["case"] and r["metric"] == "pages"]
	    timed = [r for r in recs if r["case"] == c["to"]["case"] and r["metric"] == "memmap_init_ms"][0]
	    p = statistics.median([x for r in pages for x in r["samples"]])
	    assert l["reproduced_struct_pages"] == p and l["reproduced_struct_pages_from"] == "the records\u0027 count", (c["id"], l)
	    assert timed["params"]["ns_size"] == ns and l["claimed_struct_pages"] == p, (c["id"], l)
	    assert close(l["reproduced_gbs_to"], p * 64 / (c["reproduced_to"] * 1e6)), (c["id"], l)
	    assert close(l["claimed_gbs_to"], p * 64 / (c["claimed_to"] * 1e6)), (c["id"], l)
	    assert close(l["claimed_gbs_from"], p * 64 / (c["claimed_from"] * 1e6)), (c["id"], l)
	    assert l["hz"] == timed["build"]["hz"] and l["quantum_ms"] == 1000 / timed["build"]["hz"]
	    assert l["map"] == mp and l["claimed_on_hardware"] == hw
	    fr = l["claimed_to_fraction_of"]
	    if not hw:
	        assert fr == {}, (c["id"], fr)
	        continue
	    assert close(fr["streaming"], l["claimed_gbs_to"] / nt) and close(fr["write_allocate"], l["claimed_gbs_to"] / wa), (c["id"], fr, nt, wa)
	    assert fr["published"] == ({"1 Optane DIMM": l["claimed_gbs_to"] / 2.3,
	                                "6 Optane DIMMs interleaved": l["claimed_gbs_to"] / 13.9} if mp == "dev" else {}), fr
	EOP
	tr "\n" " " <r.txt | tr -s " " >flat &&
	grep -q "Measured ceilings (make costs. records of Oxide Virtual Turin-like Processor family 26 model 2, .*records.jsonl): streaming stores 22.45 GB/s" flat &&
	grep -q "series/nd_pmem (memmap in the namespace, map=dev): claimed 25804288 struct pages x 64 B = 1.65 GB a bind (the records. count), 6.76 GB/s -> 17.06 GB/s; 76% of the measured streaming-store ceiling, 85% of the write-allocate one; 742% of 1 Optane DIMM; 123% of 6 Optane DIMMs interleaved" flat &&
	grep -q "series-icount/dax_pmem_mem (memmap in DRAM, map=mem): claimed 26214400 struct pages .* (an emulator.s clock: no hardware limit bounds it)" flat &&
	grep -q "the timer.s quantum 1000/HZ = 1.00 ms (HZ 1000, the records. build), 0.20% of 495.00 ms" flat
'

test_expect_success 'no ceilings given: said so, no fraction of them; the published ones stay' '
	report &&
	tr "\n" " " <r.txt | tr -s " " >flat &&
	grep -q "No measured ceilings: no make costs records were given" flat &&
	! grep -q "measured streaming-store ceiling" flat &&
	grep -q "742% of 1 Optane DIMM" flat &&
	python3 -c "import json; l = [c[\"limits\"] for c in json.load(open(\"r.json\"))[\"claims\"] if c[\"id\"] == \"series/nd_pmem\"][0]; f = l[\"claimed_to_fraction_of\"]; assert f[\"streaming\"] is None and f[\"write_allocate\"] is None, f"
'

test_expect_success 'records of another size: each side its own work, no records: the namespace' '
	ln -sfn "$TOP/patches" patches && sh "$TOP/tests/fixtures/ci/series.sh" fx &&
	"$BIN/ci-report" --commits fx/commits.txt --json r.json fx/bench-vm.jsonl >r.txt 2>err || [ $? = 1 ] &&
	python3 -c "
import json
l = [c[\"limits\"] for c in json.load(open(\"r.json\"))[\"claims\"] if c[\"id\"] == \"series/nd_pmem\"][0]
assert l[\"claimed_struct_pages\"] == 100 * 2**30 / 4096 and l[\"claimed_struct_pages_from\"] == \"the namespace / 4 KiB\", l
assert l[\"reproduced_struct_pages\"] == 4 * 2**30 / 4096 and l[\"reproduced_struct_pages_from\"] == \"the records\u0027 namespace / 4 KiB\", l
assert l[\"hz\"] is None and l[\"quantum_ms\"] is None, l
"
'

test_expect_success 'bad ceilings: a clear error, nothing written' '
	echo "{\"schema\":\"x86-copy-series/record/1\",\"suite\":\"bench\",\"case\":\"cost/alu\",\"metric\":\"ns_per_call\",\"unit\":\"ns\",\"samples\":[1],\"commit\":\"aa\",\"accel\":\"host\",\"host\":\"h\",\"time\":\"t\"}" >c.jsonl &&
	expect_fail "$BIN/ci-report" --commits "$SET/commits.txt" --json r2.json --ceilings c.jsonl "$SET"/*.jsonl &&
	grep_err "ceilings: c.jsonl: no nt-store-bandwidth/movnti/64 bandwidth record .make costs writes them" && [ ! -e r2.json ] &&
	awk "/nt-store-bandwidth/ && !d { sub(/\"model_name\":\"[^\"]*\"/, \"\\\"model_name\\\":\\\"Other CPU\\\"\"); d = 1 } { print }" "$CEIL" >mixed.jsonl &&
	! cmp -s mixed.jsonl "$CEIL" &&
	expect_fail "$BIN/ci-report" --commits "$SET/commits.txt" --json r2.json --ceilings mixed.jsonl "$SET"/*.jsonl &&
	grep_err "ceilings: mixed.jsonl:[0-9]*: nt-store-bandwidth/movnti/64 of .* after .*: one CPU.s make costs records" && [ ! -e r2.json ] &&
	expect_fail "$BIN/ci-report" --commits "$SET/commits.txt" --json r2.json --ceilings nothing.jsonl "$SET"/*.jsonl &&
	[ ! -e r2.json ] &&
	CEILINGS=$SCRATCH/none.jsonl REPORT_OUT=$SCRATCH/rep expect_fail sh "$TOP/report/report-set.sh" "$SET" &&
	grep_err "CEILINGS: .*none.jsonl. is not a file" && [ ! -e rep/report.json ]
'

# the host claims: v4'"'"'s bench records (an AMD EPYC family 26 model 2 VM)
B=$TOP/results/2026-12-07-series-v4/bench-run1
test_expect_success 'every host claim: the bytes of a pass, its rates, the same run'"'"'s streaming stores; ceilings of its own CPU set against it, of another refused' '
	ln -sfn "$TOP/patches" patches && cp "$B/commits.txt" bc.txt &&
	hreport() { { "$BIN/ci-report" --commits bc.txt --json h.json "$@" "$B"/*.jsonl >h.txt 2>err || [ $? = 1 ]; }; } &&
	hreport --ceilings "$CEIL" &&
	python3 - "$B" "$TOP/lib/claims.def" h.json <<-\EOP &&
	import json, glob, re, statistics, sys
	bdir, cdef, hj = sys.argv[1:]
	text = open(cdef).read()
	recs = [json.loads(l) for f in glob.glob(bdir + "/*.jsonl") for l in open(f)]
	claims = {c["id"]: c for c in json.load(open(hj))["claims"]}
	close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)
	checked = 0
	for cid in re.findall(r"^PASS\(\x22([^\x22]+)\x22", text, re.M):
	    c, l = claims[cid], claims[cid]["limits"]
	    if c["reproduced_to"] is None:
	        assert l["reproduced_gbs_to"] is None and cid.startswith("rep-movsb/"), (cid, l)
	        continue
	    to = [r for r in recs if r["commit"] == c["to"]["commit"] and r["case"] == c["to"]["case"] and r["metric"] == "ms_per_pass"][0]
	    p = to["params"]
	    b = p.get("size", 64) * p["pages"]
	    assert l["reproduced_bytes_per_pass"] == b and l["claimed_bytes_per_pass"] == (0.4e9 if "dax-mem" in cid else 1.6e9), (cid, l, b)
	    assert close(l["reproduced_gbs_to"], b / (c["reproduced_to"] * 1e6)), (cid, l)
	    assert close(l["claimed_gbs_from"], l["claimed_bytes_per_pass"] / (c["claimed_from"] * 1e6)), (cid, l)
	    nt = [x for r in recs if r["commit"] == c["to"]["commit"] and r["case"] == "nt-store-bandwidth/movnti/64" for x in r["samples"]]
	    assert close(l["same_run_streaming_gbs"], statistics.median(nt)), (cid, l, nt)
	    assert l["reproduced_cpu"] == "Oxide Virtual Turin-like Processor family 26 model 2" and l["kind"] == "memory", l
	    checked += 1
	assert checked == 5, checked
	EOP
	tr "\n" " " <h.txt | tr -s " " >flat &&
	grep -q "nontemporal/template-copy-64 (host, struct pages written to memory): claimed 1.6 GB a pass (its workload as it states it), 24.92 GB/s -> 13.13 GB/s; reproduced 1.6 GB a pass (the records. params), 24.91 GB/s -> 13.12 GB/s on Oxide Virtual Turin-like Processor family 26 model 2, 66% of the streaming stores measured in the same run (19.94 GB/s, 8 MOVNTI a line); 58% of the measured streaming-store ceiling, 65% of the write-allocate one nontemporal/fastpaths-64" flat &&
	grep -q "rep-movsb/l2-to-hot-page (host, 4 KiB copies between cache states): claimed 0.268 GB a pass (its workload as it states it), 9.59 GB/s -> 22.56 GB/s (copies in the caches: no memory ceiling bounds them); reproduced: no figures" flat &&
	grep -q "copy-user-short/e5-2690v4/1: no limit applies: ns a call of one short copy: a latency, not a rate" flat &&
	grep -q "rep-movsb/below-512: no limit applies: the claim has no figure a record measures" flat &&
	# ceilings of another CPU: not set against them
	python3 -c "import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    r[\"cpu\"][\"model_name\"] = \"AMD EPYC\"
    print(json.dumps(r))" "$CEIL" >other.jsonl &&
	hreport --ceilings other.jsonl && tr "\n" " " <h.txt | tr -s " " >flat &&
	grep -q "nontemporal/template-copy-64 (host, .* on Oxide Virtual Turin-like Processor family 26 model 2, 66% of the streaming stores measured in the same run (19.94 GB/s, 8 MOVNTI a line); the measured ceilings are of another CPU (AMD EPYC family 26 model 2), not of Oxide Virtual Turin-like Processor family 26 model 2: not set against them" flat
'
done_testing
