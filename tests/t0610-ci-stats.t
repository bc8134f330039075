#!/bin/sh
# ci-report's statistics against references computed here independently:
# awk for mean, sd, median, Welch's t and df, a numerical integral of the
# t density for the p-value, textbook values (Welch's t-test example 1 of
# Wikipedia: |t| = 2.46, df = 24.99, p = 0.021; t(0.975, 4) = 2.776445).
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
need tool:ci-report
need cmd:python3

A="27.5 21.0 19.0 23.6 17.0 17.9 16.9 20.1 21.9 22.6 23.1 19.6 19.0 21.7 21.4"
B="27.1 22.0 20.8 23.4 23.4 23.5 25.8 22.0 24.8 20.2 21.9 22.1 22.9 20.5 24.4"
C=1111111111111111111111111111111111111111
D=2222222222222222222222222222222222222222

# welch_fixture: the two samples as records of two commits, and the report
# shellcheck disable=SC2086 # $A and $B: the samples, a word each
welch_fixture() {
	sh "$REC" bench x y ms "$C" host cpu h '{}' $A >r.jsonl &&
	sh "$REC" bench x y ms "$D" host cpu h '{}' $B >>r.jsonl &&
	printf '%s\tbase\n%s\tnext\n' $C $D >commits.txt &&
	"$REPORT" --commits commits.txt --json r.json r.jsonl >/dev/null
}

# jget EXPR...: values of the report's JSON, one a line (python3, never
# sed; one call, python3 starts slowly)
jget() {
	python3 -c 'import json,sys; r=json.load(open("r.json")); [print(eval(e)) for e in sys.argv[1:]]' "$@"
}

# close A B TOL: |A - B| <= TOL
close() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}

# awk_stats SAMPLES...: mean sd median
awk_stats() {
	printf '%s\n' "$@" | sort -g | awk '{ x[NR] = $1; s += $1 } END {
		m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		med = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2
		printf "%.10g %.10g %.10g\n", m, sqrt(v / (NR - 1)), med }'
}

test_expect_success 'mean, sd and median equal awk'"'"'s, n is the sample count' '
	welch_fixture &&
	set -- $(awk_stats $A) $(jget "r[\"rows\"][0][\"cells\"][0][\"mean\"]" \
		"r[\"rows\"][0][\"cells\"][0][\"sd\"]" "r[\"rows\"][0][\"cells\"][0][\"median\"]" \
		"r[\"rows\"][0][\"cells\"][0][\"n\"]") &&
	close "$4" "$1" 1e-9 && close "$5" "$2" 1e-9 && close "$6" "$3" 1e-9 && [ "$7" = 15 ]
'

test_expect_success 'an even count: the median is the mean of the middle two' '
	sh "$REC" bench x y ms $C host cpu h "{}" 4 1 3 10 >r.jsonl &&
	"$REPORT" --json r.json r.jsonl >/dev/null &&
	[ "$(jget "r[\"rows\"][0][\"cells\"][0][\"median\"]")" = 3.5 ]
'

test_expect_success 'Welch t and df equal awk'"'"'s and the textbook 2.46, 24.99 (sign: B - A)' '
	welch_fixture &&
	set -- $(printf "%s\n" $A | awk -v OFMT=%.17g "{ s += \$1; q += \$1 * \$1 } END { m = s / NR; print m, (q - NR * m * m) / (NR - 1), NR }") \
	       $(printf "%s\n" $B | awk -v OFMT=%.17g "{ s += \$1; q += \$1 * \$1 } END { m = s / NR; print m, (q - NR * m * m) / (NR - 1), NR }") &&
	ref=$(awk -v m1=$1 -v v1=$2 -v n1=$3 -v m2=$4 -v v2=$5 -v n2=$6 "BEGIN {
		a = v1 / n1; b = v2 / n2; printf \"%.10g %.10g\", (m2 - m1) / sqrt(a + b), (a + b) ^ 2 / (a * a / (n1 - 1) + b * b / (n2 - 1)) }") &&
	set -- $ref &&
	set -- $ref $(jget "r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"t\"]" \
		"r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"df\"]") &&
	t=$3 df=$4 &&
	close "$t" "$1" 1e-6 && close "$df" "$2" 1e-6 &&
	close "$t" 2.46 0.005 && close "$df" 24.99 0.01
'

test_expect_success 'the p-value equals a numerical integral of the t density, and the textbook 0.021' '
	welch_fixture &&
	set -- $(jget "abs(r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"t\"])" \
		"r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"df\"]" \
		"r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"p\"]" \
		"repr(r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"mark\"])") &&
	t=$1 df=$2 p=$3 mk=$4 &&
	ref=$(awk -v t="$t" -v nu="$df" "function f(x) { return (1 + x * x / nu) ^ (-(nu + 1) / 2) }
		BEGIN { # Simpson on [0, 200]: the tail beyond is below 1e-40
			n = 400000; h = 200 / n; tot = 0; tail = 0
			for (i = 0; i <= n; i++) {
				x = i * h; w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2)
				tot += w * f(x)
			}
			n2 = 400000; h2 = (200 - t) / n2
			for (i = 0; i <= n2; i++) {
				x = t + i * h2; w = (i == 0 || i == n2) ? 1 : (i % 2 ? 4 : 2)
				tail += w * f(x)
			}
			printf \"%.10g\", (tail * h2) / (tot * h) }") &&
	echo "p $p reference $ref" &&
	close "$p" "$ref" 1e-6 && close "$p" 0.021 0.0015 && [ "$mk" = "'"'"'*'"'"'" ]
'

test_expect_success 'the 95% CI is mean +- t(0.975, n-1) sd / sqrt(n), t(0.975, 4) = 2.776445' '
	sh "$REC" bench x y ms $C host cpu h "{}" 10 12 9 11 13 >r.jsonl &&
	"$REPORT" --json r.json r.jsonl >/dev/null &&
	set -- $(awk_stats 10 12 9 11 13) &&
	lo=$(awk -v m=$1 -v s=$2 "BEGIN { printf \"%.10g\", m - 2.776445 * s / sqrt(5) }") &&
	hi=$(awk -v m=$1 -v s=$2 "BEGIN { printf \"%.10g\", m + 2.776445 * s / sqrt(5) }") &&
	set -- $(jget "r[\"rows\"][0][\"cells\"][0][\"ci95\"][0]" "r[\"rows\"][0][\"cells\"][0][\"ci95\"][1]") &&
	close "$1" "$lo" 1e-5 && close "$2" "$hi" 1e-5
'

test_expect_success 'one sample: no sd, no CI, no test (null in JSON, not a made-up number)' '
	sh "$REC" bench x y ms $C host cpu h "{}" 5 >r.jsonl &&
	sh "$REC" bench x y ms $D host cpu h "{}" 6 >>r.jsonl &&
	"$REPORT" --json r.json r.jsonl >/dev/null &&
	set -- $(jget "r[\"rows\"][0][\"cells\"][0][\"sd\"]" "r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"p\"]" \
		"r[\"rows\"][0][\"cells\"][1][\"vs_parent\"][\"pct\"]") &&
	[ "$1" = None ] && [ "$2" = None ] && close "$3" 20 1e-9
'
done_testing
