// SPDX-License-Identifier: GPL-2.0
/*
 * out-json.c - the report as one JSON object, schema
 * x86-copy-series/ci-report/1 (doc/records.md).  Numbers that do not
 * exist (an sd of one sample, a p without a test) are null.  See report.h.
 */
#include <math.h>
#include <stdio.h>

#include "format.h"
#include "report.h"

static json_object *jnum(double x)
{
	return isnan(x) || isinf(x) ? NULL : json_object_new_double(x);
}

/* S as a JSON string, or null */
static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *jack(const struct report *r, const struct ack *a)
{
	json_object *k = json_object_new_object();

	add(k, "file", jstr(r->ack_file));
	add(k, "line", json_object_new_int(a->line));
	add(k, "max_pct", jnum(a->max_pct));
	add(k, "reason", jstr(a->reason));
	return k;
}

static json_object *jcmp(const struct cell *a, const struct cell *b)
{
	json_object *o = json_object_new_object();
	struct cmp cm;

	table_compare(a, b, &cm);
	add(o, "pct", jnum(cm.pct));
	add(o, "p", jnum(cm.p));
	add(o, "t", jnum(cm.w.t));
	add(o, "df", jnum(cm.w.df));
	add(o, "mark", json_object_new_string(cmp_mark(&cm)));
	add(o, "rule", jstr(rule_name(cm.rule)));
	return o;
}

static json_object *jcell(const struct report *r, const struct row *w, size_t c)
{
	const struct table *t = &r->t;
	const struct cell *cl = &w->cells[c];
	const struct stats *s = &cl->s;
	json_object *x = json_object_new_object(), *ci = json_object_new_array();
	struct gate g;

	gate_decide(r, w, c, &g);
	add(x, "column", json_object_new_string(t->cols[c].key));
	add(x, "n", json_object_new_int64(s->n));
	add(x, "median", jnum(s->median));
	add(x, "mean", jnum(s->mean));
	add(x, "sd", jnum(s->sd));
	json_object_array_add(ci, jnum(s->mean_lo));
	json_object_array_add(ci, jnum(s->mean_hi));
	add(x, "ci95", ci);
	add(x, "clock", jstr(cl->exact ? "icount" : "wall"));
	if (c > 0 && !t->by_cpu) {
		add(x, "vs_parent", jcmp(&w->cells[c - 1], cl));
		add(x, "vs_base", jcmp(&w->cells[0], cl));
	}
	if (t->by_cpu) {
		const struct row *base = table_base_row(t, w);

		if (base && base != w && base->cells[c].n)
			add(x, "vs_base", jcmp(&base->cells[c], cl));
	}
	if (g.gated)
		add(x, "gate_rule", jstr(rule_name(g.cm.rule)));
	if (g.regression)
		add(x, "regression_pct", jnum(g.worse));
	if (g.ack)
		add(x, "accepted", jack(r, g.ack));
	if (t->by_cpu && cl->exact)
		add(x, "runs_differ", json_object_new_boolean(cl->runs_differ));
	return x;
}

static json_object *jrows(const struct report *r)
{
	const struct table *t = &r->t;
	json_object *rows = json_object_new_array();
	size_t i, c;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		json_object *e = json_object_new_object(), *cells = json_object_new_array();

		add(e, "suite", json_object_new_string(w->rec->suite));
		add(e, "case", json_object_new_string(w->rec->case_name));
		add(e, "metric", json_object_new_string(w->rec->metric));
		add(e, "unit", json_object_new_string(w->rec->unit));
		add(e, "setup", json_object_new_string(w->setup));
		if (t->by_cpu)
			add(e, "commit", jstr(w->commit));
		for (c = 0; c < t->ncols; c++)
			if (w->cells[c].n)
				json_object_array_add(cells, jcell(r, w, c));
		add(e, "cells", cells);
		json_object_array_add(rows, e);
	}
	return rows;
}

/* a claim's side: the commit of the report (or null) and the case it reads */
static json_object *jside(const char *commit, const char *case_name, size_t n)
{
	json_object *o;

	if (!case_name)
		return NULL;
	o = json_object_new_object();
	add(o, "commit", jstr(commit));
	add(o, "case", json_object_new_string(case_name));
	add(o, "n", json_object_new_int64(n));
	return o;
}

static json_object *jclaims(const struct report *r)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < r->nclaims; i++) {
		const struct claim_result *c = &r->claims[i];
		json_object *e = json_object_new_object();

		add(e, "id", json_object_new_string(c->id));
		add(e, "patch", json_object_new_string(c->patch));
		add(e, "source", jstr(c->source));
		add(e, "quote", json_object_new_string(c->quote));
		add(e, "stale", json_object_new_boolean(c->stale));
		add(e, "what", jstr(c->what));
		add(e, "suite", jstr(c->suite));
		add(e, "metric", jstr(c->metric));
		add(e, "from", jside(c->from_commit, c->from_case, c->nfrom));
		add(e, "to", jside(c->to_commit, c->to_case, c->nto));
		add(e, "claimed", json_object_new_string(c->claimed));
		add(e, "claimed_from", jnum(c->cfrom));
		add(e, "claimed_to", jnum(c->cto));
		add(e, "claimed_pct", jnum(c->cpct));
		add(e, "statistic", jstr(c->statistic));
		add(e, "reproduced_from", jnum(c->rfrom));
		add(e, "reproduced_to", jnum(c->rto));
		add(e, "reproduced_pct", jnum(c->rpct));
		add(e, "reproduced_sd_from", jnum(c->sdfrom));
		add(e, "reproduced_sd_to", jnum(c->sdto));
		add(e, "clock", jstr(c->clock));
		add(e, "reproduced", jstr(c->reproduced));
		add(e, "p", jnum(c->p));
		add(e, "model", jstr(c->model));
		add(e, "model_from", jnum(c->mfrom));
		add(e, "model_to", jnum(c->mto));
		add(e, "model_pct", jnum(c->mpct));
		add(e, "predicted", jstr(c->predicted));
		add(e, "limits", limits_json(r, c));
		add(e, "verdict", json_object_new_string(c->verdict));
		add(e, "setup", json_object_new_string(c->setup));
		json_object_array_add(a, e);
	}
	return a;
}

/* every figure of every changelog of the series, with the claim that quotes it */
static json_object *jfigures(const struct report *r)
{
	json_object *a = json_object_new_array();
	size_t i, j;

	for (i = 0; i < r->series.n; i++) {
		const struct series_patch *p = &r->series.p[i];

		for (j = 0; j < p->nfigs; j++) {
			const struct figure *g = &p->figs[j];
			json_object *e = json_object_new_object();

			add(e, "file", json_object_new_string(p->path));
			add(e, "patch", p->number ? json_object_new_int(p->number) :
				     json_object_new_string(p->status));
			add(e, "line", json_object_new_int(g->line));
			add(e, "value", json_object_new_double(g->value));
			add(e, "unit", json_object_new_string(g->unit));
			add(e, "claim", jstr(g->claim));
			json_object_array_add(a, e);
		}
	}
	return a;
}

int json_write(const struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	json_object *o = json_object_new_object(), *a;
	size_t i;
	int ret;

	add(o, "schema", json_object_new_string("x86-copy-series/ci-report/1"));
	add(o, "mode", json_object_new_string(t->by_cpu ? "by-cpu" : "commits"));
	add(o, "alpha", json_object_new_double(r->alpha));
	add(o, "gate_pct", jnum(r->gate_pct));
	add(o, "gate_pct_tcg", jnum(isnan(r->gate_pct_tcg) ? r->gate_pct : r->gate_pct_tcg));
	add(o, "gate_pct_icount", jnum(r->gate_pct_icount));
	if (t->by_cpu)
		add(o, "base", jstr(t->nseries ? t->series[0] : NULL));
	a = json_object_new_array();
	for (i = 0; i < t->ncols; i++) {
		json_object *e = json_object_new_object();

		add(e, "key", json_object_new_string(t->cols[i].key));
		add(e, "subject", json_object_new_string(t->cols[i].subject));
		add(e, "hosts", json_object_new_string(t->cols[i].hosts));
		add(e, "reused", json_object_new_string(t->cols[i].reused));
		json_object_array_add(a, e);
	}
	add(o, "columns", a);
	add(o, "rows", jrows(r));
	add(o, "claims", jclaims(r));
	add(o, "series", jstr(r->series.path));
	add(o, "figures", jfigures(r));
	add(o, "functions", functions_json(r));
	add(o, "predictions", predict_json(r));
	add(o, "builds", builds_json(r));
	a = json_object_new_array();
	for (i = 0; i < t->nerrors; i++)
		json_object_array_add(a, json_object_get(t->errors[i]->obj));
	add(o, "errors", a);
	ret = fprintf(f, "%s\n",
		      json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
	json_object_put(o);
	return ret;
}
