// SPDX-License-Identifier: GPL-2.0
/*
 * cost-fit - a CPU's cost table (lib/costs.h) from its host times and the
 * guest model's counts of the same calls, and the table checked against
 * code timed for real: copy-bench's memmap replica (template-ways and
 * template-copy).
 *
 *   cost-fit --times RECORDS --counts PREFIX [--counts PREFIX ...]
 *            [--check-times RECORDS2] [--max-held-out-pct N]
 *            [--table OUT] [--check OUT] [--owed]
 *
 * RECORDS: copy-bench's records of this CPU (bench/costs.sh): the
 * cost-classes kernels (case cost/<kernel>, params.bound their side) and
 * the replica's passes (template-ways/..., template-copy/...).
 * PREFIX.windows and PREFIX.counts: a counting run of the same copy-bench
 * (bench/costs.sh): the case of each window, and the model plugin's
 * counts of it.  A window and a record are the same call when case and
 * params.pages are equal.
 *
 * The fit, side by side (lib/costs.h: a prediction is max(core, memory)
 * + serial): weighted least squares (GSL gsl_multifit_wlinear) of the
 * median host time (clean samples, stats_clean()) of each side's kernels
 * on the counts of that side's classes, each weighted by the inverse
 * square of its median's standard error ((hi - lo) / 3.92 of the 95%
 * interval); the serial kernels' what is left above their larger side.
 * Two kernels a class at least: chi^2 on its degrees of freedom, and its
 * probability, say whether the additive model holds within the kernels'
 * noise.  The covariance of the costs is the fits', which the
 * predictions propagate.  A kernel whose side is not MARGIN times the
 * other under the fitted table stops it: no table.  Nothing is tuned to
 * the check: the replica's passes are never in the fit.
 *
 * Held out: each kernel predicted by the table fitted without it; the
 * RMS of those errors is the model's error (relative, params.
 * model_error_rel), added to every prediction's interval.  A kernel held
 * out that misses by more than --max-held-out-pct (25) means the table
 * does not fit this CPU: it is said, and no table is written.
 *
 * RECORDS2 (--check-times): a second run of the same copy-bench.  Its
 * kernels against the fit run's give the CPU's run-to-run spread
 * (params.run_spread_rel, RMS of the differences / sqrt 2), also in every
 * interval; its replica passes are the check, so the check is on another
 * run than the fit.  Without it the check is on the fit's run, and says so.
 *
 * The check: each replica pass predicted from its counts and the table,
 * against its measured median; the error per way and size, and whether
 * the predicted order of the ways is the measured one.  A pass whose
 * priced time, class by class, is a fit kernel's scaled (the same mix:
 * nt-mem's streaming stores and an inline NT copy of 64 bytes) is in
 * sample: it is marked with that kernel and left out of the
 * out-of-sample summary.
 *
 * --owed, an experiment (lib/costs.h, "Terms tried"): the write-backs a
 * window leaves owed at its close (the plugin's owed_writebacks) priced as
 * write-backs, to see whether the held-out and out-of-sample errors
 * improve; no table is written with it (the tables' readers price
 * without it).
 *
 * Exit: 0; 1 bad input or a write failed (no file written); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "costs.h"
#include "outfile.h"
#include "record-read.h"
#include "record-write.h"
#include "stats.h"
#include "util.h"

#define MAX_EVENTS 32
/* how much larger a kernel's side must be than the other's (main()) */
#define MARGIN 1.5
/* a priced mix this close to a fit kernel's (cosine) is its pattern */
#define SAME_PATTERN 0.9999

/* One counted window: its case, pages and the plugin's events. */
struct window {
	char *case_name;
	unsigned long pages;
	char *ev_name[MAX_EVENTS];
	double ev[MAX_EVENTS];
	size_t nev;
	char *from;		/* PREFIX, for messages */
};

static struct window *wins;
static size_t nwins;

static void free_windows(void)
{
	size_t i, j;

	for (i = 0; i < nwins; i++) {
		for (j = 0; j < wins[i].nev; j++)
			free(wins[i].ev_name[j]);
		free(wins[i].case_name);
		free(wins[i].from);
	}
	free(wins);
	wins = NULL;
	nwins = 0;
}

static double win_get(const char *event, void *arg)
{
	const struct window *w = arg;
	size_t i;

	for (i = 0; i < w->nev; i++)
		if (!strcmp(w->ev_name[i], event))
			return w->ev[i];
	return NAN;
}

/* "key=value" fields after the first of a tab-separated line */
static char *field(char *line, const char *key)
{
	size_t n = strlen(key);
	char *p = line;

	while ((p = strchr(p, '\t'))) {
		p++;
		if (!strncmp(p, key, n) && p[n] == '=')
			return p + n + 1;
	}
	return NULL;
}

static FILE *open_or_die(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die("counts: %s: %s (bench/costs.sh writes it)", path, strerror(errno));
	return f;
}

#define MSG_END_BAD "counts: %s:%zu: the plugin's end line says markers were wrong or a write failed: %s"

/* PREFIX.windows names the windows PREFIX.counts counts, in order */
static void read_counts(const char *prefix)
{
	char *wp = xasprintf("%s.windows", prefix), *cp = xasprintf("%s.counts", prefix);
	FILE *wf = open_or_die(wp), *cf = open_or_die(cp);
	char *line = NULL;
	size_t cap = 0, first = nwins, seq = 0, lineno = 0;
	int ended = 0;

	while (getline(&line, &cap, wf) > 0) {
		char *c = field(line, "case"), *p = field(line, "pages"), *end;
		struct window *w;

		lineno++;
		if (strncmp(line, "window\t", 7) || !c || !p)
			die("counts: %s:%zu: not a 'window<TAB>seq=<TAB>case=<TAB>pages=' line",
			    wp, lineno);
		wins = xrealloc(wins, (nwins + 1) * sizeof(*wins));
		w = &wins[nwins++];
		memset(w, 0, sizeof(*w));
		c[strcspn(c, "\t\n")] = '\0';
		w->case_name = xstrdup(c);
		w->pages = strtoul(p, &end, 10);
		w->from = xstrdup(prefix);
	}
	lineno = 0;
	while (getline(&line, &cap, cf) > 0) {
		char *tok, *save = NULL;
		struct window *w;

		lineno++;
		if (!strncmp(line, "end\t", 4)) {
			if (!strstr(line, "\tbad_markers=0\t") || !strstr(line, "write=ok"))
				die(MSG_END_BAD, cp, lineno, line);
			ended = 1;
			continue;
		}
		if (strncmp(line, "window\t", 7))
			continue;
		if (first + seq >= nwins)
			die("counts: %s:%zu: more windows counted than %s names", cp, lineno, wp);
		w = &wins[first + seq++];
		line[strcspn(line, "\n")] = '\0';
		strtok_r(line, "\t", &save);
		while ((tok = strtok_r(NULL, "\t", &save))) {
			char *eq = strchr(tok, '='), *end;

			if (!eq || w->nev == MAX_EVENTS)
				die("counts: %s:%zu: '%s' is not EVENT=COUNT", cp, lineno, tok);
			*eq = '\0';
			w->ev_name[w->nev] = xstrdup(tok);
			errno = 0;
			w->ev[w->nev] = strtod(eq + 1, &end);
			if (errno || *end || end == eq + 1)
				die("counts: %s:%zu: %s=%s is not a count",
				    cp, lineno, tok, eq + 1);
			w->nev++;
		}
	}
	if (!ended)
		die("counts: %s: no 'end' line: the counting run did not finish", cp);
	if (first + seq != nwins)
		die("counts: %s names %zu windows, %s counted %zu", wp, nwins - first, cp, seq);
	fclose(wf);
	fclose(cf);
	free(line);
	free(wp);
	free(cp);
}

#define MSG_TWICE "counts: %s (pages %lu) is counted twice (%s, %s): give each once"

static const struct window *find_window(const char *case_name, unsigned long pages)
{
	const struct window *hit = NULL;
	size_t i;

	for (i = 0; i < nwins; i++)
		if (!strcmp(wins[i].case_name, case_name) && wins[i].pages == pages) {
			if (hit)
				die(MSG_TWICE, case_name, pages, hit->from, wins[i].from);
			hit = &wins[i];
		}
	return hit;
}

/*
 * A timed call with its counts: one record, or the records of its rounds
 * (copy-bench --rounds) pooled.
 */
struct obs {
	const struct record *rec;	/* the first of recs */
	const struct record **recs;
	size_t nrecs;
	const struct window *win;
	double a[NR_COST_CLASSES];
	struct stats s;		/* of the clean samples, in ns */
	double se;		/* the median's standard error */
	double spread;		/* relative RMS of its rounds' medians about theirs; NAN: one */
};

#define MSG_NO_WINDOW \
	"counts: %s:%u: %s (pages %.0f) has no counted window: run bench/costs.sh with the same --pages"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of @n values (sorted in place) */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the clean median of a record's samples, times scale */
static double record_median(const struct record *r, double scale)
{
	struct samples sm = { 0 };
	struct stats st;
	size_t i, used;

	samples_add(&sm, r);
	for (i = 0; i < sm.n; i++)
		sm.v[i] *= scale;
	if (stats_clean(sm.v, sm.pre, sm.n, &st, &used) < 0)
		die("times: %s:%u: its samples cannot be summarised", r->file, r->line);
	samples_free(&sm);
	return st.median;
}

#define MSG_NO_OWED \
	"counts: %s: --owed: the window of %s has no owed_writebacks (counted before the plugin had it: count again)"
/* --owed: a window's owed write-backs priced as write-backs */
static int owed;

/* o->recs' samples pooled: their counts, median and the rounds' spread */
static void observe(struct obs *o, double scale)
{
	const struct record *r = o->recs[0];
	struct samples sm = { 0 };
	size_t i, used;
	double pages = record_param(r, "pages");

	if (isnan(pages))
		pages = 0;
	o->rec = r;
	o->win = find_window(r->case_name, (unsigned long)pages);
	if (!o->win)
		die(MSG_NO_WINDOW, r->file, r->line, r->case_name, pages);
	if (cost_counts(win_get, (void *)o->win, o->a))
		die("counts: %s: the window of %s lacks an event cost_counts() needs (events.def)",
		    o->win->from, r->case_name);
	if (owed) {
		double w = win_get("owed_writebacks", (void *)o->win);

		if (isnan(w))
			die(MSG_NO_OWED, o->win->from, r->case_name);
		o->a[COST_WRITEBACK] += w;
	}
	for (i = 0; i < o->nrecs; i++)
		samples_add(&sm, o->recs[i]);
	for (i = 0; i < sm.n; i++)
		sm.v[i] *= scale;
	if (stats_clean(sm.v, sm.pre, sm.n, &o->s, &used) < 0)
		die("times: %s:%u: its samples cannot be summarised", r->file, r->line);
	o->se = (o->s.hi - o->s.lo) / 3.92;
	samples_free(&sm);
	o->spread = NAN;
	if (o->nrecs > 1) {
		double *m = xcalloc(o->nrecs, sizeof(*m)), c, sum2 = 0;

		for (i = 0; i < o->nrecs; i++)
			m[i] = record_median(o->recs[i], scale);
		c = median_of(m, o->nrecs);
		for (i = 0; i < o->nrecs; i++)
			sum2 += (m[i] - c) * (m[i] - c) / (c * c);
		o->spread = sqrt(sum2 / o->nrecs);
		free(m);
	}
}

/* two params equal, both absent (NAN) included */
static int same_param(const struct record *a, const struct record *b, const char *key)
{
	double x = record_param(a, key), y = record_param(b, key);

	return x == y || (isnan(x) && isnan(y));
}

/* params.round (copy-bench --rounds), 0 when none: one run a file */
static unsigned int round_of(const struct record *r)
{
	double v = record_param(r, "round");

	if (isnan(v))
		return 0;
	if (!(v >= 1 && v <= 999 && v == floor(v)))
		die("times: %s:%u: params.round %g is not a round from 1 to 999", r->file, r->line,
		    v);
	return (unsigned int)v;
}

#define MSG_TIMED_TWICE "times: %s:%u and %s:%u: %s measured twice: give one run's records"
#define MSG_ROUND_TWICE "times: %s:%u and %s:%u: %s measured twice in round %u"

/*
 * r joins the call it times in o[0..*n): the same case, metric and
 * params.pages in another round; or it is a new one.  Without rounds, a
 * call timed twice is an error: one run a file.
 */
static void group_add(struct obs **o, size_t *n, const struct record *r)
{
	size_t i, j;

	for (i = 0; i < *n; i++) {
		const struct record *q = (*o)[i].recs[0];

		if (strcmp(q->case_name, r->case_name) || strcmp(q->metric, r->metric) ||
		    !same_param(q, r, "pages"))
			continue;
		if (!round_of(q) || !round_of(r))
			die(MSG_TIMED_TWICE, r->file, r->line, q->file, q->line, r->case_name);
		for (j = 0; j < (*o)[i].nrecs; j++)
			if (round_of((*o)[i].recs[j]) == round_of(r))
				die(MSG_ROUND_TWICE, r->file, r->line, (*o)[i].recs[j]->file,
				    (*o)[i].recs[j]->line, r->case_name, round_of(r));
		(*o)[i].recs = xrealloc((*o)[i].recs, ((*o)[i].nrecs + 1) * sizeof(r));
		(*o)[i].recs[(*o)[i].nrecs++] = r;
		return;
	}
	*o = xrealloc(*o, (*n + 1) * sizeof(**o));
	memset(&(*o)[*n], 0, sizeof(**o));
	(*o)[*n].recs = xcalloc(1, sizeof(r));
	(*o)[*n].recs[0] = r;
	(*o)[*n].nrecs = 1;
	(*n)++;
}

static void obs_free(struct obs *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(o[i].recs);
	free(o);
}

#define MSG_NO_BOUND \
	"times: %s:%u: %s has no params.bound (core, memory or serial): records of an older copy-bench"
#define MSG_REP_NOT_SERIAL \
	"times: %s:%u: %s makes REP copies and is bound by the %s side: records of a copy-bench " \
	"from before REP was priced as serial (2026-12-06): run 'make costs' again"
#define MSG_TOO_FEW "fit: %zu %s kernels for %zu %s classes: copy-bench's cost-classes has them all"
#define MSG_SINGULAR \
	"fit: GSL could not solve the %s side (its kernels' counts do not separate its classes)"

/*
 * Fit the costs of @side's classes on the kernels bound by it: each
 * kernel's median is its side's sum (core or memory: the larger of the
 * two, as the kernel is built; serial: what is left above the larger).
 * Fills t->c and t->cov of those classes; returns the fit's chi^2.  The
 * serial fit's rows carry the error of what is subtracted; the
 * covariance between sides is left out (the sides' kernels differ).
 */
static double fit_side(const struct obs *o, size_t n, size_t skip, struct cost_table *t,
		       enum cost_side side, size_t *dof, char **why)
{
	size_t cls[NR_COST_CLASSES], rows[64], nc = 0, nr = 0, i, j;
	gsl_matrix *X, *cov;
	gsl_vector *y, *w, *c;
	gsl_multifit_linear_workspace *ws;
	double chisq;

	for (i = 0; i < NR_COST_CLASSES; i++)
		if (cost_class_side[i] == side)
			cls[nc++] = i;
	for (i = 0; i < n; i++) {
		const char *b = record_param_str(o[i].rec, "bound");

		if (!b)
			die(MSG_NO_BOUND, o[i].rec->file, o[i].rec->line, o[i].rec->case_name);
		if (i != skip && !strcmp(b, cost_side_names[side]) && nr < ARRAY_SIZE(rows))
			rows[nr++] = i;
	}
	if (nr < nc) {
		*why = xasprintf(MSG_TOO_FEW, nr, cost_side_names[side], nc,
				 cost_side_names[side]);
		return NAN;
	}
	X = gsl_matrix_alloc(nr, nc);
	y = gsl_vector_alloc(nr);
	w = gsl_vector_alloc(nr);
	c = gsl_vector_alloc(nc);
	cov = gsl_matrix_alloc(nc, nc);
	ws = gsl_multifit_linear_alloc(nr, nc);
	for (i = 0; i < nr; i++) {
		const struct obs *k = &o[rows[i]];
		/* a median known to 0.1% weighs no more than that: no row rules alone */
		double se = fmax(k->se, 0.001 * k->s.median), v = k->s.median;

		if (side == COST_SERIAL) {
			double p, sd;
			double a[NR_COST_CLASSES];

			memcpy(a, k->a, sizeof(a));
			for (j = 0; j < NR_COST_CLASSES; j++)
				if (cost_class_side[j] == COST_SERIAL)
					a[j] = 0;
			cost_predict(t, a, &p, &sd);
			v -= p;
			se = sqrt(se * se + sd * sd);
		}
		for (j = 0; j < nc; j++)
			gsl_matrix_set(X, i, j, k->a[cls[j]]);
		gsl_vector_set(y, i, v);
		gsl_vector_set(w, i, 1 / (se * se));
	}
	if (gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws)) {
		*why = xasprintf(MSG_SINGULAR, cost_side_names[side]);
		chisq = NAN;
	}
	*dof = nr - nc;
	for (i = 0; i < nc && !isnan(chisq); i++) {
		t->c[cls[i]] = gsl_vector_get(c, i);
		for (j = 0; j < nc; j++)
			t->cov[cls[i]][cls[j]] = gsl_matrix_get(cov, i, j);
	}
	gsl_multifit_linear_free(ws);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(w);
	gsl_vector_free(c);
	return chisq;
}

/*
 * The table from the kernels @o but the one at @skip (SIZE_MAX: all):
 * the sides in order (serial subtracts the others' prediction).  0 with
 * the chi^2 and its degrees of freedom, or -1 and *@why.
 */
static int fit_table(const struct obs *o, size_t n, size_t skip, struct cost_table *t,
		     double *chisq, size_t *dof, char **why)
{
	size_t i, d;

	*chisq = 0;
	*dof = 0;
	/* fitted with today's sides (lib/costs.h), written in its records */
	memcpy(t->side, cost_class_side, sizeof(t->side));
	for (i = 0; i < NR_COST_SIDES; i++) {
		double c = fit_side(o, n, skip, t, (enum cost_side)i, &d, why);

		if (isnan(c))
			return -1;
		*chisq += c;
		*dof += d;
	}
	return 0;
}

/*
 * What a prediction of @a prices, class by class: the counts of its
 * larger side and serial, each times its cost (a class's share of the
 * time, so that no class weighs by the size of its counts alone)
 */
static void priced(const struct cost_table *t, const double a[NR_COST_CLASSES],
		   double d[NR_COST_CLASSES])
{
	double ns, sd;
	size_t i;

	cost_predict_counts(t, a, 1, &ns, &sd, d);
	for (i = 0; i < NR_COST_CLASSES; i++)
		d[i] *= fabs(t->c[i]);
}

/*
 * The fit kernel whose priced time is @a's scaled, class by class (cosine
 * above SAME_PATTERN), or NULL; *@k the factor
 */
static const struct obs *same_pattern(const struct cost_table *t, const double a[NR_COST_CLASSES],
				      const struct obs *fit, size_t nfit, double *k)
{
	double d[NR_COST_CLASSES], e[NR_COST_CLASSES];
	size_t i, j;

	priced(t, a, d);
	for (i = 0; i < nfit; i++) {
		double dot = 0, nd = 0, ne = 0;

		priced(t, fit[i].a, e);
		for (j = 0; j < NR_COST_CLASSES; j++) {
			dot += d[j] * e[j];
			nd += d[j] * d[j];
			ne += e[j] * e[j];
		}
		if (nd > 0 && ne > 0 && dot / sqrt(nd * ne) > SAME_PATTERN) {
			*k = sqrt(nd / ne);
			return &fit[i];
		}
	}
	return NULL;
}

/*
 * The passes whose order is compared: template-ways of one geometry and
 * size ("template-ways/GEOMETRY/" and params.pages), template-copy of one
 * struct page size (params.size and pages).
 */
static int same_group(const struct record *a, const struct record *b)
{
	const char *sa = strrchr(a->case_name, '/'), *sb = strrchr(b->case_name, '/');
	double za = record_param(a, "size"), zb = record_param(b, "size");

	return sa - a->case_name == sb - b->case_name &&
	       !strncmp(a->case_name, b->case_name, (size_t)(sa - a->case_name)) &&
	       same_param(a, b, "pages") && (za == zb || (isnan(za) && isnan(zb)));
}

#define MSG_WRONG_ORDER "  ranking: %s and %s (pages %.0f) predicted in the wrong order\n"
#define MSG_RANKING \
	"  ranking: %zu of %zu pairs of ways (same geometry or struct page size, same pages) in the measured order; %zu pairs measured too close to order\n"

/*
 * Whether the table puts the ways in their measured order: per group
 * (same_group()), every pair of ways, predicted against measured.  A pair
 * whose measured intervals overlap has no measured order: not counted.
 */
static void order_check(const struct obs *o, size_t n, const struct cost_table *t)
{
	size_t i, j, pairs = 0, right = 0, ties = 0;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double pi, pj, sd;
			int predicted, measured;

			if (!same_group(o[i].rec, o[j].rec))
				continue;
			if (o[i].s.hi >= o[j].s.lo && o[j].s.hi >= o[i].s.lo) {
				ties++;
				continue;
			}
			cost_predict(t, o[i].a, &pi, &sd);
			cost_predict(t, o[j].a, &pj, &sd);
			pairs++;
			predicted = pi < pj;
			measured = o[i].s.median < o[j].s.median;
			right += predicted == measured;
			if (predicted != measured)
				printf(MSG_WRONG_ORDER, o[i].rec->case_name, o[j].rec->case_name,
				       record_param(o[i].rec, "pages"));
		}
	printf(MSG_RANKING, right, pairs, ties);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: cost-fit --times RECORDS --counts PREFIX [--counts PREFIX ...] [--check-times RECORDS2]\n"
		"                [--max-held-out-pct N] [--table OUT] [--check OUT] [--owed]\n");
	exit(2);
}

/*
 * The outputs are written aside (a new file beside each, lib/outfile.h)
 * and renamed in together once both are whole: a failed run leaves the
 * files of the run before, and a link at PATH is replaced, never
 * written through.
 */
static char *aside[2];
static const char *dest[2];

static void aside_drop(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aside); i++)
		if (aside[i])
			unlink(aside[i]);
}

static FILE *aside_open(const char *path, size_t slot)
{
	FILE *f;

	dest[slot] = path;
	f = out_open("cost-fit", path, &aside[slot]);
	if (!f)
		exit(1);
	return f;
}

static void aside_close(FILE *f, size_t slot)
{
	if (record_close(f))
		die("write: %s: %s", dest[slot], strerror(errno));
}

static void write_or_die(FILE *f, json_object *rec, const char *path)
{
	if (record_write(f, rec))
		die("write: %s: %s", path, strerror(errno));
}

#define MSG_FEW_KERNELS \
	"times: %s: %zu cost/* kernels, the fit needs at least %d (copy-bench --only cost-classes)"
#define MSG_KERNEL "  %-18s %-7s %12.0f ns, table %12.0f ns (%+6.1f%%), held out %s, core %.0f, memory %.0f%s\n"
#define MSG_NOT_ISOLATED "  (its side is not 1.5 times the other: the kernel does not isolate it)"
#define MSG_BAD_PREMISE \
	"fit: %zu kernels are not bound by the side they price (above): the table would be wrong on this CPU; no table written"
#define MSG_NO_FIT \
	"fit: the table does not fit this CPU: %zu kernels held out miss by more than %g%% (above: the additive model of lib/costs.h does not hold for them here); no table written"
#define MSG_SPREAD "  %-18s %12.0f ns, the other %s %12.0f ns (%+6.1f%%)\n"
#define MSG_OTHER_CPU \
	"times: %s:%u: another CPU or host than %s:%u: a table is checked on its own CPU"
#define MSG_KERNELS_HEAD \
	"  the kernels, measured against the fit, and each held out (the fit of the others):\n"
#define MSG_NONE_HELD "fit: no kernel can be held out (every class has one kernel): no table written"
#define MSG_NO_FIT_HEAD \
	"\n  the table does not fit: %zu kernels held out miss by more than %g%%; the check below is of a table that is not written\n"
#define MSG_OUT_OF_SAMPLE \
	"  out of sample: %zu passes, |error| median %.1f%%, worst %.1f%%; in sample: %zu (left out)\n"

enum half { ALL_ROUNDS, ODD_ROUNDS, EVEN_ROUNDS };

/*
 * One run's records, or half of a run of rounds: its kernels into *fit,
 * its replica passes into *chk, each call's rounds pooled.
 */
static void read_run(const struct records *rs, enum half which, struct obs **fit,
		     size_t *nfit, struct obs **chk, size_t *nchk)
{
	size_t i, f0 = *nfit, c0 = *nchk;

	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		unsigned int rd;

		if (strcmp(r->suite, "bench") || strcmp(r->accel, "host"))
			continue;
		rd = round_of(r);
		if ((which == ODD_ROUNDS && rd % 2 != 1) || (which == EVEN_ROUNDS && rd % 2 != 0))
			continue;
		if (!strncmp(r->case_name, "cost/", 5) && !strcmp(r->metric, "ns_per_call"))
			group_add(fit, nfit, r);
		else if ((!strncmp(r->case_name, "template-ways/", 14) ||
			  !strncmp(r->case_name, "template-copy/", 14)) &&
			 !strcmp(r->metric, "ms_per_pass"))
			group_add(chk, nchk, r);
	}
	for (i = f0; i < *nfit; i++)
		observe(&(*fit)[i], 1);
	for (i = c0; i < *nchk; i++)
		observe(&(*chk)[i], 1e6);
}

#define MSG_ROUND_MISSING \
	"times: %s: %s (pages %.0f) has %zu of the %u rounds: a record is missing; give the whole run's records"

/*
 * The rounds of a run of rounds (0: none): every call must have all of
 * them, 1 to R, or a pooled median would weigh the calls unlike.
 */
static unsigned int rounds_check(const char *path, const struct obs *o, size_t n,
				 const struct obs *c, size_t nc)
{
	unsigned int rounds = 0;
	size_t i, j;

	for (i = 0; i < n + nc; i++) {
		const struct obs *x = i < n ? &o[i] : &c[i - n];

		for (j = 0; j < x->nrecs; j++)
			if (round_of(x->recs[j]) > rounds)
				rounds = round_of(x->recs[j]);
	}
	for (i = 0; rounds && i < n + nc; i++) {
		const struct obs *x = i < n ? &o[i] : &c[i - n];
		double pages = record_param(x->rec, "pages");

		if (isnan(pages))
			pages = 0;
		/* a call's rounds differ (group_add()): R of them are 1..R */
		if (x->nrecs != rounds || !round_of(x->recs[0]))
			die(MSG_ROUND_MISSING, path, x->rec->case_name, pages, x->nrecs, rounds);
	}
	return rounds;
}

/* the call of o[0..n) that r times (case, metric, pages), or NULL */
static const struct obs *same_call(const struct obs *o, size_t n, const struct record *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(o[i].rec->case_name, r->case_name) &&
		    !strcmp(o[i].rec->metric, r->metric) && same_param(o[i].rec, r, "pages"))
			return &o[i];
	return NULL;
}

#define MSG_ROUNDS_AND_RUN2 \
	"times: %s has rounds (params.round) and %s is another run: a run of rounds is fitted on its odd rounds and checked on its even ones; give it alone"
#define MSG_ONE_ROUND \
	"times: %s has one round: the fit and its check need two at least (copy-bench --rounds)"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "times", required_argument, NULL, 't' },
		{ "check-times", required_argument, NULL, 'T' },
		{ "max-held-out-pct", required_argument, NULL, 'm' },
		{ "counts", required_argument, NULL, 'c' },
		{ "table", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, 'k' },
		{ "owed", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	const char *times = NULL, *times2 = NULL, *table_path = NULL, *check_path = NULL;
	struct records rs = { 0 }, rs2 = { 0 };
	struct obs *fit = NULL, *chk = NULL, *fit2 = NULL, *chk1 = NULL;
	struct obs *all = NULL, *allchk = NULL;	/* every round, with rounds */
	size_t nfit = 0, nchk = 0, nfit2 = 0, nchk1 = 0, i, j, ncounts = 0, bad_premise = 0;
	size_t dof, held_bad = 0, nheld = 0, nspread = 0, nout = 0, nin = 0, nall = 0, nallchk = 0;
	unsigned int rounds;
	char *fit_from, *other = NULL;
	struct cost_table tab = { 0 };
	const struct record *any = NULL;
	double chisq = 0, max_held = 25, *held, sum2 = 0, spread2 = 0, *outerr;
	char stamp[32], *id, *why = NULL, *end;
	time_t now = time(NULL);
	int opt;

	prog_set("cost-fit");
	/* a fit GSL cannot make is an error of ours to say, not an abort */
	gsl_set_error_handler_off();
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			times = optarg;
			break;
		case 'T':
			times2 = optarg;
			break;
		case 'm':
			errno = 0;
			max_held = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(max_held > 0) || isinf(max_held))
				die("--max-held-out-pct: '%s' is not a percentage above 0", optarg);
			break;
		case 'c':
			read_counts(optarg);
			ncounts++;
			break;
		case 'o':
			table_path = optarg;
			break;
		case 'k':
			check_path = optarg;
			break;
		case 'w':
			owed = 1;
			break;
		default:
			print_usage();
		}
	}
	if (!times || !ncounts || optind != argc)
		print_usage();
	if (owed && (table_path || check_path)) {
		fprintf(stderr,
			"cost-fit: --owed is an experiment: its table would be priced without the owed write-backs (lib/costs.h), so it writes neither --table nor --check\n");
		exit(2);
	}
	if (records_read(&rs, times))
		return 1;
	read_run(&rs, ALL_ROUNDS, &all, &nall, &allchk, &nallchk);
	rounds = rounds_check(times, all, nall, allchk, nallchk);
	if (rounds) {
		/* interleaved rounds (copy-bench --rounds): fit odd, check even */
		if (times2)
			die(MSG_ROUNDS_AND_RUN2, times, times2);
		if (rounds < 2)
			die(MSG_ONE_ROUND, times);
		read_run(&rs, ODD_ROUNDS, &fit, &nfit, &chk1, &nchk1);
		read_run(&rs, EVEN_ROUNDS, &fit2, &nfit2, &chk, &nchk);
		fit_from = xasprintf("the %u odd rounds of %s", (rounds + 1) / 2, times);
		other = xasprintf("the %u even rounds", rounds / 2);
	} else {
		fit = all;
		nfit = nall;
		chk1 = allchk;
		nchk1 = nallchk;
		all = NULL;
		allchk = NULL;
		nall = 0;
		nallchk = 0;
		fit_from = xasprintf("%s", times);
		if (times2) {
			if (records_read(&rs2, times2))
				return 1;
			read_run(&rs2, ALL_ROUNDS, &fit2, &nfit2, &chk, &nchk);
			if (rounds_check(times2, fit2, nfit2, chk, nchk))
				die(MSG_ROUNDS_AND_RUN2, times2, times);
			other = xasprintf("%s", times2);
		} else {
			chk = chk1;
			nchk = nchk1;
			chk1 = NULL;
			nchk1 = 0;
		}
	}
	if (nfit < NR_COST_CLASSES)
		die(MSG_FEW_KERNELS, times, nfit, NR_COST_CLASSES);
	any = fit[0].rec;
	for (i = 0; i < nfit; i++)
		if (!streq(fit[i].rec->cpu_name, any->cpu_name) ||
		    !streq(fit[i].rec->host, any->host))
			die("times: %s:%u: another CPU or host than %s:%u: one table is one CPU",
			    fit[i].rec->file, fit[i].rec->line, any->file, any->line);
	for (i = 0; i < nchk; i++)
		if (!streq(chk[i].rec->cpu_name, any->cpu_name) ||
		    !streq(chk[i].rec->host, any->host))
			die(MSG_OTHER_CPU, chk[i].rec->file, chk[i].rec->line, any->file,
			    any->line);

	/* REP is serial (lib/costs.h): a REP kernel bound otherwise is older */
	for (i = 0; i < nfit; i++) {
		const char *b = record_param_str(fit[i].rec, "bound");

		if (fit[i].a[COST_REP_START] > 0 && b && strcmp(b, "serial"))
			die(MSG_REP_NOT_SERIAL, fit[i].rec->file, fit[i].rec->line,
			    fit[i].rec->case_name, b);
	}
	if (fit_table(fit, nfit, SIZE_MAX, &tab, &chisq, &dof, &why))
		die("%s", why);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	id = xasprintf("%s on %s, fit %s", any->cpu_name, any->host ? any->host : "?", stamp);
	tab.id = id;
	tab.cpu = any->cpu_name;

	/* each kernel held out: predicted by the fit of the others */
	held = xcalloc(nfit, sizeof(*held));
	for (i = 0; i < nfit; i++) {
		struct cost_table t = { 0 };
		double c, p, sd;
		size_t d;

		free(why);
		why = NULL;
		held[i] = NAN;
		if (fit_table(fit, nfit, i, &t, &c, &d, &why))
			continue;
		cost_predict(&t, fit[i].a, &p, &sd);
		held[i] = 100 * (p - fit[i].s.median) / fit[i].s.median;
		sum2 += held[i] * held[i] / 1e4;
		nheld++;
		held_bad += fabs(held[i]) > max_held;
	}
	free(why);
	why = NULL;
	tab.model_error = nheld ? sqrt(sum2 / nheld) : NAN;
	/*
	 * The CPU's run-to-run spread, one run's (or one round's) figure:
	 * between the rounds of each kernel, or the two runs' kernels.
	 */
	for (i = 0; i < nall; i++) {
		spread2 += all[i].spread * all[i].spread;
		nspread++;
	}
	for (i = 0; !rounds && i < nfit2; i++)
		for (j = 0; j < nfit; j++)
			if (!strcmp(fit2[i].rec->case_name, fit[j].rec->case_name)) {
				double d = (fit2[i].s.median - fit[j].s.median) / fit[j].s.median;

				spread2 += d * d;
				nspread++;
			}
	tab.run_spread = nspread ? sqrt(spread2 / nspread / (rounds ? 1 : 2)) : NAN;

	printf("cost table of %s (%s), from %zu kernels of %s\n", any->cpu_name,
	       any->host ? any->host : "?", nfit, fit_from);
	printf("  weighted least squares, side by side: chi^2 %.1f on %zu degrees of freedom",
	       chisq, dof);
	if (dof)
		printf(" (probability of a chi^2 this large if the model held: %.3g)\n",
		       gsl_cdf_chisq_Q(chisq, (double)dof));
	else
		printf(" (none left: the fit cannot be seen to fail)\n");
	printf("  model error, the kernels held out (RMS): %.1f%%; run-to-run spread: ",
	       100 * tab.model_error);
	if (nspread && rounds)
		printf("%.1f%% (one round's figure: RMS over the %u rounds of %zu kernels)\n",
		       100 * tab.run_spread, rounds, nspread);
	else if (nspread)
		printf("%.1f%% (%zu kernels of %s)\n", 100 * tab.run_spread, nspread, times2);
	else
		printf("not measured (no --check-times: one run)\n");
	printf("  %-13s %-7s %12s %12s\n", "class", "side", "ns/event", "95% +-");
	for (i = 0; i < NR_COST_CLASSES; i++)
		printf("  %-13s %-7s %12.4f %12.4f%s\n", cost_class_names[i],
		       cost_side_names[cost_class_side[i]], tab.c[i], 1.96 * sqrt(tab.cov[i][i]),
		       tab.c[i] < 0 ? "  (below 0: the kernels do not separate it here)" : "");
	printf(MSG_KERNELS_HEAD);
	for (i = 0; i < nfit; i++) {
		double p, sd;
		char ho[48];

		const char *b = record_param_str(fit[i].rec, "bound");
		double core = cost_side_sum(&tab, fit[i].a, COST_CORE);
		double mem = cost_side_sum(&tab, fit[i].a, COST_MEMORY);
		/*
		 * A kernel prices its side when that side is the larger by a
		 * margin: fitted exactly, a memory kernel's memory side is
		 * its time, never below its core side, so only the margin
		 * tells a kernel bound by the other side.  A serial kernel
		 * adds to the larger, whichever it is.
		 */
		int premise = !strcmp(b, "serial") ||
			      (!strcmp(b, "core") ? core >= MARGIN * mem : mem >= MARGIN * core);
		const char *note = premise ? "" : MSG_NOT_ISOLATED;

		if (isnan(held[i]))
			snprintf(ho, sizeof(ho), "n/a (its class has no other kernel)");
		else
			snprintf(ho, sizeof(ho), "%+6.1f%%", held[i]);
		cost_predict(&tab, fit[i].a, &p, &sd);
		printf(MSG_KERNEL, fit[i].rec->case_name, b, fit[i].s.median, p,
		       100 * (p - fit[i].s.median) / fit[i].s.median, ho, core, mem, note);
		bad_premise += !premise;
	}
	if (nfit2) {
		const char *what_other = rounds ? "rounds" : "run";

		printf("  the kernels in the other %s (%s):\n", what_other, other);
		for (i = 0; i < nfit2; i++)
			for (j = 0; j < nfit; j++)
				if (!strcmp(fit2[i].rec->case_name, fit[j].rec->case_name))
					printf(MSG_SPREAD, fit[j].rec->case_name, fit[j].s.median,
					       what_other,
					       fit2[i].s.median,
					       100 * (fit2[i].s.median - fit[j].s.median) /
					       fit[j].s.median);
	}

	if (bad_premise)
		die(MSG_BAD_PREMISE, bad_premise);
	if (!nheld)
		die(MSG_NONE_HELD);
	if (held_bad)
		printf(MSG_NO_FIT_HEAD, held_bad, max_held);
	atexit(aside_drop);
	if (table_path && !held_bad) {
		FILE *f = aside_open(table_path, 0);
		struct record_ctx ctx = { .commit = any->commit, .accel = "host" };

		for (i = 0; i < NR_COST_CLASSES; i++) {
			json_object *rec, *src;
			json_object *p = json_object_new_object();
			const char *side;
			json_object *cv = json_object_new_array();
			char cn[32];

			snprintf(cn, sizeof(cn), "cost/%s", cost_class_names[i]);
			side = cost_side_names[tab.side[i]];
			rec = record_new(&ctx, COST_SUITE, cn, "ns_per_event", "ns");
			record_add_sample(rec, tab.c[i]);
			for (j = 0; j < NR_COST_CLASSES; j++)
				json_object_array_add(cv, json_object_new_double(tab.cov[i][j]));
			json_object_object_add(p, "table", json_object_new_string(id));
			json_object_object_add(p, "side", json_object_new_string(side));
			json_object_object_add(p, "sd",
					       json_object_new_double(sqrt(tab.cov[i][i])));
			json_object_object_add(p, "cov", cv);
			json_object_object_add(p, "chisq", json_object_new_double(chisq));
			json_object_object_add(p, "dof", json_object_new_int((int)dof));
			json_object_object_add(p, "model_error_rel",
					       json_object_new_double(tab.model_error));
			if (nspread)
				json_object_object_add(p, "run_spread_rel",
						       json_object_new_double(tab.run_spread));
			json_object_object_add(p, "kernels", json_object_new_int((int)nfit));
			json_object_object_add(p, "times", json_object_new_string(times));
			if (times2)
				json_object_object_add(p, "check_times",
						       json_object_new_string(times2));
			if (rounds)
				json_object_object_add(p, "rounds",
						       json_object_new_int((int)rounds));
			/* the CPU's identity beyond CPUID, from the kernels' records */
			if (json_object_object_get_ex(any->params, "cpu_microcode", &src))
				json_object_object_add(p, "cpu_microcode", json_object_get(src));
			json_object_object_foreach(any->params, k, v)
				if (!strncmp(k, "cache_", 6))
					json_object_object_add(p, k, json_object_get(v));
			record_set(rec, "params", p);
			if (json_object_object_get_ex(any->obj, "cpu", &src))
				record_set(rec, "cpu", json_object_get(src));
			if (any->host)
				record_set(rec, "host", json_object_new_string(any->host));
			write_or_die(f, rec, dest[0]);
		}
		aside_close(f, 0);
	}
	if (!nspread)
		tab.run_spread = 0;

	printf("\ncheck: the memmap replica (template-ways, template-copy) %s, on %s\n",
	       "predicted from the table, against its host time",
	       other ? other : "the fit's run (no --check-times)");
	printf("  %-28s %9s %12s %18s %8s %8s  %s\n", "pass", "pages", "measured ms",
	       "predicted ms +-95%", "error", "rounds", "in sample?");
	outerr = xcalloc(nchk + 1, sizeof(*outerr));
	for (i = 0; i < nchk; i++) {
		double p, sd, m = chk[i].s.median, k = 0;
		const struct obs *in = same_pattern(&tab, chk[i].a, fit, nfit, &k);
		double e;

		const struct obs *r = same_call(allchk, nallchk, chk[i].rec);
		char sp[16] = "-";

		cost_predict(&tab, chk[i].a, &p, &sd);
		e = 100 * (p - m) / m;
		if (r && !isnan(r->spread))
			snprintf(sp, sizeof(sp), "%.1f%%", 100 * r->spread);
		printf("  %-28s %9.0f %12.2f %12.2f +-%5.2f %+7.1f%% %8s  ", chk[i].rec->case_name,
		       record_param(chk[i].rec, "pages"), m / 1e6, p / 1e6, 1.96 * sd / 1e6, e, sp);
		if (in) {
			printf("in sample: %s's priced mix, x%.3g\n", in->rec->case_name, k);
			nin++;
		} else {
			printf("out of sample\n");
			outerr[nout++] = fabs(e);
		}
	}
	if (nout) {
		double worst = 0;

		for (i = 0; i < nout; i++)
			worst = fmax(worst, outerr[i]);
		printf(MSG_OUT_OF_SAMPLE, nout, median_of(outerr, nout), worst, nin);
	} else {
		printf("  out of sample: no pass; in sample: %zu\n", nin);
	}
	free(outerr);
	order_check(chk, nchk, &tab);
	if (held_bad)
		die(MSG_NO_FIT, held_bad, max_held);
	if (check_path) {
		FILE *f = aside_open(check_path, 1);
		struct record_ctx ctx = { .commit = any->commit, .accel = "host" };

		for (i = 0; i < nchk; i++) {
			json_object *rec, *p = json_object_new_object(), *src;
			double pr, sd, m = chk[i].s.median, k = 0;
			double pages = record_param(chk[i].rec, "pages");
			const struct obs *in = same_pattern(&tab, chk[i].a, fit, nfit, &k);

			cost_predict(&tab, chk[i].a, &pr, &sd);
			rec = record_new(&ctx, "cost-check", chk[i].rec->case_name,
					 "error_pct", "%");
			record_add_sample(rec, 100 * (pr - m) / m);
			json_object_object_add(p, "table", json_object_new_string(id));
			json_object_object_add(p, "pages", json_object_new_double(pages));
			json_object_object_add(p, "predicted_ms", json_object_new_double(pr / 1e6));
			json_object_object_add(p, "predicted_sd_ms",
					       json_object_new_double(sd / 1e6));
			json_object_object_add(p, "measured_ms", json_object_new_double(m / 1e6));
			json_object_object_add(p, "measured_lo_ms",
					       json_object_new_double(chk[i].s.lo / 1e6));
			json_object_object_add(p, "measured_hi_ms",
					       json_object_new_double(chk[i].s.hi / 1e6));
			json_object_object_add(p, "sample",
					       json_object_new_string(in ? "in" : "out"));
			if (in)
				json_object_object_add(p, "same_mix_as",
						       json_object_new_string(in->rec->case_name));
			const struct obs *r = same_call(allchk, nallchk, chk[i].rec);

			src = json_object_new_string(other ? "another" : "the fit's");
			json_object_object_add(p, "run", src);
			if (r && !isnan(r->spread))
				json_object_object_add(p, "rounds_spread_rel",
						       json_object_new_double(r->spread));
			record_set(rec, "params", p);
			if (json_object_object_get_ex(any->obj, "cpu", &src))
				record_set(rec, "cpu", json_object_get(src));
			write_or_die(f, rec, dest[1]);
		}
		aside_close(f, 1);
	}
	/* (no aside for a device or a FIFO: written in place) */
	if ((table_path && aside[0] && rename(aside[0], table_path)) ||
	    (check_path && aside[1] && rename(aside[1], check_path)))
		die("write: renaming into place: %s", strerror(errno));
	records_free(&rs);
	records_free(&rs2);
	free(id);
	free(held);
	obs_free(fit, nfit);
	obs_free(fit2, nfit2);
	obs_free(chk, nchk);
	obs_free(chk1, nchk1);
	obs_free(all, nall);
	obs_free(allchk, nallchk);
	free(fit_from);
	free(other);
	free_windows();
	free(aside[0]);
	free(aside[1]);
	aside[0] = NULL;
	aside[1] = NULL;
	return 0;
}
