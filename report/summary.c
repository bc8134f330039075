// SPDX-License-Identifier: GPL-2.0
/*
 * summary.c - the report's first answer: per patch (and the cover
 * letter), how many of the figures its changelog quotes held, did not,
 * or could not be told here, and on what evidence: the guests' icount or
 * wall clock, the host's timings, the cache model and the cost tables'
 * prediction beside them.  Counted from the claims' verdicts (claims.c),
 * in the order the claims come.  See report.h.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

enum { HELD, NOT_HELD, UNTOLD, NR_OUTCOMES };

/* a verdict's outcome: what claims.c writes first decides it */
static int outcome_of(const struct claim_result *c)
{
	if (!strncmp(c->verdict, "reproduced", 10) ||
	    !strncmp(c->verdict, "direction reproduced", 20))
		return HELD;
	if (!strncmp(c->verdict, "not reproduced", 14))
		return NOT_HELD;
	return UNTOLD;	/* no data, no verdict, not comparable, stale */
}

/* the evidence of a claim that has records: its clock, or the host's */
static const char *evidence_of(const struct claim_result *c)
{
	if (!c->suite || outcome_of(c) == UNTOLD)
		return NULL;
	if (!strcmp(c->suite, "bench"))
		return "host timings";
	if (c->clock && !strcmp(c->clock, "icount"))
		return "guest icount";
	return c->clock && !strcmp(c->clock, "wall") ? "guest wall clock" : "guest";
}

/* WORD into the ", "-joined list *L, once */
static void add_once(char **l, const char *word)
{
	char *t;
	const char *p = *l;
	size_t n = strlen(word);

	while (p && (p = strstr(p, word))) {
		if ((p == *l || p[-2] == ',') && (p[n] == ',' || !p[n]))
			return;
		p += n;
	}
	t = xasprintf("%s%s%s", *l ? *l : "", *l ? ", " : "", word);
	free(*l);
	*l = t;
}

void summary_write(const struct report *r, FILE *f, int md)
{
	size_t i, j, k, total[NR_OUTCOMES] = { 0 };

	if (!r->nclaims)
		return;
	if (md)
		fputs("## Summary\n\n"
		      "Per patch, the figures its changelog quotes (the claims below): how many\n"
		      "held here (reproduced, or at least in direction), did not, or could not\n"
		      "be told (no records of theirs, no comparison, a quote no longer there),\n"
		      "and on what evidence.\n\n"
		      "| patch | claims | held | not reproduced | not told here | evidence |\n"
		      "|---|---|---|---|---|---|\n", f);
	else
		fputs("Summary (per patch: its changelog's claims held here / not reproduced /\n"
		      "not told here, and the evidence):\n", f);
	for (i = 0; i < r->nclaims; i++) {
		const char *src = r->claims[i].source;
		size_t n[NR_OUTCOMES] = { 0 };
		char *ev = NULL;

		for (j = 0; j < i; j++)
			if (!strcmp(r->claims[j].source, src))
				break;
		if (j < i)
			continue;
		for (k = i; k < r->nclaims; k++) {
			const struct claim_result *c = &r->claims[k];
			const char *e;

			if (strcmp(c->source, src))
				continue;
			n[outcome_of(c)]++;
			e = evidence_of(c);
			if (e)
				add_once(&ev, e);
			if (e && c->model)
				add_once(&ev, "the cache model");
			if (e && c->predicted)
				add_once(&ev, "the cost tables' prediction");
		}
		for (k = 0; k < NR_OUTCOMES; k++)
			total[k] += n[k];
		if (md) {
			fputs("| ", f);
			md_escape(f, src);
			fprintf(f, " | %zu | %zu | %zu | %zu | %s |\n",
				n[HELD] + n[NOT_HELD] + n[UNTOLD], n[HELD], n[NOT_HELD], n[UNTOLD],
				ev ? ev : "-");
		} else {
			fprintf(f, "  %-60.60s %2zu / %2zu / %2zu  %s\n", src, n[HELD], n[NOT_HELD],
				n[UNTOLD], ev ? ev : "-");
		}
		free(ev);
	}
	if (md)
		fprintf(f, "| all | %zu | %zu | %zu | %zu | |\n\n",
			total[HELD] + total[NOT_HELD] + total[UNTOLD], total[HELD],
			total[NOT_HELD], total[UNTOLD]);
	else
		fprintf(f, "  %-60s %2zu / %2zu / %2zu\n", "all", total[HELD], total[NOT_HELD],
			total[UNTOLD]);
}
