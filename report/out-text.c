// SPDX-License-Identifier: GPL-2.0
/*
 * out-text.c - the text report: per commit an lkp-style table of the
 * changes against its parent and the base, then the text a changelog
 * quotes ("Average of rebinds for nd_pmem driver: ..."), the claims, the
 * error records and the gate.  See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

/* the changelog's test line: accel, setup, namespaces, rebinds, host */
#define TEST_LINE \
	"Test: %s; %s; %s; %s rebinds of each driver, memmap init time from the pr_debug() output of memmap_init_zone_device() (host %s)."
#define NO_REBINDS \
	"No bench-vm rebind records (suite bench-vm, case */rebind, metric memmap_init_ms): nothing to quote.\n\n"

/* rows shown in the comparison of column c against c - 1 */
int row_shown(const struct report *r, const struct row *w, size_t c)
{
	struct cmp cm;

	if (!w->cells[c].n || !w->cells[c - 1].n)
		return 0;
	if (!strcmp(w->rec->suite, "bench-vm") && strstr(w->rec->case_name, "/rebind"))
		return 1;
	table_compare(&w->cells[c - 1], &w->cells[c], &cm);
	/* exact memmap figures: the first binding too, as the changelogs */
	if (cm.rule == RULE_EXACT && !strcmp(w->rec->suite, "bench-vm") &&
	    !strcmp(w->rec->metric, "memmap_init_ms"))
		return 1;
	if (cm.rule == RULE_EXACT || cm.rule == RULE_CONSTANT)
		return cm.pct != 0;
	return cm.p < r->alpha;
}

/*
 * The mean and the sd in percent of it, at least in a fixed width: a
 * wider number widens its line, never cut (it was, at 24 columns).
 */
static char *pm_sd(const struct stats *s)
{
	if (s->n < 2 || s->mean == 0)
		return xasprintf("%10s      ", num(s->mean).s);
	return xasprintf("%10s ±%3.0f%%", num(s->mean).s, fabs(s->sd / s->mean * 100));
}

/* lkp-style: parent, change, commit, change against the base, name */
void text_changes(const struct report *r, FILE *f, size_t c)
{
	const struct table *t = &r->t;
	size_t i, n = 0, total = 0, exact = 0;
	char tag[128];

	fprintf(f, "commit %s %s\nparent %s, base %s\n\n", short_id(t->cols[c].key).s,
		t->cols[c].subject, short_id(t->cols[c - 1].key).s, short_id(t->cols[0].key).s);
	fprintf(f, "          parent                     commit\n");
	fprintf(f, "---------------- -------------------------- ----------------\n");
	fprintf(f, "         %%stddev     %%change          %%stddev  %%change base\n");
	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		struct cmp cp, cb;
		char *name, *pa, *pb;

		if (!w->cells[c].n || !w->cells[c - 1].n)
			continue;
		total++;
		if (!row_shown(r, w, c))
			continue;
		n++;
		table_compare(&w->cells[c - 1], &w->cells[c], &cp);
		table_compare(&w->cells[0], &w->cells[c], &cb);
		name = row_name(w);
		pa = pm_sd(&w->cells[c - 1].s);
		pb = pm_sd(&w->cells[c].s);
		fprintf(f, "%s %8s %-3s %s %8s %-3s  %s  [%s]%s\n", pa, pct_str(cp.pct).s,
			cmp_mark(&cp), pb, pct_str(cb.pct).s, cmp_mark(&cb), name, w->setup,
			gate_tag(r, w, c, tag, sizeof(tag)));
		exact += cp.rule == RULE_EXACT;
		free(name);
		free(pa);
		free(pb);
	}
	fprintf(f, "(%zu of %zu metrics shown: the rebind metrics and every change with p < %g;"
		" * p<0.05, ** p<0.01, *** p<0.001, Welch's t-test)\n", n, total, r->alpha);
	if (exact)
		fprintf(f, "(e: tcg-icount, %s: exact figures, no test; every change is shown)\n",
			ICOUNT_NOTE);
	fprintf(f, "\n");
}

static int is_rebind(const struct row *w)
{
	return !strcmp(w->rec->suite, "bench-vm") && !strcmp(w->rec->metric, "memmap_init_ms") &&
	       strstr(w->rec->case_name, "/rebind");
}

/*
 * TEXT as paragraphs of at most CHANGELOG_COLS columns (words are never
 * cut; a word longer than the width stands on a line of its own): the
 * text is meant to be pasted into a changelog, which checks/changelog-lint
 * holds to 75 columns.
 */
#define CHANGELOG_COLS 75
void text_wrap(FILE *f, const char *text, const char *indent)
{
	size_t col = 0, len;
	const char *w = text;

	while (*w) {
		while (*w == ' ')
			w++;
		if (!*w)
			break;
		len = strcspn(w, " ");
		if (col && col + 1 + len > CHANGELOG_COLS) {
			fprintf(f, "\n%s", indent);
			col = strlen(indent);
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)len, w);
		col += len;
		w += len;
	}
	fputc('\n', f);
}

/*
 * TEXT as one item of a list: a Markdown item ("- ", escaped), or, in
 * the text report, after LEAD, wrapped under a 4-column indent
 */
void list_item(FILE *f, const char *text, int md, const char *lead)
{
	if (md) {
		fputs("- ", f);
		md_escape(f, text);
		fputc('\n', f);
	} else {
		fputs(lead, f);
		text_wrap(f, text, "    ");
	}
}

/* a changelog figure's change, on its own line, as changelogs quote it */
static void changelog_change(FILE *f, const struct cmp *cp, const struct cmp *cb)
{
	if (cp->rule == RULE_EXACT)
		fprintf(f, "\n  (%s vs parent, %s vs base: exact tcg-icount figures, no test)",
			pct_str(cp->pct).s, pct_str(cb->pct).s);
	else
		fprintf(f, "\n  (%s vs parent, p %s; %s vs base, p %s)", pct_str(cp->pct).s,
			cmp_p(cp).s, pct_str(cb->pct).s, cmp_p(cb).s);
}

/* the "Test:" paragraph of one setup: what ran, on what */
static void changelog_setup(FILE *f, const struct row *w)
{
	const struct record *r = w->rec;
	double rebinds = record_param(r, "rebinds");
	char *t;

	t = xasprintf(TEST_LINE, record_accel_name(r), w->setup,
		      "an fsdax namespace (map=dev) and a devdax namespace (align=2M)",
		      /* records without the parameter: say so, never "nan" */
		      isnan(rebinds) ? "?" : num_int(rebinds).s, r->host ? r->host : "?");
	text_wrap(f, t, "");
	fputc('\n', f);
	free(t);
	if (record_is_icount(r)) {
		text_wrap(f, ICOUNT_CAVEAT, "");
		fputc('\n', f);
	}
}

/* the figures of one commit (column c) in one setup */
static void changelog_commit(const struct table *t, FILE *f, const char *setup, size_t c)
{
	size_t i;
	int any = 0;
	char *head;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		const char *drv = w->rec->case_name;
		struct cmp cp, cb;

		if (!is_rebind(w) || strcmp(w->setup, setup) || !w->cells[c].n)
			continue;
		if (!any) {
			head = xasprintf("%s %s (%s):", c == 0 ? "Base" : "With",
					 t->cols[c].subject[0] ? t->cols[c].subject : "commit",
					 short_id(t->cols[c].key).s);
			text_wrap(f, head, "");
			free(head);
		}
		any = 1;
		fprintf(f, "Average of rebinds for %.*s driver: %s %s", (int)strcspn(drv, "/"), drv,
			num(w->cells[c].s.mean).s, w->rec->unit);
		if (c > 0) {
			table_compare(&w->cells[c - 1], &w->cells[c], &cp);
			table_compare(&w->cells[0], &w->cells[c], &cb);
			changelog_change(f, &cp, &cb);
		}
		fprintf(f, "\n");
	}
	if (any)
		fprintf(f, "\n");
}

/* "Average of rebinds for nd_pmem driver: 96.79 ms", per commit */
void text_changelog(const struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	size_t i, j, c, nsetups = 0;
	const struct row **setups = NULL;

	/* one paragraph per setup, in the order the rows come */
	for (i = 0; i < t->nrows; i++) {
		int seen = 0;

		if (!is_rebind(&t->rows[i]))
			continue;
		for (j = 0; j < nsetups; j++)
			seen |= !strcmp(setups[j]->setup, t->rows[i].setup);
		if (!seen) {
			setups = xrealloc(setups, (nsetups + 1) * sizeof(*setups));
			setups[nsetups++] = &t->rows[i];
		}
	}
	if (!nsetups)
		fputs(NO_REBINDS, f);
	for (j = 0; j < nsetups; j++) {
		changelog_setup(f, setups[j]);
		for (c = 0; c < t->ncols; c++)
			changelog_commit(t, f, setups[j]->setup, c);
	}
	free(setups);
}

void errors_write(const struct report *r, FILE *f)
{
	size_t i;

	for (i = 0; i < r->t.nerrors; i++) {
		const struct record *e = r->t.errors[i];
		const char *why = e->error ? e->error : "(no error text)";

		fprintf(f, "- %s %s/%s: %s (%s:%u)\n", short_id(e->commit).s, e->suite,
			e->case_name, why, e->file, e->line);
	}
}

/*
 * The commits whose results are another commit's, reused because what
 * they are made of is the same (ci/run.sh: a changelog edit gives a new
 * id to the same tree): said first, so that nobody reads them as runs.
 */
static void reused_write(const struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	size_t c;
	int any = 0;

	for (c = 0; c < t->ncols; c++) {
		if (!*t->cols[c].reused)
			continue;
		if (!any)
			fprintf(f, "Results reused (the same content under another commit id):\n");
		any = 1;
		fprintf(f, "  %s %s: %s\n", short_id(t->cols[c].key).s,
			t->cols[c].subject[0] ? t->cols[c].subject : "commit", t->cols[c].reused);
	}
	if (any)
		fprintf(f, "\n");
}

/* the whole text report; returns the gate's unaccepted regressions */
int text_write(struct report *r, FILE *f)
{
	size_t c, i;

	summary_write(r, f, 0);
	reused_write(r, f);
	builds_write(r, f, 0);
	for (c = 1; c < r->t.ncols; c++)
		text_changes(r, f, c);
	for (c = 1; c < r->t.ncols; c++)
		functions_write(r, f, c, 0);
	predict_write(r, f, 0);
	text_changelog(r, f);
	fprintf(f, "Claimed vs reproduced:\n");
	for (i = 0; i < r->nclaims; i++) {
		fprintf(f, "  %-28s claimed %-28s reproduced %s: %s\n", r->claims[i].id,
			r->claims[i].claimed, r->claims[i].reproduced, r->claims[i].verdict);
		if (r->claims[i].model)
			fprintf(f, "  %-28s the model: %s\n", "", r->claims[i].model);
		if (r->claims[i].predicted)
			fprintf(f, "  %-28s predicted: %s\n", "", r->claims[i].predicted);
	}
	if (r->series.path)
		fprintf(f, "  (%s: %zu figures in its changelogs, %zu of them in %s; %s)\n",
			r->series.path, r->nfigs, r->nfigs_claimed, "a claim's quote",
			"report.json \"figures\"");
	else
		fprintf(f, "  (no patches/series read: %s)\n",
			"no claim's quote checked, no patch's commit known");
	if (table_any_exact(&r->t)) {
		fprintf(f, "  (tcg-icount: %s.)\n  ", ICOUNT_NOTE);
		text_wrap(f, ICOUNT_CAVEAT, "  ");
	}
	if (table_any_model(&r->t)) {
		fprintf(f, "  ");
		text_wrap(f, MODEL_CAVEAT, "  ");
	}
	limits_write(r, f, 0);
	if (r->t.nerrors) {
		fprintf(f, "Error records:\n");
		errors_write(r, f);
	}
	if (isnan(r->gate_pct))
		return 0;
	fprintf(f, "Regression gate:\n");
	return gate_write(r, f, 0);
}
