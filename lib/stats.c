// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - summaries and Welch's t-test with GSL.  See stats.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"

/* the order-statistic interval of the median of sorted v[0..n-1] */
static void median_interval(const double *v, size_t n, struct stats *s)
{
	size_t j = 0, k;

	for (k = 1; k <= n / 2; k++)
		if (gsl_cdf_binomial_P(k - 1, 0.5, n) <= 0.025)
			j = k;
	s->exact = j > 0;
	if (!j)
		j = 1;
	s->lo = v[j - 1];
	s->hi = v[n - j];
}

int stats_summary(const double *x, size_t n, struct stats *s)
{
	double *v;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = NAN;
	s->max = NAN;
	s->median = NAN;
	s->lo = NAN;
	s->hi = NAN;
	s->mean = NAN;
	s->sd = NAN;
	s->mean_lo = NAN;
	s->mean_hi = NAN;
	/* GSL aborts the program on what it cannot compute: refuse first */
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			errno = EDOM;
			return -1;
		}
	}
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v, x, n * sizeof(*v));
	gsl_sort(v, 1, n);
	s->min = v[0];
	s->max = v[n - 1];
	s->median = gsl_stats_median_from_sorted_data(v, 1, n);
	median_interval(v, n, s);
	s->mean = gsl_stats_mean(v, 1, n);
	if (n >= 2) {
		double h;

		s->sd = gsl_stats_sd_m(v, 1, n, s->mean);
		h = gsl_cdf_tdist_Pinv(0.975, n - 1) * s->sd / sqrt(n);
		s->mean_lo = s->mean - h;
		s->mean_hi = s->mean + h;
	}
	free(v);
	return 0;
}

void stats_welch(const struct stats *a, const struct stats *b,
		 struct stats_welch *w)
{
	double va, vb, se2;

	w->valid = a->n >= 2 && b->n >= 2;
	w->t = NAN;
	w->df = NAN;
	w->p = NAN;
	if (!w->valid)
		return;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	if (se2 == 0) {
		/*
		 * Both sides constant: equal means are no change, unequal
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

/*
 * Could Welch's test of a and b (w, from stats_welch) tell a difference
 * of delta (in the samples' unit) at alpha, 4 times out of 5?  The
 * difference against t(1 - alpha/2) + t(0.8) standard errors, with the
 * samples' own sd and Welch's df: the usual power approximation.
 */
int stats_welch_detects(const struct stats *a, const struct stats *b,
			const struct stats_welch *w, double delta, double alpha)
{
	double se = sqrt(a->sd * a->sd / a->n + b->sd * b->sd / b->n);

	if (!w->valid || !(se > 0) || !(w->df > 0))
		return 0;
	return fabs(delta) / se >= gsl_cdf_tdist_Pinv(1 - alpha / 2, w->df) +
				   gsl_cdf_tdist_Pinv(0.8, w->df);
}

double stats_pct(double from, double to)
{
	return from == 0 ? NAN : (to - from) / fabs(from) * 100;
}

int stats_clean(const double *v, const long *preempted, size_t n,
		struct stats *s, size_t *used)
{
	double *clean = malloc(n * sizeof(*clean));
	size_t i, k = 0;
	int r;

	if (!clean)
		return -1;
	for (i = 0; i < n; i++)
		if (!preempted[i])
			clean[k++] = v[i];
	*used = k;
	if (k >= 3 && k >= n / 3) {
		r = stats_summary(clean, k, s);
	} else {
		r = stats_summary(v, n, s);
		if (!r)
			r = 1;
	}
	free(clean);
	return r;
}
