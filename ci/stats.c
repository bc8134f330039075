// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries and Welch's t-test with GSL.  See stats.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"

int ci_summarize(const double *x, size_t n, struct ci_summary *s)
{
	double *v;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->mean = s->sd = s->median = s->ci_lo = s->ci_hi = NAN;
	s->min = s->max = NAN;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, x, n * sizeof(*v));
	gsl_sort(v, 1, n);
	s->mean = gsl_stats_mean(v, 1, n);
	s->median = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.5);
	s->min = v[0];
	s->max = v[n - 1];
	if (n >= 2) {
		double h;

		s->sd = gsl_stats_sd_m(v, 1, n, s->mean);
		h = gsl_cdf_tdist_Pinv(0.975, n - 1) * s->sd / sqrt(n);
		s->ci_lo = s->mean - h;
		s->ci_hi = s->mean + h;
	}
	free(v);
	return 0;
}

void ci_welch(const struct ci_summary *a, const struct ci_summary *b,
	      struct ci_welch *w)
{
	double va, vb, se2;

	w->valid = a->n >= 2 && b->n >= 2;
	w->t = w->df = w->p = NAN;
	if (!w->valid)
		return;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	if (se2 == 0) {
		/* Both sides constant: equal means are no change, unequal
		 * ones are as certain as a difference can be.
		 */
		w->t = a->mean == b->mean ? 0 : copysign(INFINITY, b->mean - a->mean);
		w->df = a->n + b->n - 2;
		w->p = a->mean == b->mean ? 1 : 0;
		return;
	}
	w->t = (b->mean - a->mean) / sqrt(se2);
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
}

double ci_pct(double from, double to)
{
	return from == 0 ? NAN : (to - from) / fabs(from) * 100;
}
