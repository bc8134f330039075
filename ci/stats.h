/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the statistics of the CI report, on top of GSL.
 *
 * API, in call order:
 *   ci_summarize(x, n, &s)       n, mean, sd, median, 95% CI of the mean
 *   ci_welch(&a, &b, &w)         Welch's t-test of b against a, two-sided
 *   ci_pct(a, b)                 percent change from a to b
 *
 * The 95% confidence interval is mean +- t(0.975, n-1) * sd / sqrt(n);
 * with n < 2 the sd and the interval are NaN, and a test needs n >= 2 on
 * both sides (w.valid is 0 otherwise).
 */
#ifndef CI_STATS_H
#define CI_STATS_H

#include <stddef.h>

struct ci_summary {
	size_t n;
	double mean, sd, median, ci_lo, ci_hi, min, max;
};

struct ci_welch {
	int valid;		/* 0: a side has fewer than 2 samples */
	double t, df, p;	/* t of (b - a), Welch-Satterthwaite df */
};

int ci_summarize(const double *x, size_t n, struct ci_summary *s);
void ci_welch(const struct ci_summary *a, const struct ci_summary *b,
	      struct ci_welch *w);
double ci_pct(double from, double to);

#endif /* CI_STATS_H */
