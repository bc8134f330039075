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

/* a verdict's outcome: what claims.c writes first decides it */
int claim_outcome(const struct claim_result *c)
{
	if (!strncmp(c->verdict, "reproduced", 10) ||
	    !strncmp(c->verdict, "direction reproduced", 20))
		return HELD;
	if (!strncmp(c->verdict, "not reproduced", 14))
		return NOT_HELD;
	return UNTOLD;	/* no data, no verdict, not comparable, stale */
}

/* the evidence of a claim that has records: its clock, or the host's */
enum { EV_HOST, EV_ICOUNT, EV_WALL, EV_GUEST, NR_EVIDENCE };

static const char *const evidence_name[NR_EVIDENCE] = {
	"host timings", "guest icount", "guest wall clock", "guest",
};

/*
 * Why a guest's figure can miss what the host's timings see: said where
 * a patch's claims held on one and not on the other.
 */
static const char *const evidence_why[NR_EVIDENCE] = {
	NULL,
	"icount counts the instructions the guest ran, 1 ns each: a change that keeps their number and changes their cost (a store's kind, MOVNTI for MOV; a cache's behaviour) is no change there, and the host's timings are the evidence for it",
	"a wall clock under TCG times QEMU's translation of the guest, not the hardware's cost of the instructions",
	NULL,
};

static int evidence_of(const struct claim_result *c)
{
	if (!c->suite || claim_outcome(c) == UNTOLD)
		return -1;
	if (!strcmp(c->suite, "bench"))
		return EV_HOST;
	if (c->clock && !strcmp(c->clock, "icount"))
		return EV_ICOUNT;
	return c->clock && !strcmp(c->clock, "wall") ? EV_WALL : EV_GUEST;
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

/*
 * A patch's claims, counted by outcome and by evidence; ev also counts
 * the other mails' claims that measure its change (claims.def: MEASURES),
 * which the outcome columns leave to the mail that quotes them.
 */
struct patch_count {
	size_t n[NR_OUTCOMES];
	size_t ev[NR_EVIDENCE][2];	/* held, not held: its own and those joined */
	size_t joined[NR_EVIDENCE][2];	/* of those, the other mails' */
	char *text;			/* "guest icount 0 of 2 held, ...", or NULL */
};

static void append(char **l, const char *sep, char *piece)
{
	char *t = xasprintf("%s%s%s", *l ? *l : "", *l ? sep : "", piece);

	free(*l);
	free(piece);
	*l = t;
}

static void count_patch(const struct report *r, const char *src, struct patch_count *pc)
{
	const char *patch = NULL;
	size_t k, e;
	char *extra = NULL;

	memset(pc, 0, sizeof(*pc));
	for (k = 0; k < r->nclaims && !patch; k++)
		if (!strcmp(r->claims[k].source, src))
			patch = r->claims[k].patch;
	for (k = 0; k < r->nclaims; k++) {
		const struct claim_result *c = &r->claims[k];
		int own = !strcmp(c->source, src), ev;

		if (!own && !(c->measures && patch && !strcmp(c->measures, patch)))
			continue;
		if (own)
			pc->n[claim_outcome(c)]++;
		ev = evidence_of(c);
		if (ev < 0)
			continue;
		pc->ev[ev][claim_outcome(c) == NOT_HELD]++;
		if (!own)
			pc->joined[ev][claim_outcome(c) == NOT_HELD]++;
		if (own && c->model)
			add_once(&extra, "the cache model");
		if (own && c->predicted)
			add_once(&extra, "the cost tables' prediction");
	}
	for (e = 0; e < NR_EVIDENCE; e++) {
		size_t h = pc->ev[e][0] - pc->joined[e][0], n = pc->ev[e][1] - pc->joined[e][1];

		if (h + n)
			append(&pc->text, "; ",
			       xasprintf("%s %zu of %zu held", evidence_name[e], h, h + n));
	}
	for (e = 0; e < NR_EVIDENCE; e++)
		if (pc->joined[e][0] + pc->joined[e][1])
			append(&pc->text, "; ",
			       xasprintf("%s %zu of %zu held (other mails' claims of its change)",
					 evidence_name[e], pc->joined[e][0],
					 pc->joined[e][0] + pc->joined[e][1]));
	if (extra)
		append(&pc->text, "; ", xasprintf("beside them %s", extra));
	free(extra);
}

/*
 * A patch whose claims held on one evidence and not on another: the two
 * joined in one sentence, with why the one that missed can miss.
 */
#define DISAGREE_FMT \
	"%s: its claims held on %s (%zu of %zu) and not on %s (%zu of %zu not reproduced)%s%s."

static void disagreement_write(const char *src, const struct patch_count *pc, FILE *f,
			       int md)
{
	size_t e, h;
	char *line;

	for (h = 0; h < NR_EVIDENCE && !(pc->ev[h][0] && !pc->ev[h][1]); h++)
		;
	if (h == NR_EVIDENCE)
		return;
	for (e = 0; e < NR_EVIDENCE; e++) {
		if (e == h || !pc->ev[e][1])
			continue;
		line = xasprintf(DISAGREE_FMT, src, evidence_name[h], pc->ev[h][0], pc->ev[h][0],
				 evidence_name[e], pc->ev[e][1], pc->ev[e][0] + pc->ev[e][1],
				 evidence_why[e] ? ": " : "",
				 evidence_why[e] ? evidence_why[e] : "");
		list_item(f, line, md, "  - ");
		free(line);
	}
}

/* i is the first claim of its source */
static int first_of_source(const struct report *r, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(r->claims[j].source, r->claims[i].source))
			return 0;
	return 1;
}

void summary_write(const struct report *r, FILE *f, int md)
{
	size_t i, k, total[NR_OUTCOMES] = { 0 }, ndis = 0;
	struct patch_count pc;

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

		if (!first_of_source(r, i))
			continue;
		count_patch(r, src, &pc);
		for (k = 0; k < NR_OUTCOMES; k++)
			total[k] += pc.n[k];
		if (md) {
			fputs("| ", f);
			md_escape(f, src);
			fprintf(f, " | %zu | %zu | %zu | %zu | %s |\n",
				pc.n[HELD] + pc.n[NOT_HELD] + pc.n[UNTOLD], pc.n[HELD],
				pc.n[NOT_HELD], pc.n[UNTOLD], pc.text ? pc.text : "-");
		} else {
			fprintf(f, "  %-60.60s %2zu / %2zu / %2zu  %s\n", src, pc.n[HELD],
				pc.n[NOT_HELD], pc.n[UNTOLD], pc.text ? pc.text : "-");
		}
		free(pc.text);
	}
	if (md)
		fprintf(f, "| all | %zu | %zu | %zu | %zu | |\n\n",
			total[HELD] + total[NOT_HELD] + total[UNTOLD], total[HELD],
			total[NOT_HELD], total[UNTOLD]);
	else
		fprintf(f, "  %-60s %2zu / %2zu / %2zu\n", "all", total[HELD], total[NOT_HELD],
			total[UNTOLD]);
	/* where one patch's evidence disagrees, the two joined */
	for (i = 0; i < r->nclaims; i++) {
		if (!first_of_source(r, i))
			continue;
		count_patch(r, r->claims[i].source, &pc);
		free(pc.text);
		for (k = 0; k < NR_EVIDENCE; k++)
			if (pc.ev[k][0] && !pc.ev[k][1])
				break;
		if (k == NR_EVIDENCE)
			continue;
		for (k = 0; k < NR_EVIDENCE && !pc.ev[k][1]; k++)
			;
		if (k == NR_EVIDENCE)
			continue;
		if (!ndis++)
			fputs(md ? "Where a patch's evidence disagrees:\n\n" :
				   "  Where a patch's evidence disagrees:\n", f);
		disagreement_write(r->claims[i].source, &pc, f, md);
	}
	if (ndis && md)
		fputc('\n', f);
}
