#!/bin/sh
# The one reader of records (lib/record-read.c), through ci-report: a line
# holds one record and nothing else; NaN and infinities are refused; a
# field of the wrong type is an error naming it, never a crash or a 0; a
# record in another commit's directory is refused; the same record read
# twice counts once, with a warning.  Each of these was a defect: two
# records on a line or garbage after one were dropped (exit 0), a NaN
# sample aborted ci-report in GSL (exit 134), a params number written as
# a string was read as its leading digits, a record was counted under its
# own commit wherever it sat, and a file given twice doubled n.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
need tool:ci-report
B=1111111111111111111111111111111111111111
H=2222222222222222222222222222222222222222

# rec COMMIT SAMPLES...: a bench record
rec() {
	c=$1
	shift
	sh "$REC" bench memcpy-sweep/v/64 ns_per_call ns "$c" host cpu h '{"size":64}' "$@"
}

# refused FILE PATTERN: ci-report exits 1 (not a crash) naming FILE:LINE
refused() {
	rm -f r.json &&
	expect_fail "$REPORT" --json r.json "$1" && grep_err "$2" &&
	[ ! -e r.json ] && [ -z "$(ls -d .r.json.* 2>/dev/null)" ]
}

test_expect_success 'two records on one line, or anything after a record: refused, file:line' '
	{ rec $B 1 2 3 | tr -d "\n"; rec $B 4 5 6; } >two.jsonl &&
	refused two.jsonl "ci-report: records: two.jsonl:1: not JSON at column [0-9]+: a line holds one record and nothing else" &&
	{ rec $B 1 2 3; rec $B 1 2 4 | sed "s/\$/ trailing/"; } >junk.jsonl &&
	refused junk.jsonl "ci-report: records: junk.jsonl:2: not JSON at column [0-9]+"
'

test_expect_success 'NaN, Infinity and 1e999 samples: refused with file:line and field, never a GSL abort' '
	rec $B 1 NaN 3 >nan.jsonl &&
	refused nan.jsonl "records: nan.jsonl:1: field .samples\[1\]. is NaN or infinite" &&
	{ rec $B 1 2 3; rec $H 1 -Infinity 3; } >inf.jsonl &&
	refused inf.jsonl "records: inf.jsonl:2: field .samples\[1\]. is NaN or infinite" &&
	rec $B 1 1e999 >big.jsonl &&
	refused big.jsonl "records: big.jsonl:1: field .samples\[1\]. is NaN or infinite"
'

test_expect_success 'a field of the wrong type is named: samples, params, cpu, clock' '
	rec $B 1 2 | sed "s/\"samples\":\[1,2\]/\"samples\":[\"1\",2]/" >s.jsonl &&
	refused s.jsonl "records: s.jsonl:1: sample 0 is string, not a number" &&
	rec $B 1 2 | sed "s/\"size\":64/\"size\":\"64\"/" >p.jsonl &&
	refused p.jsonl "records: p.jsonl:1: field .params.size. is string, not a number" &&
	rec $B 1 2 | sed "s/\"model\":106/\"model\":\"106\"/" >c.jsonl &&
	refused c.jsonl "records: c.jsonl:1: field .cpu.model. is string, not an integer" &&
	rec $B 1 2 | sed "s/\"accel\":\"host\"/\"accel\":\"host\",\"clock\":7/" >k.jsonl &&
	refused k.jsonl "records: k.jsonl:1: field .clock. is int, not a string" &&
	rec $B 1 2 | sed "s/\"params\":{\"size\":64}/\"params\":[64]/" >a.jsonl &&
	refused a.jsonl "records: a.jsonl:1: field .params. is array, not an object"
'

test_expect_success 'every field the reader types, of the wrong type, is named: each string, digest, cpu.flags' '
	rec $B 1 2 >ok.jsonl &&
	for f in suite case metric unit commit kernel accel clock host time error model model_label; do
		python3 -c "
import json, sys
r = json.loads(open(\"ok.jsonl\").read())
r[sys.argv[1]] = 7
print(json.dumps(r))" $f >f.jsonl &&
		refused f.jsonl "records: f.jsonl:1: field .$f. is int, not a string" ||
			{ echo "field $f"; return 1; }
	done &&
	rec $B 1 2 | sed "s/\"params\"/\"digest\":[\"ab\",3],\"params\"/" >d.jsonl &&
	refused d.jsonl "records: d.jsonl:1: field .digest\[1\]. is not a string" &&
	rec $B 1 2 | sed "s/\"params\"/\"digest\":\"ab\",\"params\"/" >d2.jsonl &&
	refused d2.jsonl "records: d2.jsonl:1: field .digest. is string, not an array of strings" &&
	rec $B 1 2 | sed "s/\"flags\":\[\"erms\",\"clwb\"\]/\"flags\":[\"erms\",1]/" >g.jsonl &&
	refused g.jsonl "records: g.jsonl:1: field .cpu.flags\[1\]. is not a string" &&
	rec $B 1 2 | sed "s/\"flags\":\[\"erms\",\"clwb\"\]/\"flags\":\"erms\"/" >g2.jsonl &&
	refused g2.jsonl "records: g2.jsonl:1: field .cpu.flags. is string, not an array" &&
	"$REPORT" ok.jsonl >/dev/null
'

test_expect_success 'a record in the directory of another commit: refused, the way out named' '
	mkdir -p ci/$B/bench ci/$H/bench &&
	rec $B 1 2 3 >ci/$B/bench/records.jsonl && rec $B 4 5 6 >ci/$H/bench/records.jsonl &&
	refused ci "records: ci/$H/bench/records.jsonl:1: a record of commit .$B. in the directory of $H: copied or written to the wrong place"
'

test_expect_success 'the same file twice: every record counted once, with a warning naming both places' '
	{ rec $B 10 11 12; rec $H 20 21 22; } >r.jsonl &&
	"$REPORT" --json r.json r.jsonl r.jsonl 2>err && cat err &&
	grep -q "ci-report: warning: records: r.jsonl: 2 record(s) read before (line 1 is r.jsonl:1; given twice, or a copy): counted once" err &&
	[ "$(grep -c "counted once" err)" = 1 ] &&
	python3 -c "import json; r = json.load(open(\"r.json\")); assert [c[\"n\"] for c in r[\"rows\"][0][\"cells\"]] == [3, 3], r[\"rows\"][0][\"cells\"]"
'

test_expect_success 'a copy of a commit directory: counted once; two runs of one commit: both counted' '
	mkdir -p a/ci/$B b/ci/$B && rec $B 10 11 12 >a/ci/$B/records.jsonl &&
	cp a/ci/$B/records.jsonl b/ci/$B/records.jsonl &&
	"$REPORT" --json r.json a b 2>err && grep -q "counted once" err &&
	python3 -c "import json; r = json.load(open(\"r.json\")); assert r[\"rows\"][0][\"cells\"][0][\"n\"] == 3" &&
	rec $B 10 11 13 >b/ci/$B/records.jsonl &&
	"$REPORT" --json r.json a b 2>err && ! grep -q "counted once" err &&
	python3 -c "import json; r = json.load(open(\"r.json\")); assert r[\"rows\"][0][\"cells\"][0][\"n\"] == 6"
'

test_expect_success 'blank lines are no records; a record not an object is named' '
	{ echo; rec $B 1 2; echo "   "; } >blank.jsonl &&
	"$REPORT" --json r.json blank.jsonl &&
	echo "[1, 2]" >arr.jsonl &&
	refused arr.jsonl "records: arr.jsonl:1: a JSON array, not a record"
'
done_testing
