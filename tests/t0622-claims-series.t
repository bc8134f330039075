#!/bin/sh
# The claims against the real series and its real records: ci-report on
# the v4 icount record set (results/2026-12-07-series-v4/vm-icount-100G)
# with patches/ as it is gives every claim of a patch figures and a
# verdict, and no claim is stale (a changelog edit that changes a claimed
# figure fails here); a subject renamed in a scratch copy of patches/
# keeps its claim; a changed figure makes its claim stale; a patch that
# is not in the series is named once; two samples that cannot tell say
# "inconclusive"; the plots name the commits by patch, their titles fit;
# the host claims (v4's bench records) are reproduced by the median of
# the samples no other task preempted, and say which median it is.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
SET=$TOP/results/2026-12-07-series-v4/vm-icount-100G
need tool:ci-report

# the commits of the record set, base first, as ci/run.sh lists them
IDS=$(cut -f1 "$SET/commits.txt")

# commits.txt as make apply and ci/run.sh make it from the mails of DIR
# (patches/): the base, then each applied patch with its mail's subject
commits_of() {
	dir=$2
	# shellcheck disable=SC2086 # commit ids, a word each
	set -- $IDS
	printf '%s\tImport linux-source-6.12 6.12.117-1~deb12u1\n' "$1"
	shift
	for f in $(awk '!/^#/ && $2 == "applied" { print $1 }' "$dir/series"); do
		printf '%s\t%s\n' "$1" "$(sed -n 's/^Subject: \[[^]]*\] //p' "$dir/$f" | head -n 1)"
		shift
	done
}

# ci-report in the current directory, whose patches/ it reads as make does
report() {
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-ack "$TOP/ci/gate-ack.txt" \
		--markdown r.md --json r.json --plots plots "$SET"/*.jsonl >r.txt 2>err || [ $? = 1 ]
}

claim() {
	grep "^  $1 " r.txt
}

test_expect_success 'the real series and records: every claim of a patch has figures and a verdict, none stale' '
	ln -s "$TOP/patches" patches && commits_of x patches >commits.txt &&
	[ "$(wc -l <commits.txt)" = 8 ] && cmp commits.txt "$SET/commits.txt" && report &&
	! grep -q ": stale: " r.txt && ! grep -q "not in the series" r.txt &&
	! grep -q "^ci-report: warning: claims" err &&
	[ "$(sed -n "/^Claimed vs reproduced:/,/^  (/p" r.txt | grep -c "^  [a-z]")" = "$(grep -c "^CLAIM(" "$TOP/lib/claims.def")" ] &&
	for id in $(grep -o "^CLAIM(\"[^\"]*\"" "$TOP/lib/claims.def" | cut -d\" -f2); do
		line=$(claim "$id") && echo "$line" &&
		case $line in
		*"no data: no ms_per_pass record"* | *"no data: no ns_per_call record"*) ;;	# host bench: not in this set
		*"no verdict: no comparison"*) ;;
		*"reproduced -"*) echo "no figures: $line"; exit 1 ;;
		esac || return 1
	done &&
	claim template/nd_pmem | grep -q "claimed 1115.00 -> 495.00 (-55.6%) *reproduced 1115.00 -> 495.00 ms (-55.6%, exact: tcg-icount, no test, n 5/5): reproduced: the claimed figures" &&
	claim compound-tails/dax_pmem | grep -q "claimed 1352.00 -> 503.00 (-62.8%) *reproduced 1352.00 -> 503.00 ms .*: reproduced: the claimed figures" &&
	claim compound-tails/dax_pmem_mem | grep -q "reproduced 349.00 -> 137.00 ms (-60.7%.*: reproduced: the claimed figures" &&
	claim streaming/nd_pmem | grep -q "claimed 495.00 -> 495.00 .*reproduced 495.00 -> 495.00 ms .*: reproduced: the claimed figures" &&
	claim series-icount/nd_pmem | grep -q "reproduced: the claimed figures" &&
	grep -q "| template/nd_pmem | 2/7 mm/mm_init: add a template-based fast path for zone-device page init |" r.md &&
	grep -q "1/7 -> 2/7, nd_pmem/rebind; tcg-icount" r.md &&
	python3 -c "import json, sys; d = json.load(open(\"r.json\")); c = {x[\"id\"]: x for x in d[\"claims\"]}; \
		assert c[\"template/nd_pmem\"][\"patch\"] == \"2\" and not c[\"template/nd_pmem\"][\"stale\"]; \
		f = [x for x in d[\"figures\"] if x[\"claim\"] == \"template/nd_pmem\"]; \
		assert [x[\"value\"] for x in f] == [1115, 495, -55.6], f; assert f[0][\"patch\"] == 2 and f[0][\"line\"] > 50"
'

test_expect_success 'a subject renamed in patches/ keeps its claim, re-applied or not' '
	cp -R "$TOP/patches" patches && commits_of x patches >old.txt &&
	sed -i "s/^Subject: \[PATCH v4 2\/7\] .*/Subject: [PATCH v4 2\/7] mm\/mm_init: initialise zone-device struct pages from a template/" \
		patches/0002-*.mbox &&
	commits_of x patches >commits.txt && grep -q "initialise zone-device struct pages" commits.txt &&
	report && claim template/nd_pmem | grep -q "reproduced 1115.00 -> 495.00 ms .*: reproduced: the claimed figures" &&
	grep -q "| 2/7 mm/mm_init: initialise zone-device struct pages from a template |" r.md &&
	! grep -q warning err &&
	cp old.txt commits.txt && report &&
	claim template/nd_pmem | grep -q "reproduced: the claimed figures" &&
	grep -q "^ci-report: warning: series: commit 37bd62dd1e5f .* is taken for 2/7 .* by its place" err
'

test_expect_success 'a changelog that changes a claimed figure makes its claim stale, named' '
	cp -R "$TOP/patches" patches && commits_of x patches >commits.txt &&
	sed -i "s/to 495 ms (-55.6%)/to 491 ms (-56.0%)/" patches/0002-*.mbox &&
	report && claim template/nd_pmem | grep -q "reproduced 1115.00 -> 495.00 ms .*: stale: the changelog of 2/7 mm/mm_init: add a template-based fast path for zone-device page init does not say \"goes from 1115 to 495 ms (-55.6%)\"" &&
	[ "$(grep -c ": stale: " r.txt)" = 1 ] &&
	python3 -c "import json; d = json.load(open(\"r.json\")); assert [c[\"id\"] for c in d[\"claims\"] if c[\"stale\"]] == [\"template/nd_pmem\"]"
'

test_expect_success 'a patch that is not in the series: its claims say so, one warning names it' '
	cp -R "$TOP/patches" patches && sed -i "/^0007-/d" patches/series &&
	commits_of x patches >commits.txt && [ "$(wc -l <commits.txt)" = 7 ] && report &&
	[ "$(claim "rep-movsb/[a-z0-9-]*" | grep -c "not in the series: patches/series has no patch 7 (6 applied)")" = 4 ] &&
	[ "$(grep -c "warning: claims: lib/claims.def names patch .7., which patches/series has not (6 applied): its claims say so" err)" = 1 ] &&
	[ "$(grep -c "warning: claims" err)" = 1 ]
'

# make quick: the base and the head, two samples a side: -54%, p 0.14
test_expect_success 'two samples that cannot tell: inconclusive, never "not reproduced"' '
	ln -s "$TOP/patches" patches && set -- $IDS && B=$1 && shift 7 && H=$1 &&
	printf "%s\tbase\n%s\t%s\n" $B $H "x86/lib: Use REP MOVSB for large memcpy() on ERMS CPUs without FSRM" >commits.txt &&
	host="Intel(R) Xeon(R) Processor" && p={\"variant\":\"memcpy-erms1-fsrm0\"} &&
	{ sh "$REC" bench memcpy-state/L2-to-hot-page/memcpy-erms1-fsrm0 ms_per_pass ms $B host "$host" h "$p" 20 26 &&
	  sh "$REC" bench memcpy-state/L2-to-hot-page/memcpy-erms1-fsrm0 ms_per_pass ms $H host "$host" h "$p" 10 11 &&
	  sh "$REC" --normal 25 0.2 9 55 bench memcpy-state/hot-to-cold-page/memcpy-erms1-fsrm0 ms_per_pass ms $B host "$host" h "$p" &&
	  sh "$REC" --normal 25 0.2 9 56 bench memcpy-state/hot-to-cold-page/memcpy-erms1-fsrm0 ms_per_pass ms $H host "$host" h "$p" &&
	  sh "$REC" bench memcpy-state/cold-to-hot-buffer/memcpy-erms1-fsrm0 ms_per_pass ms $B host "$host" h "$p" 40 ; } >q.jsonl &&
	"$REPORT" --commits commits.txt q.jsonl >r.txt &&
	claim rep-movsb/l2-to-hot-page | grep -q "reproduced 23.00 -> 10.50 ms (medians: -54.3%, p 0.1418, n 2/2): inconclusive (n 2): make bench for enough samples$" &&
	claim rep-movsb/cold-to-hot-buffer | grep -q "no data: no ms_per_pass record of memcpy-state/cold-to-hot-buffer/memcpy-erms1-fsrm0 at 7/7" &&
	claim rep-movsb/hot-to-cold-page | grep -q "n 9/9): not reproduced: no significant change" &&
	"$REPORT" --commits commits.txt --markdown r.md q.jsonl >/dev/null &&
	grep -q "| base -> 7/7, memcpy-state/L2-to-hot-page/memcpy-erms1-fsrm0 (6/7, the parent, is not in the report: base -> 7/7 is the change of several patches); host" r.md
'

test_expect_success 'plots: titles cut between words within the picture, commits named by patch, changes past the gate marked' '
	ln -s "$TOP/patches" patches && commits_of x patches >commits.txt && report &&
	gp=plots/bench-vm.nd_pmem_rebind.memmap_init_ms.gp &&
	sed -n "s/^set title .\(.*\).$/\1/p" $gp | sed "s/.\.\"\\\\n\"\../\n/g" >title &&
	cat title && [ "$(wc -l <title)" -ge 2 ] &&
	awk "length > 150 { print \"too long: \" \$0; bad = 1 } END { exit bad }" title &&
	grep -q "^tcg-icount, QEMU TCG CPU version 2.5+ on Oxide Virtual Turin-like Processor, -cpu max, ns 100 GiB" title &&
	grep -q "^set xtics .*(.base. 0, .1/7.\.\"\\\\n\"\..init_page_.\.\"\\\\n\"\..virtual() helper. 1, .2/7 template-based" $gp &&
	grep -q ".7/7 REP MOVSB for" $gp && ! grep "^set xtics" $gp | grep -q "[0-9a-f]\{12\}" &&
	grep -q "^set label 3 .-55.6%. at 2, 495 " $gp &&
	! grep -q "^set label 2 " $gp && ! grep -q "accepted" $gp &&
	(cd plots && for g in *.gp; do gnuplot "$g" 2>"$g.err" && [ ! -s "$g.err" ] || { cat "$g.err"; exit 1; }; done) &&
	head -c 8 plots/bench-vm.nd_pmem_rebind.memmap_init_ms.png | od -c | grep -q "P   N   G"
'

# make ci's gate (report/report-lib.sh: GATE_ONLY): what the patches change; a
# whole bind and unbind count the guest agent's own work too (results/README.md)
GATE="bench-vm/*/rebind/memmap_init_ms"
# v4 needs no acknowledgement; the marker of one is seen on a copy of
# the set whose head is made 10% slower, with an acknowledgement of that
test_expect_success 'plots: a change past the gate that a maintainer accepted is marked so, one that is not fails' '
	ln -s "$TOP/patches" patches && commits_of x patches >commits.txt && mkdir set &&
	cp "$SET"/*.jsonl set/ && set -- $IDS && shift 7 && H=$1 &&
	sed -i "/\"nd_pmem\/rebind\",\"metric\":\"memmap_init_ms\"/s/495\.0/544.0/g" set/$H.jsonl &&
	grep -q "544.0,544.0" set/$H.jsonl &&
	printf "%.12s bench-vm/nd_pmem/rebind/memmap_init_ms 10 a test: slower on purpose\n" $H >ack &&
	rc=0 && "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 1 --gate-only "$GATE" --plots plots set/*.jsonl >r.txt 2>err || rc=$? &&
	[ $rc = 1 ] && grep -q "^  [0-9a-f]* x86/lib: .*nd_pmem/rebind.memmap_init_ms .*: +9.9% vs parent: .*: REGRESSION$" r.txt &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 1 --gate-only "$GATE" --gate-ack ack --plots plots set/*.jsonl >r.txt 2>err &&
	grep -q "^set label 8 .+9.9% (accepted). at 7, 544 " plots/bench-vm.nd_pmem_rebind.memmap_init_ms.gp
'

test_expect_success 'the claims lint reads the changelogs once: every figure of every changelog, with its claim' '
	ln -s "$TOP/patches" patches && commits_of x patches >commits.txt && report &&
	grep -q "^  (patches/series: [0-9]* figures in its changelogs, [0-9]* of them in a claim.s quote; report.json \"figures\")" r.txt &&
	python3 -c "import json; d = json.load(open(\"r.json\")); f = d[\"figures\"]; \
		assert d[\"series\"] == \"patches/series\"; \
		r = [x for x in f if x[\"file\"].startswith(\"0007-\") and x[\"unit\"] == \"ms\"]; \
		assert [x[\"value\"] for x in r] == [28.0, 11.9, 46.1, 28.9, 29.8, 22.5], r; \
		assert all(x[\"claim\"].startswith(\"rep-movsb/\") for x in r); \
		assert not [x for x in f if x[\"value\"] in (117, 12117)], \"6.12.117 read as a figure\"; \
		import re; cov = open(\"patches/0000-cover-letter.mbox\").read().split(\"\\n\"); \
		sl = min(i + 1 for i, l in enumerate(cov) if re.match(r\"^.+ [(][0-9]+[)]:\$\", l)); \
		assert not [x for x in f if x[\"file\"].startswith(\"0000-\") and x[\"line\"] >= sl], \"the shortlog read as figures\""
'
# results/: generated, never edited by hand
test_expect_success 'the report in the record set is the one ci-report makes of it now' '
	(cd "$TOP" && "$REPORT" --commits "$SET/commits.txt" --markdown "$SCRATCH/g.md" \
		--gate-pct 5 --gate-pct-tcg 25 --gate-pct-icount 1 --gate-ack ci/gate-ack.txt \
		results/2026-12-07-series-v4/vm-icount-100G/*.jsonl >/dev/null 2>&1 || [ $? = 1 ]) &&
	diff -u "$SET/ci-report.md" g.md &&
	M=results/2026-12-07-series-v4/model-8G &&
	(cd "$TOP" && "$REPORT" --commits $M/commits.txt --markdown "$SCRATCH/m.md" \
		--text "$SCRATCH/m.txt" --gate-pct 5 --gate-pct-tcg 25 --gate-pct-icount 1 \
		--gate-ack ci/gate-ack.txt --costs results/2026-12-02-costs-amd-epyc/cost-table.jsonl \
		$M/*.jsonl >/dev/null 2>&1 || [ $? = 1 ]) &&
	diff -u "$TOP/$M/ci-report.md" m.md && diff -u "$TOP/$M/ci-report.txt" m.txt
'
test_expect_success 'a report of a part of the series (CI_COMMITS): a claim of the head is no data, never measured at the last column' '
	ln -s "$TOP/patches" patches && commits_of x patches | head -n 4 >commits.txt &&
	"$REPORT" --commits commits.txt "$SET"/*.jsonl >r.txt 2>err || [ $? = 1 ] &&
	claim series-icount/nd_pmem && claim series-icount/nd_pmem | grep -q "no data: the head (7/7) is not in the report" &&
	! claim series-icount/nd_pmem | grep -q "reproduced [0-9]" &&
	claim template/nd_pmem | grep -q "reproduced: the claimed figures"
'
# bench_claims: ci-report of v4's host records, base and head, into bt.txt
bench_claims() {
	cp "$TOP/results/2026-12-07-series-v4/bench-run1/commits.txt" bc.txt &&
	{ "$REPORT" --commits bc.txt "$@" >bt.txt 2>err || [ $? = 1 ]; }
}

test_expect_success 'host claims: the median of the unpreempted samples, said so; of all of them where too few were unpreempted; a plain median where no record says' '
	B=$TOP/results/2026-12-07-series-v4/bench-run1 &&
	bench_claims "$B"/*.jsonl && grep "^  nontemporal/" bt.txt &&
	grep -q "^  nontemporal/template-copy-64 *claimed 64.20 -> 121.90 (+89.9%) *reproduced 64.23 -> 121.94 ms (medians of the unpreempted samples: +89.9%, p 0.0071, n 5/5): reproduced: the claimed figures$" bt.txt &&
	[ "$(grep -c "(medians of the unpreempted samples: " bt.txt)" = 5 ] &&
	# every sample of the head preempted: the median of all, said so
	mkdir -p pre none &&
	for f in "$B"/*.jsonl; do
		python3 -c "import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    n = len(r[\"samples\"])
    if \"preempted\" in r.get(\"params\", {}):
        r[\"params\"][\"preempted\"] = [1] * n
    print(json.dumps(r, separators=(\",\", \":\")))" "$f" >"pre/${f##*/}" &&
		python3 -c "import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    r.get(\"params\", {}).pop(\"preempted\", None)
    print(json.dumps(r, separators=(\",\", \":\")))" "$f" >"none/${f##*/}" || return 1
	done &&
	bench_claims pre/*.jsonl && grep "^  nontemporal/template-copy-64 " bt.txt &&
	grep -q "^  nontemporal/template-copy-64 .*(medians, of all samples where too few were unpreempted: " bt.txt &&
	! grep -q "medians of the unpreempted" bt.txt &&
	bench_claims none/*.jsonl && grep "^  nontemporal/template-copy-64 " bt.txt &&
	grep -q "^  nontemporal/template-copy-64 .*(medians: " bt.txt &&
	! grep -q "unpreempted" bt.txt
'
# 5/7's guest claims do not reproduce under icount (a MOVNTI counts as a
# MOV); the host's copies that measure its change (claims.def: MEASURES,
# quoted by 4/7 and the cover letter) do: the summary says both in one line
test_expect_success 'the summary joins a patch'"'"'s guest and host evidence where they disagree, with why icount misses it' '
	ln -s "$TOP/patches" patches && cp "$SET/commits.txt" commits.txt &&
	"$REPORT" --commits commits.txt "$SET"/*.jsonl "$TOP"/results/2026-12-07-series-v4/bench-run1/*.jsonl >r.txt 2>err || [ $? = 1 ] &&
	sed -n "/^  Where a patch.s evidence disagrees:/,/^[A-Z]/p" r.txt >dis &&
	grep -q "^  5/7 x86/string: extend memcpy_flushcache() fixed-size fastpa  0 /  2 /  0  guest icount 0 of 2 held; host timings 1 of 1 held (other mails. claims of its change)" r.txt &&
	[ "$(grep -c "^  - " dis)" = 1 ] &&
	tr "\n" " " <dis | grep -q "5/7 x86/string: extend memcpy_flushcache() fixed-size fastpaths: its claims  *held on host timings (1 of 1) and not on guest icount (2 of 2 not  *reproduced): icount counts the instructions"
'
done_testing
