// SPDX-License-Identifier: GPL-2.0
/*
 * claims.c - every figure a changelog quotes (lib/claims.def, one row
 * each) against the cells of the report that reproduce it: the one
 * verdict of each, computed here only.  See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

struct claim {
	const char *id, *source, *what, *claimed;
	const char *suite, *metric, *from, *from_case, *to, *to_case;
	double cfrom, cto, pct_lo, pct_hi;
};

/* the verdict of a claim that no comparison of records measures */
#define NO_VERDICT \
	"no verdict: no comparison of records measures it; see copy-bench's tables"

static const struct claim claims[] = {
#define CLAIM(id, source, what, claimed, suite, metric, from, from_case, to, to_case, \
	      cfrom, cto, lo, hi) \
	{ id, source, what, claimed, suite, metric, from, from_case, to, to_case, \
	  cfrom, cto, lo, hi },
#include "claims.def"

#undef CLAIM
};

static ssize_t claim_commit(const struct table *t, const char *sel)
{
	size_t i, len;

	if (!strcmp(sel, "base"))
		return t->ncols ? 0 : -1;
	if (!strcmp(sel, "head"))
		return t->ncols ? (ssize_t)t->ncols - 1 : -1;
	if (!strncmp(sel, "subject:", 8) || !strncmp(sel, "parent:", 7)) {
		int parent = sel[0] == 'p';
		const char *pfx = strchr(sel, ':') + 1;

		len = strlen(pfx);
		for (i = 0; i < t->ncols; i++)
			if (!strncmp(t->cols[i].subject, pfx, len))
				return parent ? (ssize_t)i - 1 : (ssize_t)i;
	}
	return -1;
}

static const struct row *find_cell_row(const struct table *t, const char *suite,
				       const char *case_name, const char *metric, size_t col)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];

		if (streq(w->rec->suite, suite) && streq(w->rec->case_name, case_name) &&
		    streq(w->rec->metric, metric) && w->cells[col].n)
			return w;
	}
	return NULL;
}

/* the one verdict of a claim against the figures that reproduce it */
static char *verdict(const struct claim_result *res, const struct cmp *cm, double lo,
		     double hi, double alpha)
{
	/* exact (icount) or constant figures: no test, the size decides */
	int sized = cm->rule == RULE_EXACT || cm->rule == RULE_CONSTANT;
	int rneg, lneg;

	if (sized && res->rpct == 0)
		return xasprintf("not reproduced: no change (%s figures)",
				 cm->rule == RULE_EXACT ? "exact" : "constant");
	if (!sized && !cm->w.valid)
		return xasprintf("too few samples for a test");
	if (!sized && !(cm->p < alpha))
		return xasprintf("not reproduced: no significant change");
	rneg = res->rpct < 0;
	lneg = lo < 0;
	if (rneg != lneg)
		return xasprintf("not reproduced: opposite direction");
	if (lo != hi && res->rpct >= lo && res->rpct <= hi)
		return xasprintf("reproduced: within the claimed range");
	return xasprintf("direction reproduced; %.1f points %s than claimed",
			 fabs(res->rpct - lo), fabs(res->rpct) > fabs(lo) ? "more" : "less");
}

static void reproduce(const struct report *r, const struct claim *c,
		      struct claim_result *res, const struct row *a, size_t fa,
		      const struct row *b, size_t fb)
{
	const struct stats *sa = &a->cells[fa].s, *sb = &b->cells[fb].s;
	double lo, hi;
	struct cmp cm;

	table_compare(&a->cells[fa], &b->cells[fb], &cm);
	res->nfrom = sa->n;
	res->nto = sb->n;
	res->rfrom = sa->mean;
	res->rto = sb->mean;
	res->rpct = stats_pct(sa->mean, sb->mean);
	res->p = cm.p;
	free(res->setup);
	res->setup = xstrdup(b->setup);
	if (cm.rule == RULE_EXACT)
		res->reproduced = xasprintf("%s -> %s %s (%s, %s, n %zu/%zu)", num(sa->mean).s,
					    num(sb->mean).s, a->rec->unit, pct_str(res->rpct).s,
					    "exact: tcg-icount, no test", sa->n, sb->n);
	else
		res->reproduced = xasprintf("%s -> %s %s (%s, p %s, n %zu/%zu)", num(sa->mean).s,
					    num(sb->mean).s, a->rec->unit, pct_str(res->rpct).s,
					    cmp_p(&cm).s, sa->n, sb->n);
	lo = !isnan(c->cfrom) ? res->cpct : fmin(c->pct_lo, c->pct_hi);
	hi = !isnan(c->cfrom) ? res->cpct : fmax(c->pct_lo, c->pct_hi);
	res->verdict = verdict(res, &cm, lo, hi, r->alpha);
}

/* the text of a claimed change: two figures, a range or one change */
static char *claimed_text(const struct claim *c, double cpct)
{
	if (!isnan(c->cfrom))
		return xasprintf("%s -> %s (%s)", num(c->cfrom).s, num(c->cto).s, pct_str(cpct).s);
	if (c->pct_lo != c->pct_hi)
		return xasprintf("%+.0f%%..%+.0f%%", c->pct_hi, c->pct_lo);
	return xasprintf("%+.0f%%", c->pct_lo);
}

static void claim_eval(const struct report *r, const struct claim *c, struct claim_result *res)
{
	const struct row *a = NULL, *b = NULL;
	ssize_t fa, fb;

	memset(res, 0, sizeof(*res));
	res->id = c->id;
	res->source = c->source;
	res->what = c->what;
	res->cfrom = c->cfrom;
	res->cto = c->cto;
	res->rfrom = NAN;
	res->rto = NAN;
	res->rpct = NAN;
	res->p = NAN;
	if (!c->suite) {
		res->cpct = NAN;
		res->claimed = xstrdup(c->claimed);
		res->reproduced = xstrdup("-");
		res->verdict = xstrdup(NO_VERDICT);
		res->setup = xstrdup("");
		return;
	}
	res->cpct = !isnan(c->cfrom) ? stats_pct(c->cfrom, c->cto) : c->pct_lo;
	res->claimed = claimed_text(c, res->cpct);
	res->setup = xasprintf("%s %s -> %s %s", c->from, c->from_case, c->to, c->to_case);
	fa = claim_commit(&r->t, c->from);
	fb = claim_commit(&r->t, c->to);
	if (fa >= 0)
		a = find_cell_row(&r->t, c->suite, c->from_case, c->metric, fa);
	if (fb >= 0)
		b = find_cell_row(&r->t, c->suite, c->to_case, c->metric, fb);
	if (fa < 0 || fb < 0) {
		res->verdict = xasprintf("no data: commit '%s' not in the report",
					 fa < 0 ? c->from : c->to);
		res->reproduced = xstrdup("-");
	} else if (!a || !b) {
		res->verdict = xasprintf("no data: no %s record of %s", c->metric,
					 !a ? c->from_case : c->to_case);
		res->reproduced = xstrdup("-");
	} else {
		reproduce(r, c, res, a, fa, b, fb);
	}
}

void claims_eval(struct report *r)
{
	size_t i;

	r->nclaims = ARRAY_SIZE(claims);
	r->claims = xcalloc(r->nclaims, sizeof(*r->claims));
	for (i = 0; i < r->nclaims; i++)
		claim_eval(r, &claims[i], &r->claims[i]);
}

void claims_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nclaims; i++) {
		free(r->claims[i].claimed);
		free(r->claims[i].reproduced);
		free(r->claims[i].verdict);
		free(r->claims[i].setup);
	}
	free(r->claims);
	r->claims = NULL;
	r->nclaims = 0;
}
