/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - summary of raw samples with GSL: median and a distribution-free
 * 95% confidence interval for the median (binomial order statistics).
 *
 *   stats_summary(samples, n, &s)   sorts a copy; samples stay in order
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

struct stats {
	size_t n;
	double median, lo, hi;	/* 95% CI of the median: [lo, hi] */
	double min, max;
	int exact;		/* 0: n too small, [lo, hi] is [min, max] */
};

int stats_summary(const double *samples, size_t n, struct stats *s);

#endif /* BENCH_STATS_H */
