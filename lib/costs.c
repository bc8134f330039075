// SPDX-License-Identifier: GPL-2.0
/*
 * costs.c - cost tables and predictions from them; see costs.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "costs.h"
#include "table.h"
#include "util.h"

const char *const cost_class_names[NR_COST_CLASSES] = {
	"insn", "load", "store", "rep_byte", "rep_start",
	"l1_load_miss", "l1_store_miss", "llc_load", "llc_store", "writeback", "nt_line",
	"fence", "nt_reread",
};

const enum cost_side cost_class_side[NR_COST_CLASSES] = {
	COST_CORE, COST_CORE, COST_CORE, COST_SERIAL, COST_SERIAL,
	COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY,
	COST_SERIAL, COST_SERIAL,
};

/* the sides of a table whose records name none: REP on the core side */
static const enum cost_side cost_class_side_v1[NR_COST_CLASSES] = {
	COST_CORE, COST_CORE, COST_CORE, COST_CORE, COST_CORE,
	COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY, COST_MEMORY,
	COST_SERIAL, COST_SERIAL,
};

static int side_of(const char *name)
{
	int i;

	for (i = 0; i < NR_COST_SIDES; i++)
		if (!strcmp(name, cost_side_names[i]))
			return i;
	return -1;
}

const char *const cost_side_names[NR_COST_SIDES] = { "core", "memory", "serial" };

/* in the order of cost_counts()'s enum */
const char *const cost_events[NR_COST_EVENTS] = {
	"insns", "loads", "stores", "rep_iters", "rep_bytes", "nt_bytes", "sfences",
	"mfences", "l1d_load_misses", "l1d_store_misses", "llc_load_misses",
	"llc_store_misses", "llc_writebacks", "nt_rereads", "rep_starts",
};

int cost_counts(double (*get)(const char *event, void *arg), void *arg,
		double a[NR_COST_CLASSES])
{
	enum { INSNS, LOADS, STORES, REP_ITERS, REP_BYTES, NT_BYTES, SFENCES, MFENCES,
	       L1_LOAD, L1_STORE, LLC_LOAD, LLC_STORE, WRITEBACKS, NT_REREADS, REP_STARTS,
	       NR_EV };
	double e[NR_EV];
	size_t i;

	_Static_assert(NR_EV == NR_COST_EVENTS, "cost_events[] and the enum differ");
	for (i = 0; i < NR_EV; i++) {
		e[i] = get(cost_events[i], arg);
		if (isnan(e[i]))
			return -1;
	}
	a[COST_INSN] = e[INSNS] - e[REP_ITERS];
	a[COST_LOAD] = fmax(e[LOADS] - e[REP_ITERS], 0);
	a[COST_STORE] = e[STORES] - e[REP_ITERS];
	a[COST_REP_BYTE] = e[REP_BYTES];
	a[COST_REP_START] = e[REP_STARTS];
	a[COST_L1_LOAD_MISS] = e[L1_LOAD] - e[LLC_LOAD];
	a[COST_L1_STORE_MISS] = e[L1_STORE] - e[LLC_STORE];
	a[COST_LLC_LOAD] = e[LLC_LOAD];
	a[COST_LLC_STORE] = e[LLC_STORE];
	a[COST_WRITEBACK] = e[WRITEBACKS];
	a[COST_NT_LINE] = e[NT_BYTES] / 64;
	a[COST_FENCE] = e[SFENCES] + e[MFENCES];
	a[COST_NT_REREAD] = e[NT_REREADS];
	return 0;
}

static ssize_t class_of(const char *case_name)
{
	size_t i;

	if (strncmp(case_name, "cost/", 5))
		return -1;
	for (i = 0; i < NR_COST_CLASSES; i++)
		if (!strcmp(case_name + 5, cost_class_names[i]))
			return (ssize_t)i;
	return -1;
}

/* the table of id in *v, added when new */
static struct cost_table *table_of(struct cost_table **v, size_t *n, const char *id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i].id, id))
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	for (i = 0; i < NR_COST_CLASSES; i++)
		(*v)[*n].c[i] = NAN;
	(*v)[*n].id = id;
	return &(*v)[(*n)++];
}

static const char *const bad_record =
	"%s:%u: not a %s record (costs.h: cost/<class>, ns_per_event, 1 sample, cov of %d)";
static const char *const no_class =
	"%s: table '%s' has no cost/%s: a cost table has every class (costs.h)";

int cost_tables(const struct records *rs, struct cost_table **v, size_t *n, char **why)
{
	size_t i, j;

	*v = NULL;
	*n = 0;
	*why = NULL;
	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		const char *id = record_param_str(r, "table"), *side;
		ssize_t k = class_of(r->case_name);
		struct cost_table *t;
		json_object *cov;

		if (strcmp(r->suite, COST_SUITE))
			continue;
		if (k < 0 || !id || r->n != 1 || strcmp(r->metric, "ns_per_event") ||
		    !json_object_object_get_ex(r->params, "cov", &cov) ||
		    !json_object_is_type(cov, json_type_array) ||
		    json_object_array_length(cov) != NR_COST_CLASSES) {
			*why = xasprintf(bad_record, r->file, r->line, COST_SUITE, NR_COST_CLASSES);
			return -1;
		}
		t = table_of(v, n, id);
		side = record_param_str(r, "side");
		if (side && side_of(side) < 0) {
			*why = xasprintf("%s:%u: params.side '%s' is not core, memory or serial",
					 r->file, r->line, side);
			return -1;
		}
		t->side[k] = side ? (enum cost_side)side_of(side) : cost_class_side_v1[k];
		t->sides_named += !!side;
		if (!isnan(t->c[k])) {
			*why = xasprintf("%s:%u: table '%s' has cost/%s twice", r->file, r->line,
					 id, cost_class_names[k]);
			return -1;
		}
		t->c[k] = r->samples[0];
		t->model_error = record_param(r, "model_error_rel");
		t->run_spread = record_param(r, "run_spread_rel");
		t->has_error_terms = !isnan(t->model_error) && !isnan(t->run_spread);
		if (isnan(t->model_error))
			t->model_error = 0;
		if (isnan(t->run_spread))
			t->run_spread = 0;
		t->cpu = r->cpu_name;
		if (!t->cpu_ident)
			t->cpu_ident = record_cpu_ident(r);
		t->microcode = record_param_str(r, "cpu_microcode");
		if (!t->file)
			t->file = r->file;
		for (j = 0; j < NR_COST_CLASSES; j++) {
			json_object *x = json_object_array_get_idx(cov, j);

			if (!json_object_is_type(x, json_type_double) &&
			    !json_object_is_type(x, json_type_int)) {
				*why = xasprintf("%s:%u: params.cov[%zu] is not a number", r->file,
						 r->line, j);
				return -1;
			}
			t->cov[k][j] = json_object_get_double(x);
		}
	}
	for (i = 0; i < *n; i++) {
		for (j = 0; j < NR_COST_CLASSES; j++)
			if (isnan((*v)[i].c[j])) {
				*why = xasprintf(no_class, (*v)[i].file, (*v)[i].id,
						 cost_class_names[j]);
				return -1;
			}
		/* a table's sides are named in all its records or in none */
		if ((*v)[i].sides_named && (*v)[i].sides_named != NR_COST_CLASSES) {
			*why = xasprintf("%s: table '%s' names params.side in %d of its %d records",
					 (*v)[i].file, (*v)[i].id, (*v)[i].sides_named,
					 NR_COST_CLASSES);
			return -1;
		}
	}
	return 0;
}

void cost_tables_free(struct cost_table *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].cpu_ident);
	free(v);
}

double cost_side_sum(const struct cost_table *t, const double a[NR_COST_CLASSES],
		     enum cost_side side)
{
	double s = 0;
	size_t i;

	for (i = 0; i < NR_COST_CLASSES; i++)
		if (t->side[i] == side)
			s += a[i] * t->c[i];
	return s;
}

void cost_predict_counts(const struct cost_table *t, const double *a, size_t n, double *ns,
			 double *sd, double d[NR_COST_CLASSES])
{
	double s = 0, var = 0;
	size_t p, i, j;

	memset(d, 0, NR_COST_CLASSES * sizeof(*d));
	/* d: the counts whose costs the prediction sums, part by part */
	for (p = 0; p < n; p++) {
		const double *ap = a + p * NR_COST_CLASSES;
		double core = cost_side_sum(t, ap, COST_CORE);
		double mem = cost_side_sum(t, ap, COST_MEMORY);
		enum cost_side larger = core >= mem ? COST_CORE : COST_MEMORY;

		for (i = 0; i < NR_COST_CLASSES; i++)
			if (t->side[i] == larger || t->side[i] == COST_SERIAL)
				d[i] += ap[i];
	}
	for (i = 0; i < NR_COST_CLASSES; i++) {
		s += d[i] * t->c[i];
		for (j = 0; j < NR_COST_CLASSES; j++)
			var += d[i] * t->cov[i][j] * d[j];
	}
	/* the model's error and the CPU's run-to-run spread, relative */
	var += (t->model_error * t->model_error + t->run_spread * t->run_spread) * s * s;
	*ns = s;
	*sd = sqrt(var > 0 ? var : 0);
}

void cost_predict_parts(const struct cost_table *t, const double *a, size_t n, double *ns,
			double *sd)
{
	double d[NR_COST_CLASSES];

	cost_predict_counts(t, a, n, ns, sd, d);
}

void cost_predict(const struct cost_table *t, const double a[NR_COST_CLASSES], double *ns,
		  double *sd)
{
	cost_predict_parts(t, a, 1, ns, sd);
}
