#!/bin/sh
# The error paths of the record reader (lib/record-read.c, lib/record-fields.c),
# the gate's acknowledgements (report/gate.c) and ci-report's arguments, through
# ci-report: every bad input is refused with exit 1 (2 for usage) and a
# message naming the file, line and field, and no report is written.  Also
# a report that cannot reach stdout (a full disk) is exit 1, not 0: it
# was exit 0, the error lost in the line-buffered stdout.
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

# refused PATTERN ARGS...: ci-report exits 1 with PATTERN on stderr, no r.json
refused() {
	p=$1
	shift
	rm -f r.json &&
	expect_fail "$REPORT" --json r.json "$@" && grep_err "$p" &&
	[ ! -e r.json ] && [ -z "$(ls -d .r.json.* 2>/dev/null)" ]
}

# edit PYTHON: ok.jsonl's record changed by PYTHON (on r), to f.jsonl
edit() {
	python3 -c "
import json, sys
r = json.loads(open(\"ok.jsonl\").read())
exec(sys.argv[1])
print(json.dumps(r))" "$1" "${2:-}" >f.jsonl
}

test_expect_success 'a path that cannot be opened: a missing file, a dangling .jsonl link, a read error' '
	refused "^ci-report: records: missing.jsonl: cannot open: No such file or directory\$" missing.jsonl &&
	mkdir d && rec $B 1 2 >d/a.jsonl && ln -s nowhere d/x.jsonl &&
	refused "^ci-report: records: d/x.jsonl: cannot open: No such file or directory\$" d &&
	refused "^ci-report: records: /proc/self/mem:0: read error: Input/output error\$" /proc/self/mem
'

test_expect_success 'a NUL byte in a line, a line cut short: refused by file and line' '
	{ rec $B 1 2; printf "{\"a\":1}\000x\n"; } >nul.jsonl &&
	refused "^ci-report: records: nul.jsonl:2: a NUL byte in the line: not a record\$" nul.jsonl &&
	rec $B 1 2 | cut -c1-40 >cut.jsonl &&
	refused "^ci-report: records: cut.jsonl:1: not JSON \(cut short\) at column [0-9]+: a line holds one record and nothing else\$" cut.jsonl
'

# params.preempted: what the clean-median of host claims (report/claims.c) reads
test_expect_success 'params.preempted not one count 0 or above a sample: refused by name' '
	rec $B 1 2 3 >ok.jsonl &&
	for bad in "\"x\"" "[0, 1]" "[0, 1, 2, 3]" "[0, -1, 0]" "[0, 1.5, 0]" "[0, \"1\", 0]" "[0, null, 0]"; do
		edit "r[\"params\"][\"preempted\"] = json.loads(sys.argv[2])" "$bad" &&
		refused "records: f.jsonl:1: field .params.preempted" f.jsonl || { echo "accepted: $bad"; return 1; }
	done &&
	edit "r[\"params\"][\"preempted\"] = [0, 2, 0]" x && "$REPORT" f.jsonl >/dev/null
'

test_expect_success 'schema, a required name, clock, an empty name, samples: each refused by name' '
	rec $B 1 2 >ok.jsonl &&
	edit "r[\"schema\"] = \"x86-copy-series/record/3\"" &&
	refused "records: f.jsonl:1: schema is .x86-copy-series/record/3., expected .x86-copy-series/record/2. \(or .x86-copy-series/record/1.\)\$" f.jsonl &&
	edit "del r[\"schema\"]" &&
	refused "records: f.jsonl:1: schema is .\(none\)., expected " f.jsonl &&
	edit "del r[\"unit\"]" && refused "records: f.jsonl:1: field .unit. is missing\$" f.jsonl &&
	edit "r[\"clock\"] = \"tsc\"" &&
	refused "records: f.jsonl:1: clock .tsc. is neither .wall. nor .icount.\$" f.jsonl &&
	edit "r[\"suite\"] = \"\"" &&
	refused "records: f.jsonl:1: field .suite. is empty: a name is never empty" f.jsonl &&
	edit "del r[\"samples\"]" &&
	refused "records: f.jsonl:1: field .samples. is missing, not an array of numbers\$" f.jsonl &&
	edit "r[\"samples\"] = {}" &&
	refused "records: f.jsonl:1: field .samples. is object, not an array of numbers\$" f.jsonl
'

test_expect_success 'build: a schema-2 bench-vm record without it, or with a field wrong, refused by name; schema 1 read as tinyconfig -Os' '
	sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms $B tcg cpu h "{\"ns_size\":1}" 10 >ok.jsonl &&
	"$REPORT" --json r.json ok.jsonl >out && grep -q "kernel tinyconfig -Os (records before builds were named)" out &&
	edit "r[\"schema\"] = \"x86-copy-series/record/2\"" &&
	refused "records: f.jsonl:1: a bench-vm record without .build.: which kernel build it measured is unknown" f.jsonl &&
	for bad in "del b[\"opt\"]" "b[\"hz\"] = 0" "b[\"hz\"] = \"1000\"" "b[\"bzimage_sha256\"] = \"abc\"" \
		"b[\"kconfig\"] = \"Distro X\"" "b[\"cc\"] = \"\""; do
		edit "r[\"schema\"] = \"x86-copy-series/record/2\"; b = json.load(open(\"$BUILD_ID\")); $bad; r[\"build\"] = b" &&
		refused "records: f.jsonl:1: field .build\.[a-z_0-9]*. " f.jsonl || { echo "accepted: $bad"; return 1; }
	done &&
	edit "r[\"schema\"] = \"x86-copy-series/record/2\"; r[\"build\"] = json.load(open(\"$BUILD_ID\"))" &&
	"$REPORT" --json r.json f.jsonl >out && grep -q "kernel tiny -Os HZ 1000, fragment 7587669c" out &&
	python3 -c "import json; b = json.load(open(\"r.json\"))[\"builds\"]; assert [x[\"name\"] for x in b] == [\"kernel tiny -Os HZ 1000, fragment 7587669c\"], b"
'

test_expect_success 'cpu, host_cpu and params fields of the wrong type: refused by name' '
	rec $B 1 2 >ok.jsonl &&
	edit "r[\"cpu\"][\"model_name\"] = 3" &&
	refused "records: f.jsonl:1: field .cpu.: model_name and vendor must be strings\$" f.jsonl &&
	edit "r[\"cpu\"][\"vendor\"] = [\"x\"]" &&
	refused "records: f.jsonl:1: field .cpu.: model_name and vendor must be strings\$" f.jsonl &&
	edit "r[\"host_cpu\"] = [1]" &&
	refused "records: f.jsonl:1: field .host_cpu. is array, not an object\$" f.jsonl &&
	edit "r[\"host_cpu\"] = {\"model_name\": 3}" &&
	refused "records: f.jsonl:1: field .host_cpu.: model_name and vendor must be strings\$" f.jsonl &&
	edit "r[\"cpu\"][\"family\"] = 6.5" &&
	refused "records: f.jsonl:1: field .cpu.family. is double, not an integer\$" f.jsonl &&
	edit "r[\"params\"][\"qemu_cpu\"] = \"\"" &&
	refused "records: f.jsonl:1: field .params.qemu_cpu. is empty, not a string of a name\$" f.jsonl &&
	edit "r[\"params\"][\"variant\"] = 5" &&
	refused "records: f.jsonl:1: field .params.variant. is int, not a string of a name\$" f.jsonl
'

test_expect_success 'a model record: its label, and functions of the wrong shape, refused by name' '
	rec $B 1 2 >ok.jsonl &&
	edit "r[\"model\"] = \"cache\"" &&
	refused "records: f.jsonl:1: model .cache. without its model_label\$" f.jsonl &&
	edit "r[\"functions\"] = [[], []]" &&
	refused "records: f.jsonl:1: field .functions. in a record of no model\$" f.jsonl &&
	m="r[\"model\"] = \"cache\"; r[\"model_label\"] = \"L\"; r[\"functions\"] =" &&
	edit "$m [[]]" &&
	refused "records: f.jsonl:1: field .functions. is not an array of one list per sample \(2\)\$" f.jsonl &&
	edit "$m {}" &&
	refused "records: f.jsonl:1: field .functions. is not an array of one list per sample \(2\)\$" f.jsonl &&
	edit "$m [[], 5]" &&
	refused "records: f.jsonl:1: field .functions\[1\]. is int, not an array\$" f.jsonl &&
	edit "$m [[], [{\"rank\": 1}]]" &&
	refused "records: f.jsonl:1: field .functions\[1\]\[0\]. has no name\$" f.jsonl &&
	edit "$m [[], [{\"name\": \"\"}]]" &&
	refused "records: f.jsonl:1: field .functions\[1\]\[0\]. has no name\$" f.jsonl &&
	edit "$m [[], [{\"name\": \"f\", \"loads\": \"7\"}]]" &&
	refused "records: f.jsonl:1: field .functions\[1\]\[0\].loads. is string, not a number\$" f.jsonl
'

# The reader holds every number as a double, and the report sums and
# squares them: an integer past 2^53 (json-c saturated a 30-digit one to
# 2^64-1 without a word: a mean of 3.7e18) or a magnitude past it
# (samples of +-1.7e308: a mean of -2.4e22 and a gate REGRESSION) is
# refused by file, line and field, wherever in the record it is.
test_expect_success 'a number past 2^53, integer or not, anywhere in a record: refused by file, line and field' '
	rec $B 1 2 >ok.jsonl &&
	for bad in "r[\"samples\"][1] = 123456789012345678901234567890" \
		"r[\"samples\"][1] = -(2**53 + 2)" "r[\"samples\"] = [1.7e308, -1.7e308]" \
		"r[\"samples\"][0] = 1e16" "r[\"params\"][\"size\"] = 2**64" \
		"r[\"cpu\"][\"family\"] = 2**63" "r[\"params\"][\"x\"] = {\"y\": [0, -1e300]}"; do
		edit "$bad" && refused "records: f.jsonl:1: field .[^ ]*. is .*, past 2\^53 \(9007199254740992\) in magnitude: " f.jsonl ||
			{ echo "accepted: $bad"; return 1; }
	done &&
	edit "r[\"samples\"] = [2**53, -(2**53), 0.5]" && "$REPORT" f.jsonl >/dev/null
'

# A string the report prints is one line of UTF-8: a unit with "\n" split
# a Markdown table row, one with the bytes \xff\xfe made report.json
# invalid UTF-8 (send's reader of CI's verdict failed on it).
test_expect_success 'a string with a control character or bytes that are not UTF-8, anywhere in a record: refused by file, line and field' '
	rec $B 1 2 >ok.jsonl &&
	for bad in "r[\"unit\"] = \"ms\\n\"" "r[\"host\"] = \"a\\tb\"" "r[\"case\"] = \"x\\u001b[2Jy\"" \
		"r[\"params\"][\"variant\"] = \"v\\u0000w\"" "r[\"cpu\"][\"flags\"][0] = \"e\\u0085\"" \
		"r[\"metric\"] = \"m\\u007f\"" "r[\"params\"][\"x\"] = [{\"y\": \"\\r\"}]"; do
		edit "$bad" && refused "records: f.jsonl:1: field .[^ ]*. has a control character \(byte [0-9]+\): " f.jsonl ||
			{ echo "accepted: $bad"; return 1; }
	done &&
	edit "r[\"params\"][\"a\\rb\"] = 1" &&
	refused "records: f.jsonl:1: a key of field .params. has a control character" f.jsonl &&
	rec $B 1 2 | sed "s/\"unit\":\"ns\"/\"unit\":\"n$(printf "\377\376")\"/" >f.jsonl &&
	refused "records: f.jsonl:1: field .unit. has a byte that is not UTF-8 \(byte 2\): " f.jsonl &&
	edit "r[\"host\"] = \"J\\u00f6rg \\u2014 \\ufffd\"" && "$REPORT" --json r.json f.jsonl >/dev/null &&
	python3 -c "import json; json.load(open(\"r.json\", encoding=\"utf-8\"))"
'

# Wide numbers are printed whole: a change of +1e47% was cut at 47
# characters (a 48-byte text), a mean in the lkp table at 24 columns.
test_expect_success 'wide numbers printed whole: a change of +1e47% in the text and Markdown reports' '
	{ rec $B 1e-45 1e-45; rec $H 1 1; } >w.jsonl && printf "%s\tbase\n%s\thead\n" $B $H >c.txt &&
	"$REPORT" --commits c.txt --markdown r.md w.jsonl >r.txt &&
	p=$(python3 -c "print(\"%+.1f%%\" % ((1.0 - 1e-45) / 1e-45 * 100))") && echo "$p" &&
	grep -qF -- "$p" r.txt && grep -qF -- "$p" r.md
'

test_expect_success 'a directory <commit>+<suffix> holds the records of that name only: another commit refused' '
	mkdir -p ci/$B+dirty && rec $H 1 2 >ci/$B+dirty/r.jsonl &&
	refused "records: ci/$B\+dirty/r.jsonl:1: a record of commit .$H. in the directory of $B\+dirty: copied" ci &&
	rec $B+dirty 1 2 >ci/$B+dirty/r.jsonl && "$REPORT" --json r.json ci 2>err && [ -s r.json ]
'

test_expect_success 'gate-ack: a missing file, a line without a reason, a short line; [!x] and []x] globs are fine' '
	{ rec $B 10 11 12; rec $H 10 11 12; } >r.jsonl &&
	refused "^ci-report: gate-ack: none.txt: cannot open: No such file or directory\$" --gate-pct 5 --gate-ack none.txt r.jsonl &&
	printf "222222222222 bench/*/ns_per_call 5   \n" >a.txt &&
	refused "^ci-report: gate-ack: a.txt:1: no reason given: say why the change is right\$" --gate-pct 5 --gate-ack a.txt r.jsonl &&
	printf "# why\n222222222222 bench/*/ns_per_call 5\n" >a.txt &&
	refused "^ci-report: gate-ack: a.txt:2: expected .COMMIT METRIC MAX-PCT REASON.\$" --gate-pct 5 --gate-ack a.txt r.jsonl &&
	printf "222222222222 bench/[!x]*/ns_per_call 5 why\n222222222222 bench/[]m]*/ns_per_call 5 why\n" >a.txt &&
	"$REPORT" --gate-pct 5 --gate-ack a.txt --json r.json r.jsonl >out 2>err &&
	grep -q "a.txt:1: 222222222222 bench/\[!x\]\*/ns_per_call (up to 5%): accepts no regression" out &&
	grep -q "a.txt:2: 222222222222 bench/\[\]m\]\*/ns_per_call (up to 5%): accepts no regression" out
'

test_expect_success 'usage errors (exit 2), --costs without a table (exit 1), a full stdout (exit 1)' '
	rec $B 10 11 12 >r.jsonl &&
	for args in "" "--bogus r.jsonl" "--alpha 1 r.jsonl" "--gate-pct 0x10 r.jsonl"; do
		rc=0 && "$REPORT" $args >out 2>err || rc=$? &&
		[ "$rc" = 2 ] && grep -q "^ci-report: usage: " err && [ ! -s out ] ||
			{ echo "args: $args: exit $rc"; cat err; return 1; }
	done &&
	refused "^ci-report: records: missing: cannot open: No such file or directory\$" --costs missing r.jsonl &&
	refused "^ci-report: costs: r.jsonl: no record of suite cost-table \(bench/costs.sh writes cost-table.jsonl\)\$" --costs r.jsonl r.jsonl &&
	rc=0 && "$REPORT" r.jsonl >/dev/full 2>err || rc=$? && cat err &&
	[ "$rc" = 1 ] && grep -q "^ci-report: write: stdout: No space left on device\$" err
'
test_expect_success 'an output that is a FIFO or a file where a directory goes: refused, left as it was, no file beside it' '
	rec $B 1 2 >r.jsonl && mkfifo fifo && : >plots &&
	expect_fail "$REPORT" --json fifo r.jsonl &&
	grep_err "^ci-report: output: fifo: exists and is not a regular file: not replaced" &&
	[ -p fifo ] && [ -z "$(ls fifo.* 2>/dev/null)" ] &&
	expect_fail "$REPORT" --plots plots r.jsonl &&
	grep_err "^ci-report: output: plots: exists and is not a directory: not replaced" &&
	[ -f plots ] && [ ! -s plots ] && [ -z "$(ls -d plots.* 2>/dev/null)" ]
'
done_testing
