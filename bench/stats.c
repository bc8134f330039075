// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - median and its 95% confidence interval.  See stats.h.
 *
 * Timings are skewed (interrupts, the other load on the machine only ever
 * add time), so the median and an order-statistic interval are used, not
 * the mean and a normal interval: [x(j), x(n+1-j)] where j is the largest
 * rank with P(Binomial(n, 1/2) <= j - 1) <= 2.5%.
 */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"

int stats_summary(const double *samples, size_t n, struct stats *s)
{
	double *v;
	size_t j = 0, k;

	memset(s, 0, sizeof(*s));
	if (!n)
		return -1;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, samples, n * sizeof(*v));
	gsl_sort(v, 1, n);
	s->n = n;
	s->median = gsl_stats_median_from_sorted_data(v, 1, n);
	s->min = v[0];
	s->max = v[n - 1];
	for (k = 1; k <= n / 2; k++)
		if (gsl_cdf_binomial_P(k - 1, 0.5, n) <= 0.025)
			j = k;
	s->exact = j > 0;
	if (!j)
		j = 1;
	s->lo = v[j - 1];
	s->hi = v[n - j];
	free(v);
	return 0;
}
