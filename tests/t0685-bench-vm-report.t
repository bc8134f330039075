#!/bin/sh
# bench-vm-report as a view of the one reader and table: on the results
# sets it prints what those sets' own reports say; a field of the wrong
# type is an error naming the file, the line and the field (it was a
# json-c assertion or a NULL dereference, exit 134 or 139), a string
# sample is refused (it printed "0.00 ms"), the same file twice is one
# kernel, not a comparison of a run with itself; the records of two
# kernels in one file are refused (they were pooled into one column).
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/bench-vm-report
need tool:bench-vm-report
I=$TOP/results/2026-12-01-xeon-emerald-rapids-tcg-icount
W=$TOP/results/2026-11-30-xeon-emerald-rapids-tcg

test_expect_success 'the results sets: the same lines as their own reports' '
	"$REPORT" "$I/base.jsonl" "$I/head.jsonl" >r1 && diff -u "$I/report.txt" r1 &&
	"$REPORT" "$W/base.jsonl" "$W/head.jsonl" >r2 && diff -u "$W/report-max.txt" r2 &&
	"$REPORT" "$W/base-noerms.jsonl" "$W/head-noerms.jsonl" >r3 && diff -u "$W/report-noerms.txt" r3
'

# bad SED FIELD-PATTERN: base.jsonl with SED applied to its first line is
# refused, exit 1 (not a crash), naming the file, line 1 and the field
bad() {
	sed "1$1" "$I/base.jsonl" >b.jsonl &&
	expect_fail "$REPORT" b.jsonl "$I/head.jsonl" &&
	grep_err "^bench-vm-report: records: b.jsonl:1: $2" && [ ! -s "$SCRATCH/out" ]
}

test_expect_success 'a wrong type: refused with file, line and field, never a crash' '
	bad "s/\"samples\":\[1115.0\]/\"samples\":\"1115\"/" "field .samples. is string, not an array" &&
	bad "s/\"params\":{[^}]*}/\"params\":5/" "field .params. is int, not an object" &&
	bad "s/\"cpu\":{[^}]*}/\"cpu\":\"max\"/" "field .cpu. is string, not an object" &&
	bad "s/\"accel\":\"tcg\"/\"accel\":[\"tcg\"]/" "field .accel. is array, not a string" &&
	bad "s/\"ns_size\":[0-9.e+]*/\"ns_size\":\"100G\"/" "field .params.ns_size. is string, not a number"
'

test_expect_success 'string samples: refused, never "0.00 ms"' '
	sed "s/\"samples\":\[\([0-9.]*\)\]/\"samples\":[\"\1\"]/" "$I/base.jsonl" >s.jsonl &&
	expect_fail "$REPORT" s.jsonl &&
	grep_err "records: s.jsonl:1: sample 0 is string, not a number" && ! grep -q "0.00 ms" "$SCRATCH/out"
'

test_expect_success 'the same file twice: one kernel, no change of a run against itself' '
	"$REPORT" "$I/base.jsonl" "$I/base.jsonl" >r 2>err && cat err r &&
	[ "$(grep -c "^e9b351700f1f (kernel " r)" = 1 ] && ! grep -q "^Change " r &&
	grep -q "warning: records: .*base.jsonl: 18 record(s) read before .*counted once" err
'
test_expect_success 'two kernels in one file: refused, both named, nothing printed' '
	cat "$I/base.jsonl" "$I/head.jsonl" >both.jsonl &&
	expect_fail "$REPORT" both.jsonl &&
	grep_err "^bench-vm-report: records: both.jsonl:[0-9]* is of commit [0-9a-f]{12}, both.jsonl:1 of [0-9a-f]{12}: one file per kernel" &&
	[ ! -s "$SCRATCH/out" ]
'
done_testing
