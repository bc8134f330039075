#!/bin/sh
# ci-report on fixture records of a four-commit series: the text and the
# Markdown equal the golden files (tests/golden/ci-report.*), the changelog
# lines and the claimed-vs-reproduced rows are there (one row per quoted
# figure of lib/claims.def, named by patch), the plots render.  The real
# series and records: t0622.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
FX=$TOP/tests/fixtures/ci
need tool:ci-report

# in a directory with patches/, as make runs it: the series names the commits
report() {
	ln -sfn "$TOP/patches" patches &&
	sh "$FX/series.sh" fx &&
	"$REPORT" --commits fx/commits.txt --markdown r.md --json r.json --plots plots \
		fx/bench-vm.jsonl fx/bench.jsonl >r.txt
}

test_expect_success 'text and Markdown equal the golden files' '
	report &&
	diff -u "$TOP/tests/golden/ci-report.txt" r.txt &&
	diff -u "$TOP/tests/golden/ci-report.md" r.md
'

test_expect_success 'the summary at the top: per patch, its claims held, not reproduced, not told, counted again from report.json'"'"'s verdicts' '
	report && python3 - r.json r.md <<-\PY
	import json, sys
	claims = json.load(open(sys.argv[1]))["claims"]
	rows = {}
	for c in claims:
	    v = c["verdict"]
	    k = 0 if v.startswith(("reproduced", "direction reproduced")) else 1 if v.startswith("not reproduced") else 2
	    rows.setdefault(c["source"], [0, 0, 0])[k] += 1
	md = open(sys.argv[2]).read().split("\n")
	top = md[md.index("## Summary"):md.index("## Commits")]
	got = {}
	for l in top:
	    if l.startswith("| ") and not l.startswith(("| patch", "| all")):
	        f = [x.strip() for x in l.strip("|").split(" | ")]
	        got[f[0]] = [int(f[2]), int(f[3]), int(f[4])]
	        assert int(f[1]) == sum(got[f[0]]), l
	assert got == rows, (got, rows)
	tot = [l for l in top if l.startswith("| all |")][0]
	assert tot.startswith("| all | %d | %d | %d | %d |" % (len(claims), *[sum(r[i] for r in rows.values()) for i in range(3)])), tot
	assert any(r[1] for r in rows.values()) and any(r[0] for r in rows.values()) and any(r[2] for r in rows.values())
	PY
'

test_expect_success 'changelog lines and claims name the figures' '
	report &&
	grep -A1 "^Average of rebinds for nd_pmem driver: 98.25 ms$" r.txt | grep -q "^  (-34.2% vs parent" &&
	grep -q "^Test: TCG (relative change only)" r.txt &&
	grep -q "fastpaths/nd_pmem *claimed 150.83 -> 96.79 (-35.8%) *reproduced 244.43 -> 149.22 ms" r.txt &&
	grep -q "series/dax_pmem *claimed 273.31 -> 119.04 (-56.4%)" r.txt &&
	grep -q "template/nd_pmem .*no data: 2/7 mm/mm_init: add a template-based fast path for zone-device page init is not in the report" r.txt &&
	grep -q "streaming/nd_pmem *claimed 495.00 -> 495.00 (+0.0%) *reproduced 149.22 -> 98.25 ms .*: not reproduced: -34.2% (significant) where the claim is of no change" r.txt &&
	! grep -q stale r.txt &&
	grep -q "rep-movsb/l2-to-hot-page *claimed 28.00 -> 11.90 (-57.5%) *reproduced 20.10 -> 9.99 ms (medians: -50.3%, p <0.0001, n 9/9): direction reproduced" r.txt &&
	grep -q "rep-movsb/hot-to-cold-page .*(medians: -0.5%, p 0.6459, n 9/9): not reproduced: no significant change" r.txt &&
	grep -q "copy-user-short/e5-2690v4/63 *claimed -4% .*(medians: +5.6%, p <0.0001, n 15/15): not reproduced: opposite direction" r.txt
'

# the "Text for a changelog" section as the body of a patch mail
test_expect_success 'the text for a changelog passes the changelog lint (75 columns)' '
	report && [ -x "$BIN/changelog-lint" ] &&
	{ printf "From 0 Mon Sep 17 00:00:00 2001\nFrom: T <t@example.org>\nSubject: [PATCH] mm: quote the report\n\n" &&
	  sed -n "/^Test: /,/^Claimed vs reproduced:/p" r.txt | sed "\$d" &&
	  printf "Signed-off-by: T <t@example.org>\n---\n a | 1 +\n\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -0,0 +1 @@\n+x\n"; } >quote.mbox &&
	[ "$(grep -c "^Average of rebinds" quote.mbox)" = $((2 * $(wc -l <fx/commits.txt))) ] &&
	{ "$BIN/changelog-lint" quote.mbox >lint || true; } && cat lint &&
	! grep -q line-length lint
'

test_expect_success 'an error record is listed, a malformed line is refused with file:line' '
	report &&
	printf "%s\n" "{\"schema\":\"x86-copy-series/record/1\",\"suite\":\"bench-vm\",\"case\":\"run\",\"metric\":\"error\",\"unit\":\"count\",\"samples\":[],\"commit\":\"1111111111111111111111111111111111111111\",\"error\":\"qemu: watchdog\"}" >err.jsonl &&
	"$REPORT" --commits fx/commits.txt fx/bench-vm.jsonl err.jsonl >e.txt &&
	grep -q "bench-vm/run: qemu: watchdog (err.jsonl:1)" e.txt &&
	echo "{\"schema\":\"other\"}" >bad.jsonl &&
	expect_fail "$REPORT" fx/bench-vm.jsonl bad.jsonl &&
	grep_err "ci-report: records: bad.jsonl:1: schema is .other."
'

# gnuplot is a dependency (scripts/deps.list): no skip without it
test_expect_success 'the plots render as PNG and SVG without a gnuplot warning, titles name TCG and the CPU; no curve of one size' '
	report &&
	grep -q "tcg, QEMU TCG CPU version 2.5+, -cpu max, ns 4 GiB, kernel tinyconfig -Os (records before builds were named) (host hostA). TCG (relative change only)" plots/bench-vm.nd_pmem_rebind.memmap_init_ms.gp &&
	grep -q "^set xtics .*(.base. 0, .5/7.\.\"\\\\n\"\..memcpy_.\.\"\\\\n\"\..flushcache()" plots/bench-vm.nd_pmem_rebind.memmap_init_ms.gp &&
	grep -q "host, CPU: Intel(R) Xeon(R) Gold 6338" plots/bench-memcpy-sweep-ns_per_call.gp &&
	(cd plots && for g in *.gp; do gnuplot "$g" 2>"$g.err" && [ ! -s "$g.err" ] || { cat "$g.err"; exit 1; }; done) &&
	[ "$(ls plots/*.gp | wc -l)" = 5 ] && [ ! -e plots/bench-memcpy-state-ms_per_pass.gp ] &&
	[ "$(ls plots/*.png | wc -l)" = 5 ] && [ "$(ls plots/*.svg | wc -l)" = 5 ] &&
	head -c 8 plots/bench-vm.nd_pmem_rebind.memmap_init_ms.png | od -c | grep -q "P   N   G"
'
# the summary chart counted again from report.json; rows of bind and
# unbind times beside the fixture's
test_expect_success 'the plots: a summary chart marks its rows'"'"' claims as report.json judges them; a flat row is named, not drawn; 1.2e6 us drawn as 1200 ms' '
	report && vm="{\"ns_size\":4294967296,\"rebinds\":10,\"cpu_model\":\"max\"}" &&
	i=0 && for c in $(cut -f1 fx/commits.txt); do
		i=$((i + 1)) &&
		sh "$FX/rec.sh" --normal $((1300000 - 50000 * i)) 2000 10 $((7 + i)) bench-vm nd_pmem/rebind bind_us us "$c" tcg "QEMU TCG CPU version 2.5+" hostA "$vm" &&
		sh "$FX/rec.sh" --normal 11200 1 10 8 bench-vm nd_pmem/rebind unbind_us us "$c" tcg "QEMU TCG CPU version 2.5+" hostA "$vm" || exit 1
	done >times.jsonl &&
	rm -rf plots && "$REPORT" --commits fx/commits.txt --markdown r.md --json r.json --plots plots \
		fx/bench-vm.jsonl fx/bench.jsonl times.jsonl >r.txt &&
	grep -q "^- not drawn: bench-vm.nd_pmem/rebind.unbind_us, flat (every commit within 0.[0-9]*% of the first" plots/index.md &&
	[ ! -e plots/bench-vm.nd_pmem_rebind.unbind_us.gp ] &&
	grep -q "^set ylabel .bind_us (ms).$" plots/bench-vm.nd_pmem_rebind.bind_us.gp &&
	awk "NF && (\$1 < 1050 || \$1 > 1260) { exit 1 }" plots/bench-vm.nd_pmem_rebind.bind_us.dat &&
	grep -q "^Plots: \[plots/index.md\](plots/index.md)" r.md &&
	python3 - r.json plots <<-\PY &&
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	rows = {w["case"] for w in d["rows"] if w["suite"] == "bench-vm" and w["case"].endswith("/rebind") and w["metric"] == "memmap_init_ms"}
	cols = [c["key"] for c in d["columns"]]
	want = [0, 0]
	for c in d["claims"]:
	    v = c["verdict"]
	    if c.get("metric") != "memmap_init_ms" or c.get("claimed_pct") is None or not c.get("from") or not c.get("to"):
	        continue
	    if c["from"]["case"] != c["to"]["case"] or c["from"]["case"] not in rows:
	        continue
	    if c["from"].get("commit") not in cols or c["to"].get("commit") not in cols:
	        continue
	    if v.startswith(("reproduced", "direction reproduced")):
	        want[0] += 1
	    elif v.startswith("not reproduced"):
	        want[1] += 1
	idx = open(sys.argv[2] + "/index.md").read()
	m = re.search(r"summary-memmap_init_ms.svg .*; (\d+) claims marked \((\d+) held, (\d+) not\)", idx)
	assert m and [int(m[2]), int(m[3])] == want and int(m[1]) == sum(want) and sum(want), (m and m[0], want)
	dat = open(sys.argv[2] + "/summary-memmap_init_ms.dat").read().split("\n\n\n")
	pts = sum(len([l for l in b.split("\n") if l and not l.startswith("#")]) for b in dat if b.startswith("# claims"))
	assert pts == sum(want), (pts, want)
	PY
	(cd plots && for g in summary-*.gp bench-vm.nd_pmem_rebind.bind_us.gp; do gnuplot "$g" 2>"$g.err" && [ ! -s "$g.err" ] || { cat "$g.err"; exit 1; }; done)
'
done_testing
