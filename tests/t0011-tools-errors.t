#!/bin/sh
# The error paths of the small C tools (series/*.c, tools/*.c): series-check,
# trailers-collect, record-write and record-reuse.  Every bad argument is
# exit 2 with the usage; every input that cannot be read or is wrong, and
# every output that cannot be written, is exit 1 with a message naming
# it, and nothing is printed or written where the tool promises that
# (record-reuse's OUT removed, record-write's --to file as it was); and
# what record-reuse writes when it works: the records of the new commit,
# every other field as it was, the commit first measured kept.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:series-check tool:trailers-collect tool:record-write tool:record-reuse
REC=$TOP/tests/fixtures/ci/rec.sh
O=1111111111111111111111111111111111111111
N=2222222222222222222222222222222222222222

# mail K SUBJECT [HEADERS] [TEXT]: one mail, Message-Id <mK@example.org>
mail() {
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: A U Thor <author@example.org>\nDate: Mon, 30 Nov 2026 12:00:00 +0000\n'
	printf 'Subject: %s\nMessage-Id: <m%s@example.org>\n%s\n' "$2" "$1" "${3:-}"
	printf 'Why.\n\n%s\n---\n' "${4:-Signed-off-by: A U Thor <author@example.org>}"
	printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'
	printf -- '-- \n2.39.5\n\n'
}

# usage CMD...: exit 2, "usage" on stderr, nothing on stdout
usage() {
	rc=0
	"$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
	cat "$SCRATCH/err"
	[ "$rc" = 2 ] && grep_err "usage: " && [ ! -s "$SCRATCH/out" ] ||
		{ echo "expected a usage error (exit 2), got $rc: $*"; return 1; }
}

test_expect_success 'series-check: usage; a series that cannot be opened; a line too long; nothing printed' '
	usage "$BIN/series-check" && usage "$BIN/series-check" a b &&
	expect_fail "$BIN/series-check" nosuch &&
	grep_err "^series-check: open series file: No such file or directory\$" && [ ! -s out ] &&
	mail 1 "[PATCH 1/1] x: do y" >a.mbox &&
	{ printf "%5000s\n" x; echo "a.mbox applied"; } >series &&
	expect_fail "$BIN/series-check" series && grep_err "^series-check: series:1: line too long\$" &&
	grep_err "^series-check: series: 1 error; nothing applied\$" && [ ! -s out ]
'

test_expect_success 'series-check: an absolute path, one word, a bad upstream id, no applied patch, no k/N number' '
	mail 1 "[PATCH 1/1] x: do y" >a.mbox &&
	printf "/etc/a.mbox applied\n" >series && expect_fail "$BIN/series-check" series &&
	grep_err "^series-check: series:1: the path must be relative to the series file.s directory" &&
	printf "a.mbox\n" >series && expect_fail "$BIN/series-check" series &&
	grep_err "^series-check: series:1: expected .<mbox> cover\|applied\|upstream \[<commit>\]." &&
	printf "a.mbox upstream 012345678901234567890123456789012345678g\n" >series &&
	expect_fail "$BIN/series-check" series &&
	grep_err "^series-check: series:1: an upstream patch, and only it, names its 40-hex upstream commit\$" &&
	printf "# nothing\n" >series && expect_fail "$BIN/series-check" series &&
	grep_err "^series-check: series:1: no applied patch in the series\$" &&
	printf "a.mbox applied\n" >series &&
	for s in "x: no number" "[PATCH x] no number" "[PATCH 1/1 no bracket"; do
		mail 1 "$s" >a.mbox && expect_fail "$BIN/series-check" series &&
		grep_err "^series-check: ./a.mbox:1: subject has no .\[PATCH k/N\]. number\$" && [ ! -s out ] ||
			{ echo "subject: $s"; return 1; }
	done
'

test_expect_success 'series-check: a tab in a subject is a space in the tab-separated list; a full stdout is exit 1' '
	mail 1 "[PATCH 1/1] x:	tab" >a.mbox && printf "a.mbox applied\n" >series &&
	"$BIN/series-check" series >list && [ "$(cut -f4 list)" = "[PATCH 1/1] x: tab" ] &&
	expect_fail sh -c "\"\$1\" series >/dev/full" sh "$BIN/series-check" &&
	grep_err "^series-check: write: stdout: No space left on device\$"
'

test_expect_success 'trailers-collect: usage; a series, a replies mbox, a series mail that cannot be read' '
	usage "$BIN/trailers-collect" && usage "$BIN/trailers-collect" --ids series && usage "$BIN/trailers-collect" --sloppy series &&
	mail 1 "[PATCH 1/1] x: do y" >a.mbox && printf "a.mbox applied\n" >series &&
	expect_fail "$BIN/trailers-collect" nosuch r.mbox &&
	grep_err "^trailers-collect: nosuch: cannot open\$" && [ ! -s out ] &&
	expect_fail "$BIN/trailers-collect" series nosuch.mbox &&
	grep_err "^trailers-collect: nosuch.mbox:0: cannot open: No such file or directory\$" && [ ! -s out ] &&
	{ mail 1 "[PATCH 1/1] x: do y"; mail 2 "[PATCH 1/1] x: do z"; } >two.mbox &&
	printf "two.mbox applied\n" >series2 && expect_fail "$BIN/trailers-collect" series2 a.mbox &&
	grep_err "^trailers-collect: ./two.mbox:1: not one mail: run series-check\$" && [ ! -s out ]
'

# (an address with a blank was no trailer, dropped without a word: it is
# refused by its line, t0076)
test_expect_success 'trailers-collect: a bare In-Reply-To id finds its patch; an address with a blank is refused by its line' '
	mail 1 "[PATCH 1/1] x: do y" >a.mbox && printf "a.mbox applied\n" >series &&
	mail 9 "Re: whatever" "In-Reply-To: m1@example.org
" "Reviewed-by: R E <r@example.org>" >r.mbox &&
	"$BIN/trailers-collect" --ids --sloppy series r.mbox >found 2>err && cat found err &&
	[ "$(cat found)" = "$(printf "a.mbox\tReviewed-by: R E <r@example.org>\t<m9@example.org>")" ] &&
	mail 9 "Re: whatever" "In-Reply-To: m1@example.org
" "Reviewed-by: R E <r@example.org>
Acked-by: Bad <not an@address>" >r.mbox &&
	expect_fail "$BIN/trailers-collect" --sloppy --ids series r.mbox &&
	grep_err "^trailers-collect: r.mbox:$(grep -n "^Acked-by" r.mbox | cut -d: -f1): reply .Re: whatever.: trailer .Acked-by: Bad <not an@address>.: .not an@address. is not an address"
'

test_expect_success 'record-write: usage errors: --field, --json, --clock, an unknown option, a missing name' '
	w="$BIN/record-write --suite s --case c --metric m" &&
	usage $w --unit ns --field x 1 && grep_err "^record-write: usage: --field wants KEY=TEXT, not .x.\$" &&
	usage $w --unit ns --json =1 1 && grep_err "^record-write: usage: --json wants KEY=JSON, not .=1.\$" &&
	usage $w --unit ns --clock tsc 1 && grep_err "^record-write: usage: --clock is wall or icount, not .tsc.\$" &&
	usage $w --unit ns --bogus 1 && usage $w 1
'

test_expect_success 'record-write: --to that cannot be opened or written, a refused record: exit 1, the file as it was' '
	w="$BIN/record-write --suite s --case c --metric m --unit ns" &&
	expect_fail $w --to nodir/r.jsonl 1 &&
	grep_err "^record-write: write: nodir/r.jsonl: No such file or directory\$" && [ ! -e nodir ] &&
	expect_fail $w --to /dev/full 1 && grep_err "^record-write: write: /dev/full: No space left on device\$" &&
	$w --to r.jsonl 1 && cp r.jsonl before &&
	expect_fail $w --json "k=[1e999]" --to r.jsonl 1 &&
	grep_err "^record-write: write: r.jsonl: a number is NaN or infinite: no record\$" &&
	expect_fail $w --json "k={\"a\": {\"b\": 1e999}}" --to r.jsonl 1 &&
	grep_err "^record-write: write: r.jsonl: a number is NaN or infinite: no record\$" &&
	expect_fail $w --json "params={\"variant\": \"\"}" --to r.jsonl 1 &&
	grep_err "^record-write: write: r.jsonl: a name or field is empty, or a bench-vm record names no build \(--json build=\.\.\.\): no record\$" &&
	cmp before r.jsonl &&
	$w --clock icount --error boom --field note=hi 1 >one &&
	python3 -c "import json; r = json.load(open(\"one\")); assert (r[\"clock\"], r[\"error\"], r[\"note\"]) == (\"icount\", \"boom\", \"hi\"), r"
'

test_expect_success 'record-reuse: usage errors: a missing option, an unknown one, a short id, the same commit' '
	rm -f out.jsonl && sh "$REC" b c m ns $O host cpu h "{}" 1 2 >in.jsonl &&
	usage "$BIN/record-reuse" --from $O --commit $N in.jsonl &&
	usage "$BIN/record-reuse" --from $O --commit $N --to out.jsonl --bogus in.jsonl &&
	usage "$BIN/record-reuse" --from $O --commit $N --to out.jsonl in.jsonl in.jsonl &&
	usage "$BIN/record-reuse" --from 1234 --commit $N --to out.jsonl in.jsonl &&
	grep_err "^record-reuse: --from and --commit are full commit ids \(40 hex digits\)\$" &&
	usage "$BIN/record-reuse" --from $O --commit $O --to out.jsonl in.jsonl &&
	grep_err "^record-reuse: --from and --commit are the same commit: nothing to reuse\$" &&
	[ ! -e out.jsonl ]
'

test_expect_success 'record-reuse: IN missing, empty, unreadable, not JSON, refused, of another commit; OUT unwritable: OUT removed' '
	r="$BIN/record-reuse --from $O --commit $N" &&
	sh "$REC" b c m ns $O host cpu h "{}" 1 2 >in.jsonl && : >empty.jsonl && echo x >bad.jsonl &&
	sed "s/\"model\":106/\"model\":1.5/" in.jsonl >typed.jsonl &&
	expect_fail $r --to out.jsonl missing.jsonl &&
	grep_err "^record-reuse: records: missing.jsonl: No such file or directory\$" && [ ! -e out.jsonl ] &&
	for c in "empty.jsonl:records: empty.jsonl: no record: nothing to reuse" \
		"/proc/self/mem:records: /proc/self/mem: Input/output error" \
		"bad.jsonl:records: bad.jsonl:1: not one JSON value" \
		"typed.jsonl:records: typed.jsonl:1: field .cpu.model. is double, not an integer"; do
		echo old >out.jsonl && expect_fail $r --to out.jsonl "${c%%:*}" &&
		grep_err "^record-reuse: ${c#*:}\$" && [ ! -e out.jsonl ] || { echo "case: $c"; return 1; }
	done &&
	expect_fail "$BIN/record-reuse" --from $N --commit $O --to out.jsonl in.jsonl &&
	grep_err "^record-reuse: records: in.jsonl:1: a record of commit $O, not of --from $N\$" && [ ! -e out.jsonl ] &&
	expect_fail $r --to nodir/out.jsonl in.jsonl &&
	grep_err "^record-reuse: write: nodir/out.jsonl: No such file or directory\$" &&
	expect_fail $r --to /dev/full in.jsonl && grep_err "^record-reuse: write: /dev/full: No space left on device\$" &&
	[ -c /dev/full ]
'
test_expect_success 'record-reuse: the records of --commit, reused_from the commit first measured, kept through a second reuse; nothing else changes' '
	M=3333333333333333333333333333333333333333 &&
	{ sh "$REC" b c m ns $O host cpu h "{\"size\": 64}" 1 2 && sh "$REC" b d m ns $O host cpu h "{}" 3; } >in.jsonl &&
	"$BIN/record-reuse" --from $O --commit $N --to n.jsonl in.jsonl &&
	"$BIN/record-reuse" --from $N --commit $M --to m.jsonl n.jsonl &&
	python3 -c "import json, sys
a = [json.loads(l) for l in open(\"in.jsonl\")]
for f, c in ((\"n.jsonl\", \"$N\"), (\"m.jsonl\", \"$M\")):
    b = [json.loads(l) for l in open(f)]
    assert len(a) == len(b), f
    for x, y in zip(a, b):
        assert y.pop(\"commit\") == c and y.pop(\"reused_from\") == \"$O\", (f, y)
        x = dict(x)
        x.pop(\"commit\")
        assert x == y, (f, x, y)"
'
done_testing
