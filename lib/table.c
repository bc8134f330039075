// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - records as rows, columns and cells.  See table.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "util.h"

static ssize_t find_col(const struct table *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (streq(t->cols[i].key, key))
			return i;
	return -1;
}

void table_add_column(struct table *t, const char *key, const char *subject)
{
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
	t->cols[t->ncols].key = xstrdup(key);
	t->cols[t->ncols].subject = xstrdup(subject);
	t->cols[t->ncols].hosts = xstrdup("");
	t->ncols++;
}

static ssize_t find_series(const struct table *t, const char *commit)
{
	size_t i;

	for (i = 0; i < t->nseries; i++)
		if (streq(t->series[i], commit))
			return i;
	return -1;
}

void table_read_commits(struct table *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned int ln = 0;

	if (!f)
		die("commits: %s: cannot open: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *tab;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = '\0';
		if (find_col(t, line) >= 0 || find_series(t, line) >= 0)
			die("commits: %s:%u: '%s' is listed twice", path, ln, line);
		if (t->by_cpu) {
			t->series = xrealloc(t->series, (t->nseries + 1) * sizeof(*t->series));
			t->series[t->nseries++] = xstrdup(line);
		} else {
			table_add_column(t, line, tab ? tab : "");
		}
	}
	free(line);
	fclose(f);
	if (!t->ncols && !t->nseries)
		die("commits: %s: no commits in it", path);
}

static struct row *find_row(struct table *t, const struct record *r, const char *setup)
{
	struct row *w;
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		w = &t->rows[i];
		if (streq(w->rec->suite, r->suite) && streq(w->rec->case_name, r->case_name) &&
		    streq(w->rec->metric, r->metric) && streq(w->rec->unit, r->unit) &&
		    streq(w->setup, setup) && (!t->by_cpu || streq(w->commit, r->commit)))
			return w;
	}
	t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
	w = &t->rows[t->nrows++];
	w->rec = r;
	w->setup = xstrdup(setup);
	w->commit = r->commit;
	w->order = t->by_cpu ? (size_t)find_series(t, r->commit) : 0;
	w->cells = NULL;
	return w;
}

static void add_host(struct column *c, const char *host)
{
	char *h;

	if (!host || strstr(c->hosts, host))
		return;
	h = xasprintf("%s%s%s", c->hosts, *c->hosts ? " " : "", host);
	free(c->hosts);
	c->hosts = h;
}

/* the same samples, in the same order */
static int same_samples(const struct record *a, const struct record *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->samples[i] != b->samples[i])
			return 0;
	return 1;
}

static char *column_key(const struct table *t, const struct record *r)
{
	if (t->by_file)
		return xstrdup(r->file);
	return t->by_cpu ? record_cpu_setup(r) : xstrdup(r->commit ? r->commit : "(none)");
}

static int by_key(const void *a, const void *b)
{
	const struct column *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/* the columns: given ones, or as the records name them; the error records */
static void build_columns(struct table *t, const struct records *rs)
{
	int fixed = t->ncols && !t->by_cpu;
	size_t i, ignored = 0, outside = 0;

	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		char *key;
		ssize_t c;

		if (!strcmp(r->metric, "error")) {
			t->errors = xrealloc(t->errors, (t->nerrors + 1) * sizeof(*t->errors));
			t->errors[t->nerrors++] = r;
			continue;
		}
		if (t->by_cpu && find_series(t, r->commit) < 0) {
			outside++;
			continue;
		}
		key = column_key(t, r);
		c = find_col(t, key);
		if (c < 0 && fixed) {
			ignored++;
			free(key);
			continue;
		}
		if (c < 0) {
			table_add_column(t, key, "");
			c = t->ncols - 1;
		}
		free(key);
		add_host(&t->cols[c], r->host);
	}
	/* by CPU, the inputs' order means nothing: columns by name */
	if (t->by_cpu)
		qsort(t->cols, t->ncols, sizeof(*t->cols), by_key);
	if (ignored)
		warn("records: %zu records of commits not in --commits are left out", ignored);
	if (outside)
		warn("records: %zu records of commits outside the series (--commits) are left out",
		     outside);
}

static int by_series(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return (x->order > y->order) - (x->order < y->order);
}

/*
 * By CPU: each metric's rows in series order, the metrics in the order
 * they come; a stable sort of (first row of the metric, series place).
 */
static void sort_by_series(struct table *t)
{
	struct row *sorted = xcalloc(t->nrows, sizeof(*sorted));
	char *done = xcalloc(t->nrows, 1);
	size_t i, j, k = 0, first;

	for (i = 0; i < t->nrows; i++) {
		if (done[i])
			continue;
		first = k;
		for (j = i; j < t->nrows; j++) {
			const struct record *a = t->rows[i].rec, *b = t->rows[j].rec;

			if (done[j] || !streq(a->suite, b->suite) ||
			    !streq(a->case_name, b->case_name) || !streq(a->metric, b->metric) ||
			    !streq(a->unit, b->unit) || !streq(t->rows[i].setup, t->rows[j].setup))
				continue;
			sorted[k++] = t->rows[j];
			done[j] = 1;
		}
		/* qsort is not stable, but a metric has one row per commit */
		qsort(sorted + first, k - first, sizeof(*sorted), by_series);
	}
	free(t->rows);
	free(done);
	t->rows = sorted;
}

void table_build(struct table *t, const struct records *rs)
{
	size_t i, j;

	build_columns(t, rs);
	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		char *key, *setup;
		struct cell *cl;
		struct row *w;
		ssize_t c;

		if (!strcmp(r->metric, "error") ||
		    (t->by_cpu && find_series(t, r->commit) < 0))
			continue;
		key = column_key(t, r);
		c = find_col(t, key);
		free(key);
		if (c < 0)
			continue;
		setup = row_setup(t, r);
		w = find_row(t, r, setup);
		free(setup);
		if (!w->cells)
			w->cells = xcalloc(t->ncols, sizeof(*w->cells));
		cl = &w->cells[c];
		if (cl->n + r->n > cl->cap) {
			cl->cap = 2 * (cl->n + r->n);
			cl->x = xrealloc(cl->x, cl->cap * sizeof(double));
		}
		for (j = 0; j < r->n; j++)
			cl->x[cl->n++] = r->samples[j];
		if (!cl->first) {
			cl->first = r;
			cl->exact = record_is_icount(r);
		} else if (!record_is_icount(r)) {
			cl->exact = 0;
		} else if (cl->exact && !same_samples(cl->first, r)) {
			/* two runs (hosts) of one exact figure that differ */
			cl->runs_differ = 1;
		}
	}
	if (t->by_cpu)
		sort_by_series(t);
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncols; j++)
			if (stats_summary(t->rows[i].cells[j].x, t->rows[i].cells[j].n,
					  &t->rows[i].cells[j].s))
				die("statistics: %s: %s", t->rows[i].rec->file, strerror(errno));
}

void table_compare(const struct cell *a, const struct cell *b, struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	c->pct = NAN;
	c->p = NAN;
	c->w.t = NAN;
	c->w.df = NAN;
	c->w.p = NAN;
	if (!a->n || !b->n)
		return;
	c->valid = 1;
	c->pct = stats_pct(a->s.mean, b->s.mean);
	/*
	 * icount figures are the same on every boot: there is no noise for
	 * a test to weigh, so the size of the change decides, and no p is
	 * shown.  Constant samples on a wall clock likewise: Welch's t is
	 * 0/0 or infinite there, and its p would mean nothing.
	 */
	if (a->exact && b->exact) {
		c->rule = RULE_EXACT;
		return;
	}
	if (a->n >= 2 && b->n >= 2 && a->s.sd == 0 && b->s.sd == 0) {
		c->rule = RULE_CONSTANT;
		return;
	}
	stats_welch(&a->s, &b->s, &c->w);
	c->p = c->w.p;
	c->rule = c->w.valid ? RULE_WELCH : RULE_NONE;
}

/* by CPU: the row of the same metric and setup at the series' base */
const struct row *table_base_row(const struct table *t, const struct row *w)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *b = &t->rows[i];

		if (b->order == 0 && streq(b->rec->suite, w->rec->suite) &&
		    streq(b->rec->case_name, w->rec->case_name) &&
		    streq(b->rec->metric, w->rec->metric) && streq(b->rec->unit, w->rec->unit) &&
		    streq(b->setup, w->setup))
			return b;
	}
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* two cells hold the same samples, in any order */
static int same_cell(const struct cell *a, const struct cell *b)
{
	double *x, *y;
	int same;

	if (a->n != b->n)
		return 0;
	x = xcalloc(a->n, sizeof(*x));
	y = xcalloc(b->n, sizeof(*y));
	memcpy(x, a->x, a->n * sizeof(*x));
	memcpy(y, b->x, b->n * sizeof(*y));
	qsort(x, a->n, sizeof(*x), by_value);
	qsort(y, b->n, sizeof(*y), by_value);
	same = !memcmp(x, y, a->n * sizeof(*x));
	free(x);
	free(y);
	return same;
}

/*
 * By CPU: do the exact (icount) cells of a row, one per host CPU, hold
 * the same samples?  The same kernel under the same QEMU should count the
 * same instructions on any host.  -1: fewer than two to compare; else
 * 1 (they agree) or 0, with the largest difference of the means in *pct.
 */
int table_icount_agree(const struct table *t, const struct row *w, double *pct)
{
	const struct cell *first = NULL;
	size_t c, k = 0;
	int agree = 1;

	*pct = 0;
	for (c = 0; c < t->ncols; c++) {
		const struct cell *cl = &w->cells[c];

		if (!cl->n || !cl->exact)
			continue;
		k++;
		if (cl->runs_differ)
			agree = 0;
		if (!first) {
			first = cl;
			continue;
		}
		if (!same_cell(first, cl)) {
			agree = 0;
			*pct = fmax(*pct, fabs(stats_pct(first->s.mean, cl->s.mean)));
		}
	}
	if (k < 2 && agree)
		return -1;
	return agree;
}

/* some figure of the table is an exact icount one */
int table_any_exact(const struct table *t)
{
	size_t i, c;

	for (i = 0; i < t->nrows; i++)
		for (c = 0; c < t->ncols; c++)
			if (t->rows[i].cells[c].n && t->rows[i].cells[c].exact)
				return 1;
	return 0;
}

void table_free(struct table *t)
{
	size_t i, c;

	for (i = 0; i < t->nrows; i++) {
		for (c = 0; c < t->ncols; c++)
			free(t->rows[i].cells[c].x);
		free(t->rows[i].cells);
		free(t->rows[i].setup);
	}
	for (c = 0; c < t->ncols; c++) {
		free(t->cols[c].key);
		free(t->cols[c].subject);
		free(t->cols[c].hosts);
	}
	for (i = 0; i < t->nseries; i++)
		free(t->series[i]);
	free(t->series);
	free(t->rows);
	free(t->cols);
	free(t->errors);
	memset(t, 0, sizeof(*t));
}
