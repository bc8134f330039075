// SPDX-License-Identifier: GPL-2.0
/*
 * gate.c - the regression gate: a commit worse than its parent beyond a
 * threshold, by the rule that decides its row (exact, constant, Welch),
 * fails the run unless a maintainer's line of the --gate-ack file accepts
 * it.  See report.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

char *slash_name(const struct row *w)
{
	return xasprintf("%s/%s/%s", w->rec->suite, w->rec->case_name, w->rec->metric);
}

/*
 * Whether the gate looks at row w: every measurement unless --gate-only
 * names some; a model's counts (bench-vm --model) only where a glob of
 * --gate-only names them (a GATE_ONLY of "bench-vm/<case glob>/est_cycles"):
 * they are no hardware time, and a change in them is the series' point.
 */
static int gated(const struct report *r, const struct row *w)
{
	char *name;
	size_t i;
	int hit = 0;

	if (!r->ngate_only)
		return !w->rec->model;
	name = slash_name(w);
	for (i = 0; i < r->ngate_only && !hit; i++)
		hit = !fnmatch(r->gate_only[i], name, 0);
	free(name);
	return hit;
}

/*
 * The threshold of a comparison: icount figures are exact, so a small one;
 * TCG wall-clock timings drift more between boots than the samples of
 * one boot show, so a large one.
 */
static double gate_pct_of(const struct report *r, const struct row *w, const struct cmp *cm)
{
	if (cm->rule == RULE_EXACT)
		return r->gate_pct_icount;
	if (streq(w->rec->accel, "tcg") && !isnan(r->gate_pct_tcg))
		return r->gate_pct_tcg;
	return r->gate_pct;
}

/*
 * An acknowledgment names a commit; it also names the results of that
 * commit reused under another id (records with reused_from: the same
 * kernel, inputs and figures, after a changelog edit or a rebase that
 * changed no file), so that an edit elsewhere does not un-accept them.
 */
int ack_names_cell(const struct ack *a, const char *commit, const struct cell *cl)
{
	size_t n = strlen(a->commit);

	if (!strncmp(commit, a->commit, n))
		return 1;
	return cl->first && cl->first->reused_from &&
	       !strncmp(cl->first->reused_from, a->commit, n);
}

static struct ack *find_ack(const struct report *r, const struct row *w, size_t c,
			    double worse)
{
	char *name = slash_name(w);
	struct ack *a = NULL;
	size_t i;

	for (i = 0; i < r->nacks && !a; i++)
		if (ack_names_cell(&r->acks[i], r->t.cols[c].key, &w->cells[c]) &&
		    !fnmatch(r->acks[i].metric, name, 0) && worse <= r->acks[i].max_pct)
			a = &r->acks[i];
	free(name);
	return a;
}

void gate_decide(const struct report *r, const struct row *w, size_t c, struct gate *g)
{
	/* every count of the model is work done: lower is better */
	int dir = w->rec->model ? -1 : unit_direction(w->rec->unit);

	memset(g, 0, sizeof(*g));
	g->worse = NAN;
	g->threshold = NAN;
	g->cm.rule = RULE_NONE;
	if (r->t.by_cpu || c == 0 || isnan(r->gate_pct) || !dir || !gated(r, w) ||
	    !w->cells[c].n || !w->cells[c - 1].n)
		return;
	g->gated = 1;
	table_compare(&w->cells[c - 1], &w->cells[c], &g->cm);
	g->threshold = gate_pct_of(r, w, &g->cm);
	g->worse = dir < 0 ? g->cm.pct : -g->cm.pct;
	switch (g->cm.rule) {
	case RULE_WELCH:
		g->beyond = g->cm.p < r->alpha && fabs(g->cm.pct) > g->threshold;
		break;
	case RULE_EXACT:
	case RULE_CONSTANT:
		g->beyond = fabs(g->cm.pct) > g->threshold;
		break;
	default:
		break;
	}
	g->regression = g->beyond && g->worse > g->threshold;
	if (g->regression)
		g->ack = find_ack(r, w, c, g->worse);
}

/* what the gate says at the end of a row of the changes, in BUF */
const char *gate_tag(const struct report *r, const struct row *w, size_t c, char *buf,
		     size_t len)
{
	struct gate g;

	gate_decide(r, w, c, &g);
	if (!g.regression)
		return "";
	if (!g.ack)
		return "  REGRESSION";
	snprintf(buf, len, "  REGRESSION, accepted (%s:%u)", r->ack_file, g.ack->line);
	return buf;
}

/* the size of a change against the threshold, in words */
static char *size_text(const struct gate *g)
{
	if (g->worse > g->threshold)
		return xasprintf("%s worse, over the %g%% threshold", pct_str(g->worse).s,
				 g->threshold);
	if (g->worse > 0)
		return xasprintf("%s worse, within the %g%% threshold", pct_str(g->worse).s,
				 g->threshold);
	return xasprintf("not worse (%s), the threshold %g%%", pct_str(g->cm.pct).s,
			 g->threshold);
}

/* which rule decided, in words, for the report */
static char *rule_text(const struct report *r, const struct row *w, const struct gate *g)
{
	const char *clock = streq(w->rec->accel, "tcg") ? "TCG wall clock" :
			    w->rec->accel ? w->rec->accel : "accel unknown";
	char *size = size_text(g), *t;

	switch (g->cm.rule) {
	case RULE_EXACT:
		t = xasprintf("exact rule (tcg-icount: %s): %s", "same figures every boot, no test",
			      size);
		break;
	case RULE_CONSTANT:
		t = xasprintf("size rule (sd 0 on both sides, no test; %s): %s", clock, size);
		break;
	case RULE_WELCH:
		t = xasprintf("Welch's t-test (%s): p %s %s %g, %s", clock, pval(g->cm.p).s,
			      g->cm.p < r->alpha ? "<" : ">=", r->alpha, size);
		break;
	default:
		t = xasprintf("not decided: fewer than 2 samples a side for a test");
	}
	free(size);
	return t;
}

/* the next blank-separated word of *p, or die naming the line */
static char *word(char **p, const char *path, unsigned int ln)
{
	char *w = *p;
	size_t n = strcspn(w, " \t");

	if (!w[n])
		die("gate-ack: %s:%u: expected '%s'", path, ln, "COMMIT METRIC MAX-PCT REASON");
	w[n] = '\0';
	*p = w + n + 1;
	*p += strspn(*p, " \t");
	return w;
}

/*
 * What is wrong with glob G as fnmatch(3) reads it, or NULL: glibc takes
 * a '[' without its ']' and a '\\' at the end as plain characters, so such
 * a pattern matches nothing that the maintainer meant.  Names are never
 * empty: an empty component ("a//b", a leading or trailing '/') matches
 * nothing either.
 */
static const char *glob_error(const char *g)
{
	const char *p;

	if (!strchr(g, '/'))
		return "no '/' between its names";
	if (*g == '/' || g[strlen(g) - 1] == '/' || strstr(g, "//"))
		return "an empty name between its slashes";
	for (p = g; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return "a '\\' at its end, escaping nothing";
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			q = strchr(q, ']');
			if (!q)
				return "a '[' without its ']'";
			p = q;
		}
	}
	return NULL;
}

/*
 * The maintainers' acknowledgements: "COMMIT METRIC MAX-PCT REASON" a
 * line, '#' comments.  COMMIT: 12 to 40 hex digits, so that a rebased or
 * edited commit needs a new one; METRIC: a "suite/case/metric" glob;
 * MAX-PCT: the change accepted, percent worse than the parent (a larger
 * one fails again), a decimal above 0.  That its commit is one of the
 * series and its glob names a metric of the records is checked against
 * the table (ci-report).
 */
void gate_read_acks(struct report *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *p, *commit, *metric, *pct;
	const char *why;
	unsigned int ln = 0;
	size_t cap = 0, n;

	if (!f)
		die("gate-ack: %s: cannot open: %s", path, strerror(errno));
	r->ack_file = path;
	while (getline(&line, &cap, f) >= 0) {
		struct ack *a;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;
		commit = word(&p, path, ln);
		metric = word(&p, path, ln);
		pct = word(&p, path, ln);
		n = strlen(commit);
		if (n < 12 || n > 40 || strspn(commit, "0123456789abcdef") != n)
			die("gate-ack: %s:%u: '%s' is not a commit id of 12 to 40 hex digits", path,
			    ln, commit);
		why = glob_error(metric);
		if (why)
			die("gate-ack: %s:%u: '%s' is not a suite/case/metric glob: %s", path, ln,
			    metric, why);
		r->acks = xrealloc(r->acks, (r->nacks + 1) * sizeof(*r->acks));
		a = &r->acks[r->nacks];
		if (decimal_parse(pct, &a->max_pct) || !(a->max_pct > 0))
			die("gate-ack: %s:%u: '%s' is not a percent above 0 (%s)", path, ln, pct,
			    "the change accepted, a decimal number such as 12 or 2.5");
		if (!*p)
			die("gate-ack: %s:%u: no reason given: say why the change is right",
			    path, ln);
		a->commit = xstrdup(commit);
		a->metric = xstrdup(metric);
		a->reason = xstrdup(p);
		a->line = ln;
		a->used = 0;
		r->nacks++;
	}
	free(line);
	fclose(f);
}

/* the rules of the gate, in words */
void gate_rules(const struct report *r, FILE *f)
{
	fprintf(f, "A gated row fails when its commit is worse than the parent:\n");
	fprintf(f, "- tcg-icount rows (%s: %s): by more than %g%%, without a test;\n",
		ICOUNT_NOTE, "exact, the same figures every boot", r->gate_pct_icount);
	fprintf(f, "- other rows: by more than %g%% (TCG wall clock: %g%%) with p < %g %s;\n",
		r->gate_pct, isnan(r->gate_pct_tcg) ? r->gate_pct : r->gate_pct_tcg, r->alpha,
		"(Welch's t-test)");
	fprintf(f, "- rows of constant samples (sd 0 on both sides): %s.\n",
		"by more than their threshold, without a test");
	if (table_any_model(&r->t))
		fprintf(f, "- a model's counts (bench-vm --model, %s): %s;\n", "not hardware time",
			"only where --gate-only names them, by the rule of their clock");
	fprintf(f, "A maintainer accepts a change that is right in %s %s.\n",
		r->ack_file ? r->ack_file : "a --gate-ack file",
		"(commit, metric, up to which change, why)");
}

static char *verdict_text(const struct report *r, const struct gate *g)
{
	if (!g->regression)
		return xasprintf("pass");
	if (!g->ack)
		return xasprintf("REGRESSION");
	return xasprintf("accepted by %s:%u (up to %g%% worse): %s", r->ack_file, g->ack->line,
			 g->ack->max_pct, g->ack->reason);
}

static void write_one(const struct report *r, FILE *f, int md, const struct row *w,
		      size_t c, const struct gate *g)
{
	const struct column *col = &r->t.cols[c];
	char *name = row_name(w), *rule = rule_text(r, w, g), *verdict = verdict_text(r, g);

	if (md) {
		fprintf(f, "| %s ", short_id(col->key).s);
		md_escape(f, col->subject);
		fprintf(f, " | `%s` | ", name);
		md_escape(f, w->setup);
		fprintf(f, " | %s | %s | ", pct_str(g->cm.pct).s, rule);
		md_escape(f, verdict);
		fprintf(f, " |\n");
	} else {
		fprintf(f, "  %s %s: %s [%s]: %s vs parent: %s: %s\n", short_id(col->key).s,
			col->subject, name, w->setup, pct_str(g->cm.pct).s, rule, verdict);
		if (g->regression)
			fprintf(stderr, "%s: gate: %s %s: %s [%s] is %.1f%% %s %s (%s)%s%s\n",
				prog_name(), short_id(col->key).s, col->subject, name, w->setup,
				g->worse, "worse than in the parent",
				short_id(r->t.cols[c - 1].key).s, rule, g->ack ? ": " : "",
				g->ack ? verdict : "");
	}
	free(name);
	free(rule);
	free(verdict);
}

/*
 * The gate, commit by commit: every gated row against its parent and the
 * rule that decided it.  MD: a Markdown table; else a line each to F (the
 * text report), and every regression also to stderr.  Returns the
 * regressions that no maintainer accepted.
 */
int gate_write(struct report *r, FILE *f, int md)
{
	size_t i, c, n = 0;
	int bad = 0;

	if (md) {
		fprintf(f, "| commit | metric | setup | vs parent | rule | verdict |\n");
		fprintf(f, "|---|---|---|---|---|---|\n");
	}
	for (i = 0; i < r->nacks; i++)
		r->acks[i].used = 0;
	for (c = 1; c < r->t.ncols; c++) {
		for (i = 0; i < r->t.nrows; i++) {
			struct gate g;

			gate_decide(r, &r->t.rows[i], c, &g);
			if (!g.gated)
				continue;
			n++;
			write_one(r, f, md, &r->t.rows[i], c, &g);
			if (g.ack)
				g.ack->used = 1;
			else if (g.regression)
				bad++;
		}
	}
	if (!n)
		fprintf(f, md ? "| - | nothing gated | | | | |\n" : "  nothing gated\n");
	for (i = 0; i < r->nacks; i++) {
		if (r->acks[i].used)
			continue;
		fprintf(f, "%s%s:%u: %s %s (up to %g%%): accepts no regression of this report\n",
			md ? "\n- " : "  ", r->ack_file, r->acks[i].line,
			short_id(r->acks[i].commit).s, r->acks[i].metric, r->acks[i].max_pct);
	}
	return bad;
}

void gate_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nacks; i++) {
		free(r->acks[i].commit);
		free(r->acks[i].metric);
		free(r->acks[i].reason);
	}
	free(r->acks);
	r->acks = NULL;
	r->nacks = 0;
}
