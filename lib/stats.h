/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the one statistics module: what copy-bench, ci-report and
 * bench-vm-report say about raw samples, on top of GSL.
 *
 * API, in call order:
 *   stats_summary(x, n, &s)      n, min, max; the median with a
 *                                distribution-free 95% interval (order
 *                                statistics); the mean, sd and a 95%
 *                                interval of the mean (t distribution)
 *   stats_welch(&a, &b, &w)      the one test: Welch's t-test of b against
 *                                a, two-sided
 *   stats_pct(from, to)          percent change from one figure to another
 *
 * The median interval is [x(j), x(n+1-j)] with j the largest rank with
 * P(Binomial(n, 1/2) <= j - 1) <= 2.5%: timings are skewed (interrupts
 * and other load only ever add time), so the host benchmarks print it.
 * The mean interval is mean +- t(0.975, n-1) * sd / sqrt(n).  With n < 2
 * the sd, the mean interval and a test are NaN (w.valid is 0).  A sample
 * that is NaN or infinite is refused (-1, errno EDOM), never summarised.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

struct stats {
	size_t n;
	double min, max;
	double median, lo, hi;	/* the median and its 95% interval */
	int exact;		/* 0: n too small for it: [lo, hi] is [min, max] */
	double mean, sd, mean_lo, mean_hi;	/* and the 95% interval of the mean */
};

struct stats_welch {
	int valid;		/* 0: a side has fewer than 2 samples */
	double t, df, p;	/* t of (b - a), Welch-Satterthwaite df */
};

int stats_summary(const double *x, size_t n, struct stats *s);
void stats_welch(const struct stats *a, const struct stats *b,
		 struct stats_welch *w);
int stats_welch_detects(const struct stats *a, const struct stats *b,
			const struct stats_welch *w, double delta, double alpha);
double stats_pct(double from, double to);
/*
 * The median and CI of a host benchmark's samples over those no other task
 * preempted (preempted[i] == 0) when there are at least max(3, n / 3) of
 * them: returns 0; else over all samples: returns 1 (tables mark it "*");
 * -1 on no memory or a bad sample.  *used: how many were not preempted.
 */
int stats_clean(const double *v, const long *preempted, size_t n,
		struct stats *s, size_t *used);

#endif /* STATS_H */
