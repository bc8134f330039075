#!/bin/sh
# lib/stats.c against references made here without GSL: the median's
# distribution-free 95% interval [x(j), x(n+1-j)] against the exact
# binomial sums of awk (integers: exact for these n) and against the
# published table of those ranks; the mean's 95% interval against
# textbook quantiles t(0.975, df); median, mean and sd against awk; the
# edges n = 0, 1, 2 and refused samples; stats_clean()'s rule, at least
# max(3, n / 3) unpreempted samples, at each edge and one past it.  A
# small C program prints what stats_summary() and stats_clean() say;
# t0610 tests the same numbers through ci-report.
# test-parallel: its scratch directories and out/test/stats-reference
. "$(dirname "$0")/lib.sh"
need cmd:gcc

D=$TEST_OUT/stats-reference
mkdir -p "$D" || bail "cannot create $D"
cat >"$D/driver.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

/* driver clean X[p]...: rc used median (X with a p: preempted) */
static int clean(int argc, char **argv)
{
	double *x = calloc(argc, sizeof(*x));
	long *pre = calloc(argc, sizeof(*pre));
	size_t used = 0;
	struct stats s;
	char *end;
	int i, rc;

	if (!x || !pre)
		return 1;
	for (i = 0; i < argc; i++) {
		x[i] = strtod(argv[i], &end);
		pre[i] = *end == 'p';
	}
	rc = stats_clean(x, pre, argc, &s, &used);
	printf("%d %zu %.17g\n", rc, used, s.median);
	free(x);
	free(pre);
	return 0;
}

/* driver X...: n median lo hi exact mean sd mean_lo mean_hi */
int main(int argc, char **argv)
{
	double *x;
	struct stats s;
	int i;

	if (argc > 1 && !strcmp(argv[1], "clean"))
		return clean(argc - 2, argv + 2);
	x = calloc(argc, sizeof(*x));
	if (!x)
		return 1;
	for (i = 1; i < argc; i++)
		x[i - 1] = strtod(argv[i], NULL);
	if (stats_summary(x, argc - 1, &s)) {
		printf("refused errno %s\n", errno == EDOM ? "EDOM" : "other");
		free(x);
		return 1;
	}
	printf("%zu %.17g %.17g %.17g %d %.17g %.17g %.17g %.17g\n", s.n, s.median,
	       s.lo, s.hi, s.exact, s.mean, s.sd, s.mean_lo, s.mean_hi);
	free(x);
	return 0;
}
C
# built as the tools in $BIN were (their cflags file: the sanitizers of
# make test, or make coverage's --coverage), else with the sanitizers
CC_FLAGS=$(cat "$BIN/../cflags" 2>/dev/null) ||
	CC_FLAGS="gcc -O2 -g -Wall -Wextra -Werror -std=gnu11 -fsanitize=address,undefined -fsanitize-undefined-trap-on-error -fno-omit-frame-pointer"
# shellcheck disable=SC2086 # the compiler and its flags, a word each
(cd "$D" && $CC_FLAGS -I"$TOP/lib" -o driver driver.c "$TOP/lib/stats.c" \
	-lgsl -lgslcblas -lm) >"$D/cc.log" 2>&1 ||
	bail "cannot build the stats driver: $(cat "$D/cc.log")"
DRIVER=$D/driver

# rank N: j, the largest k <= N/2 with P(Binomial(N, 1/2) <= k - 1) <=
# 2.5%, by integer sums (C(N, i) and 2^N are exact in a double for N <= 53)
rank() {
	awk -v n="$1" 'BEGIN {
		c = 1; cdf = 0; j = 0
		for (k = 1; k <= int(n / 2); k++) {
			cdf += c			# adds C(n, k - 1)
			c = c * (n - k + 1) / k		# C(n, k)
			if (cdf * 40 <= 2 ^ n)		# cdf / 2^n <= 1/40
				j = k
		}
		print j }'
}

# squares N: the samples 1, 4, 9, ..., N^2 in descending order (skewed,
# distinct, unsorted): x(k) = k^2
squares() {
	awk -v n="$1" 'BEGIN { for (k = n; k >= 1; k--) printf "%d ", k * k }'
}

# close A B TOL: |A - B| <= TOL
close() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}

test_expect_success 'the median interval equals the exact binomial ranks, n = 1..60' '
	for n in $(seq 1 60); do
		j=$(rank $n) &&
		# shellcheck disable=SC2046 # the samples, a word each
		set -- $("$DRIVER" $(squares $n)) &&
		if [ "$j" = 0 ]; then
			want="$n 1 $((n * n)) 0"	# no interval: [min, max], not exact
		else
			want="$n $((j * j)) $(((n + 1 - j) * (n + 1 - j))) 1"
		fi &&
		echo "n $n j $j: got $1 $3 $4 $5, want $want" &&
		[ "$1 $3 $4 $5" = "$want" ] || exit 1
	done
'

# The ranks of the 95% interval of the median (a table of the binomial
# distribution with p = 1/2, e.g. Conover, Practical Nonparametric
# Statistics, or Altman et al., Statistics with Confidence, table 18.4):
# n = 6..8 -> x(1)..x(n), 9..11 -> 2, 12..14 -> 3, 15..16 -> 4, 17..19 -> 5,
# 20..22 -> 6, 23..24 -> 7, 25..27 -> 8, 28..29 -> 9, 30..32 -> 10; n <= 5
# has none.
test_expect_success 'the median ranks equal the published table (a 90% interval would not)' '
	for nj in 2:0 5:0 6:1 8:1 9:2 11:2 12:3 14:3 15:4 16:4 17:5 19:5 20:6 22:6 \
		23:7 24:7 25:8 27:8 28:9 29:9 30:10 32:10; do
		n=${nj%:*} j=${nj#*:} &&
		[ "$(rank $n)" = "$j" ] &&
		# shellcheck disable=SC2046 # the samples, a word each
		set -- $("$DRIVER" $(squares $n)) &&
		if [ "$j" = 0 ]; then want="1 $((n * n)) 0"; else
			want="$((j * j)) $(((n + 1 - j) * (n + 1 - j))) 1"; fi &&
		echo "n $n: $3 $4 $5, want $want" && [ "$3 $4 $5" = "$want" ] || exit 1
	done
'

# t(0.975, df), four decimals, from the printed tables
test_expect_success 'the mean interval is mean +- t(0.975, n-1) sd / sqrt(n), textbook t' '
	for nt in 2:12.7062 3:4.3027 4:3.1824 5:2.7764 6:2.5706 10:2.2622 20:2.0930 \
		30:2.0452 61:2.0003; do
		n=${nt%:*} t=${nt#*:} &&
		# shellcheck disable=SC2046 # the samples, a word each
		set -- $("$DRIVER" $(squares $n)) &&
		ref=$(squares $n | tr " " "\n" | awk -v t=$t -v OFMT=%.17g "NF { x[++k] = \$1; s += \$1 }
			END { m = s / k; for (i = 1; i <= k; i++) v += (x[i] - m) ^ 2
				sd = sqrt(v / (k - 1)); h = t * sd / sqrt(k)
				print m, sd, m - h, m + h, h }") &&
		echo "n $n: got $6 $7 $8 $9, want $ref" &&
		set -- "$@" $ref &&
		h=${14} &&
		close "$6" "${10}" 1e-9 && close "$7" "${11}" 1e-9 &&
		close "$8" "${12}" "$(awk -v h="$h" "BEGIN { print h * 5e-5 }")" &&
		close "$9" "${13}" "$(awk -v h="$h" "BEGIN { print h * 5e-5 }")" || exit 1
	done
'

test_expect_success 'the median is the middle sample, or the mean of the middle two' '
	[ "$("$DRIVER" 9 1 5 | cut -d" " -f2)" = 5 ] &&
	[ "$("$DRIVER" 4 1 3 10 | cut -d" " -f2)" = 3.5 ] &&
	[ "$("$DRIVER" 2 2 2 7 2 | cut -d" " -f2-5)" = "2 2 7 0" ] &&
	[ "$("$DRIVER" 3 1 2 3 1 2 3 | cut -d" " -f2-5)" = "2 1 3 1" ]
'

test_expect_success 'n = 0, 1, 2: what can be computed, NaN for the rest' '
	[ "$("$DRIVER")" = "0 nan nan nan 0 nan nan nan nan" ] &&
	[ "$("$DRIVER" 4)" = "1 4 4 4 0 4 nan nan nan" ] &&
	set -- $("$DRIVER" 1 3) &&
	[ "$1 $2 $3 $4 $5 $6" = "2 2 1 3 0 2" ] && close "$7" 1.4142135623730951 1e-12 &&
	close "$8" "$(awk "BEGIN { print 2 - 12.7062 }")" 1e-3 &&
	close "$9" "$(awk "BEGIN { print 2 + 12.7062 }")" 1e-3
'

test_expect_success 'a NaN or infinite sample is refused (EDOM), never summarised' '
	for bad in nan inf -inf; do
		rc=0 && "$DRIVER" 1 "$bad" 3 >out || rc=$? &&
		cat out && [ $rc = 1 ] && grep -qx "refused errno EDOM" out || exit 1
	done
'
# cleanrun U P: U unpreempted samples 1..U, then P preempted ones of 100
# each; prints stats_clean()'s "rc used median"
cleanrun() {
	# shellcheck disable=SC2046 # samples, a word each
	"$DRIVER" clean $(awk -v u="$1" -v p="$2" 'BEGIN { for (i = 1; i <= u; i++) printf "%d ", i
		for (i = 0; i < p; i++) printf "100p " }')
}

test_expect_success 'stats_clean: the unpreempted samples when there are max(3, n / 3) of them, at each edge and one past it' '
	[ "$(cleanrun 3 0)" = "0 3 2" ] && [ "$(cleanrun 2 0)" = "1 2 1.5" ] &&
	[ "$(cleanrun 3 6)" = "0 3 2" ] && [ "$(cleanrun 2 4)" = "1 2 100" ] &&
	[ "$(cleanrun 4 8)" = "0 4 2.5" ] && [ "$(cleanrun 3 9)" = "1 3 100" ] &&
	[ "$(cleanrun 5 10)" = "0 5 3" ] && [ "$(cleanrun 4 11)" = "1 4 100" ] &&
	# n / 3 rounds down: 4 of 14 (14 / 3 = 4) is enough
	[ "$(cleanrun 4 10)" = "0 4 2.5" ]
'
done_testing
