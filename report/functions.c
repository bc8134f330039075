// SPDX-License-Identifier: GPL-2.0
/*
 * functions.c - where the work goes: per commit and case, the guest
 * functions whose counts under bench-vm's cache model changed most
 * against the parent, like perf diff but exact.  From the est_cycles
 * records' "functions" (doc/records.md): per bind, the plugin's top N
 * functions by est_cycles.  A function below the top N of some bind of a
 * cell, or a bind whose record has no functions, has no figure there
 * ("-"), never a 0.  See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "format.h"
#include "report.h"
#include "util.h"

/* the counts shown per function; llc_misses is loads' and stores' */
static const char *const fn_metric[FN_NMETRICS] = {
	"est_cycles", "insns", "stores", "nt_stores", "llc_misses",
};

/* count M of one function's entry of a record (llc_misses: the sum) */
static double fn_count(json_object *f, size_t m)
{
	json_object *v, *w;

	if (!strcmp(fn_metric[m], "llc_misses"))
		return json_object_object_get_ex(f, "llc_load_misses", &v) &&
		       json_object_object_get_ex(f, "llc_store_misses", &w) ?
		       json_object_get_double(v) + json_object_get_double(w) : NAN;
	return json_object_object_get_ex(f, fn_metric[m], &v) ? json_object_get_double(v) : NAN;
}

/* a rebind case's est_cycles row with functions: the rows diffed */
static int fn_row(const struct row *w)
{
	const char *c = w->rec->case_name;
	size_t n = strlen(c);

	return w->rec->model && !strcmp(w->rec->metric, "est_cycles") && n > 7 &&
	       !strcmp(c + n - 7, "/rebind");
}

struct fn_sum {
	const char *name;
	double sum[FN_NMETRICS];
	size_t seen;		/* the binds whose top N has it */
};

static struct fn_sum *fn_find(struct fn_sum **v, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].name = name;
	return &(*v)[(*n)++];
}

/* per function, the sums over every bind of cell C; *binds: their number */
static struct fn_sum *cell_sums(const struct cell *c, size_t *n, size_t *binds)
{
	struct fn_sum *v = NULL;
	size_t i, s, j, m;

	*n = 0;
	*binds = 0;
	for (i = 0; i < c->nrecs; i++) {
		const struct record *rec = c->recs[i];

		/* a record without functions: its binds have none known */
		if (!rec->functions) {
			*binds += rec->n;
			continue;
		}
		for (s = 0; s < rec->n; s++) {
			json_object *per = json_object_array_get_idx(rec->functions, s);

			for (j = 0; j < json_object_array_length(per); j++) {
				json_object *f = json_object_array_get_idx(per, j), *nm;
				struct fn_sum *e;

				json_object_object_get_ex(f, "name", &nm);
				e = fn_find(&v, n, json_object_get_string(nm));
				for (m = 0; m < FN_NMETRICS; m++)
					e->sum[m] += fn_count(f, m);
				e->seen++;
			}
			(*binds)++;
		}
	}
	return v;
}

/* the mean per bind of SUM's metrics, or NAN where a bind lacks it */
static void fn_mean(const struct fn_sum *e, size_t binds, double *out)
{
	size_t m;

	for (m = 0; m < FN_NMETRICS; m++)
		out[m] = e && e->seen == binds && binds ? e->sum[m] / binds : NAN;
}

static double fn_key(const struct fn_change *f)
{
	double p = isnan(f->parent[0]) ? 0 : f->parent[0];
	double c = isnan(f->commit[0]) ? 0 : f->commit[0];

	return fabs(c - p);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_change *x = a, *y = b;
	double kx = fn_key(x), ky = fn_key(y);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* the plugin's top N of a record (model_params.top), or 0 */
static unsigned int model_top(const struct record *rec)
{
	json_object *mp, *v;

	if (!json_object_object_get_ex(rec->obj, "model_params", &mp) ||
	    !json_object_object_get_ex(mp, "top", &v))
		return 0;
	return (unsigned int)json_object_get_int(v);
}

/* the diff of row W at column C against C - 1, into D; 0: no functions on a side */
static int fn_diff_row(const struct row *w, size_t c, struct fn_diff *d)
{
	struct fn_sum *pv, *cv;
	size_t np, nc, bp, bc, i, j;

	memset(d, 0, sizeof(*d));
	if (!w->cells[c].nrecs || !w->cells[c - 1].nrecs)
		return 0;
	pv = cell_sums(&w->cells[c - 1], &np, &bp);
	cv = cell_sums(&w->cells[c], &nc, &bc);
	if (!np && !nc) {
		free(pv);
		free(cv);
		return 0;
	}
	d->row = w;
	d->col = c;
	d->top = model_top(w->rec);
	d->v = xcalloc(np + nc ? np + nc : 1, sizeof(*d->v));
	for (i = 0; i < np; i++) {
		struct fn_sum *e = NULL;

		for (j = 0; j < nc && !e; j++)
			if (!strcmp(cv[j].name, pv[i].name))
				e = &cv[j];
		d->v[d->n].name = pv[i].name;
		fn_mean(&pv[i], bp, d->v[d->n].parent);
		fn_mean(e, bc, d->v[d->n].commit);
		d->n++;
	}
	for (j = 0; j < nc; j++) {
		int seen = 0;

		for (i = 0; i < np; i++)
			seen |= !strcmp(cv[j].name, pv[i].name);
		if (seen)
			continue;
		d->v[d->n].name = cv[j].name;
		fn_mean(NULL, bp, d->v[d->n].parent);
		fn_mean(&cv[j], bc, d->v[d->n].commit);
		d->n++;
	}
	qsort(d->v, d->n, sizeof(*d->v), fn_cmp);
	free(pv);
	free(cv);
	return 1;
}

size_t functions_diff(const struct report *r, size_t c, struct fn_diff **out)
{
	const struct table *t = &r->t;
	size_t i, n = 0;

	*out = NULL;
	if (t->by_cpu || c == 0 || c >= t->ncols)
		return 0;
	for (i = 0; i < t->nrows; i++) {
		if (!fn_row(&t->rows[i]))
			continue;
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		n += fn_diff_row(&t->rows[i], c, &(*out)[n]);
	}
	return n;
}

void functions_diff_free(struct fn_diff *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].v);
	free(d);
}

/* "+123", "-45", "0", or "-" for no figure */
static struct text delta(double p, double c)
{
	struct text t;

	if (isnan(p) || isnan(c))
		snprintf(t.s, sizeof(t.s), "-");
	else
		snprintf(t.s, sizeof(t.s), "%+.0f", c - p);
	return t;
}

static void fn_line(FILE *f, const struct fn_change *e, int md)
{
	size_t m;

	if (md) {
		fprintf(f, "| `%s` | %s | %s | %s |", e->name, num_int(e->parent[0]).s,
			num_int(e->commit[0]).s, delta(e->parent[0], e->commit[0]).s);
		for (m = 1; m < FN_NMETRICS; m++)
			fprintf(f, " %s |", delta(e->parent[m], e->commit[m]).s);
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "      %-34s %12s -> %-12s %12s", e->name, num_int(e->parent[0]).s,
		num_int(e->commit[0]).s, delta(e->parent[0], e->commit[0]).s);
	for (m = 1; m < FN_NMETRICS; m++)
		fprintf(f, " %11s", delta(e->parent[m], e->commit[m]).s);
	fprintf(f, "\n");
}

/* the heading of one commit's functions, and the setup of the model */
static void fn_heading(const struct report *r, FILE *f, size_t c, const struct fn_diff *d,
		       int md)
{
	const char *in = md ? "" : "  ";

	if (md)
		fprintf(f, "### %s %s, against %s\n\n", short_id(r->t.cols[c].key).s,
			r->t.cols[c].subject, short_id(r->t.cols[c - 1].key).s);
	else
		fprintf(f, "Where the work goes: %s %s, against its parent %s\n",
			short_id(r->t.cols[c].key).s, r->t.cols[c].subject,
			short_id(r->t.cols[c - 1].key).s);
	fprintf(f, "%s[%s]\n", in, d->row->setup);
	fprintf(f, "%sper bind, the mean of the rebinds; the functions whose est_cycles\n", in);
	fprintf(f, "%schanged most, from each bind's top %u (-: below the top %u in a bind)\n",
		in, d->top, d->top);
	if (md)
		fputc('\n', f);
}

static void fn_columns(FILE *f, int md)
{
	size_t m;

	if (md) {
		fprintf(f, "| function | est_cycles parent | commit | change |");
		for (m = 1; m < FN_NMETRICS; m++)
			fprintf(f, " %s change |", fn_metric[m]);
		fprintf(f, "\n|---|---|---|---|---|---|---|---|\n");
		return;
	}
	fprintf(f, "      %-34s %12s -> %-12s %12s", "function", "est_cycles", "(commit)",
		"change");
	for (m = 1; m < FN_NMETRICS; m++)
		fprintf(f, " %11s", fn_metric[m]);
	fprintf(f, "\n");
}

void functions_write(const struct report *r, FILE *f, size_t c, int md)
{
	struct fn_diff *d;
	size_t n = functions_diff(r, c, &d), i, j;

	if (!n)
		return;
	fn_heading(r, f, c, &d[0], md);
	for (i = 0; i < n; i++) {
		const struct row *w = d[i].row;
		struct cmp cm;

		table_compare(&w->cells[c - 1], &w->cells[c], &cm);
		fprintf(f, "%s%s: est_cycles %s -> %s (%s)\n", md ? "" : "  ", w->rec->case_name,
			num_int(w->cells[c - 1].s.mean).s, num_int(w->cells[c].s.mean).s,
			pct_str(cm.pct).s);
		if (md)
			fputc('\n', f);
		fn_columns(f, md);
		for (j = 0; j < d[i].n && j < FN_SHOWN; j++)
			fn_line(f, &d[i].v[j], md);
		if (md)
			fprintf(f, "\n");
	}
	if (!md)
		fprintf(f, "\n");
	functions_diff_free(d, n);
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* the counts of one side; null where below the top */
static json_object *fn_values(const double *v)
{
	json_object *o = json_object_new_object();
	size_t m;

	for (m = 0; m < FN_NMETRICS; m++)
		add(o, fn_metric[m], isnan(v[m]) ? NULL : json_object_new_double(v[m]));
	return o;
}

json_object *functions_json(const struct report *r)
{
	json_object *a = json_object_new_array();
	size_t c, i, j, n;

	for (c = 1; c < r->t.ncols; c++) {
		struct fn_diff *d;

		n = functions_diff(r, c, &d);
		for (i = 0; i < n; i++) {
			json_object *e = json_object_new_object(), *fs = json_object_new_array();

			add(e, "commit", json_object_new_string(r->t.cols[c].key));
			add(e, "parent", json_object_new_string(r->t.cols[c - 1].key));
			add(e, "case", json_object_new_string(d[i].row->rec->case_name));
			add(e, "setup", json_object_new_string(d[i].row->setup));
			add(e, "top", json_object_new_int((int)d[i].top));
			for (j = 0; j < d[i].n; j++) {
				json_object *fo = json_object_new_object();

				add(fo, "name", json_object_new_string(d[i].v[j].name));
				add(fo, "parent", fn_values(d[i].v[j].parent));
				add(fo, "commit", fn_values(d[i].v[j].commit));
				json_object_array_add(fs, fo);
			}
			add(e, "functions", fs);
			json_object_array_add(a, e);
		}
		functions_diff_free(d, n);
	}
	return a;
}
