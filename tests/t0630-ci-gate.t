#!/bin/sh
# The regression gate both ways: a commit significantly worse than its
# parent beyond GATE_PCT fails and is named; a smaller, an insignificant
# or an improving change passes; --gate-only leaves other metrics out;
# --gate-pct-tcg sets TCG wall-clock runs their own threshold; exact
# (icount) rows are decided by the size of the change against
# --gate-pct-icount, without a test or a p-value; a maintainer's
# acknowledgement (--gate-ack) accepts a flagged change of one commit and
# metric, with its reason, and nothing else; each bound at its edge (a
# change of exactly the threshold passes, an ack's max-pct is inclusive)
# and each commit against its parent, not the base.  Each fixture's premise (the
# change and its significance) is checked from the report's JSON, so a
# test fails when its title is false.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
need tool:ci-report
P=1111111111111111111111111111111111111111
C=2222222222222222222222222222222222222222

commits() {
	printf '%s\tparent\n%s\tx86: the commit\n' $P $C >commits.txt
}

# pair MEAN_PARENT SD_PARENT MEAN_COMMIT SD_COMMIT [UNIT [ACCEL]]
pair() {
	commits &&
	sh "$REC" --normal "$1" "$2" 20 7 bench-vm nd_pmem/rebind memmap_init_ms "${5:-ms}" $P "${6:-tcg}" cpu h '{}' >r.jsonl &&
	sh "$REC" --normal "$3" "$4" 20 9 bench-vm nd_pmem/rebind memmap_init_ms "${5:-ms}" $C "${6:-tcg}" cpu h '{}' >>r.jsonl
}

# samples COMMIT VALUE...: a record of those samples (TCG, wall clock)
samples() {
	c=$1
	shift
	sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms "$c" tcg cpu h '{}' "$@"
}

# icount: the records on stdin as a TCG guest's under -icount
icount() {
	sed 's/"accel":"tcg"/"accel":"tcg","clock":"icount"/'
}

# exact PARENT COMMIT: 30 samples each of one value, clock icount
exact() {
	# shellcheck disable=SC2046 # one sample a word
	commits &&
	samples $P $(seq 30 | sed "s/.*/$1/") | icount >r.jsonl &&
	samples $C $(seq 30 | sed "s/.*/$2/") | icount >>r.jsonl
}

# vs_parent KEY: the commit's vs_parent KEY in r.json (the report's JSON)
vs_parent() {
	python3 -c 'import json, sys
r = json.load(open("r.json"))
print([c for c in r["rows"][0]["cells"] if c["column"] == sys.argv[1]][0]["vs_parent"][sys.argv[2]])' $C "$1"
}

# is EXPR: an awk condition over $1 (a number) holds
is() {
	v=$1
	shift
	awk -v x="$v" "BEGIN { exit !($*) }" || { echo "not true of $v: $*"; return 1; }
}

test_expect_success '20% slower with small noise: exit 1, the commit, metric and rule named' '
	pair 100 2 120 2 &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --json r.json r.jsonl &&
	is "$(vs_parent pct)" "x > 18 && x < 22" && is "$(vs_parent p)" "x < 0.05" &&
	grep_err "gate: 222222222222 x86: the commit: bench-vm.nd_pmem/rebind.memmap_init_ms .* is (19|2[0-9])\.[0-9]% worse than in the parent 111111111111" &&
	grep_err "Welch.s t-test .*: p <0.0001 < 0.05, .* over the 5% threshold" &&
	grep_err "1 regression"
'

test_expect_success '3% slower, significant, under a 5% threshold: passes' '
	pair 100 1 103 1 && "$REPORT" --commits commits.txt --gate-pct 5 --json r.json r.jsonl >out &&
	is "$(vs_parent pct)" "x > 2 && x < 4" && is "$(vs_parent p)" "x < 0.05" &&
	grep -q "memmap_init_ms .*: +[23]\.[0-9]% vs parent: .*within the 5% threshold: pass$" out
'

# The fixture is exact: means 100 and 120 (20% slower), sd 82 each, n 20.
test_expect_success '20% slower but noise makes it insignificant: passes' '
	commits &&
	samples $P $(seq 10 | sed "s/.*/20 180/") >r.jsonl &&
	samples $C $(seq 10 | sed "s/.*/40 200/") >>r.jsonl &&
	"$REPORT" --commits commits.txt --gate-pct 5 --json r.json r.jsonl >out &&
	is "$(vs_parent pct)" "x > 19.999 && x < 20.001" && is "$(vs_parent p)" "x > 0.05" &&
	grep -q "+20.0% vs parent: Welch.s t-test .*: p 0\.[0-9]* >= 0.05, .*: pass$" out
'

test_expect_success 'faster (ms) passes; lower bandwidth (GB/s) is worse and fails' '
	pair 100 2 80 2 && "$REPORT" --commits commits.txt --gate-pct 5 --json r.json r.jsonl >out &&
	is "$(vs_parent pct)" "x < -18" &&
	grep -q "p <0.0001 < 0.05, not worse (-[12][0-9]\.[0-9]%), the threshold 5%: pass$" out &&
	pair 100 2 80 2 GB/s && expect_fail "$REPORT" --commits commits.txt --gate-pct 5 r.jsonl &&
	grep_err "(1[89]|2[0-9])\.[0-9]% worse"
'

test_expect_success '--gate-only that does not match the metric leaves it out' '
	pair 100 2 120 2 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-only "bench/*" r.jsonl >out &&
	grep -q "^  nothing gated$" out &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-only "bench-vm/*/rebind/memmap_init_ms" r.jsonl
'

test_expect_success '--gate-pct-tcg: 20% slower passes under TCG at 25, fails at 15 and on KVM' '
	pair 100 2 120 2 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 --markdown r.md r.jsonl >/dev/null &&
	grep -q "by more than 5% (TCG wall clock: 25%) with p < 0.05" r.md &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 15 r.jsonl &&
	grep_err "over the 15% threshold" &&
	pair 100 2 120 2 ms kvm &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 r.jsonl &&
	grep_err "over the 5% threshold"
'

# every output of a report: no NaN, no p-value for the exact row
no_nan() {
	! grep -il nan r.txt r.md r.json err 2>/dev/null &&
	! grep "memmap_init_ms" r.txt | grep -q "p [0-9<]"
}

test_expect_success 'icount rows: 2% slower fails by the exact rule at 1%, without a test or a NaN' '
	exact 1115 1137.3 &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 --gate-pct-icount 1 \
		--markdown r.md --json r.json r.jsonl && cp out r.txt &&
	is "$(vs_parent pct)" "x > 1.999 && x < 2.001" && [ "$(vs_parent p)" = None ] && [ "$(vs_parent rule)" = exact ] &&
	grep_err "is 2\.0% worse than in the parent 111111111111 \(exact rule \(tcg-icount: same figures every boot, no test\): \+2\.0% worse, over the 1% threshold\)" &&
	grep -q "tcg-icount rows (emulated instructions at 1 ns each, not hardware time: exact, the same figures every boot): by more than 1%, without a test" r.md &&
	grep -q "| exact rule (tcg-icount: .* | REGRESSION |" r.md &&
	grep -q "\[tcg-icount, cpu, kernel tinyconfig -Os (records before builds were named)\]" r.txt && no_nan
'

test_expect_success 'icount rows: 0.5% slower passes; --gate-pct-icount 3 lets 2% pass' '
	exact 1115 1120.575 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --markdown r.md --json r.json r.jsonl >r.txt 2>err &&
	is "$(vs_parent pct)" "x > 0.499 && x < 0.501" && [ "$(vs_parent rule)" = exact ] &&
	grep -q "+0.5% worse, within the 1% threshold: pass$" r.txt && no_nan &&
	exact 1115 1137.3 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 3 r.jsonl >r.txt 2>err &&
	grep -q "+2.0% worse, within the 3% threshold: pass$" r.txt
'

test_expect_success 'a TCG wall-clock row keeps its own rule: 2% slower with noise passes at 25%, constant samples by size' '
	pair 100 1 102 1 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 --gate-pct-icount 1 --json r.json r.jsonl >r.txt &&
	[ "$(vs_parent rule)" = welch ] && is "$(vs_parent p)" "x < 0.05" &&
	grep -q "Welch.s t-test (TCG wall clock): p .* within the 25% threshold: pass$" r.txt &&
	commits && samples $P 100 100 100 >r.jsonl && samples $C 130 130 130 >>r.jsonl &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-tcg 25 --json r.json r.jsonl &&
	[ "$(vs_parent rule)" = constant ] && [ "$(vs_parent p)" = None ] &&
	grep_err "size rule \(sd 0 on both sides, no test; TCG wall clock\): \+30\.0% worse, over the 25% threshold"
'

test_expect_success 'an acknowledgement accepts its commit and metric up to its change, with its reason; nothing else' '
	exact 1115 3345 &&
	printf "# accepted\n%s bench-vm/*/rebind/memmap_init_ms 250 non-temporal copies out of line: 3x the emulated work, right\n" \
		222222222222 >ack.txt &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt --markdown r.md --json r.json r.jsonl >r.txt 2>err &&
	cat err && grep -q "is 200\.0% worse .*: accepted by ack.txt:2 (up to 250% worse): non-temporal copies out of line" err &&
	grep -q "+200.0% vs parent: exact rule .*: accepted by ack.txt:2" r.txt &&
	grep -q "REGRESSION, accepted (ack.txt:2)" r.txt &&
	grep -q "| accepted by ack.txt:2 (up to 250% worse): non-temporal copies out of line: 3x the emulated work, right |" r.md &&
	python3 -c "import json; r = json.load(open(\"r.json\")); c = r[\"rows\"][0][\"cells\"][1]; assert c[\"accepted\"][\"line\"] == 2 and c[\"regression_pct\"] == 200, c" &&
	exact 1115 4014 &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl &&
	grep_err "is 260\.0% worse" && grep -q "ack.txt:2: 222222222222 .*accepts no regression of this report" out &&
	exact 1115 3345 && sed -i "s/^222222222222 bench-vm/111111111111 bench-vm/" ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl &&
	sed -i "s/^111111111111 bench-vm[^ ]*/222222222222 bench-vm\/*\/first\/memmap_init_ms/" ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl
'

test_expect_success 'a malformed acknowledgement is refused with its file and line' '
	exact 1115 3345 &&
	printf "2222 bench-vm/x 10 too short an id\n" >ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl &&
	grep_err "gate-ack: ack.txt:1: .2222. is not a commit id of 12 to 40 hex digits" &&
	printf "222222222222 bench-vm/x 10\n" >ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl &&
	grep_err "gate-ack: ack.txt:1: expected .COMMIT METRIC MAX-PCT REASON." &&
	printf "222222222222 bench-vm/x lots why\n" >ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt r.jsonl &&
	grep_err "gate-ack: ack.txt:1: .lots. is not a percent above 0"
'
test_expect_success 'the edges: exactly the threshold passes, a hair over fails; an ack up to exactly its max-pct; each commit against its parent, never the base' '
	# 100 -> 150 is +50% exactly in binary: the threshold is strict
	exact 100 150 &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 50 --json r.json r.jsonl >r.txt 2>err &&
	[ "$(vs_parent pct)" = 50.0 ] && grep -q "+50.0% worse, within the 50% threshold: pass$" r.txt &&
	exact 100 150.01 &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 50 r.jsonl &&
	# an ack of exactly the change accepts it; a hair less does not
	exact 100 150 &&
	printf "%s bench-vm/*/rebind/memmap_init_ms 50 the change, to the figure\n" 222222222222 >ack.txt &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 25 --gate-ack ack.txt r.jsonl >r.txt 2>err &&
	grep -q "accepted by ack.txt:1 (up to 50% worse)" err &&
	sed -i "s/ 50 the change/ 49.99 the change/" ack.txt &&
	expect_fail "$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 25 --gate-ack ack.txt r.jsonl &&
	# three commits: the second doubles (acknowledged), the third keeps
	# it: against its parent +0%, against the base it would be +100%
	D=3333333333333333333333333333333333333333 &&
	printf "%s\tbase\n%s\tx86: doubles\n%s\tx86: keeps\n" $P $C $D >commits.txt &&
	# shellcheck disable=SC2046 # one sample a word
	{ samples $P $(seq 30 | sed "s/.*/100/") && samples $C $(seq 30 | sed "s/.*/200/") &&
	  samples $D $(seq 30 | sed "s/.*/200/"); } | icount >r.jsonl &&
	printf "%s bench-vm/*/rebind/memmap_init_ms 100 doubles on purpose\n" 222222222222 >ack.txt &&
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-pct-icount 1 --gate-ack ack.txt --json r.json r.jsonl >r.txt 2>err &&
	cat err && grep -q "is 100\.0% worse .*accepted by ack.txt:1" err && ! grep -q "333333333333.* worse" err &&
	python3 -c "import json; r = json.load(open(\"r.json\")); c = r[\"rows\"][0][\"cells\"][2]; \
		assert c[\"column\"] == \"$D\" and c[\"vs_parent\"][\"pct\"] == 0, c"
'
done_testing
