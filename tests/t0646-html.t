#!/bin/sh
# make html (report/html.sh, report/html-main.c): a report as one
# self-contained page.  Each page is opened in a real browser (Debian's
# chromium, headless): it loads with no console message (its
# Content-Security-Policy reports anything that would load or run), and
# what the browser made of it is read back (tests/fixtures/ci/html-check.py)
# against report.json and plots/: the claims cell by cell, the plots, the
# sections in order, nothing that runs or leaves the page.  The same
# records give the same bytes; text of the records is text, never markup;
# bad inputs change nothing.
# test-parallel: its scratch directories and HTML_OUT files only; the report directories of its own sets
. "$(dirname "$0")/lib.sh"
REC=$TOP/tests/fixtures/ci/rec.sh
CHECK=$TOP/tests/fixtures/ci/html-check.py
SET=$TOP/results/2026-12-05-series-v3-distro/vm-icount-100G
need tool:ci-html
need cmd:chromium
need cmd:gnuplot

# render PAGE: PAGE opened by headless chromium, its DOM in PAGE.dom;
# fails on any console message (a blocked load or script, a bad resource)
render() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--dump-dom "file://$(realpath "$1")" >"$1.dom" 2>"$1.log" || { tail -n 5 "$1.log"; return 1; }
	! grep "CONSOLE" "$1.log" && grep -q "</html>" "$1.dom"
}

# html SET: report/html.sh of SET into ./report/report.html
html() {
	REPORT_OUT=$SCRATCH/report KERNEL_TREE=$SCRATCH/tree GATE_ACK=${ACK:-/dev/null} \
		RANGE_DIFF=${RD:-} sh "$TOP/report/html.sh" "$@"
}

# a tree of one commit: no series applied in it
one_tree() {
	mkdir tree && git -C tree init -q &&
	git -C tree -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m empty
}

# icount_recs SET_DIR SUBJECT V0 V1 V2: three commits (the last one's
# subject SUBJECT), exact memmap_init_ms of V0, V1 and V2 ms
icount_recs() {
	ir_dir=$1 ir_subject=$2
	shift 2
	mkdir -p "$ir_dir" &&
	printf "%s\tbase\n%s\tx: one\n%s\t%s\n" aaaaaaaa11 bbbbbbbb22 cccccccc33 "$ir_subject" >"$ir_dir/commits.txt" &&
	for c in aaaaaaaa11 bbbbbbbb22 cccccccc33; do
		# shellcheck disable=SC2046 # one sample a word
		sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms "$c" tcg cpu h "{}" $(seq 5 | sed "s/.*/$1/") |
			sed "s/\"accel\":\"tcg\"/\"accel\":\"tcg\",\"clock\":\"icount\"/" >"$ir_dir/$c.jsonl" || return 1
		shift
	done
}

test_expect_success 'a committed set: the browser shows report.json, plots inline, in order' '
	one_tree && html "$SET" >out 2>err || { cat err; false; } &&
	grep -q "done: .*/report/report.html" err &&
	render report/report.html && /usr/bin/python3 "$CHECK" report/report.html.dom report >chk &&
	grep -q "^ok: 27 claims, 21 limits, 10 plots, 26 rows$" chk &&
	grep -q "Not made: the series is not applied in a kernel tree here" report/report.html &&
	grep -q "No make merge was given" report/report.html &&
	grep -q "make html RESULTS=.*/results/2026-12-05-series-v3-distro/vm-icount-100G</pre>" report/report.html
'

test_expect_success 'the same records: the same bytes' '
	one_tree && html "$SET" >out 2>&1 && cp report/report.html first.html &&
	HTML_OUT=$SCRATCH/second.html html "$SET" >out 2>&1 &&
	cmp first.html second.html && cmp first.html report/report.html
'

test_expect_success 'text of the records is text: a subject, a set name, a range-diff' '
	one_tree && icount_recs "set <i>" "x: <script>alert(1)</script> <img src=x onerror=alert(2)> \$(id) '\''q'\''" 100 100 100 &&
	printf "1:  aaa ! 1:  bbb x: <b>bold</b> & more\n" >rd.txt &&
	RD=$SCRATCH/rd.txt html "$SCRATCH/set <i>" >out 2>err || { cat err; false; } &&
	render report/report.html && /usr/bin/python3 "$CHECK" report/report.html.dom report >chk &&
	grep -q "<td>x: &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; \$(id) .q.</td>" report/report.html.dom &&
	grep -q "x: &lt;b&gt;bold&lt;/b&gt; &amp; more" report/report.html.dom &&
	grep -q "<title>x86-copy-series: report of .*/set &lt;i&gt;</title>" report/report.html.dom &&
	grep -q "make html RESULTS=.*/set &lt;i&gt;.</pre>" report/report.html.dom &&
	! grep -q "<script\|<b>" report/report.html.dom
'

test_expect_success 'make merge: its per-CPU table on the page; a regression: on the page, exit 1; another series applied: no range-diff' '
	one_tree && icount_recs set "x: two" 100 100 160 &&
	"$BIN/ci-merge" --commits set/commits.txt --markdown merge.md set/*.jsonl >/dev/null &&
	mkdir m && mv merge.md m/ &&
	{ rc=0; MERGE=$SCRATCH/m html set >out 2>err || rc=$?; } && [ "$rc" = 1 ] &&
	grep -q "done: .*/report/report.html" err &&
	render report/report.html && /usr/bin/python3 "$CHECK" report/report.html.dom report >chk &&
	/usr/bin/python3 - report/report.html.dom <<-\EOP
	import re, sys
	d = open(sys.argv[1]).read()
	merge = d[d.index("<section id=\"results-by-cpu-make-merge\">"):d.index("<section id=\"regression-gate\">")]
	assert "<td>cccccccc33</td>" in merge and "160" in merge, merge[:2000]
	gate = d[d.index("<section id=\"regression-gate\">"):d.index("<section id=\"plots\">")]
	assert "REGRESSION" in gate, gate[:2000]
	EOP
	git -C tree update-ref "$REF_NS/series" HEAD &&
	{ rc=0; html set >out 2>&1 || rc=$?; } && [ "$rc" = 1 ] &&
	grep -q "Not made: the series applied here ([0-9a-f]*) is not the one these records are of (last commit cccccccc33)" report/report.html
'

test_expect_success 'bad inputs: a clear error, no page or the last one left whole' '
	one_tree && icount_recs set "x: two" 100 100 100 &&
	html set >out 2>&1 && cp report/report.html before.html &&
	RD=$SCRATCH/none.txt expect_fail html set &&
	grep_err "RANGE_DIFF: .*none.txt. is not a readable file" &&
	MERGE=$SCRATCH/nowhere expect_fail html set &&
	grep_err "MERGE: .*/nowhere/merge.md is missing" &&
	HTML_OUT=$SCRATCH/dir/ expect_fail html set &&
	grep_err "HTML_OUT: .* names a directory" &&
	expect_fail html "$SCRATCH/nothing" &&
	grep_err "RESULTS: .*/nothing holds no commits.txt" &&
	OUT=$SCRATCH/empty expect_fail html &&
	grep_err "records: .*/empty/ci/commits.txt is missing: no run here to show" &&
	echo "{\"schema\":" >>set/aaaaaaaa11.jsonl &&
	expect_fail html set && grep_err "no page: the report was not made" &&
	cmp before.html report/report.html &&
	cp -r report r2 && rm r2/plots/summary-memmap_init_ms.svg &&
	expect_fail "$BIN/ci-html" --report r2 --out r2/report.html &&
	grep_err "^ci-html: input: r2/plots/summary-memmap_init_ms.svg: No such file" &&
	cmp before.html r2/report.html &&
	{ rc=0; "$BIN/ci-html" --report r2 2>err || rc=$?; } && [ "$rc" = 2 ] &&
	grep -q "usage: ci-html" err &&
	{ rc=0; sh "$TOP/report/html.sh" a b 2>err || rc=$?; } && [ "$rc" = 2 ] &&
	grep -q "usage: make html" err
'

test_expect_success 'make html: the target, RESULTS as written' '
	one_tree && icount_recs "set a" "x: two" 100 100 100 &&
	make -C "$TOP" -s html BIN="$BIN" SANITIZE=1 RESULTS="$SCRATCH/set a" HTML_OUT="$SCRATCH/p.html" \
		KERNEL_TREE="$SCRATCH/tree" REPORT_OUT="$SCRATCH/report" GATE_ACK=/dev/null RANGE_DIFF=none >out 2>&1 ||
		{ cat out; false; } &&
	grep -q "None: RANGE_DIFF=none was given" p.html && [ ! -e report/report.html ]
'

done_testing
