// SPDX-License-Identifier: GPL-2.0
/*
 * predict.c - what a commit does on a CPU no guest of ours ran on: per
 * cost table (lib/costs.h, ci-report --costs), commit and rebind case,
 * each bind of the cache model's records predicted from its counts and
 * the table, against the parent.  A bind is its parts: the plugin's top
 * functions of it and the rest of its window, each max(core, memory) +
 * serial.  The change's uncertainty is the table's, propagated through
 * the difference of the two commits' counts (the same table prices
 * both).  Every line that shows a prediction says it is one, and whose.
 * See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "costs.h"
#include "format.h"
#include "report.h"
#include "util.h"

/* a rebind or first-bind case's est_cycles row: a bind of the model */
static int bind_row(const struct row *w)
{
	const char *c = w->rec->case_name;
	size_t n = strlen(c);

	return w->rec->model && !strcmp(w->rec->metric, "est_cycles") &&
	       ((n > 7 && !strcmp(c + n - 7, "/rebind")) ||
		(n > 6 && !strcmp(c + n - 6, "/first")));
}

/* the row of @metric beside @w: its suite, case and setup */
static const struct row *sibling(const struct report *r, const struct row *w, const char *metric)
{
	size_t i;

	for (i = 0; i < r->t.nrows; i++) {
		const struct row *x = &r->t.rows[i];

		if (streq(x->rec->suite, w->rec->suite) &&
		    streq(x->rec->case_name, w->rec->case_name) &&
		    streq(x->rec->metric, metric) && streq(x->setup, w->setup))
			return x;
	}
	return NULL;
}

struct bind_get {
	const struct report *r;
	const struct row *w;
	size_t col, k;
	json_object *fn;	/* a function's entry, or NULL: the window's total */
	double minus[NR_COST_EVENTS];	/* the total less these: the rest of the window */
};

static double total_of(const struct bind_get *g, const char *event)
{
	const struct row *x = sibling(g->r, g->w, event);
	const struct cell *cl = x ? &x->cells[g->col] : NULL;

	return cl && g->k < cl->n ? cl->x[g->k] : NAN;
}

static double fn_get(const char *event, void *arg)
{
	const struct bind_get *g = arg;
	json_object *v;

	if (!json_object_object_get_ex(g->fn, event, &v) ||
	    (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

/* the k-th bind's top functions: the record and sample it comes from */
static json_object *bind_functions(const struct cell *cl, size_t k)
{
	size_t i, base = 0;

	for (i = 0; i < cl->nrecs; i++) {
		const struct record *rec = cl->recs[i];

		if (k < base + rec->n) {
			if (!rec->functions ||
			    !json_object_is_type(rec->functions, json_type_array))
				return NULL;
			return json_object_array_get_idx(rec->functions, k - base);
		}
		base += rec->n;
	}
	return NULL;
}

static double rest_get(const char *event, void *arg)
{
	const struct bind_get *g = arg;
	size_t i;

	for (i = 0; i < NR_COST_EVENTS; i++)
		if (!strcmp(cost_events[i], event))
			return total_of(g, event) - g->minus[i];
	return NAN;
}

/* why bind_parts() gave no parts */
#define MSG_FN_LACKS_EVENT \
	"a function of its records lacks an event the cost classes need (nt_rereads, rep_starts: records of a plugin before them; rerun the model)"
#define MSG_RECS_LACK_EVENT \
	"its records lack an event the cost classes need (nt_rereads, rep_starts: records of a plugin before them; rerun the model)"

/*
 * Bind k of cell (w, col) as parts: its top functions, then the rest of
 * its window.  Returns the number of parts (*parts allocated), or 0 when
 * the records lack what the classes need (*why says what).
 */
static size_t bind_parts(const struct report *r, const struct row *w, size_t col, size_t k,
			 double (**parts)[NR_COST_CLASSES], const char **why)
{
	struct bind_get g = { .r = r, .w = w, .col = col, .k = k };
	json_object *fns = bind_functions(&w->cells[col], k);
	size_t n = fns ? json_object_array_length(fns) : 0, i, e;

	*parts = xcalloc(n + 1, sizeof(**parts));
	for (i = 0; i < n; i++) {
		g.fn = json_object_array_get_idx(fns, i);
		if (cost_counts(fn_get, &g, (*parts)[i])) {
			*why = MSG_FN_LACKS_EVENT;
			goto fail;
		}
		for (e = 0; e < NR_COST_EVENTS; e++)
			g.minus[e] += fn_get(cost_events[e], &g);
	}
	if (cost_counts(rest_get, &g, (*parts)[n])) {
		*why = MSG_RECS_LACK_EVENT;
		goto fail;
	}
	return n + 1;
fail:
	free(*parts);
	*parts = NULL;
	return 0;
}

/*
 * The mean prediction of the binds of cell (w, col), ns, and the mean of
 * the counts it priced (for the difference's uncertainty).
 */
static int cell_predict(const struct report *r, const struct cost_table *t, const struct row *w,
			size_t col, double *ns, double d[NR_COST_CLASSES], const char **why)
{
	const struct cell *cl = &w->cells[col];
	size_t k, i;

	*ns = 0;
	memset(d, 0, NR_COST_CLASSES * sizeof(*d));
	if (!cl->n) {
		*why = "no binds";
		return -1;
	}
	for (k = 0; k < cl->n; k++) {
		double (*parts)[NR_COST_CLASSES], p, sd, dk[NR_COST_CLASSES];
		size_t np = bind_parts(r, w, col, k, &parts, why);

		if (!np)
			return -1;
		cost_predict_counts(t, &parts[0][0], np, &p, &sd, dk);
		*ns += p / cl->n;
		for (i = 0; i < NR_COST_CLASSES; i++)
			d[i] += dk[i] / cl->n;
		free(parts);
	}
	return 0;
}

int predict_change(const struct report *r, const struct cost_table *t, const struct row *w,
		   size_t from, size_t to, struct prediction *p)
{
	double dfrom[NR_COST_CLASSES], dto[NR_COST_CLASSES], var = 0;
	size_t i, j;

	memset(p, 0, sizeof(*p));
	p->pct = NAN;
	p->pct_ci = NAN;
	if (cell_predict(r, t, w, from, &p->from_ns, dfrom, &p->why) ||
	    cell_predict(r, t, w, to, &p->to_ns, dto, &p->why))
		return -1;
	for (i = 0; i < NR_COST_CLASSES; i++)
		for (j = 0; j < NR_COST_CLASSES; j++)
			var += (dto[i] - dfrom[i]) * t->cov[i][j] * (dto[j] - dfrom[j]);
	/*
	 * the model's error and the run-to-run spread (lib/costs.h), each
	 * side's taken as its own: how much of them two neighbouring
	 * commits share is not measured, so none is assumed to cancel
	 */
	var += (t->model_error * t->model_error + t->run_spread * t->run_spread) *
	       (p->from_ns * p->from_ns + p->to_ns * p->to_ns);
	p->pct = stats_pct(p->from_ns, p->to_ns);
	p->pct_ci = 1.96 * 100 * sqrt(var > 0 ? var : 0) / p->from_ns;
	p->valid = 1;
	return 0;
}

/* the icount change of the same case, where the records have it */
static int icount_pct(const struct report *r, const struct row *w, size_t c, double *pct)
{
	size_t i;

	for (i = 0; i < r->t.nrows; i++) {
		const struct row *x = &r->t.rows[i];
		const struct cell *a = &x->cells[c - 1], *b = &x->cells[c];

		if (!x->rec->model && streq(x->rec->suite, w->rec->suite) &&
		    streq(x->rec->case_name, w->rec->case_name) &&
		    streq(x->rec->metric, "memmap_init_ms") && streq(x->rec->clock, "icount") &&
		    !strncmp(w->setup, x->setup, strlen(x->setup)) && a->n && b->n) {
			*pct = stats_pct(a->s.mean, b->s.mean);
			return 0;
		}
	}
	return -1;
}

char *predict_label(const struct cost_table *t)
{
	char *cpu = xasprintf(COST_LABEL, t->id, t->cpu_ident), *l;

	if (t->has_error_terms)
		return cpu;
	/* a table fitted before either was measured: its interval is narrower than the truth */
	l = xasprintf("%s; +- the fit's alone", cpu);
	free(cpu);
	return l;
}

/* the formats of predict_write(): Markdown (_MD) and text (_TXT) */
#define MSG_HEAD_MD "\n### Predicted on %s\n\n"
#define MSG_HEAD_TXT "\nPredicted on %s:\n"
#define MSG_ABOUT_MD \
	"%s (%s). Per bind of the cache model's records: its top functions and the rest of its window, each max(core, memory) + serial (lib/costs.h); the change against the parent, +- the table's 95%% interval. The check of the table on code timed for real is in the table's cost-fit.txt (bench/costs.sh).\n\n"
#define MSG_ABOUT_TXT \
	"  %s (%s).\n  Per bind: its top functions and the rest of its window, each max(core, memory)\n  + serial (lib/costs.h); the change against the parent +- the table's 95%%;\n  the table's check on code timed for real: cost-fit.txt beside it.\n"
#define MSG_TERMS_MD \
	"The interval also holds the model's error (the fit's kernels each held out: %.1f%% RMS) and the CPU's run-to-run spread (%.1f%%), each side's in full.\n\n"
#define MSG_TERMS_TXT \
	"  The interval also holds the model's error (kernels held out: %.1f%% RMS)\n  and the CPU's run-to-run spread (%.1f%%).\n"
#define MSG_NO_TERMS_MD \
	"**The interval is the fit's alone**: this table was fitted before cost-fit held kernels out or timed two runs, so neither the model's error nor the run-to-run spread is in it, and it is narrower than the truth.\n\n"
#define MSG_NO_TERMS_TXT \
	"  The interval is the fit's alone: this table has no model error or run-to-run\n  spread (fitted before cost-fit measured them): narrower than the truth.\n"
#define MSG_TABLE_HEAD_MD \
	"| commit | case | predicted ms per bind | change | icount memmap_init_ms | model est_cycles | what |\n|---|---|---|---|---|---|---|\n"
#define MSG_NONE_MD "| %.12s | %s | - | %s | - | - | - |\n"
#define MSG_NONE_TXT "  %.12s %-22s %s\n"
#define MSG_ROW_MD "| %.12s | %s | %.2f -> %.2f | %+.1f%% +- %.1f%% | %s | %+.1f%% | "
#define MSG_ROW_TXT \
	"  %.12s %-20s %7.2f -> %7.2f ms %+7.1f%% +-%5.1f%% (icount %s, model %+.1f%%; %s)\n"

/* the heading of table t's predictions, before its first line */
static void predict_write_head(FILE *f, int md, const struct cost_table *t, const char *label)
{
	if (md) {
		/* the CPU's name, the table's id and its path are the records' text */
		char *head = xasprintf(MSG_HEAD_MD, t->cpu_ident);
		char *about = xasprintf(MSG_ABOUT_MD, label, t->file);

		md_escape(f, head);
		md_escape(f, about);
		free(head);
		free(about);
		if (t->has_error_terms)
			fprintf(f, MSG_TERMS_MD, 100 * t->model_error, 100 * t->run_spread);
		else
			fputs(MSG_NO_TERMS_MD, f);
		fputs(MSG_TABLE_HEAD_MD, f);
	} else {
		fprintf(f, MSG_HEAD_TXT, t->cpu_ident);
		fprintf(f, MSG_ABOUT_TXT, label, t->file);
		if (t->has_error_terms)
			fprintf(f, MSG_TERMS_TXT, 100 * t->model_error, 100 * t->run_spread);
		else
			fputs(MSG_NO_TERMS_TXT, f);
	}
}

/* the line of bind row w on table t: its change from commit c - 1 to c */
static void predict_write_row(const struct report *r, FILE *f, int md,
			      const struct cost_table *t, const char *label,
			      const struct row *w, size_t c)
{
	const char *key = r->t.cols[c].key, *name = w->rec->case_name;
	const char *icount = "-";
	struct prediction p;
	double ipct, mpct;
	struct text ip;
	char what[160];

	mpct = stats_pct(w->cells[c - 1].s.mean, w->cells[c].s.mean);
	if (icount_pct(r, w, c, &ipct))
		ipct = NAN;
	if (predict_change(r, t, w, c - 1, c, &p)) {
		snprintf(what, sizeof(what), "no prediction: %s", p.why);
		if (md)
			fprintf(f, MSG_NONE_MD, key, name, what);
		else
			fprintf(f, MSG_NONE_TXT, key, name, what);
		return;
	}
	if (!isnan(ipct)) {
		ip = pct_str(ipct);
		icount = ip.s;
	}
	/* the label on every line that shows a prediction */
	if (md) {
		fprintf(f, MSG_ROW_MD, key, name, p.from_ns / 1e6, p.to_ns / 1e6,
			p.pct, p.pct_ci, icount, mpct);
		md_escape(f, label);
		fputs(" |\n", f);
	} else {
		fprintf(f, MSG_ROW_TXT, key, name, p.from_ns / 1e6, p.to_ns / 1e6,
			p.pct, p.pct_ci, icount, mpct, label);
	}
}

void predict_write(const struct report *r, FILE *f, int md)
{
	size_t ti, c, i;

	for (ti = 0; ti < r->ncosts; ti++) {
		const struct cost_table *t = &r->costs[ti];
		char *label = predict_label(t);
		int any = 0;

		for (c = 1; c < r->t.ncols; c++)
			for (i = 0; i < r->t.nrows; i++) {
				const struct row *w = &r->t.rows[i];

				if (!bind_row(w) || !w->cells[c].n || !w->cells[c - 1].n)
					continue;
				if (!any) {
					predict_write_head(f, md, t, label);
					any = 1;
				}
				predict_write_row(r, f, md, t, label, w, c);
			}

		free(label);
	}
}

/* the JSON object of bind row w on table t: its change from commit c - 1 to c */
static json_object *predict_json_row(const struct report *r, const struct cost_table *t,
				     const struct row *w, size_t c)
{
	json_object *o = json_object_new_object();
	char *label = predict_label(t);
	struct prediction p;

	json_object_object_add(o, "table", json_object_new_string(t->id));
	json_object_object_add(o, "label", json_object_new_string(label));
	json_object_object_add(o, "commit", json_object_new_string(r->t.cols[c].key));
	json_object_object_add(o, "parent", json_object_new_string(r->t.cols[c - 1].key));
	json_object_object_add(o, "case", json_object_new_string(w->rec->case_name));
	if (predict_change(r, t, w, c - 1, c, &p)) {
		json_object_object_add(o, "error", json_object_new_string(p.why));
	} else {
		json_object_object_add(o, "parent_ms", json_object_new_double(p.from_ns / 1e6));
		json_object_object_add(o, "ms", json_object_new_double(p.to_ns / 1e6));
		json_object_object_add(o, "pct", json_object_new_double(p.pct));
		json_object_object_add(o, "pct_ci95", json_object_new_double(p.pct_ci));
	}
	free(label);
	return o;
}

json_object *predict_json(const struct report *r)
{
	json_object *a = json_object_new_array();
	size_t ti, c, i;

	for (ti = 0; ti < r->ncosts; ti++)
		for (c = 1; c < r->t.ncols; c++)
			for (i = 0; i < r->t.nrows; i++) {
				const struct row *w = &r->t.rows[i];

				if (!bind_row(w) || !w->cells[c].n || !w->cells[c - 1].n)
					continue;
				json_object_array_add(a, predict_json_row(r, &r->costs[ti], w, c));
			}
	return a;
}

/*
 * Beside a claim: the predicted change of its cases and commits on each
 * CPU with a table (claims.c), or NULL when none can be.
 */
char *predict_beside(const struct report *r, const char *suite, const char *from_case,
		     const char *to_case, size_t fa, size_t fb)
{
	char *out = NULL;
	size_t ti, i;

	for (ti = 0; ti < r->ncosts; ti++)
		for (i = 0; i < r->t.nrows; i++) {
			const struct row *w = &r->t.rows[i];
			struct prediction p;
			char *label, *s;

			/* the same case on both sides only: a prediction prices one row's counts */
			if (!bind_row(w) || !streq(w->rec->suite, suite) ||
			    !streq(w->rec->case_name, to_case) || strcmp(from_case, to_case) ||
			    !w->cells[fa].n || !w->cells[fb].n ||
			    predict_change(r, &r->costs[ti], w, fa, fb, &p))
				continue;
			label = predict_label(&r->costs[ti]);
			s = xasprintf("%s%s%.2f -> %.2f ms per bind (%+.1f%% +- %.1f%%; %s)",
				      out ? out : "", out ? "; " : "",
				      p.from_ns / 1e6, p.to_ns / 1e6, p.pct, p.pct_ci, label);
			free(out);
			free(label);
			out = s;
			break;
		}
	return out;
}
