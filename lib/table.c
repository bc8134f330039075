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

static int cell_differs(const struct cell *cl);

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
	t->cols[t->ncols].reused = xstrdup("");
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
		if (!*line || line[strcspn(line, " ")])
			die("commits: %s:%u: '%s' is not a commit id: %s", path, ln, line,
			    "a line is ID<TAB>SUBJECT");
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

/*
 * LIST += ITEM, joined by SEP, unless LIST has ITEM whole already (a
 * host "vm" is not in "vm2"): the hosts and the reused suites of a column
 */
static void list_add(char **list, const char *item, const char *sep)
{
	size_t n = strlen(item), k = strlen(sep);
	const char *l = *list, *p;
	char *h;

	for (p = l; (p = strstr(p, item)); p++)
		if ((p == l || (p >= l + k && !strncmp(p - k, sep, k))) &&
		    (!p[n] || !strncmp(p + n, sep, k)))
			return;
	h = xasprintf("%s%s%s", l, *l ? sep : "", item);
	free(*list);
	*list = h;
}

static void add_host(struct column *c, const char *host)
{
	if (host)
		list_add(&c->hosts, host, " ");
}

/* "build 1a2b3c4d5e6f": a suite of the column reused from another commit */
static void add_reused(struct column *c, const struct record *r)
{
	char *what;

	if (!r->reused_from)
		return;
	what = xasprintf("%s %.12s", r->suite, r->reused_from);
	list_add(&c->reused, what, ", ");
	free(what);
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
		add_reused(&t->cols[c], r);
	}
	/* by CPU, the inputs' order means nothing: columns by name */
	if (t->by_cpu && t->ncols > 1)
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
	struct row *sorted;
	char *done;
	size_t i, j, k = 0, first;

	if (!t->nrows)
		return;
	sorted = xcalloc(t->nrows, sizeof(*sorted));
	done = xcalloc(t->nrows, 1);

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
		if (k - first > 1)
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
		cl->recs = xrealloc(cl->recs, (cl->nrecs + 1) * sizeof(*cl->recs));
		cl->recs[cl->nrecs++] = r;
		if (!cl->first) {
			cl->first = r;
			cl->exact = record_is_icount(r);
		} else if (!record_is_icount(r)) {
			cl->exact = 0;
		}
	}
	if (t->by_cpu)
		sort_by_series(t);
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncols; j++) {
			struct cell *cl = &t->rows[i].cells[j];

			if (stats_summary(cl->x, cl->n, &cl->s))
				die("statistics: %s: %s", t->rows[i].rec->file, strerror(errno));
			/* two runs of one exact figure (one CPU) that disagree */
			cl->runs_differ = cl->exact && cell_differs(cl);
		}
	}
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

/*
 * What two exact (icount) records of the same kernel must agree to, by
 * metric: the rest (counts: pages, verified_bytes) to the last digit.
 * The kernel prints memmap_init_ms in whole ms ("initialised N pages in
 * Xms"): two hosts of the same instruction count can print values 1 ms
 * apart.  bind_us, unbind_us and the boot times are the agent's own clock
 * (bench-vm/agent): the guest's clock counts instructions, but the host's
 * events (the serial channel, QEMU's timers) land a few instructions
 * earlier or later; measured: the same 8 kernels on an Intel Xeon and an
 * AMD EPYC host, bind_us 1-2 us apart in 1.1 s.  The tolerance is ten
 * times that, 20 us or 20 ppm of the value, whichever is larger.  Their
 * samples drift bind after bind within a boot, so they are compared by
 * place (the i-th bind after boot is the same work on every host), over
 * the binds both records hold.
 */
static const struct resolution {
	const char *suite, *metric, *unit;
	double abs, rel;	/* the tolerance: abs, or rel of the value if larger */
	int by_place;		/* the i-th sample against the i-th */
	const char *rule;
} resolutions[] = {
	{ "bench-vm", "memmap_init_ms", "ms", 1, 0, 0, "the kernel prints whole ms" },
	{ "bench-vm", "bind_us", "us", 20, 0.00002, 1, "agent clock: 20 us or 20 ppm" },
	{ "bench-vm", "unbind_us", "us", 20, 0.00002, 1, "agent clock: 20 us or 20 ppm" },
	{ "bench-vm", "agent_start_ms", "ms", 0.02, 0.00002, 1, "agent clock: 20 us or 20 ppm" },
	{ "bench-vm", "first_bind_ms", "ms", 0.02, 0.00002, 1, "agent clock: 20 us or 20 ppm" },
};

static const struct resolution exact_figure = { NULL, NULL, NULL, 0, 0, 0, "exact" };

static const struct resolution *resolution_of(const struct record *r)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(resolutions); i++)
		if (streq(r->suite, resolutions[i].suite) &&
		    streq(r->metric, resolutions[i].metric) && streq(r->unit, resolutions[i].unit))
			return &resolutions[i];
	return &exact_figure;
}

static double tolerance(const struct resolution *res, double x)
{
	return fmax(res->abs, res->rel * fabs(x));
}

/* one distance D at value X: the worst so far in *a, beyond the tolerance first */
static void note(struct agree *a, const struct resolution *res, double x, double d)
{
	double tol = tolerance(res, x);

	if (d > tol) {
		if (a->state != AGREE_DIFFER || d > a->apart) {
			a->apart = d;
			a->tol = tol;
		}
		a->state = AGREE_DIFFER;
		return;
	}
	if (a->state == AGREE_DIFFER)
		return;
	if (a->state == AGREE_NONE || d > a->apart) {
		a->apart = d;
		a->tol = tol;
	}
	if (d > 0)
		a->state = AGREE_WITHIN;
	else if (a->state == AGREE_NONE)
		a->state = AGREE_EQUAL;
}

/* each value of X against the nearest value of Y */
static void nearest(struct agree *a, const struct resolution *res, const double *x, size_t nx,
		    const double *y, size_t ny)
{
	size_t i, j;

	for (i = 0; i < nx; i++) {
		double d = INFINITY;

		for (j = 0; j < ny && d > 0; j++)
			d = fmin(d, fabs(x[i] - y[j]));
		note(a, res, x[i], d);
	}
}

/* record B against record A, into *a */
static void compare_records(struct agree *a, const struct record *ra, const struct record *rb)
{
	const struct resolution *res = resolution_of(ra);
	size_t i;

	if (!ra->n || !rb->n)
		return;
	a->rule = res->rule;
	if (res->by_place) {
		for (i = 0; i < ra->n && i < rb->n; i++)
			note(a, res, ra->samples[i], fabs(ra->samples[i] - rb->samples[i]));
		return;
	}
	/* the distinct values both ways: how many of each does not count */
	nearest(a, res, ra->samples, ra->n, rb->samples, rb->n);
	nearest(a, res, rb->samples, rb->n, ra->samples, ra->n);
}

/* every pair of the records of the exact ones of NCELLS cells */
static void agree_cells(const struct cell *cells, size_t ncells, struct agree *a)
{
	const struct record **v = NULL;
	size_t c, i, j, n = 0;

	memset(a, 0, sizeof(*a));
	a->state = AGREE_NONE;
	a->rule = exact_figure.rule;
	for (c = 0; c < ncells; c++) {
		if (!cells[c].n || !cells[c].exact)
			continue;
		v = xrealloc(v, (n + cells[c].nrecs) * sizeof(*v));
		for (i = 0; i < cells[c].nrecs; i++)
			v[n++] = cells[c].recs[i];
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			compare_records(a, v[i], v[j]);
	free(v);
}

static int cell_differs(const struct cell *cl)
{
	struct agree a;

	agree_cells(cl, 1, &a);
	return a.state == AGREE_DIFFER;
}

/*
 * By CPU: do the exact (icount) records of a row agree, one CPU's
 * against another's and two runs of one CPU against each other?  See
 * table.h.  AGREE_NONE when there is one CPU only and its runs agree.
 */
void table_icount_agree(const struct table *t, const struct row *w, struct agree *a)
{
	size_t c, k = 0;

	agree_cells(w->cells, t->ncols, a);
	for (c = 0; c < t->ncols; c++)
		k += w->cells[c].n && w->cells[c].exact;
	if (k < 2 && a->state != AGREE_DIFFER)
		a->state = AGREE_NONE;
}

/*
 * A threshold, a percent, a level: digits with at most one decimal point,
 * and nothing else; strtod() alone would take "0x10" (16), "-1", "1e3",
 * " 5" and "inf".
 */
int decimal_parse(const char *s, double *x)
{
	size_t int_digits = strspn(s, "0123456789"), frac_digits = 0;
	const char *p = s + int_digits;
	char *end;

	if (*p == '.') {
		frac_digits = strspn(p + 1, "0123456789");
		p += 1 + frac_digits;
	}
	if (*p || !(int_digits + frac_digits))
		return -1;
	errno = 0;
	*x = strtod(s, &end);
	return errno || *end || !isfinite(*x) ? -1 : 0;
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

int table_any_model(const struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].rec->model)
			return 1;
	return 0;
}

void table_free(struct table *t)
{
	size_t i, c;

	for (i = 0; i < t->nrows; i++) {
		for (c = 0; c < t->ncols; c++) {
			free(t->rows[i].cells[c].x);
			free(t->rows[i].cells[c].recs);
		}
		free(t->rows[i].cells);
		free(t->rows[i].setup);
	}
	for (c = 0; c < t->ncols; c++) {
		free(t->cols[c].key);
		free(t->cols[c].subject);
		free(t->cols[c].hosts);
		free(t->cols[c].reused);
	}
	for (i = 0; i < t->nseries; i++)
		free(t->series[i]);
	free(t->series);
	free(t->rows);
	free(t->cols);
	free(t->errors);
	memset(t, 0, sizeof(*t));
}
