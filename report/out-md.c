// SPDX-License-Identifier: GPL-2.0
/*
 * out-md.c - the Markdown report: commits, the text for a changelog, the
 * claims, the gate, the error records, the changes per commit and the
 * full statistics; by CPU (ci-merge), one table of every metric and
 * commit, a column per CPU.  See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

#define STATS_HEADER \
	"| commit | n | median | mean | sd | 95% CI | vs parent | p | vs base | p |\n"

/* how many of the changelogs' figures the claims quote */
static void claims_figures_md(const struct report *r, FILE *f)
{
	if (r->series.path)
		fprintf(f, "The changelogs of %s quote %zu figures; %zu of them are in %s %s.\n\n",
			r->series.path, r->nfigs, r->nfigs_claimed, "a claim's quote",
			"(report.json's \"figures\" lists each, with its claim)");
	else
		fputs("No patches/series was read: the claims of patches have no commits,\n"
		      "and no quote was checked.\n\n", f);
}

static void claims_md(const struct report *r, FILE *f)
{
	int model = table_any_model(&r->t);
	size_t i;

	int pred = model && r->ncosts;

	fprintf(f, "| id | source | what | claimed | reproduced | verdict | setup |%s%s\n",
		model ? " model |" : "", pred ? " predicted |" : "");
	fprintf(f, "|---|---|---|---|---|---|---|%s%s\n", model ? "---|" : "",
		pred ? "---|" : "");
	for (i = 0; i < r->nclaims; i++) {
		const struct claim_result *c = &r->claims[i];

		fprintf(f, "| %s | ", c->id);
		md_escape(f, c->source);
		fprintf(f, " | ");
		md_escape(f, c->what);
		fprintf(f, " | ");
		md_escape(f, c->claimed);
		fprintf(f, " | ");
		md_escape(f, c->reproduced);
		fprintf(f, " | ");
		md_escape(f, c->verdict);
		fprintf(f, " | ");
		md_escape(f, c->setup);
		fprintf(f, " |");
		if (model) {
			fprintf(f, " ");
			md_escape(f, c->model ? c->model : "-");
			fprintf(f, " |");
		}
		if (pred) {
			fprintf(f, " ");
			md_escape(f, c->predicted ? c->predicted : "-");
			fprintf(f, " |");
		}
		fprintf(f, "\n");
	}
	fputs("\nEach claim is a figure its patch's changelog quotes now: its quote is found\n"
	      "there, or the verdict says it is stale.  Some come from other machines (Li\n"
	      "Zhe's Ice Lake VM, Usama Arif's Cooper Lake): there the comparison is of the\n"
	      "change in percent, and absolute values are comparable only on the same setup.\n"
	      "TCG timings show relative change only.\n\n", f);
	claims_figures_md(r, f);
	if (table_any_exact(&r->t)) {
		fputs("Rows marked tcg-icount are " ICOUNT_NOTE ", compared by the size of\n", f);
		fputs("the change, without a test. " ICOUNT_CAVEAT "\n\n", f);
	}
	if (table_any_model(&r->t))
		fputs("The model column: the same change in est_cycles of bench-vm's cache model.\n"
		      MODEL_CAVEAT "\n\n", f);
}

static void full_stats_md(const struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	size_t i, c;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		char *name = row_name(w);

		fprintf(f, "### %s (%s) [%s]\n\n", name, w->rec->unit, w->setup);
		free(name);
		fputs(STATS_HEADER, f);
		fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
		for (c = 0; c < t->ncols; c++) {
			const struct stats *s = &w->cells[c].s;
			struct cmp cp, cb;

			if (!s->n)
				continue;
			memset(&cp, 0, sizeof(cp));
			cp.pct = NAN;
			cp.p = NAN;
			cb = cp;
			if (c > 0) {
				table_compare(&w->cells[c - 1], &w->cells[c], &cp);
				table_compare(&w->cells[0], &w->cells[c], &cb);
			}
			fprintf(f,
				"| %s | %zu | %s | %s | %s | [%s, %s] | %s %s | %s | %s %s | %s |\n",
				t->by_cpu ? t->cols[c].key : short_id(t->cols[c].key).s, s->n,
				num(s->median).s, num(s->mean).s, num(s->sd).s, num(s->mean_lo).s,
				num(s->mean_hi).s, pct_str(cp.pct).s, cmp_mark(&cp), cmp_p(&cp).s,
				pct_str(cb.pct).s, cmp_mark(&cb), cmp_p(&cb).s);
		}
		fprintf(f, "\n");
	}
}

/* by CPU: one cell, with the change against the series' base */
static void merge_cell(const struct table *t, FILE *f, const struct row *w, size_t c)
{
	const struct row *base = table_base_row(t, w);
	const struct stats *s = &w->cells[c].s;
	struct cmp cm;

	if (!s->n) {
		fprintf(f, " - |");
		return;
	}
	fprintf(f, " %s ± %s (n %zu)", num(s->mean).s, num(s->sd).s, s->n);
	if (base && base != w && base->cells[c].n) {
		table_compare(&base->cells[c], &w->cells[c], &cm);
		fprintf(f, " %s %s", pct_str(cm.pct).s, cmp_mark(&cm));
	}
	fprintf(f, " |");
}

/* by CPU: whether the exact records of the hosts agree (table_icount_agree) */
static void agree_md(const struct table *t, FILE *f, const struct row *w)
{
	struct agree a;

	table_icount_agree(t, w, &a);
	switch (a.state) {
	case AGREE_EQUAL:
		fprintf(f, " equal |");
		break;
	case AGREE_WITHIN:
		fprintf(f, " agree: up to %g %s apart (%s) |", a.apart, w->rec->unit, a.rule);
		break;
	case AGREE_DIFFER:
		fprintf(f, " **DIFFER**: %g %s apart, beyond %g %s (%s) |", a.apart,
			w->rec->unit, a.tol, w->rec->unit, a.rule);
		break;
	default:
		fprintf(f, " - |");
	}
}

static void merge_md(const struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	int exact = table_any_exact(t);
	size_t i, c;

	fprintf(f, "| metric | commit | setup |");
	for (c = 0; c < t->ncols; c++) {
		fprintf(f, " ");
		md_escape(f, t->cols[c].key);
		fprintf(f, " (%s) |", t->cols[c].hosts);
	}
	if (exact)
		fprintf(f, " tcg-icount on the hosts |");
	fprintf(f, "\n|---|---|---|");
	for (c = 0; c < t->ncols + !!exact; c++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		char *name = row_name(w);

		fprintf(f, "| %s (%s) | %s | %s |", name, w->rec->unit, short_id(w->commit).s,
			w->setup);
		free(name);
		for (c = 0; c < t->ncols; c++)
			merge_cell(t, f, w, c);
		if (exact)
			agree_md(t, f, w);
		fprintf(f, "\n");
	}
	fputs("\nColumns: accel and CPU model (hosts); cells: mean ± sd (n), and the change\n",
	      f);
	fprintf(f, "of the mean against the series' base (%s) on the same CPU\n",
		t->nseries ? short_id(t->series[0]).s : "?");
	fputs("(Welch's t-test: * p<0.05, ** p<0.01, *** p<0.001).\n", f);
	if (exact) {
		fputs("\ntcg-icount cells (" ICOUNT_NOTE "; e: exact, no test):\n", f);
		fputs("the same kernel under the same QEMU should give the same figures on\n"
		      "any host.  The last column compares what is exact, never the number of\n"
		      "samples: the distinct values of each host and run, each within the\n"
		      "metric's resolution of one of the other's (memmap_init_ms: 1 ms, the\n"
		      "kernel prints whole ms; counts: exact); the agent's own clock (bind_us,\n"
		      "unbind_us, boot) bind by bind within 20 us or 20 ppm (measured: 1-2 us\n"
		      "apart in 1.1 s between an Intel and an AMD host).  equal: the same\n"
		      "values; agree: apart within that; DIFFER: beyond it.  Records that\n"
		      "name their QEMU build (params.qemu_version) are compared only with\n"
		      "that build's: another build is another row, its setup naming it.\n\n", f);
		fputs(ICOUNT_CAVEAT "\n", f);
	}
}

void md_write(struct report *r, FILE *f)
{
	const struct table *t = &r->t;
	size_t c;

	if (t->by_cpu) {
		fprintf(f, "# Results by CPU model\n\n");
		merge_md(r, f);
		return;
	}
	fputs("# CI report\n\n", f);
	summary_write(r, f, 1);
	/* the plots beside this file: their index opens with the summary chart */
	if (r->plots_link)
		fprintf(f,
			"Plots: [%s/index.md](%s/index.md), the summary chart first (the change against the base per commit and driver, the claims marked).\n\n",
			r->plots_link, r->plots_link);
	fputs("## Commits\n\n| # | commit | subject | hosts | reused from |\n"
	      "|---|---|---|---|---|\n", f);
	for (c = 0; c < t->ncols; c++) {
		fprintf(f, "| %zu | %s | ", c, short_id(t->cols[c].key).s);
		md_escape(f, t->cols[c].subject);
		fprintf(f, " | %s | %s |\n", t->cols[c].hosts,
			*t->cols[c].reused ? t->cols[c].reused : "-");
	}
	fprintf(f, "\n");
	builds_write(r, f, 1);
	fprintf(f, "## Text for a changelog\n\n```\n");
	text_changelog(r, f);
	fprintf(f, "```\n\n## Claimed vs reproduced\n\n");
	claims_md(r, f);
	limits_write(r, f, 1);
	fprintf(f, "## Regression gate\n\n");
	if (isnan(r->gate_pct)) {
		fprintf(f, "No gate (no --gate-pct).\n\n");
	} else {
		int bad;

		gate_rules(r, f);
		fprintf(f, "\n");
		bad = gate_write(r, f, 1);
		fprintf(f, "\nRegressions: %s.\n\n", bad ? "see REGRESSION above" : "none");
	}
	if (t->nerrors) {
		fprintf(f, "## Error records\n\n");
		errors_write(r, f);
		fprintf(f, "\n");
	}
	fprintf(f, "## Changes per commit\n\n");
	for (c = 1; c < t->ncols; c++) {
		fprintf(f, "```\n");
		text_changes(r, f, c);
		fprintf(f, "```\n\n");
	}
	if (table_any_model(t)) {
		fprintf(f, "## Where the work goes (model)\n\n");
		for (c = 1; c < t->ncols; c++)
			functions_write(r, f, c, 1);
	}
	if (r->ncosts && table_any_model(t)) {
		fprintf(f, "## Predicted on hardware (cost tables)\n");
		predict_write(r, f, 1);
		fprintf(f, "\n");
	}
	fputs("## Full statistics\n\n"
	      "mean, sd and the 95% CI of the mean (t distribution); changes of the mean, Welch's t-test.\n\n",
	      f);
	full_stats_md(r, f);
}
