// SPDX-License-Identifier: GPL-2.0
/*
 * claims-lint.c - every figure the series' mails quote has a source, the
 * records a measured one names give it, and its mail describes it as it
 * was computed.  make export and make send run it; they refuse the
 * series where it fails.
 *
 *   claims-lint [--series FILE] [--figures FILE]
 *
 * Defaults: patches/series, and the "figures" file beside it.  The
 * figures that need a source (report/claims.c: series_figures) are those of
 * the cover letter and of every applied patch's changelog that have a
 * unit or a percent, and every number of a table row (an indented line
 * with two numbers or more).  Upstream entries are others' commits,
 * carried as they are: not linted.
 *
 * The figures file: one source a line, '#' comments and blank lines
 * apart.  MAIL is "cover" or K (the K-th applied patch), as in
 * lib/claims.def; QUOTE is the mail's own words, blanks as one space,
 * fragments in their order joined by " ... ".
 *
 *   MAIL claim ID DIR
 *      measured here: lib/claims.def's claim ID, of MAIL, whose verdict
 *      on the records of DIR must be ci-report's "reproduced" (the
 *      claimed figures to their printed precision).  Sources the
 *      figures of its quote that it claims; statistic: ci-report's for
 *      the claim (the mean; a host benchmark's clean-median)
 *   MAIL records DIR STAT SUITE METRIC CASES COMMITS | QUOTE
 *      measured here, in no claim: QUOTE's figures are, in their order,
 *      among STAT of the samples of DIR's records of each commit of
 *      COMMITS and each case of CASES (comma lists), commit by commit,
 *      then the change from the first commit to the last of each case,
 *      in percent ("%" figures) and as a ratio ("x").  STAT: mean,
 *      median, clean-median (the median of the samples no other task
 *      preempted, stats_clean(): copy-bench's tables) or range (max -
 *      min: "differ by 1 ms").  DIR: a directory or a .jsonl file.
 *      COMMITS: base, head, K (the K-th patch) by DIR's commits.txt, or
 *      commit ids (7 digits or more)
 *   MAIL report FILE FILTER | QUOTE
 *      a figure a report prints, made from records by ci-report and kept
 *      current by a test: each figure of QUOTE on a line of FILE holding
 *      FILTER, as printed there.  A line that says "predicted" needs a
 *      mail that says so
 *   MAIL cite REF | QUOTE
 *      quoted from elsewhere: REF ("[1]", a Link:) must be in MAIL
 *   MAIL param WHY... | QUOTE
 *      no measurement: a setting of the run, a size of the code
 *
 * How a measured figure (claim, records) is described is read from its
 * paragraph (a table's: with the paragraphs before and after it), and
 * refused where it says otherwise than computed: a statistic word (mean,
 * average, median) other than the one computed; a clean-median that left
 * samples out without saying which ("preempted" or "clean"); "of N" after the statistic,
 * "N rebinds" or "N samples" other than the samples' count; "N runs"
 * other than one record set; an icount figure without "not hardware
 * time".  Records whose commits.txt starts at another base than the
 * cover letter's base-commit: are refused (a repin: their figures are
 * another kernel's until measured again).
 *
 * Exit: 0 every figure sourced, given and described as computed; 1 any
 * refusal (each on stderr: the file and line, what, and what to do);
 * 2 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/format.h"
#include "../report/report.h"
#include "util.h"

/* equal as figures (report/claims.c's EPS) */
#define EPS 0.000000001

static unsigned int nrefused;

static void refuse(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_name());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nrefused++;
}

/* ---- the records of a directory, read once ---- */

struct dirset {
	char *dir;
	struct records rs;
	struct report r;
	int has_commits;	/* commits.txt gave the columns: base, K, head */
	int bad;		/* unreadable: said once */
};

static struct dirset *dirs;
static size_t ndirs;
static const char *series_path;	/* the series linted: the claims' too */
static char series_base[41];	/* its cover letter's base-commit:, or "" */

struct source;

/* "FIGURES:LINE" of a source: a path of any length (struct text holds a number) */
struct where {
	char s[4096 + 16];
};

static struct where where(const struct source *s);

/* series_base from the cover letter at PATH: its "base-commit: <id>" */
static void base_of(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0)
		if (sscanf(line, "base-commit: %40[0-9a-f]", series_base) == 1 &&
		    strlen(series_base) == 40)
			break;
	if (strlen(series_base) != 40)
		series_base[0] = '\0';
	free(line);
	fclose(f);
}

static struct dirset *dir_load(const struct source *src, const char *dir)
{
	struct dirset *d;
	char *commits;
	size_t i;

	for (i = 0; i < ndirs; i++)
		if (!strcmp(dirs[i].dir, dir))
			return dirs[i].bad ? NULL : &dirs[i];
	dirs = xrealloc(dirs, (ndirs + 1) * sizeof(*dirs));
	d = &dirs[ndirs++];
	memset(d, 0, sizeof(*d));
	d->dir = xstrdup(dir);
	d->r.alpha = 0.05;
	d->r.gate_pct = NAN;
	d->r.gate_pct_tcg = NAN;
	d->r.gate_pct_icount = NAN;
	d->r.series_path = series_path;
	if (access(dir, R_OK) || records_read(&d->rs, dir)) {
		refuse("%s: records: %s: cannot read it (%s)", where(src).s, dir,
		       access(dir, R_OK) ? strerror(errno) : "see above");
		d->bad = 1;
		return NULL;
	}
	commits = xasprintf("%s/commits.txt", dir);
	if (!access(commits, R_OK)) {
		table_read_commits(&d->r.t, commits);
		d->has_commits = 1;
	}
	free(commits);
	/* records of another base are another kernel's figures (a repin) */
	if (d->has_commits && *series_base && d->r.t.ncols &&
	    strcmp(d->r.t.cols[0].key, series_base)) {
		refuse("%s: records: %s were measured on base %.12s, %s %.12s %s: %s",
		       where(src).s, dir, d->r.t.cols[0].key, "and the series is on", series_base,
		       "now (its cover letter's base-commit)",
		       "measure them again on this base (make), or quote them with a cite line");
		d->bad = 1;
		return NULL;
	}
	table_build(&d->r.t, &d->rs);
	claims_eval(&d->r);
	return d;
}

static void dirs_free(void)
{
	size_t i;

	for (i = 0; i < ndirs; i++) {
		if (!dirs[i].bad)
			claims_free(&dirs[i].r);
		table_free(&dirs[i].r.t);
		records_free(&dirs[i].rs);
		free(dirs[i].dir);
	}
	free(dirs);
}

/* ---- a source line ---- */

struct source {
	const char *path;
	unsigned int line;
	char **arg;		/* MAIL KIND ARGS... */
	size_t narg;
	char *quote;		/* after " | ", or NULL */
	ssize_t pi;		/* its mail's entry of the series */
};

/* "FIGURES:LINE" of a source, for messages */
static struct where where(const struct source *s)
{
	struct where w;

	snprintf(w.s, sizeof(w.s), "%s:%u", s->path, s->line);
	return w;
}

static char *squeeze(char *s);

/* the figure as written, "1248 ms", for messages */
static struct text fig_text(const struct series_patch *p, const struct figure *f)
{
	const char *s = p->log + f->off;
	size_t n = (*s == '-' || *s == '+') + strspn(s + (*s == '-' || *s == '+'), "0123456789.");
	struct text t;

	if (f->unit[0])
		n += strcspn(s + n, f->unit) + strlen(f->unit);
	snprintf(t.s, sizeof(t.s), "%.*s", (int)n, s);
	squeeze(t.s);
	return t;
}

/* a refusal of figure f of p: "FIGURES:LINE: MAIL:LINE: 'FIGURE'" and fmt */
static __printf(4, 5) void refuse_fig(const struct source *src, const struct series_patch *p,
				      const struct figure *f, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: %s:%u: '%s'", prog_name(), where(src).s, p->path, f->line,
		fig_text(p, f).s);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nrefused++;
}

/* ---- what a figure's paragraph says ---- */

static int blank_line(const char *s, const char *end)
{
	for (; s < end && *s != '\n'; s++)
		if (!isspace((unsigned char)*s))
			return 0;
	return 1;
}

static const char *line_start(const char *text, const char *s)
{
	while (s > text && s[-1] != '\n')
		s--;
	return s;
}

static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : s + strlen(s);
}

/* the paragraph around s: [*b, *e) */
static void paragraph_at(const char *text, const char *s, const char **b, const char **e)
{
	const char *l = line_start(text, s), *prev;

	while (l > text) {
		prev = line_start(text, l - 1);
		if (blank_line(prev, l))
			break;
		l = prev;
	}
	*b = l;
	for (l = next_line(s); *l && !blank_line(l, l + strlen(l)); l = next_line(l))
		;
	*e = l;
}

/* s with its blanks, line breaks too, as one space: words across lines */
static char *squeeze(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++)
		if (!isspace((unsigned char)*r))
			*w++ = *r;
		else if (w > s && w[-1] != ' ')
			*w++ = ' ';
	*w = '\0';
	return s;
}

/*
 * The text that describes the figure at off, blanks squeezed: its
 * paragraph; a table's (an indented one), with its neighbours.
 */
static char *context_of(const char *text, size_t off)
{
	const char *b, *e, *pb, *pe;

	paragraph_at(text, text + off, &b, &e);
	if (*b == ' ' || *b == '\t') {
		for (pb = b; pb > text && blank_line(line_start(text, pb - 1), pb); )
			pb = line_start(text, pb - 1);
		if (pb > text) {
			paragraph_at(text, pb - 1, &pb, &pe);
			b = pb;
		}
		for (pe = e; *pe && blank_line(pe, pe + strlen(pe)); pe = next_line(pe))
			;
		if (*pe)
			paragraph_at(text, pe, &pb, &e);
	}
	return squeeze(xasprintf("%.*s", (int)(e - b), b));
}

static const char *const number_words[] = {
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve",
};

/* the count a word says: "5", "three"; -1 when none */
static long count_word(const char *w)
{
	size_t i;
	char *end;
	long n;

	if (isdigit((unsigned char)*w)) {
		n = strtol(w, &end, 10);
		return *end ? -1 : n;
	}
	for (i = 0; i < ARRAY_SIZE(number_words); i++)
		if (!strcmp(w, number_words[i]))
			return i;
	return -1;
}

static int word_in(const char *w, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(w, *set))
			return 1;
	return 0;
}

static const char *const mean_words[] = { "mean", "means", "average", "averages", "averaged",
					  NULL };
static const char *const median_words[] = { "median", "medians", NULL };
static const char *const sample_words[] = { "sample", "samples", "rebind", "rebinds", NULL };
static const char *const run_words[] = { "run", "runs", NULL };

/* how the figures of a source were computed */
struct computed {
	const char *stat;	/* "mean", "median", "clean-median" */
	size_t n;		/* the samples of each figure; 0: they differ */
	int icount;		/* a record of it is on the icount clock */
	int excluded;		/* clean-median: some figure left preempted samples out */
	const char *what;	/* "claim X on DIR", "DIR" */
};

/*
 * The description of the figure at off against how it was computed;
 * a refusal for each difference.  said: the paragraphs already checked
 * for this source (one refusal a paragraph).
 */
static void check_described(const struct source *src, const struct series_patch *p,
			    const struct figure *f, const struct computed *c, char **said)
{
	char *ctx = context_of(p->log, f->off), *w, *save, *words[3] = { NULL };
	int mean = 0, median = 0, after_stat = 0;
	long k;

	if (*said && !strcmp(*said, ctx)) {
		free(ctx);
		return;
	}
	free(*said);
	*said = xstrdup(ctx);
	if (c->icount && !strstr(ctx, "not hardware time"))
		refuse_fig(src, p, f, " is an icount figure (%s): %s", c->what,
			   "its paragraph must say it is \"not hardware time\" (the guest clock counts instructions)");
	if (c->excluded && !strstr(ctx, "preempted") && !strstr(ctx, "clean"))
		refuse_fig(src, p, f,
			   " is the median of the samples no other task preempted (%s): %s",
			   c->what,
			   "its paragraph must say so (\"preempted\" or \"clean\"), not a median of all");
	for (char *s = ctx; *s; s++)
		*s = isalnum((unsigned char)*s) ? tolower((unsigned char)*s) : ' ';
	for (w = strtok_r(ctx, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		words[0] = words[1];
		words[1] = words[2];
		words[2] = w;
		mean |= word_in(w, mean_words);
		median |= word_in(w, median_words);
		/* "median of 11", "means of 5 rebinds" */
		if (word_in(w, mean_words) || word_in(w, median_words)) {
			after_stat = 1;
			continue;
		}
		if (after_stat == 1 && !strcmp(w, "of")) {
			after_stat = 2;
			continue;
		}
		k = count_word(w);
		if (after_stat == 2 && k >= 0 && c->n && (size_t)k != c->n)
			refuse_fig(src, p, f,
				   ": its paragraph says \"of %s\", the %s of %zu samples (%s)",
				   w, c->stat, c->n, c->what);
		after_stat = 0;
		/* "5 rebinds", "three runs": the count before the word */
		k = words[1] ? count_word(words[1]) : -1;
		if (k >= 0 && word_in(w, sample_words) && c->n && (size_t)k != c->n)
			refuse_fig(src, p, f,
				   ": its paragraph says \"%s %s\", the records have %zu (%s)",
				   words[1], w, c->n, c->what);
		if (k >= 0 && word_in(w, run_words) && k != 1)
			refuse_fig(src, p, f,
				   ": its paragraph says \"%s %s\", its source is %s (%s): %s",
				   words[1], w, "one record set", c->what,
				   "quote each run's figures from its own records");
	}
	if (!strcmp(c->stat, "range"))
		;	/* a spread: no statistic word to compare */
	else if (!strcmp(c->stat, "mean") && median && !mean)
		refuse_fig(src, p, f, " is a mean (%s), its paragraph calls it a median", c->what);
	else if (strcmp(c->stat, "mean") && mean && !median)
		refuse_fig(src, p, f, " is a %s (%s), its paragraph calls it a mean", c->stat,
			   c->what);
	free(ctx);
}

/* ---- the figures a source's quote holds ---- */

/*
 * The figures of p inside quote's fragments, by index into p->figs:
 * their count, or -1 (a refusal said) when p does not say the quote.
 */
static ssize_t quote_figures(const struct source *src, const struct series_patch *p,
			     const char *quote, size_t **idx)
{
	size_t *ranges, nfrag, i, k, n = 0;

	*idx = NULL;
	if (!quote_find(p->log, quote, &ranges, &nfrag)) {
		free(ranges);
		refuse("%s: %s does not say \"%s\" (any more): make the quote the mail's words",
		       where(src).s, p->path, quote);
		return -1;
	}
	*idx = xcalloc(p->nfigs + 1, sizeof(**idx));
	for (i = 0; i < p->nfigs; i++)
		for (k = 0; k < nfrag; k++)
			if (p->figs[i].off >= ranges[2 * k] && p->figs[i].off < ranges[2 * k + 1]) {
				(*idx)[n++] = i;
				break;
			}
	free(ranges);
	return n;
}

/* the figure as printed is x: to its last digit, the sign where it has one */
static int figure_is(const struct figure *f, double x)
{
	double v = f->value < 0 ? x : fabs(x);

	return fabs(f->value - v) <= half_digit(f->decimals) * (1 + EPS);
}

/* ---- the kinds of source ---- */

static void source_claim(const struct source *src, struct series_patch *p,
			 const char **cover)
{
	const char *id = src->arg[2], *dir = src->arg[3];
	const struct claim_result *res = NULL;
	struct dirset *d = dir_load(src, dir);
	struct computed c = { 0 };
	char *said = NULL, *what;
	ssize_t nq, k;
	size_t *idx, i;

	if (!d)
		return;
	for (i = 0; i < d->r.nclaims && strcmp(d->r.claims[i].id, id); i++)
		;
	if (i == d->r.nclaims) {
		refuse("%s: no claim '%s' in lib/claims.def", where(src).s, id);
		return;
	}
	res = &d->r.claims[i];
	if (strcmp(res->patch, src->arg[0])) {
		refuse("%s: claim %s quotes mail %s, not %s", where(src).s, id, res->patch,
		       src->arg[0]);
		return;
	}
	if (!res->suite) {
		refuse("%s: claim %s is of no record here (%s): its figures are a cite line's",
		       where(src).s, id, res->what);
		return;
	}
	if (res->stale || strncmp(res->verdict, "reproduced", 10)) {
		refuse("%s: claim %s on the records of %s: %s", where(src).s, id, dir,
		       res->verdict);
		return;
	}
	what = xasprintf("claim %s, records %s", id, dir);
	c.what = what;
	c.stat = res->statistic ? res->statistic : "mean";
	c.n = res->nfrom == res->nto ? res->nfrom : 0;
	c.icount = res->clock && !strcmp(res->clock, "icount");
	nq = quote_figures(src, p, res->quote, &idx);
	for (k = 0; k < nq; k++) {
		const struct figure *f = &p->figs[idx[k]];
		const double claimed[] = { res->cfrom, res->cto, res->cpct };
		const double got[] = { res->rfrom, res->rto, res->rpct };

		for (i = 0; i < ARRAY_SIZE(claimed); i++)
			if (!isnan(claimed[i]) && (i == 2 ? 1 : 0) == !strcmp(f->unit, "%") &&
			    fabs(fabs(f->value) - fabs(claimed[i])) < EPS * fmax(1, fabs(f->value)))
				break;
		if (i == ARRAY_SIZE(claimed))
			continue;	/* a figure of the quote another source claims */
		/* the verdict looks at the two figures or the change: each is checked */
		if (!figure_is(f, got[i]))
			refuse_fig(src, p, f, " of claim %s: the records of %s give %.*f", id, dir,
				   f->decimals, got[i]);
		cover[idx[k]] = src->path;
		check_described(src, p, f, &c, &said);
	}
	free(idx);
	free(said);
	free(what);
}

/* the column of DIR's table a commit selector names, or -1 (refused) */
static ssize_t commit_column(const struct source *src, const struct dirset *d, const char *sel)
{
	const struct table *t = &d->r.t;
	char *end;
	unsigned long k;
	size_t c;

	if (!strcmp(sel, "base") || !strcmp(sel, "head") || isdigit((unsigned char)*sel)) {
		k = strtoul(sel, &end, 10);
		if (isdigit((unsigned char)*sel) && strlen(sel) < 7 && !*end && k < t->ncols &&
		    d->has_commits)
			return k;
		if (!strcmp(sel, "base") && d->has_commits && t->ncols)
			return 0;
		if (!strcmp(sel, "head") && d->has_commits && t->ncols)
			return t->ncols - 1;
		if (!d->has_commits && strlen(sel) < 7) {
			refuse("%s: '%s' names a commit by its place, %s has no commits.txt: %s",
			       where(src).s, sel, d->dir, "name it by its id");
			return -1;
		}
	}
	for (c = 0; strlen(sel) >= 7 && c < t->ncols; c++)
		if (!strncmp(t->cols[c].key, sel, strlen(sel)))
			return c;
	refuse("%s: '%s' is no commit of %s (%zu commits)", where(src).s, sel, d->dir, t->ncols);
	return -1;
}

/* STAT of DIR's samples of suite/case/metric at commit: 0, or -1 refused */
static int stat_of(const struct source *src, const struct dirset *d, const char *stat,
		   const char *case_name, const char *commit, double *x, struct computed *c)
{
	const char *suite = src->arg[4], *metric = src->arg[5];
	struct samples sm = { 0 };
	size_t i, n, used = 0;
	struct stats s;
	int rc;

	for (i = 0; i < d->rs.n; i++) {
		const struct record *r = &d->rs.v[i];

		if (r->error || strcmp(r->suite, suite) || strcmp(r->case_name, case_name) ||
		    strcmp(r->metric, metric) || strcmp(r->commit, commit))
			continue;
		samples_add(&sm, r);
		c->icount |= r->clock && !strcmp(r->clock, "icount");
	}
	n = sm.n;
	if (!n) {
		refuse("%s: %s has no samples of %s/%s/%s at %.12s", where(src).s, d->dir, suite,
		       case_name, metric, commit);
		samples_free(&sm);
		return -1;
	}
	rc = strcmp(stat, "clean-median") ? stats_summary(sm.v, n, &s) :
	     stats_clean(sm.v, sm.pre, n, &s, &used);
	samples_free(&sm);
	if (rc < 0)
		die("stats: %s: no memory or a bad sample", d->dir);
	if (rc == 1) {
		refuse("%s: %s/%s at %.12s: only %zu of %zu samples no other task preempted: %s",
		       where(src).s, case_name, metric, commit, used, n,
		       "too few for a clean-median (copy-bench marks it *): it is the median of all; say so and name it median");
		return -1;
	}
	c->excluded |= !strcmp(stat, "clean-median") && used < n;
	*x = !strcmp(stat, "mean") ? s.mean : !strcmp(stat, "range") ? s.max - s.min : s.median;
	c->n = !c->n || c->n == n ? n : 0;
	return 0;
}

/* one comma list's items, in place */
static size_t split_commas(char *s, char ***out)
{
	size_t n = 0;
	char *save, *w;

	*out = NULL;
	for (w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = w;
	}
	return n;
}

/* what an expected figure is: a statistic, a change in percent, a ratio */
enum fig_kind { FIG_STAT, FIG_PCT, FIG_RATIO };

struct expected {
	double x;
	enum fig_kind kind;
	char *what;	/* "nd_pmem/rebind at 2", "nd_pmem/rebind base -> 7" */
};

static void source_records(const struct source *src, struct series_patch *p,
			   const char **cover)
{
	const char *dir = src->arg[2], *stat = src->arg[3];
	char *cases_s = xstrdup(src->arg[6]), *commits_s = xstrdup(src->arg[7]);
	char **cases, **commits, *said = NULL;
	struct computed c = { .stat = stat, .what = dir };
	struct expected *e = NULL;
	size_t ncases, ncommits, ne = 0, i, j, pos = 0, *idx = NULL;
	struct dirset *d = NULL;
	ssize_t nq, k, *col;

	ncases = split_commas(cases_s, &cases);
	ncommits = split_commas(commits_s, &commits);
	col = xcalloc(ncommits + 1, sizeof(*col));
	if (strcmp(stat, "mean") && strcmp(stat, "median") && strcmp(stat, "clean-median") &&
	    strcmp(stat, "range"))
		refuse("%s: statistic '%s' is not mean, median, clean-median or range",
		       where(src).s, stat);
	else if (!ncases || !ncommits)
		refuse("%s: no case or no commit named", where(src).s);
	else
		d = dir_load(src, dir);
	for (i = 0; d && i < ncommits; i++) {
		col[i] = commit_column(src, d, commits[i]);
		if (col[i] < 0)
			d = NULL;
	}
	/* commit by commit, each case; then each case's change */
	for (i = 0; d && i < ncommits; i++)
		for (j = 0; d && j < ncases; j++) {
			e = xrealloc(e, (ne + 1) * sizeof(*e));
			if (stat_of(src, d, stat, cases[j], d->r.t.cols[col[i]].key, &e[ne].x, &c))
				d = NULL;
			e[ne].kind = FIG_STAT;
			e[ne++].what = xasprintf("%s at %s", cases[j], commits[i]);
		}
	for (j = 0; d && ncommits > 1 && j < 2 * ncases; j++) {
		double from = e[j % ncases].x, to = e[(ncommits - 1) * ncases + j % ncases].x;

		e = xrealloc(e, (ne + 1) * sizeof(*e));
		e[ne].kind = j < ncases ? FIG_PCT : FIG_RATIO;
		e[ne].x = j < ncases ? stats_pct(from, to) : to / from;
		e[ne++].what = xasprintf("%s %s -> %s", cases[j % ncases], commits[0],
					 commits[ncommits - 1]);
	}
	nq = d ? quote_figures(src, p, src->quote, &idx) : -1;
	for (k = 0; k < nq; k++) {
		const struct figure *f = &p->figs[idx[k]];
		enum fig_kind kind = !strcmp(f->unit, "%") ? FIG_PCT :
				     !strcmp(f->unit, "x") ? FIG_RATIO : FIG_STAT;

		/* the quote's figures are the expected ones, in their order */
		for (i = pos; i < ne && !(e[i].kind == kind && figure_is(f, e[i].x)); i++)
			;
		if (i == ne) {
			char *list = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&list, &len);

			if (!m)
				die("memory: out of memory");
			for (i = 0; i < ne; i++)
				if (e[i].kind == kind)
					fprintf(m, "%s%s %.*f%s", ftell(m) ? ", " : "", e[i].what,
						f->decimals, e[i].x, f->unit);
			if (fclose(m))
				die("memory: out of memory");
			refuse_fig(src, p, f, ": the %s of %s's records is none of it (%s): %s",
				   stat, dir, "in order, from the quote's previous figure",
				   len ? list : "no figure of that kind");
			free(list);
			check_described(src, p, f, &c, &said);
			continue;
		}
		pos = i + 1;
		cover[idx[k]] = src->path;
		check_described(src, p, f, &c, &said);
	}
	for (i = 0; i < ne; i++)
		free(e[i].what);
	free(e);
	free(idx);
	free(said);
	free(col);
	free(cases);
	free(commits);
	free(cases_s);
	free(commits_s);
}

static void source_report(const struct source *src, struct series_patch *p,
			  const char **cover)
{
	const char *file = src->arg[2], *filter = src->arg[3];
	char *line = NULL, *ctx;
	size_t cap = 0, *idx = NULL, nl, j;
	struct figure *lf;
	ssize_t nq, k;
	int *found, *predicted;
	FILE *f;

	nq = quote_figures(src, p, src->quote, &idx);
	if (nq < 0)
		return;
	f = fopen(file, "r");
	if (!f) {
		refuse("%s: report %s: cannot open: %s", where(src).s, file, strerror(errno));
		free(idx);
		return;
	}
	found = xcalloc(nq + 1, sizeof(*found));
	predicted = xcalloc(nq + 1, sizeof(*predicted));
	while (getline(&line, &cap, f) >= 0) {
		if (!strstr(line, filter))
			continue;
		nl = series_figures(line, 1, &lf);
		for (k = 0; k < nq; k++)
			for (j = 0; j < nl && !found[k]; j++) {
				const struct figure *fg = &p->figs[idx[k]];

				/* as printed: as many decimals at least, the same to the last */
				if (lf[j].decimals >= fg->decimals && figure_is(fg, lf[j].value) &&
				    fabs(fabs(lf[j].value) - fabs(fg->value)) <
				    half_digit(fg->decimals)) {
					found[k] = 1;
					predicted[k] = !!strstr(line, "predicted");
				}
			}
		free(lf);
	}
	if (ferror(f))
		die("report: %s: read failed: %s", file, strerror(errno));
	fclose(f);
	for (k = 0; k < nq; k++) {
		const struct figure *fg = &p->figs[idx[k]];

		if (!found[k]) {
			refuse_fig(src, p, fg, ": no line of %s with '%s' prints it", file, filter);
			continue;
		}
		ctx = context_of(p->log, fg->off);
		if (predicted[k] && !strstr(ctx, "redict"))
			refuse_fig(src, p, fg,
				   " is a prediction (%s says so): its paragraph must too",
				   file);
		free(ctx);
		cover[idx[k]] = src->path;
	}
	free(found);
	free(predicted);
	free(idx);
	free(line);
}

/* cite and param: the quote's figures, with no records to check them by */
static void source_plain(const struct source *src, struct series_patch *p, const char **cover)
{
	size_t *idx;
	ssize_t nq, k;

	if (!strcmp(src->arg[1], "cite") && !strstr(p->log, src->arg[2])) {
		refuse("%s: %s does not say '%s', the source its figures are cited from",
		       where(src).s, p->path, src->arg[2]);
		return;
	}
	nq = quote_figures(src, p, src->quote, &idx);
	for (k = 0; k < nq; k++)
		cover[idx[k]] = src->path;
	free(idx);
}

/* ---- the figures file ---- */

static const struct kind {
	const char *name;
	size_t nargs;		/* MAIL and KIND included; 0: 3 or more */
	int quote;		/* a " | QUOTE" follows */
	void (*check)(const struct source *src, struct series_patch *p, const char **cover);
	const char *usage;
} kinds[] = {
	{ "claim", 4, 0, source_claim, "MAIL claim ID DIR" },
	{ "records", 8, 1, source_records,
	  "MAIL records DIR STAT SUITE METRIC CASES COMMITS | QUOTE" },
	{ "report", 4, 1, source_report, "MAIL report FILE FILTER | QUOTE" },
	{ "cite", 3, 1, source_plain, "MAIL cite REF | QUOTE" },
	{ "param", 0, 1, source_plain, "MAIL param WHY... | QUOTE" },
};

/* a line of the figures file as its source; 0, or -1 refused */
static int source_parse(struct source *s, char *line, const struct series *se,
			const struct kind **kind)
{
	char *bar = strstr(line, " | "), *save, *w;
	size_t i;

	if (bar) {
		*bar = '\0';
		s->quote = bar + 3;
		while (isspace((unsigned char)*s->quote))
			s->quote++;
	}
	for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		s->arg = xrealloc(s->arg, (s->narg + 1) * sizeof(*s->arg));
		s->arg[s->narg++] = w;
	}
	for (i = 0; s->narg >= 2 && i < ARRAY_SIZE(kinds) && strcmp(kinds[i].name, s->arg[1]); i++)
		;
	if (s->narg < 2 || i == ARRAY_SIZE(kinds)) {
		refuse("%s: not a source: the kinds are claim, records, report, cite, param",
		       where(s).s);
		return -1;
	}
	*kind = &kinds[i];
	if ((kinds[i].nargs ? s->narg != kinds[i].nargs : s->narg < 3) ||
	    !kinds[i].quote != !s->quote || (s->quote && !*s->quote)) {
		refuse("%s: a %s line is \"%s\"", where(s).s, kinds[i].name, kinds[i].usage);
		return -1;
	}
	s->pi = series_find(se, s->arg[0]);
	if (s->pi < 0 || !strcmp(se->p[s->pi].status, "upstream")) {
		refuse("%s: '%s' is no mail of %s: cover, or K of the %u applied", where(s).s,
		       s->arg[0], se->path, se->napplied);
		return -1;
	}
	return 0;
}

/* a table's cell: a figure after two blanks at least (or a line's start) */
static int table_cell(const struct series_patch *p, const struct figure *f)
{
	const char *s = p->log + f->off;

	return s == p->log || s[-1] == '\n' ||
	       (s - p->log >= 2 && s[-1] == ' ' && (s[-2] == ' ' || s[-2] == '\n'));
}

/* does figure i of p need a source: a unit, or a cell of a table row */
static int needs_source(const struct series_patch *p, size_t i)
{
	const struct figure *f = &p->figs[i];
	size_t j, cells = 0;

	if (f->unit[0])
		return 1;
	if (!table_cell(p, f))
		return 0;
	for (j = 0; j < p->nfigs; j++)
		cells += p->figs[j].line == f->line && table_cell(p, &p->figs[j]);
	return cells >= 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "series", required_argument, NULL, 's' },
		{ "figures", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *figures_path = NULL;
	/* the default, beside the series: static, so that a die() leaks nothing */
	static char *figures_alloc;
	struct report r = { .alpha = 0.05 };
	char *line = NULL, *slash;
	const char ***cover;
	size_t cap = 0, i, j, nfigs = 0, nsources = 0;
	unsigned int ln = 0;
	int opt;
	FILE *f;

	prog_set("claims-lint");
	series_path = "patches/series";
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 's')
			series_path = optarg;
		else if (opt == 'f')
			figures_path = optarg;
		else
			goto usage;
	}
	if (optind != argc)
		goto usage;
	slash = strrchr(series_path, '/');
	if (!figures_path && slash) {
		figures_alloc = xasprintf("%.*s/figures", (int)(slash - series_path), series_path);
		figures_path = figures_alloc;
	} else if (!figures_path) {
		figures_path = "figures";
	}
	if (access(series_path, R_OK))
		die("series: %s: %s", series_path, strerror(errno));
	/* before anything is read: a die() here leaves nothing behind */
	f = fopen(figures_path, "r");
	if (!f)
		die("figures: %s: cannot open: %s (%s)", figures_path, strerror(errno),
		    "every figure the mails quote needs its source there");
	r.series_path = series_path;
	series_read(&r);
	/* the mails by their path from here, in every message */
	for (i = 0; slash && i < r.series.n; i++) {
		char *path = xasprintf("%.*s/%s", (int)(slash - series_path), series_path,
				       r.series.p[i].path);

		free(r.series.p[i].path);
		r.series.p[i].path = path;
	}
	cover = xcalloc(r.series.n, sizeof(*cover));
	for (i = 0; i < r.series.n; i++)
		cover[i] = xcalloc(r.series.p[i].nfigs + 1, sizeof(**cover));
	for (i = 0; i < r.series.n; i++)
		if (!strcmp(r.series.p[i].status, "cover"))
			base_of(r.series.p[i].path);

	while (getline(&line, &cap, f) >= 0) {
		struct source s = { .path = figures_path, .line = ++ln };
		const struct kind *k;

		line[strcspn(line, "\r\n")] = '\0';
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		nsources++;
		if (!source_parse(&s, line, &r.series, &k))
			k->check(&s, &r.series.p[s.pi], cover[s.pi]);
		free(s.arg);
	}
	if (ferror(f))
		die("figures: %s: read failed: %s", figures_path, strerror(errno));
	fclose(f);

	for (i = 0; i < r.series.n; i++) {
		struct series_patch *p = &r.series.p[i];

		if (!strcmp(p->status, "upstream"))
			continue;
		for (j = 0; j < p->nfigs; j++) {
			if (!needs_source(p, j))
				continue;
			nfigs++;
			if (!cover[i][j])
				refuse("%s:%u: '%s' has no source in %s: %s", p->path,
				       p->figs[j].line, fig_text(p, &p->figs[j]).s, figures_path,
				       "a claim, records, report, cite or param line (its header says how)");
		}
	}
	if (nrefused)
		fprintf(stderr, "%s: %u refusal(s): %zu figures of %s, %zu sources in %s\n",
			prog_name(), nrefused, nfigs, series_path, nsources, figures_path);
	else
		printf("%s: %zu figures of %s, each from its source (%zu in %s)\n", prog_name(),
		       nfigs, series_path, nsources, figures_path);
	if (fflush(stdout) | ferror(stdout))
		die("write: stdout: %s", strerror(errno));
	for (i = 0; i < r.series.n; i++)
		free(cover[i]);
	free(cover);
	free(line);
	claims_free(&r);
	dirs_free();
	free(figures_alloc);
	return nrefused ? 1 : 0;
usage:
	fprintf(stderr, "%s: usage: claims-lint [--series FILE] [--figures FILE]\n", prog_name());
	return 2;
}
