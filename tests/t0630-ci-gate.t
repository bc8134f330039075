#!/bin/sh
# The regression gate both ways: a commit significantly worse than its
# parent beyond GATE_PCT fails and is named; a smaller, an insignificant
# or an improving change passes; --gate-only leaves other metrics out;
# --gate-pct-tcg sets TCG runs their own threshold.
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
[ -x "$REPORT" ] || bail "$REPORT is not built: run 'make tools'"
plan 6
P=1111111111111111111111111111111111111111
C=2222222222222222222222222222222222222222

# pair MEAN_PARENT SD_PARENT MEAN_COMMIT SD_COMMIT [UNIT [ACCEL]]
pair() {
	printf '%s\tparent\n%s\tx86: the commit\n' $P $C >commits.txt &&
	sh "$REC" --normal "$1" "$2" 20 7 bench-vm nd_pmem/rebind memmap_init_ms "${5:-ms}" $P "${6:-tcg}" cpu h '{}' >r.jsonl &&
	sh "$REC" --normal "$3" "$4" 20 9 bench-vm nd_pmem/rebind memmap_init_ms "${5:-ms}" $C "${6:-tcg}" cpu h '{}' >>r.jsonl
}

test_expect_success '20% slower with small noise: exit 1, the commit and metric named' '
	pair 100 2 120 2 &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl &&
	grep_err "gate: 222222222222 x86: the commit: bench-vm.nd_pmem/rebind.memmap_init_ms .* is (19|2[0-9])\.[0-9]% worse than in the parent 111111111111" &&
	grep_err "1 regression"
'

test_expect_success '3% slower, significant, under a 5% threshold: passes' '
	pair 100 1 103 1 && "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl >/dev/null
'

test_expect_success '20% slower but noise makes it insignificant: passes' '
	pair 100 80 120 80 && "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl >/dev/null
'

test_expect_success 'faster (ms) passes; lower bandwidth (GB/s) is worse and fails' '
	pair 100 2 80 2 && "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl >/dev/null &&
	pair 100 2 80 2 GB/s && expect_fail "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl &&
	grep_err "(1[89]|2[0-9])\.[0-9]% worse"
'

test_expect_success '--gate-only that does not match the metric leaves it out' '
	pair 100 2 120 2 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-only "bench/*" r.jsonl >/dev/null &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-only "bench-vm/*/rebind/memmap_init_ms" r.jsonl
'
test_expect_success '--gate-pct-tcg: 20% slower passes under TCG at 25, fails at 15 and on KVM' '
	pair 100 2 120 2 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 --markdown r.md r.jsonl >/dev/null &&
	grep -q "more than 5% (TCG: 25%)" r.md &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 15 r.jsonl &&
	grep_err "over the 15% threshold" &&
	pair 100 2 120 2 ms kvm &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 r.jsonl &&
	grep_err "over the 5% threshold"
'
done_testing
