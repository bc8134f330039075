// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - ci-report: the per-commit report of the CI pipeline, computed
 * from records only (doc/records.md).
 *
 *   ci-report [options] RECORDS...      files (.jsonl) or directories
 *
 * Per metric and commit: n, median, mean, sd, 95% CI of the mean; the
 * change of the mean against the parent and against the base in percent,
 * with Welch's t-test p-value and a mark (* p<0.05, ** p<0.01,
 * *** p<0.001).  Prints lkp-style comparison tables, text a changelog can
 * quote, and "claimed vs reproduced" for every figure of ci/claims.def.
 * Options:
 *   --commits FILE   the commits in order, base first: "ID<TAB>SUBJECT"
 *                    lines (default: the order the records name them)
 *   --markdown FILE  --json FILE   the report as Markdown, as JSON
 *   --plots DIR      gnuplot scripts and data (rebind distributions per
 *                    commit, bench curves over size); run them with gnuplot
 *   --gate-pct P     exit 1 when a commit makes a metric worse than its
 *                    parent by more than P percent with p < alpha
 *   --gate-pct-tcg P the same for guest runs under TCG with a wall clock
 *                    (default: P): two boots of kernels that differ in no
 *                    code on the path measured drift 10-18% apart here
 *                    (see ci/ci.mk)
 *   --gate-pct-icount P  guest runs under TCG with -icount (clock
 *                    "icount", default 1): their figures are exact, the
 *                    same on every boot, so a t-test means nothing (sd 0):
 *                    worse than the parent by more than P percent fails,
 *                    without a test.  Rows of constant samples on a wall
 *                    clock are decided by size too, with their threshold
 *   --gate-ack FILE  changes a maintainer accepts (ci/gate-ack.txt): one
 *                    "COMMIT METRIC-GLOB MAX-PCT REASON" a line; such a
 *                    change is reported with its reason and does not fail
 *   --gate-only GLOB only "suite/case/metric" names matching GLOB count for
 *                    the gate (repeatable; default all)
 *   --alpha A        significance level (default 0.05)
 *   --by-cpu         merge mode: one column per CPU model (and accel),
 *                    rows per metric and commit, for result sets of
 *                    several hosts
 * Exit: 0, 1 (bad records, output errors, or the gate), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record-read.h"
#include "stats.h"
#include "util.h"


/* Which way is better, by unit; units not listed (count) are not gated. */
static const struct {
	const char *unit;
	int dir;		/* -1: lower is better, +1: higher is better */
} directions[] = {
	{ "ns", -1 }, { "us", -1 }, { "ms", -1 }, { "s", -1 }, { "GB/s", +1 },
};

/* Parameters that make two runs of one case different experiments. */
static const struct {
	const char *key;
	double scale;		/* numbers: divided by it */
	const char *fmt;	/* printf format of the value */
} setup_params[] = {
	{ "cpu_model", 0, "-cpu %s" },
	{ "ns_size", 1 << 30, "ns %g GiB" },
};

struct bench_claim {
	const char *id, *seed, *what, *claimed;
};

static const struct bench_claim bench_claims[] = {
#define CLAIM(id, seed, what, claimed) { #id, seed, what, claimed },
#include "../bench/claims.def"
#undef CLAIM
};

struct ci_claim {
	const char *id, *source, *what, *suite, *metric;
	const char *from, *from_case, *to, *to_case;
	double cfrom, cto, pct_lo, pct_hi;
};

static const struct ci_claim ci_claims[] = {
#define CI_CLAIM(id, source, what, suite, metric, from, from_case, to, to_case, \
		 cfrom, cto, lo, hi) \
	{ #id, source, what, suite, metric, from, from_case, to, to_case, \
	  cfrom, cto, lo, hi },
#include "claims.def"
#undef CI_CLAIM
};

struct cell {
	double *x;
	size_t n, cap;
	struct stats s;
	int exact;		/* every record of it has clock "icount" */
	const struct record *first;	/* its first record */
	int runs_differ;	/* exact, but its records' samples differ */
};

struct row {
	const struct record *rec;	/* the first record of the row */
	char *setup;			/* accel, CPU, setup params */
	const char *commit;		/* --by-cpu: the commit of the row */
	struct cell *cells;		/* one per column */
};

struct column {
	char *key;		/* commit id, or "accel, cpu" with --by-cpu */
	char *subject;
	char *hosts;
};

/* The rule that decides a comparison (and the gate). */
enum rule {
	RULE_NONE,		/* too few samples for any */
	RULE_WELCH,		/* Welch's t-test, p < alpha, then the size */
	RULE_EXACT,		/* icount: exact figures, the size alone */
	RULE_CONSTANT,		/* sd 0 on both sides: the size alone */
};

struct cmp {
	int valid;
	double pct, p;		/* p: NAN unless rule is RULE_WELCH */
	struct stats_welch w;
	enum rule rule;
};

/* A maintainer's acceptance of a change the gate flags (--gate-ack). */
struct ack {
	char *commit, *metric, *reason;
	double max_pct;
	unsigned int line;
	int used;
};

static struct {
	struct column *cols;
	size_t ncols;
	struct row *rows;
	size_t nrows;
	double alpha, gate_pct, gate_pct_tcg, gate_pct_icount;
	const char **gate_only;
	size_t ngate_only;
	struct ack *acks;
	size_t nacks;
	const char *ack_file;
	int by_cpu;
	const struct record **errors;
	size_t nerrors;
} R = { .alpha = 0.05, .gate_pct = NAN, .gate_pct_tcg = NAN, .gate_pct_icount = 1 };

static const char *short_id(const char *id)
{
	static char buf[4][16];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%.12s", id ? id : "(none)");
	return buf[i];
}

static int direction(const char *unit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(directions); i++)
		if (!strcmp(directions[i].unit, unit))
			return directions[i].dir;
	return 0;
}

/* a guest clock that counts emulated instructions, not time */
static int is_icount(const struct record *r)
{
	return streq(r->clock, "icount");
}

#define ICOUNT_NOTE "emulated instructions at 1 ns each, not hardware time"
/* what an icount figure does not show, printed where such figures are */
#define ICOUNT_CAVEAT \
	"tcg-icount: the same kernel gives the same figures on any host, " \
	"loaded or idle, but every REP MOVS iteration counts as an instruction, " \
	"MOVNTI costs what MOV costs and no cache is modelled: a change shows " \
	"how much work a patch removes, not whether its cache behaviour pays " \
	"(that needs KVM on real hardware, or the host benchmarks, make bench). " \
	"A first binding costs what a rebind costs: the host's first touch of " \
	"the NVDIMM files is invisible to this clock."

static const char *accel_name(const struct record *r)
{
	const char *accel = r->accel;

	if (is_icount(r))
		return "tcg-icount: " ICOUNT_NOTE;
	if (streq(accel, "tcg"))
		return "TCG (relative change only)";
	if (streq(accel, "kvm"))
		return "KVM";
	if (streq(accel, "host"))
		return "host";
	return accel ? accel : "accel unknown";
}

/* The setup parameters of a record ("-cpu max, ns 4 GiB"), or "". */
static char *param_setup(const struct record *r)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(setup_params); i++) {
		json_object *v;
		char val[96];

		if (!r->params || !json_object_object_get_ex(r->params, setup_params[i].key, &v))
			continue;
		if (setup_params[i].scale)
			snprintf(val, sizeof(val), setup_params[i].fmt,
				 json_object_get_double(v) / setup_params[i].scale);
		else
			snprintf(val, sizeof(val), setup_params[i].fmt,
				 json_object_get_string(v));
		t = xasprintf("%s%s%s", s, *s ? ", " : "", val);
		free(s);
		s = t;
	}
	return s;
}

/*
 * The CPU of a record: a guest's model "on" the host's when they differ
 * (TCG: QEMU's model on whatever host emulated it, which is what decides
 * the timings), else the one model.
 */
static char *cpu_name(const struct record *r)
{
	const char *cpu = r->cpu_name ? r->cpu_name : "CPU unknown";

	if (r->host_cpu_name && *r->host_cpu_name && !streq(r->host_cpu_name, cpu))
		return xasprintf("%s on %s", cpu, r->host_cpu_name);
	return xstrdup(cpu);
}

static char *cpu_setup(const struct record *r)
{
	char *cpu = cpu_name(r), *s;

	s = xasprintf("%s%s, %s", r->accel ? r->accel : "?", is_icount(r) ? "-icount" : "", cpu);
	free(cpu);
	return s;
}

static char *row_setup(const struct record *r)
{
	char *p = param_setup(r), *c = R.by_cpu ? xstrdup("") : cpu_setup(r);
	char *s = xasprintf("%s%s%s", c, *c && *p ? ", " : "", p);

	free(p);
	free(c);
	return s;
}

static ssize_t find_col(const char *key)
{
	size_t i;

	for (i = 0; i < R.ncols; i++)
		if (streq(R.cols[i].key, key))
			return i;
	return -1;
}

static size_t add_col(const char *key, const char *subject)
{
	R.cols = xrealloc(R.cols, (R.ncols + 1) * sizeof(*R.cols));
	R.cols[R.ncols].key = xstrdup(key);
	R.cols[R.ncols].subject = xstrdup(subject);
	R.cols[R.ncols].hosts = xstrdup("");
	return R.ncols++;
}

static void load_commits(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned int ln = 0;

	if (!f)
		die("commits: %s: cannot open: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *tab;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = '\0';
		if (find_col(line) >= 0)
			die("commits: %s:%u: '%s' is listed twice", path, ln, line);
		add_col(line, tab ? tab : "");
	}
	free(line);
	fclose(f);
	if (!R.ncols)
		die("commits: %s: no commits in it", path);
}

static struct row *find_row(const struct record *r, const char *setup)
{
	size_t i;

	for (i = 0; i < R.nrows; i++) {
		struct row *w = &R.rows[i];

		if (streq(w->rec->suite, r->suite) && streq(w->rec->case_name, r->case_name) &&
		    streq(w->rec->metric, r->metric) && streq(w->rec->unit, r->unit) &&
		    streq(w->setup, setup) && (!R.by_cpu || streq(w->commit, r->commit)))
			return w;
	}
	R.rows = xrealloc(R.rows, (R.nrows + 1) * sizeof(*R.rows));
	R.rows[R.nrows].rec = r;
	R.rows[R.nrows].setup = xstrdup(setup);
	R.rows[R.nrows].commit = r->commit;
	R.rows[R.nrows].cells = NULL;
	return &R.rows[R.nrows++];
}

static void add_host(struct column *c, const char *host)
{
	char *h;

	if (!host || strstr(c->hosts, host))
		return;
	h = xasprintf("%s%s%s", c->hosts, *c->hosts ? " " : "", host);
	free(c->hosts);
	c->hosts = h;
}

/* the same samples, in the same order */
static int same_samples(const struct record *a, const struct record *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->samples[i] != b->samples[i])
			return 0;
	return 1;
}

static void build_rows(const struct records *rs, int fixed_cols)
{
	size_t i, j, ignored = 0;

	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		char *key = R.by_cpu ? cpu_setup(r) : xstrdup(r->commit ? r->commit : "(none)");
		ssize_t c = find_col(key);

		if (!strcmp(r->metric, "error")) {
			R.errors = xrealloc(R.errors, (R.nerrors + 1) * sizeof(*R.errors));
			R.errors[R.nerrors++] = r;
			free(key);
			continue;
		}
		if (c < 0) {
			if (fixed_cols && !R.by_cpu) {
				ignored++;
				free(key);
				continue;
			}
			c = add_col(key, "");
		}
		free(key);
		add_host(&R.cols[c], r->host);
	}
	if (ignored)
		fprintf(stderr, "%s: warning: records: %zu records of commits not in --commits are left out\n",
			prog_name(), ignored);
	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];
		char *key = R.by_cpu ? cpu_setup(r) : xstrdup(r->commit ? r->commit : "(none)");
		ssize_t c = find_col(key);
		struct row *w;
		struct cell *cl;
		char *setup;

		free(key);
		if (c < 0 || !strcmp(r->metric, "error"))
			continue;
		setup = row_setup(r);
		w = find_row(r, setup);
		free(setup);
		if (!w->cells) {
			w->cells = calloc(R.ncols, sizeof(*w->cells));
			if (!w->cells)
				die("memory: out of memory");
		}
		cl = &w->cells[c];
		if (cl->n + r->n > cl->cap) {
			cl->cap = 2 * (cl->n + r->n);
			cl->x = xrealloc(cl->x, cl->cap * sizeof(double));
		}
		for (j = 0; j < r->n; j++)
			cl->x[cl->n++] = r->samples[j];
		if (!cl->first) {
			cl->first = r;
			cl->exact = is_icount(r);
		} else if (!is_icount(r)) {
			cl->exact = 0;
		} else if (cl->exact && !same_samples(cl->first, r)) {
			/* two runs (hosts) of one exact figure that differ */
			cl->runs_differ = 1;
		}
	}
	for (i = 0; i < R.nrows; i++)
		for (j = 0; j < R.ncols; j++)
			if (stats_summary(R.rows[i].cells[j].x, R.rows[i].cells[j].n,
					 &R.rows[i].cells[j].s))
				die("memory: out of memory");
}

static void compare(const struct cell *a, const struct cell *b, struct cmp *c)
{
	memset(c, 0, sizeof(*c));
	c->pct = c->p = NAN;
	if (!a->n || !b->n)
		return;
	c->valid = 1;
	c->pct = stats_pct(a->s.mean, b->s.mean);
	c->w.t = NAN;
	c->w.df = NAN;
	c->w.p = NAN;
	/*
	 * icount figures are the same on every boot: there is no noise for
	 * a test to weigh, so the size of the change decides, and no p is
	 * shown.  Constant samples on a wall clock likewise: Welch's t is
	 * 0/0 or infinite there, and its p would mean nothing.
	 */
	if (a->exact && b->exact) {
		c->rule = RULE_EXACT;
		return;
	}
	if (a->n >= 2 && b->n >= 2 && a->s.sd == 0 && b->s.sd == 0) {
		c->rule = RULE_CONSTANT;
		return;
	}
	stats_welch(&a->s, &b->s, &c->w);
	c->p = c->w.p;
	c->rule = c->w.valid ? RULE_WELCH : RULE_NONE;
}

static const char *mark(double p)
{
	if (isnan(p))
		return "";
	if (p < 0.001)
		return "***";
	if (p < 0.01)
		return "**";
	if (p < 0.05)
		return "*";
	return "";
}

static const char *num(double x)
{
	static char buf[8][32];
	static int i;

	i = (i + 1) % 8;
	if (isnan(x))
		snprintf(buf[i], sizeof(buf[i]), "-");
	else if (fabs(x) >= 100000)
		snprintf(buf[i], sizeof(buf[i]), "%.0f", x);
	else
		snprintf(buf[i], sizeof(buf[i]), "%.2f", x);
	return buf[i];
}

static const char *pval(double p)
{
	static char buf[4][24];
	static int i;

	i = (i + 1) % 4;
	if (isnan(p))
		snprintf(buf[i], sizeof(buf[i]), "-");
	else if (p < 0.0001)
		snprintf(buf[i], sizeof(buf[i]), "<0.0001");
	else
		snprintf(buf[i], sizeof(buf[i]), "%.4f", p);
	return buf[i];
}

static const char *pct_str(double pct)
{
	static char buf[4][24];
	static int i;

	i = (i + 1) % 4;
	if (isnan(pct))
		snprintf(buf[i], sizeof(buf[i]), "-");
	else
		snprintf(buf[i], sizeof(buf[i]), "%+.1f%%", pct);
	return buf[i];
}

static const char *num_int(double x)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%.0f", x);
	return buf;
}

/* the p of a comparison, or the rule that has none */
static const char *cmp_p(const struct cmp *c)
{
	if (c->rule == RULE_EXACT)
		return "none (exact)";
	if (c->rule == RULE_CONSTANT)
		return "none (sd 0)";
	return pval(c->p);
}

/* the rule of a comparison in words */
static const char *rule_name(enum rule r)
{
	switch (r) {
	case RULE_EXACT:
		return "exact";
	case RULE_CONSTANT:
		return "constant";
	case RULE_WELCH:
		return "welch";
	default:
		return NULL;
	}
}

static char *row_name(const struct row *w)
{
	return xasprintf("%s.%s.%s", w->rec->suite, w->rec->case_name, w->rec->metric);
}

/* ---- gate ---- */

static int gated(const struct row *w)
{
	char *name;
	size_t i;
	int hit = 0;

	if (!R.ngate_only)
		return 1;
	name = xasprintf("%s/%s/%s", w->rec->suite, w->rec->case_name, w->rec->metric);
	for (i = 0; i < R.ngate_only && !hit; i++)
		hit = !fnmatch(R.gate_only[i], name, 0);
	free(name);
	return hit;
}

/*
 * The threshold of a comparison: icount figures are exact, so a small one;
 * TCG wall-clock timings drift more between boots than the samples of
 * one boot show, so a large one.
 */
static double gate_pct_of(const struct row *w, const struct cmp *cm)
{
	if (cm->rule == RULE_EXACT)
		return R.gate_pct_icount;
	if (streq(w->rec->accel, "tcg") && !isnan(R.gate_pct_tcg))
		return R.gate_pct_tcg;
	return R.gate_pct;
}

/* What the gate decided for row w at column c against its parent. */
struct gate {
	int gated;		/* the gate looks at it */
	struct cmp cm;
	double threshold, worse;	/* worse: percent worse than the parent */
	int regression;		/* worse beyond the threshold, by its rule */
	struct ack *ack;	/* the maintainer's acceptance of it, or NULL */
};

static struct ack *find_ack(const struct row *w, size_t c, double worse)
{
	char *name = xasprintf("%s/%s/%s", w->rec->suite, w->rec->case_name, w->rec->metric);
	struct ack *a = NULL;
	size_t i;

	for (i = 0; i < R.nacks && !a; i++)
		if (!strncmp(R.cols[c].key, R.acks[i].commit, strlen(R.acks[i].commit)) &&
		    !fnmatch(R.acks[i].metric, name, 0) && worse <= R.acks[i].max_pct)
			a = &R.acks[i];
	free(name);
	return a;
}

static void gate_decide(const struct row *w, size_t c, struct gate *g)
{
	int dir = direction(w->rec->unit);

	memset(g, 0, sizeof(*g));
	g->worse = NAN;
	g->threshold = NAN;
	g->cm.rule = RULE_NONE;
	if (R.by_cpu || c == 0 || isnan(R.gate_pct) || !dir || !gated(w) ||
	    !w->cells[c].n || !w->cells[c - 1].n)
		return;
	g->gated = 1;
	compare(&w->cells[c - 1], &w->cells[c], &g->cm);
	g->threshold = gate_pct_of(w, &g->cm);
	g->worse = dir < 0 ? g->cm.pct : -g->cm.pct;
	switch (g->cm.rule) {
	case RULE_WELCH:
		g->regression = g->cm.p < R.alpha && g->worse > g->threshold;
		break;
	case RULE_EXACT:
	case RULE_CONSTANT:
		g->regression = g->worse > g->threshold;
		break;
	default:
		break;
	}
	if (g->regression)
		g->ack = find_ack(w, c, g->worse);
}

/* the size of a change against the threshold, in words */
static char *gate_size_text(const struct gate *g)
{
	if (g->worse > g->threshold)
		return xasprintf("%s worse, over the %g%% threshold", pct_str(g->worse),
				 g->threshold);
	if (g->worse > 0)
		return xasprintf("%s worse, within the %g%% threshold", pct_str(g->worse),
				 g->threshold);
	return xasprintf("not worse (%s), the threshold %g%%", pct_str(g->cm.pct), g->threshold);
}

/* which rule decided, in words, for the report */
static char *gate_rule_text(const struct row *w, const struct gate *g)
{
	const char *clock = streq(w->rec->accel, "tcg") ? "TCG wall clock" :
			    w->rec->accel ? w->rec->accel : "accel unknown";
	char *size = gate_size_text(g), *t;

	switch (g->cm.rule) {
	case RULE_EXACT:
		t = xasprintf("exact rule (tcg-icount: %s): %s", "same figures every boot, no test",
			      size);
		break;
	case RULE_CONSTANT:
		t = xasprintf("size rule (sd 0 on both sides, no test; %s): %s", clock, size);
		break;
	case RULE_WELCH:
		t = xasprintf("Welch's t-test (%s): p %s %s %g, %s", clock, pval(g->cm.p),
			      g->cm.p < R.alpha ? "<" : ">=", R.alpha, size);
		break;
	default:
		t = xasprintf("not decided: fewer than 2 samples a side for a test");
	}
	free(size);
	return t;
}

/*
 * The maintainers' acknowledgements: "COMMIT METRIC MAX-PCT REASON" a
 * line, '#' comments.  COMMIT: 12 to 40 hex digits, so that a rebased or
 * edited commit needs a new one; METRIC: a "suite/case/metric" glob;
 * MAX-PCT: the change accepted, percent worse than the parent (a larger
 * one fails again).
 */
static void load_acks(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *p, *tok[3];
	size_t cap = 0, i, n;
	unsigned int ln = 0;
	char *end;

	if (!f)
		die("gate-ack: %s: cannot open: %s", path, strerror(errno));
	R.ack_file = path;
	while (getline(&line, &cap, f) >= 0) {
		struct ack *a;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;
		for (i = 0; i < 3; i++) {
			tok[i] = p;
			n = strcspn(p, " \t");
			p += n;
			if (!*p)
				die("gate-ack: %s:%u: expected '%s'", path, ln,
				    "COMMIT METRIC MAX-PCT REASON");
			*p++ = '\0';
			p += strspn(p, " \t");
		}
		n = strlen(tok[0]);
		if (n < 12 || n > 40 || strspn(tok[0], "0123456789abcdef") != n)
			die("gate-ack: %s:%u: '%s' is not a commit id of 12 to 40 hex digits", path,
			    ln, tok[0]);
		R.acks = xrealloc(R.acks, (R.nacks + 1) * sizeof(*R.acks));
		a = &R.acks[R.nacks];
		errno = 0;
		a->max_pct = strtod(tok[2], &end);
		if (errno || end == tok[2] || *end || !(a->max_pct > 0))
			die("gate-ack: %s:%u: '%s' is not a percent above 0 (the change accepted)",
			    path, ln, tok[2]);
		if (!*p)
			die("gate-ack: %s:%u: no reason given: say why the change is right",
			    path, ln);
		a->commit = xstrdup(tok[0]);
		a->metric = xstrdup(tok[1]);
		a->reason = xstrdup(p);
		a->line = ln;
		a->used = 0;
		R.nacks++;
	}
	free(line);
	fclose(f);
}

/* ---- claims ---- */

static ssize_t claim_commit(const char *sel)
{
	size_t i, len;

	if (!strcmp(sel, "base"))
		return R.ncols ? 0 : -1;
	if (!strcmp(sel, "head"))
		return R.ncols ? (ssize_t)R.ncols - 1 : -1;
	if (!strncmp(sel, "subject:", 8) || !strncmp(sel, "parent:", 7)) {
		int parent = sel[0] == 'p';
		const char *pfx = strchr(sel, ':') + 1;

		len = strlen(pfx);
		for (i = 0; i < R.ncols; i++)
			if (!strncmp(R.cols[i].subject, pfx, len))
				return parent ? (ssize_t)i - 1 : (ssize_t)i;
	}
	return -1;
}

static const struct row *find_cell_row(const char *suite, const char *case_name,
				       const char *metric, size_t col)
{
	size_t i;

	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];

		if (streq(w->rec->suite, suite) && streq(w->rec->case_name, case_name) &&
		    streq(w->rec->metric, metric) && w->cells[col].n)
			return w;
	}
	return NULL;
}

struct claim_result {
	const char *id, *source, *what, *claimed_text;
	char *claimed, *reproduced, *verdict, *setup;	/* allocated: never cut */
	double cfrom, cto, cpct, rfrom, rto, rpct, p;
	size_t nfrom, nto;
};

static void claim_eval(const struct ci_claim *c, struct claim_result *res)
{
	const struct row *a = NULL, *b = NULL;
	ssize_t fa = claim_commit(c->from), fb = claim_commit(c->to);
	size_t i;
	double lo, hi;

	memset(res, 0, sizeof(*res));
	res->id = c->id;
	res->source = c->source;
	res->what = c->what;
	for (i = 0; !c->source && i < ARRAY_SIZE(bench_claims); i++) {
		if (!strcmp(bench_claims[i].id, c->id)) {
			res->source = bench_claims[i].seed;
			res->what = bench_claims[i].what;
			res->claimed_text = bench_claims[i].claimed;
		}
	}
	res->cfrom = c->cfrom;
	res->cto = c->cto;
	res->cpct = !isnan(c->cfrom) ? stats_pct(c->cfrom, c->cto) : c->pct_lo;
	res->rfrom = res->rto = res->rpct = res->p = NAN;
	if (!isnan(c->cfrom))
		res->claimed = xasprintf("%s -> %s (%s)",
			 num(c->cfrom), num(c->cto), pct_str(res->cpct));
	else if (c->pct_lo != c->pct_hi)
		res->claimed = xasprintf("%+.0f%%..%+.0f%%",
			 c->pct_hi, c->pct_lo);
	else
		res->claimed = xasprintf("%+.0f%%", c->pct_lo);
	res->setup = xasprintf("%s %s -> %s %s", c->from, c->from_case,
		 c->to, c->to_case);
	if (fa >= 0)
		a = find_cell_row(c->suite, c->from_case, c->metric, fa);
	if (fb >= 0)
		b = find_cell_row(c->suite, c->to_case, c->metric, fb);
	if (fa < 0 || fb < 0) {
		res->verdict = xasprintf("no data: commit '%s' not in the report",
			 fa < 0 ? c->from : c->to);
		res->reproduced = xasprintf("-");
		return;
	}
	if (!a || !b) {
		res->verdict = xasprintf("no data: no %s record of %s",
			 c->metric, !a ? c->from_case : c->to_case);
		res->reproduced = xasprintf("-");
		return;
	}
	{
		struct cmp cm;
		const struct stats *sa = &a->cells[fa].s, *sb = &b->cells[fb].s;
		int sized;

		compare(&a->cells[fa], &b->cells[fb], &cm);
		/* exact (icount) or constant figures: no test, the size decides */
		sized = cm.rule == RULE_EXACT || cm.rule == RULE_CONSTANT;
		res->nfrom = sa->n;
		res->nto = sb->n;
		res->rfrom = sa->mean;
		res->rto = sb->mean;
		res->rpct = stats_pct(sa->mean, sb->mean);
		res->p = cm.p;
		free(res->setup);
		res->setup = xasprintf("%s", b->setup);
		if (cm.rule == RULE_EXACT)
			res->reproduced = xasprintf("%s -> %s %s (%s, %s, n %zu/%zu)",
						    num(sa->mean), num(sb->mean), a->rec->unit,
						    pct_str(res->rpct),
						    "exact: tcg-icount, no test", sa->n, sb->n);
		else
			res->reproduced = xasprintf("%s -> %s %s (%s, p %s, n %zu/%zu)",
						    num(sa->mean), num(sb->mean), a->rec->unit,
						    pct_str(res->rpct), cmp_p(&cm), sa->n, sb->n);
		lo = !isnan(c->cfrom) ? res->cpct : fmin(c->pct_lo, c->pct_hi);
		hi = !isnan(c->cfrom) ? res->cpct : fmax(c->pct_lo, c->pct_hi);
		if (sized && res->rpct == 0)
			res->verdict = xasprintf("not reproduced: no change (%s figures)",
						 cm.rule == RULE_EXACT ? "exact" : "constant");
		else if (!sized && !cm.w.valid)
			res->verdict = xasprintf("too few samples for a test");
		else if (!sized && !(cm.p < R.alpha))
			res->verdict = xasprintf("not reproduced: no significant change");
		else if ((res->rpct < 0) != (lo < 0))
			res->verdict = xasprintf("not reproduced: opposite direction");
		else if (lo != hi && res->rpct >= lo && res->rpct <= hi)
			res->verdict = xasprintf("reproduced: within the claimed range");
		else
			res->verdict = xasprintf("direction reproduced; %.1f points %s than claimed",
				 fabs(res->rpct - lo), fabs(res->rpct) > fabs(lo) ? "more" : "less");
	}
}

static size_t eval_claims(struct claim_result **out)
{
	size_t n = ARRAY_SIZE(ci_claims), i, j, k = 0;
	struct claim_result *res = calloc(n + ARRAY_SIZE(bench_claims), sizeof(*res));

	if (!res)
		die("memory: out of memory");
	for (i = 0; i < n; i++)
		claim_eval(&ci_claims[i], &res[k++]);
	for (i = 0; i < ARRAY_SIZE(bench_claims); i++) {
		int mapped = 0;

		for (j = 0; j < n; j++)
			mapped |= !strcmp(ci_claims[j].id, bench_claims[i].id);
		if (mapped)
			continue;
		res[k].id = bench_claims[i].id;
		res[k].source = bench_claims[i].seed;
		res[k].what = bench_claims[i].what;
		res[k].claimed_text = bench_claims[i].claimed;
		res[k].claimed = xasprintf("%s", bench_claims[i].claimed);
		res[k].reproduced = xasprintf("-");
		res[k].verdict = xasprintf("no metric maps to it (ci/claims.def); see copy-bench's tables");
		res[k].setup = xasprintf("%s", "");
		res[k].cfrom = res[k].cto = res[k].cpct = NAN;
		res[k].rfrom = res[k].rto = res[k].rpct = res[k].p = NAN;
		k++;
	}
	*out = res;
	return k;
}

/* ---- text and Markdown ---- */

/* rows shown in the comparison of column c against c - 1 */
static int shown(const struct row *w, size_t c)
{
	struct cmp cm;

	if (!w->cells[c].n || !w->cells[c - 1].n)
		return 0;
	if (!strcmp(w->rec->suite, "bench-vm") && strstr(w->rec->case_name, "/rebind"))
		return 1;
	compare(&w->cells[c - 1], &w->cells[c], &cm);
	/* exact memmap figures: the first binding too, as the changelogs */
	if (cm.rule == RULE_EXACT && !strcmp(w->rec->suite, "bench-vm") &&
	    !strcmp(w->rec->metric, "memmap_init_ms"))
		return 1;
	if (cm.rule == RULE_EXACT || cm.rule == RULE_CONSTANT)
		return cm.pct != 0;
	return cm.p < R.alpha;
}

/* the mark of a comparison: stars of p, or "e" for exact (icount) */
static const char *cmp_mark(const struct cmp *c)
{
	if (c->rule == RULE_EXACT)
		return "e";
	return mark(c->p);
}

/* what the gate says at the end of a row of the changes */
static const char *gate_tag(const struct row *w, size_t c)
{
	static char buf[96];
	struct gate g;

	gate_decide(w, c, &g);
	if (!g.regression)
		return "";
	if (!g.ack)
		return "  REGRESSION";
	snprintf(buf, sizeof(buf), "  REGRESSION, accepted (%s:%u)", R.ack_file, g.ack->line);
	return buf;
}

static void pm_sd(char *buf, size_t len, const struct stats *s)
{
	if (s->n < 2 || s->mean == 0)
		snprintf(buf, len, "%10s      ", num(s->mean));
	else
		snprintf(buf, len, "%10s ±%3.0f%%", num(s->mean), fabs(s->sd / s->mean * 100));
}

/* lkp-style: parent, change, commit, change against the base, name */
static void lkp_table(FILE *f, size_t c)
{
	size_t i, n = 0, total = 0, exact = 0;
	char a[40], b[40];

	fprintf(f, "commit %s %s\nparent %s, base %s\n\n", short_id(R.cols[c].key),
		R.cols[c].subject, short_id(R.cols[c - 1].key), short_id(R.cols[0].key));
	fprintf(f, "          parent                     commit\n");
	fprintf(f, "---------------- -------------------------- ----------------\n");
	fprintf(f, "         %%stddev     %%change          %%stddev  %%change base\n");
	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		struct cmp cp, cb;
		char *name;

		if (!w->cells[c].n || !w->cells[c - 1].n)
			continue;
		total++;
		if (!shown(w, c))
			continue;
		n++;
		compare(&w->cells[c - 1], &w->cells[c], &cp);
		compare(&w->cells[0], &w->cells[c], &cb);
		pm_sd(a, sizeof(a), &w->cells[c - 1].s);
		pm_sd(b, sizeof(b), &w->cells[c].s);
		name = row_name(w);
		fprintf(f, "%s %8s %-3s %s %8s %-3s  %s  [%s]%s\n", a, pct_str(cp.pct),
			cmp_mark(&cp), b, pct_str(cb.pct), cmp_mark(&cb), name, w->setup,
			gate_tag(w, c));
		exact += cp.rule == RULE_EXACT;
		free(name);
	}
	fprintf(f, "(%zu of %zu metrics shown: the rebind metrics and every change with p < %g;"
		" * p<0.05, ** p<0.01, *** p<0.001, Welch's t-test)\n", n, total, R.alpha);
	if (exact)
		fprintf(f, "(e: tcg-icount, %s: exact figures, no test; every change is shown)\n",
			ICOUNT_NOTE);
	fprintf(f, "\n");
}

static const struct record *rebind_rec(size_t i)
{
	const struct row *w = &R.rows[i];

	if (strcmp(w->rec->suite, "bench-vm") || strcmp(w->rec->metric, "memmap_init_ms") ||
	    !strstr(w->rec->case_name, "/rebind"))
		return NULL;
	return w->rec;
}

/*
 * TEXT as paragraphs of at most CHANGELOG_COLS columns (words are never
 * cut; a word longer than the width stands on a line of its own): the
 * text is meant to be pasted into a changelog, which checks/changelog-lint
 * holds to 75 columns.
 */
#define CHANGELOG_COLS 75
static void wrap(FILE *f, const char *text, const char *indent)
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

/* a changelog figure's change, on its own line, as changelogs quote it */
static void changelog_change(FILE *f, const struct cmp *cp, const struct cmp *cb)
{
	if (cp->rule == RULE_EXACT)
		fprintf(f, "\n  (%s vs parent, %s vs base: exact tcg-icount figures, no test)",
			pct_str(cp->pct), pct_str(cb->pct));
	else
		fprintf(f, "\n  (%s vs parent, p %s; %s vs base, p %s)",
			pct_str(cp->pct), cmp_p(cp), pct_str(cb->pct), cmp_p(cb));
}

/* "Average of rebinds for nd_pmem driver: 96.79 ms", per commit */
static void changelog(FILE *f)
{
	size_t i, j, c;
	char **setups = NULL, *t;
	size_t nsetups = 0;

	for (i = 0; i < R.nrows; i++) {
		int seen = 0;

		if (!rebind_rec(i))
			continue;
		for (j = 0; j < nsetups; j++)
			seen |= !strcmp(setups[j], R.rows[i].setup);
		if (!seen) {
			setups = xrealloc(setups, (nsetups + 1) * sizeof(*setups));
			setups[nsetups++] = R.rows[i].setup;
		}
	}
	if (!nsetups)
		fprintf(f, "No bench-vm rebind records (suite bench-vm, case */rebind, metric memmap_init_ms): nothing to quote.\n\n");
	for (j = 0; j < nsetups; j++) {
		const struct record *r = NULL;

		for (i = 0; i < R.nrows && !r; i++)
			if (rebind_rec(i) && !strcmp(R.rows[i].setup, setups[j]))
				r = R.rows[i].rec;
		t = xasprintf("Test: %s; %s; %s; %s rebinds of each driver, memmap init time from the pr_debug() output of memmap_init_zone_device() (host %s).",
			      accel_name(r), setups[j],
			      "an fsdax namespace (map=dev) and a devdax namespace (align=2M)",
			      /* records without the parameter: say so, never "nan" */
			      isnan(record_param(r, "rebinds")) ? "?" :
			      num_int(record_param(r, "rebinds")), r->host ? r->host : "?");
		wrap(f, t, "");
		fputc('\n', f);
		free(t);
		if (is_icount(r)) {
			wrap(f, ICOUNT_CAVEAT, "");
			fputc('\n', f);
		}
		for (c = 0; c < R.ncols; c++) {
			int any = 0;

			for (i = 0; i < R.nrows; i++) {
				const struct row *w = &R.rows[i];
				struct cmp cp, cb;
				const char *drv = w->rec->case_name;
				int len = strchr(drv, '/') - drv;

				if (!rebind_rec(i) || strcmp(w->setup, setups[j]) || !w->cells[c].n)
					continue;
				if (!any) {
					t = xasprintf("%s %s (%s):", c == 0 ? "Base" : "With",
						      R.cols[c].subject[0] ? R.cols[c].subject : "commit",
						      short_id(R.cols[c].key));
					wrap(f, t, "");
					free(t);
				}
				any = 1;
				fprintf(f, "Average of rebinds for %.*s driver: %s %s", len, drv,
					num(w->cells[c].s.mean), w->rec->unit);
				if (c > 0) {
					compare(&w->cells[c - 1], &w->cells[c], &cp);
					compare(&w->cells[0], &w->cells[c], &cb);
					/* the figure on its own line, as changelogs quote it */
					changelog_change(f, &cp, &cb);
				}
				fprintf(f, "\n");
			}
			if (any)
				fprintf(f, "\n");
		}
	}
	free(setups);
}

static void md_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* some figure of the report is an exact icount one */
static int any_exact(void)
{
	size_t i, c;

	for (i = 0; i < R.nrows; i++)
		for (c = 0; c < R.ncols; c++)
			if (R.rows[i].cells[c].n && R.rows[i].cells[c].exact)
				return 1;
	return 0;
}

static void claims_md(FILE *f, struct claim_result *cr, size_t n)
{
	size_t i;

	fprintf(f, "| id | source | what | claimed | reproduced | verdict | setup |\n");
	fprintf(f, "|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "| %s | ", cr[i].id);
		md_escape(f, cr[i].source);
		fprintf(f, " | ");
		md_escape(f, cr[i].what);
		fprintf(f, " | ");
		md_escape(f, cr[i].claimed);
		fprintf(f, " | ");
		md_escape(f, cr[i].reproduced);
		fprintf(f, " | %s | ", cr[i].verdict);
		md_escape(f, cr[i].setup);
		fprintf(f, " |\n");
	}
	fputs("\nClaimed figures come from other machines (KVM on Ice Lake, 100 GB namespaces);\n", f);
	fputs("the comparison is of the change in percent, and absolute values are comparable\n", f);
	fputs("only on the same setup. TCG timings show relative change only.\n\n", f);
	if (any_exact()) {
		fputs("Rows marked tcg-icount are " ICOUNT_NOTE ", compared by the size of\n", f);
		fputs("the change, without a test. " ICOUNT_CAVEAT "\n\n", f);
	}
}

static void full_stats_md(FILE *f)
{
	size_t i, c;

	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		char *name = row_name(w);

		fprintf(f, "### %s (%s) [%s]\n\n", name, w->rec->unit, w->setup);
		free(name);
		fprintf(f, "| commit | n | median | mean | sd | 95%% CI | vs parent | p | vs base | p |\n");
		fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
		for (c = 0; c < R.ncols; c++) {
			const struct stats *s = &w->cells[c].s;
			struct cmp cp, cb;

			if (!s->n)
				continue;
			memset(&cp, 0, sizeof(cp));
			cp.pct = cp.p = NAN;
			cb = cp;
			if (c > 0) {
				compare(&w->cells[c - 1], &w->cells[c], &cp);
				compare(&w->cells[0], &w->cells[c], &cb);
			}
			fprintf(f, "| %s | %zu | %s | %s | %s | [%s, %s] | %s %s | %s | %s %s | %s |\n",
				R.by_cpu ? R.cols[c].key : short_id(R.cols[c].key), s->n,
				num(s->median), num(s->mean), num(s->sd), num(s->mean_lo),
				num(s->mean_hi), pct_str(cp.pct), cmp_mark(&cp), cmp_p(&cp),
				pct_str(cb.pct), cmp_mark(&cb), cmp_p(&cb));
		}
		fprintf(f, "\n");
	}
}

/*
 * The gate, commit by commit: every gated row against its parent and the
 * rule that decided it.  MD: a Markdown table; else a line each to F (the
 * text report), and every regression also to stderr.  Returns the
 * regressions that no maintainer accepted.
 */
static int gate_report(FILE *f, int md)
{
	size_t i, c, n = 0;
	int bad = 0;

	if (md) {
		fprintf(f, "| commit | metric | setup | vs parent | rule | verdict |\n");
		fprintf(f, "|---|---|---|---|---|---|\n");
	}
	for (c = 1; c < R.ncols; c++) {
		for (i = 0; i < R.nrows; i++) {
			const struct row *w = &R.rows[i];
			char *name, *rule, *verdict;
			struct gate g;

			gate_decide(w, c, &g);
			if (!g.gated)
				continue;
			n++;
			name = row_name(w);
			rule = gate_rule_text(w, &g);
			if (!g.regression)
				verdict = xasprintf("pass");
			else if (!g.ack)
				verdict = xasprintf("REGRESSION");
			else
				verdict = xasprintf("accepted by %s:%u (up to %g%% worse): %s",
						    R.ack_file, g.ack->line, g.ack->max_pct,
						    g.ack->reason);
			if (md) {
				fprintf(f, "| %s ", short_id(R.cols[c].key));
				md_escape(f, R.cols[c].subject);
				fprintf(f, " | `%s` | ", name);
				md_escape(f, w->setup);
				fprintf(f, " | %s | %s | ", pct_str(g.cm.pct), rule);
				md_escape(f, verdict);
				fprintf(f, " |\n");
			} else {
				fprintf(f, "  %s %s: %s [%s]: %s vs parent: %s: %s\n",
					short_id(R.cols[c].key), R.cols[c].subject, name, w->setup,
					pct_str(g.cm.pct), rule, verdict);
				if (g.regression)
					fprintf(stderr, "%s: gate: %s %s: %s [%s] is %.1f%% %s %s (%s)%s%s\n",
						prog_name(), short_id(R.cols[c].key),
						R.cols[c].subject, name, w->setup, g.worse,
						"worse than in the parent",
						short_id(R.cols[c - 1].key), rule,
						g.ack ? ": " : "", g.ack ? verdict : "");
			}
			if (g.ack)
				g.ack->used = 1;
			else if (g.regression)
				bad++;
			free(name);
			free(rule);
			free(verdict);
		}
	}
	if (!n)
		fprintf(f, md ? "| - | nothing gated | | | | |\n" : "  nothing gated\n");
	for (i = 0; i < R.nacks; i++) {
		if (R.acks[i].used)
			continue;
		fprintf(f, "%s%s:%u: %s %s (up to %g%%): accepts no regression of this report\n",
			md ? "\n- " : "  ", R.ack_file, R.acks[i].line, short_id(R.acks[i].commit),
			R.acks[i].metric, R.acks[i].max_pct);
	}
	return bad;
}

/* the rules of the gate, in words */
static void gate_rules(FILE *f)
{
	fprintf(f, "A gated row fails when its commit is worse than the parent:\n");
	fprintf(f, "- tcg-icount rows (%s: %s): by more than %g%%, without a test;\n",
		ICOUNT_NOTE, "exact, the same figures every boot", R.gate_pct_icount);
	fprintf(f, "- other rows: by more than %g%% (TCG wall clock: %g%%) with p < %g %s;\n",
		R.gate_pct, isnan(R.gate_pct_tcg) ? R.gate_pct : R.gate_pct_tcg, R.alpha,
		"(Welch's t-test)");
	fprintf(f, "- rows of constant samples (sd 0 on both sides): %s.\n",
		"by more than their threshold, without a test");
	fprintf(f, "A maintainer accepts a change that is right in %s %s.\n",
		R.ack_file ? R.ack_file : "a --gate-ack file",
		"(commit, metric, up to which change, why)");
}

static int by_value(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* two cells hold the same samples, in any order */
static int same_cell(const struct cell *a, const struct cell *b)
{
	double *x, *y;
	int same;

	if (a->n != b->n)
		return 0;
	x = xrealloc(NULL, a->n * sizeof(*x));
	y = xrealloc(NULL, b->n * sizeof(*y));
	memcpy(x, a->x, a->n * sizeof(*x));
	memcpy(y, b->x, b->n * sizeof(*y));
	qsort(x, a->n, sizeof(*x), by_value);
	qsort(y, b->n, sizeof(*y), by_value);
	same = !memcmp(x, y, a->n * sizeof(*x));
	free(x);
	free(y);
	return same;
}

/*
 * --by-cpu: do the exact (icount) cells of a row, one per host CPU, hold
 * the same samples?  The same kernel under the same QEMU should count the
 * same instructions on any host.  -1: fewer than two to compare; else
 * 1 (they agree) or 0, with the largest difference of the means in *pct.
 */
static int icount_agree(const struct row *w, double *pct)
{
	const struct cell *first = NULL;
	size_t c, k = 0;
	int agree = 1;

	*pct = 0;
	for (c = 0; c < R.ncols; c++) {
		const struct cell *cl = &w->cells[c];

		if (!cl->n || !cl->exact)
			continue;
		k++;
		if (cl->runs_differ)
			agree = 0;
		if (!first) {
			first = cl;
			continue;
		}
		if (!same_cell(first, cl)) {
			agree = 0;
			*pct = fmax(*pct, fabs(stats_pct(first->s.mean, cl->s.mean)));
		}
	}
	if (k < 2 && agree)
		return -1;
	return agree;
}

static void merge_md(FILE *f)
{
	size_t i, c, b;
	int exact = any_exact();

	fprintf(f, "| metric | commit | setup |");
	for (c = 0; c < R.ncols; c++) {
		fprintf(f, " ");
		md_escape(f, R.cols[c].key);
		fprintf(f, " (%s) |", R.cols[c].hosts);
	}
	if (exact)
		fprintf(f, " tcg-icount on the hosts |");
	fprintf(f, "\n|---|---|---|");
	for (c = 0; c < R.ncols + !!exact; c++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		const struct row *base = NULL;
		char *name = row_name(w);

		/* the base: the first commit named by a row of this metric */
		for (b = 0; b < R.nrows && !base; b++)
			if (streq(R.rows[b].rec->suite, w->rec->suite) &&
			    streq(R.rows[b].rec->case_name, w->rec->case_name) &&
			    streq(R.rows[b].rec->metric, w->rec->metric) &&
			    streq(R.rows[b].setup, w->setup))
				base = &R.rows[b];
		fprintf(f, "| %s (%s) | %s | %s |", name, w->rec->unit, short_id(w->commit), w->setup);
		free(name);
		for (c = 0; c < R.ncols; c++) {
			const struct stats *s = &w->cells[c].s;
			struct cmp cm;

			if (!s->n) {
				fprintf(f, " - |");
				continue;
			}
			fprintf(f, " %s ± %s (n %zu)", num(s->mean), num(s->sd), s->n);
			if (base && base != w && base->cells[c].n) {
				compare(&base->cells[c], &w->cells[c], &cm);
				fprintf(f, " %s %s", pct_str(cm.pct), cmp_mark(&cm));
			}
			fprintf(f, " |");
		}
		if (exact) {
			double pct;

			switch (icount_agree(w, &pct)) {
			case 1:
				fprintf(f, " equal |");
				break;
			case 0:
				fprintf(f, " **DIFFER** (means up to %.4f%% apart) |", pct);
				break;
			default:
				fprintf(f, " - |");
			}
		}
		fprintf(f, "\n");
	}
	fputs("\nColumns: accel and CPU model (hosts); cells: mean ± sd (n), and the change\n", f);
	fputs("of the mean against the first commit of the metric on the same CPU\n", f);
	fputs("(Welch's t-test: * p<0.05, ** p<0.01, *** p<0.001).\n", f);
	if (exact) {
		fputs("\ntcg-icount cells (" ICOUNT_NOTE "; e: exact, no test):\n", f);
		fputs("the same kernel under the same QEMU should give the same samples on\n", f);
		fputs("any host; the last column says whether the hosts agree exactly, and\n", f);
		fputs("DIFFER where not.\n\n", f);
		fputs(ICOUNT_CAVEAT "\n", f);
	}
}

static void errors_out(FILE *f)
{
	size_t i;

	for (i = 0; i < R.nerrors; i++) {
		const struct record *e = R.errors[i];
		const char *why = e->error;

		if (!why)
			why = "(no error text)";
		fprintf(f, "- %s %s/%s: %s (%s:%u)\n", short_id(e->commit),
			e->suite, e->case_name, why, e->file, e->line);
	}
}

static void write_markdown(FILE *f, struct claim_result *cr, size_t ncr)
{
	size_t c;

	if (R.by_cpu) {
		fprintf(f, "# Results by CPU model\n\n");
		merge_md(f);
		return;
	}
	fprintf(f, "# CI report\n\n## Commits\n\n| # | commit | subject | hosts |\n|---|---|---|---|\n");
	for (c = 0; c < R.ncols; c++) {
		fprintf(f, "| %zu | %s | ", c, short_id(R.cols[c].key));
		md_escape(f, R.cols[c].subject);
		fprintf(f, " | %s |\n", R.cols[c].hosts);
	}
	fprintf(f, "\n## Text for a changelog\n\n```\n");
	changelog(f);
	fprintf(f, "```\n\n## Claimed vs reproduced\n\n");
	claims_md(f, cr, ncr);
	fprintf(f, "## Regression gate\n\n");
	if (isnan(R.gate_pct)) {
		fprintf(f, "No gate (no --gate-pct).\n\n");
	} else {
		int bad;

		gate_rules(f);
		fprintf(f, "\n");
		bad = gate_report(f, 1);
		fprintf(f, "\nRegressions: %s.\n\n", bad ? "see REGRESSION above" : "none");
	}
	if (R.nerrors) {
		fprintf(f, "## Error records\n\n");
		errors_out(f);
		fprintf(f, "\n");
	}
	fprintf(f, "## Changes per commit\n\n");
	for (c = 1; c < R.ncols; c++) {
		fprintf(f, "```\n");
		lkp_table(f, c);
		fprintf(f, "```\n\n");
	}
	fprintf(f, "## Full statistics\n\nmean, sd and the 95%% CI of the mean (t distribution); changes of the mean, Welch's t-test.\n\n");
	full_stats_md(f);
}

/* ---- JSON ---- */

static json_object *jnum(double x)
{
	return isnan(x) || isinf(x) ? NULL : json_object_new_double(x);
}

/* KEY: the string S, or null */
static void jstr(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

static json_object *jack(const struct ack *a)
{
	json_object *k = json_object_new_object();

	jstr(k, "file", R.ack_file);
	json_object_object_add(k, "line", json_object_new_int(a->line));
	json_object_object_add(k, "max_pct", jnum(a->max_pct));
	jstr(k, "reason", a->reason);
	return k;
}

static json_object *jcmp(const struct cell *a, const struct cell *b)
{
	json_object *o = json_object_new_object();
	struct cmp cm;

	compare(a, b, &cm);
	json_object_object_add(o, "pct", jnum(cm.pct));
	json_object_object_add(o, "p", jnum(cm.p));
	json_object_object_add(o, "t", jnum(cm.w.t));
	json_object_object_add(o, "df", jnum(cm.w.df));
	json_object_object_add(o, "mark", json_object_new_string(cmp_mark(&cm)));
	jstr(o, "rule", rule_name(cm.rule));
	return o;
}

static int write_json(FILE *f, struct claim_result *cr, size_t ncr)
{
	json_object *o = json_object_new_object(), *a, *rows = json_object_new_array();
	size_t i, c;
	int r;

	json_object_object_add(o, "schema", json_object_new_string("x86-copy-series/ci-report/1"));
	json_object_object_add(o, "mode", json_object_new_string(R.by_cpu ? "by-cpu" : "commits"));
	json_object_object_add(o, "alpha", json_object_new_double(R.alpha));
	json_object_object_add(o, "gate_pct", jnum(R.gate_pct));
	json_object_object_add(o, "gate_pct_tcg",
			       jnum(isnan(R.gate_pct_tcg) ? R.gate_pct : R.gate_pct_tcg));
	json_object_object_add(o, "gate_pct_icount", jnum(R.gate_pct_icount));
	a = json_object_new_array();
	for (c = 0; c < R.ncols; c++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "key", json_object_new_string(R.cols[c].key));
		json_object_object_add(e, "subject", json_object_new_string(R.cols[c].subject));
		json_object_object_add(e, "hosts", json_object_new_string(R.cols[c].hosts));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "columns", a);
	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		json_object *e = json_object_new_object(), *cells = json_object_new_array();

		json_object_object_add(e, "suite", json_object_new_string(w->rec->suite));
		json_object_object_add(e, "case", json_object_new_string(w->rec->case_name));
		json_object_object_add(e, "metric", json_object_new_string(w->rec->metric));
		json_object_object_add(e, "unit", json_object_new_string(w->rec->unit));
		json_object_object_add(e, "setup", json_object_new_string(w->setup));
		if (R.by_cpu)
			json_object_object_add(e, "commit", w->commit ? json_object_new_string(w->commit) : NULL);
		for (c = 0; c < R.ncols; c++) {
			const struct cell *cl = &w->cells[c];
			const struct stats *s = &cl->s;
			json_object *x, *ci;
			struct gate g;

			if (!s->n)
				continue;
			gate_decide(w, c, &g);
			x = json_object_new_object();
			json_object_object_add(x, "column", json_object_new_string(R.cols[c].key));
			json_object_object_add(x, "n", json_object_new_int64(s->n));
			json_object_object_add(x, "median", jnum(s->median));
			json_object_object_add(x, "mean", jnum(s->mean));
			json_object_object_add(x, "sd", jnum(s->sd));
			ci = json_object_new_array();
			json_object_array_add(ci, jnum(s->mean_lo));
			json_object_array_add(ci, jnum(s->mean_hi));
			json_object_object_add(x, "ci95", ci);
			jstr(x, "clock", w->cells[c].exact ? "icount" : "wall");
			if (c > 0 && !R.by_cpu) {
				json_object_object_add(x, "vs_parent", jcmp(&w->cells[c - 1], &w->cells[c]));
				json_object_object_add(x, "vs_base", jcmp(&w->cells[0], &w->cells[c]));
			}
			if (g.gated)
				jstr(x, "gate_rule", rule_name(g.cm.rule));
			if (g.regression)
				json_object_object_add(x, "regression_pct", jnum(g.worse));
			if (g.ack)
				json_object_object_add(x, "accepted", jack(g.ack));
			if (R.by_cpu && w->cells[c].exact)
				json_object_object_add(x, "runs_differ",
						       json_object_new_boolean(cl->runs_differ));
			json_object_array_add(cells, x);
		}
		json_object_object_add(e, "cells", cells);
		json_object_array_add(rows, e);
	}
	json_object_object_add(o, "rows", rows);
	a = json_object_new_array();
	for (i = 0; i < ncr; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "id", json_object_new_string(cr[i].id));
		json_object_object_add(e, "source", cr[i].source ? json_object_new_string(cr[i].source) : NULL);
		json_object_object_add(e, "what", cr[i].what ? json_object_new_string(cr[i].what) : NULL);
		json_object_object_add(e, "claimed", json_object_new_string(cr[i].claimed));
		json_object_object_add(e, "claimed_from", jnum(cr[i].cfrom));
		json_object_object_add(e, "claimed_to", jnum(cr[i].cto));
		json_object_object_add(e, "claimed_pct", jnum(cr[i].cpct));
		json_object_object_add(e, "reproduced_from", jnum(cr[i].rfrom));
		json_object_object_add(e, "reproduced_to", jnum(cr[i].rto));
		json_object_object_add(e, "reproduced_pct", jnum(cr[i].rpct));
		json_object_object_add(e, "p", jnum(cr[i].p));
		json_object_object_add(e, "verdict", json_object_new_string(cr[i].verdict));
		json_object_object_add(e, "setup", json_object_new_string(cr[i].setup));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "claims", a);
	a = json_object_new_array();
	for (i = 0; i < R.nerrors; i++)
		json_object_array_add(a, json_object_get(R.errors[i]->obj));
	json_object_object_add(o, "errors", a);
	r = fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
	json_object_put(o);
	return r;
}

/* ---- plots ---- */

static void safe_name(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z') ||
			 (src[i] >= '0' && src[i] <= '9') || src[i] == '-' || src[i] == '.' ?
			 src[i] : '_';
	dst[i] = '\0';
}

static FILE *open_out(const char *dir, const char *name, const char *ext)
{
	char *p = xasprintf("%s/%s.%s", dir, name, ext);
	FILE *f = fopen(p, "w");

	if (!f)
		die("plots: %s: cannot create: %s", p, strerror(errno));
	free(p);
	return f;
}

static void gp_terminals(FILE *g, const char *name, int on)
{
	if (on == 0)
		fprintf(g, "set terminal pngcairo noenhanced size 1100,650 font ',10'\nset output '%s.png'\n", name);
	else
		fprintf(g, "set terminal svg noenhanced size 1100,650 dynamic font ',10'\nset output '%s.svg'\nreplot\n", name);
}

static void gp_quote(FILE *g, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', g);
		fputc(*s, g);
	}
}

static void plot_rebinds(const char *dir, const struct row *w)
{
	char base[256], *name = row_name(w), *cpu;
	FILE *d, *g;
	size_t c, k = 0;

	safe_name(base, sizeof(base), name);
	d = open_out(dir, base, "dat");
	g = open_out(dir, base, "gp");
	gp_terminals(g, base, 0);
	fprintf(g, "set title \"");
	gp_quote(g, name);
	fprintf(g, ": distribution per commit\\n%s, CPU: ", accel_name(w->rec));
	cpu = cpu_name(w->rec);
	gp_quote(g, cpu);
	free(cpu);
	fprintf(g, " (host ");
	gp_quote(g, w->rec->host ? w->rec->host : "?");
	fprintf(g, "), ");
	gp_quote(g, w->setup);
	fprintf(g, "\"\nset ylabel '%s (%s)'\nset grid ytics\nset key off\n", w->rec->metric,
		w->rec->unit);
	fprintf(g, "set style fill solid 0.25 border\nset boxwidth 0.4\nset xtics rotate by -25 (");
	for (c = 0; c < R.ncols; c++) {
		size_t j;

		if (!w->cells[c].n)
			continue;
		for (j = 0; j < w->cells[c].n; j++)
			fprintf(d, "%.17g\n", w->cells[c].x[j]);
		fprintf(d, "\n\n");
		fprintf(g, "%s\"%.12s%s\" %zu", k ? ", " : "", R.cols[c].key, c == 0 ? " (base)" : "", k);
		k++;
	}
	fprintf(g, ")\nset xrange [-0.7:%zu.7]\nset yrange [0:*]\n", k ? k - 1 : 0);
	fprintf(g, "plot for [i=0:%zu] '%s.dat' index i using (i):1 with boxplot lc i+1, \\\n"
		"     for [i=0:%zu] '%s.dat' index i using (i+0.3+0.08*(rand(0)-0.5)):1 with points pt 7 ps 0.5 lc i+1\n",
		k - 1, base, k - 1, base);
	gp_terminals(g, base, 1);
	fclose(d);
	fclose(g);
	free(name);
}

/* bench curves: x is the size (or len) parameter, one line per variant and
 * commit (the first and the last commit that have the experiment).
 */
static const char *const x_params[] = { "size", "len" };

static double x_of(const struct record *r, const char **key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(x_params); i++) {
		double x = record_param(r, x_params[i]);

		if (!isnan(x)) {
			*key = x_params[i];
			return x;
		}
	}
	return NAN;
}

/* the variant without its size: "fc-inline-4" -> "fc-inline" */
static void curve_name(char *dst, size_t len, const struct record *r, double x)
{
	json_object *v;
	char sfx[40];
	size_t n, s;

	if (r->params && json_object_object_get_ex(r->params, "variant", &v))
		snprintf(dst, len, "%s", json_object_get_string(v));
	else
		snprintf(dst, len, "%s", r->case_name);
	snprintf(sfx, sizeof(sfx), "%.0f", x);
	n = strlen(dst);
	s = strlen(sfx);
	if (n > s + 1 && !strcmp(dst + n - s, sfx) && strchr("-/", dst[n - s - 1]))
		dst[n - s - 1] = '\0';
}

/* v is a point of the curves of experiment/metric at column c: its x */
static int curve_row(const struct row *v, const char *experiment,
		     const char *metric, size_t c, double *x)
{
	const char *xkey;
	size_t len = strlen(experiment);

	if (strncmp(v->rec->case_name, experiment, len) || v->rec->case_name[len] != '/' ||
	    strcmp(v->rec->metric, metric) || !v->cells[c].n)
		return 0;
	*x = x_of(v->rec, &xkey);
	return !isnan(*x);
}

static int by_x(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static void plot_curves(const char *dir, const char *experiment, const char *metric)
{
	char base[256], cname[128], vn[128], *t, *cpu;
	const char *xkey = "size";
	size_t i, k, c, pass, nlines = 0, cols[2], ncols = 0;
	const struct row *any = NULL;
	double xmin = INFINITY, xmax = -INFINITY, x;
	char **lines = NULL;
	FILE *d, *g;

	/* the first and the last commit that have the experiment */
	for (c = 0; c < R.ncols; c++) {
		for (i = 0; i < R.nrows; i++) {
			if (!curve_row(&R.rows[i], experiment, metric, c, &x))
				continue;
			if (ncols < 2 && !(ncols == 1 && cols[0] == c))
				cols[ncols++] = c;
			else
				cols[1] = c;
			any = &R.rows[i];
			x_of(any->rec, &xkey);
			break;
		}
	}
	if (!any)
		return;
	/* one size only (memcpy-state: 4 KiB in three cache states): no curve */
	for (pass = 0; pass < ncols; pass++)
		for (i = 0; i < R.nrows; i++)
			if (curve_row(&R.rows[i], experiment, metric, cols[pass], &x)) {
				xmin = fmin(xmin, x);
				xmax = fmax(xmax, x);
			}
	if (xmin == xmax)
		return;
	t = xasprintf("bench-%s-%s", experiment, metric);
	safe_name(base, sizeof(base), t);
	free(t);
	d = open_out(dir, base, "dat");
	g = open_out(dir, base, "gp");
	for (pass = 0; pass < ncols; pass++) {
		size_t first = nlines;

		c = cols[pass];
		for (i = 0; i < R.nrows; i++) {
			double (*pts)[2] = NULL;
			size_t np = 0, j;
			int seen = 0;

			if (!curve_row(&R.rows[i], experiment, metric, c, &x))
				continue;
			curve_name(cname, sizeof(cname), R.rows[i].rec, x);
			t = xasprintf("%s @ %.12s", cname, R.cols[c].key);
			for (j = first; j < nlines; j++)
				seen |= !strcmp(lines[j], t);
			if (seen) {
				free(t);
				continue;
			}
			lines = xrealloc(lines, (nlines + 1) * sizeof(*lines));
			lines[nlines++] = t;
			for (k = 0; k < R.nrows; k++) {
				if (!curve_row(&R.rows[k], experiment, metric, c, &x))
					continue;
				curve_name(vn, sizeof(vn), R.rows[k].rec, x);
				if (strcmp(vn, cname))
					continue;
				pts = xrealloc(pts, (np + 1) * sizeof(*pts));
				pts[np][0] = x;
				pts[np][1] = R.rows[k].cells[c].s.median;
				np++;
			}
			qsort(pts, np, sizeof(*pts), by_x);
			fprintf(d, "# %s\n", t);
			for (j = 0; j < np; j++) {
				fprintf(d, "%.17g %.17g\n", pts[j][0], pts[j][1]);
				xmin = fmin(xmin, pts[j][0]);
				xmax = fmax(xmax, pts[j][0]);
			}
			fprintf(d, "\n\n");
			free(pts);
		}
	}
	gp_terminals(g, base, 0);
	fprintf(g, "set title \"bench %s: median %s over %s\\n%s, CPU: ", experiment, metric,
		xkey, accel_name(any->rec));
	cpu = cpu_name(any->rec);
	gp_quote(g, cpu);
	free(cpu);
	fprintf(g, " (host ");
	gp_quote(g, any->rec->host ? any->rec->host : "?");
	fprintf(g, ")\"\nset xlabel '%s (bytes)'\nset ylabel '%s (%s)'\nset grid\nset key outside right\n",
		xkey, metric, any->rec->unit);
	if (xmin > 0 && xmax / xmin > 64)
		fprintf(g, "set logscale x 2\n");
	fprintf(g, "plot ");
	for (i = 0; i < nlines; i++) {
		fprintf(g, "%s'%s.dat' index %zu using 1:2 with linespoints dt %d title \"",
			i ? ", \\\n     " : "", base, i,
			strstr(lines[i], short_id(R.cols[cols[0]].key)) ? 1 : 2);
		gp_quote(g, lines[i]);
		fprintf(g, "\"");
	}
	fprintf(g, "\n");
	gp_terminals(g, base, 1);
	for (i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	fclose(d);
	fclose(g);
}

static void write_plots(const char *dir)
{
	size_t i, j, nexp = 0;
	char **exps = NULL;

	if (mkdir(dir, 0777) && errno != EEXIST)
		die("plots: %s: cannot create: %s", dir, strerror(errno));
	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		size_t c, with = 0;

		for (c = 0; c < R.ncols; c++)
			with += w->cells[c].n >= 2;
		if (!strcmp(w->rec->suite, "bench-vm") && strstr(w->rec->case_name, "/rebind") &&
		    direction(w->rec->unit) && with)
			plot_rebinds(dir, w);
	}
	/* experiments whose records have a size: name "experiment metric" */
	for (i = 0; i < R.nrows; i++) {
		const struct row *w = &R.rows[i];
		const char *xkey, *slash = strchr(w->rec->case_name, '/');
		char *e;
		int seen = 0;

		/* memcpy-align has a size too, but its x is the alignment */
		if (strcmp(w->rec->suite, "bench") || !slash || isnan(x_of(w->rec, &xkey)) ||
		    !isnan(record_param(w->rec, "dst_page_offset")))
			continue;
		e = xasprintf("%.*s %s", (int)(slash - w->rec->case_name), w->rec->case_name,
			      w->rec->metric);
		for (j = 0; j < nexp; j++)
			seen |= !strcmp(exps[j], e);
		if (seen) {
			free(e);
			continue;
		}
		exps = xrealloc(exps, (nexp + 1) * sizeof(*exps));
		exps[nexp++] = e;
	}
	for (j = 0; j < nexp; j++) {
		char *sp = strchr(exps[j], ' ');

		*sp = '\0';
		plot_curves(dir, exps[j], sp + 1);
		free(exps[j]);
	}
	free(exps);
}

/* ---- main ---- */

static void usage_exit(void)
{
	fprintf(stderr, "%s: usage: ci-report [--commits FILE] [--markdown FILE] [--json FILE] [--plots DIR] [--gate-pct P] [--gate-pct-tcg P] [--gate-pct-icount P] [--gate-ack FILE] [--gate-only GLOB]... [--alpha A] [--by-cpu] RECORDS...\n",
		prog_name());
	exit(2);
}

static double number_arg(const char *opt, const char *s)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || isnan(x)) {
		fprintf(stderr, "%s: usage: %s: '%s' is not a number\n", prog_name(), opt, s);
		exit(2);
	}
	return x;
}

static FILE *open_file(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("output: %s: cannot create: %s", path, strerror(errno));
	return f;
}

static void close_file(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		die("output: %s: write failed: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commits", required_argument, NULL, 'c' },
		{ "markdown", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "plots", required_argument, NULL, 'p' },
		{ "gate-pct", required_argument, NULL, 'g' },
		{ "gate-pct-tcg", required_argument, NULL, 't' },
		{ "gate-pct-icount", required_argument, NULL, 'i' },
		{ "gate-ack", required_argument, NULL, 'k' },
		{ "gate-only", required_argument, NULL, 'o' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "by-cpu", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	const char *commits = NULL, *md = NULL, *js = NULL, *plots = NULL, *acks = NULL;
	struct records rs = { 0 };
	struct claim_result *cr = NULL;
	size_t ncr = 0, c, i;
	int opt, bad = 0;
	FILE *f;

	prog_set("ci-report");
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			commits = optarg;
			break;
		case 'm':
			md = optarg;
			break;
		case 'j':
			js = optarg;
			break;
		case 'p':
			plots = optarg;
			break;
		case 'g':
			R.gate_pct = number_arg("--gate-pct", optarg);
			break;
		case 't':
			R.gate_pct_tcg = number_arg("--gate-pct-tcg", optarg);
			break;
		case 'i':
			R.gate_pct_icount = number_arg("--gate-pct-icount", optarg);
			break;
		case 'k':
			acks = optarg;
			break;
		case 'a':
			R.alpha = number_arg("--alpha", optarg);
			break;
		case 'b':
			R.by_cpu = 1;
			break;
		case 'o':
			R.gate_only = xrealloc(R.gate_only, (R.ngate_only + 1) * sizeof(char *));
			R.gate_only[R.ngate_only++] = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind >= argc || !(R.alpha > 0 && R.alpha < 1))
		usage_exit();
	for (; optind < argc; optind++)
		if (records_read(&rs, argv[optind]))
			exit(1);
	if (commits && !R.by_cpu)
		load_commits(commits);
	if (acks)
		load_acks(acks);
	build_rows(&rs, !!commits);
	if (!R.nrows)
		die("records: no samples in the records given (%zu records)", rs.n);
	if (!R.by_cpu) {
		for (c = 1; c < R.ncols; c++)
			lkp_table(stdout, c);
		changelog(stdout);
		ncr = eval_claims(&cr);
		printf("Claimed vs reproduced:\n");
		for (i = 0; i < ncr; i++)
			printf("  %-12s claimed %-28s reproduced %s: %s\n", cr[i].id, cr[i].claimed,
			       cr[i].reproduced, cr[i].verdict);
		if (any_exact()) {
			printf("  (tcg-icount: %s.)\n  ", ICOUNT_NOTE);
			wrap(stdout, ICOUNT_CAVEAT, "  ");
		}
		if (R.nerrors) {
			printf("Error records:\n");
			errors_out(stdout);
		}
	} else {
		size_t differ = 0;
		double pct;

		merge_md(stdout);
		for (i = 0; i < R.nrows; i++)
			differ += icount_agree(&R.rows[i], &pct) == 0;
		if (differ)
			fprintf(stderr, "%s: merge: %zu tcg-icount row(s) %s: %s\n", prog_name(), differ,
				"whose hosts do not agree exactly (DIFFER in the table)",
				"the same kernel should count the same instructions on any host under the same QEMU");
	}
	if (md) {
		f = open_file(md);
		write_markdown(f, cr, ncr);
		close_file(f, md);
	}
	if (js) {
		f = open_file(js);
		if (write_json(f, cr, ncr))
			die("output: %s: write failed", js);
		close_file(f, js);
	}
	if (plots)
		write_plots(plots);
	if (!isnan(R.gate_pct) && !R.by_cpu) {
		printf("Regression gate:\n");
		bad = gate_report(stdout, 0);
		if (bad)
			fprintf(stderr, "%s: gate: %d regression(s) (%s)\n", prog_name(), bad,
				"the rules and every decision are in the report; a change that is right is accepted in a --gate-ack file, never by a higher threshold");
	}
	for (i = 0; i < R.nrows; i++) {
		for (c = 0; c < R.ncols; c++)
			free(R.rows[i].cells[c].x);
		free(R.rows[i].cells);
		free(R.rows[i].setup);
	}
	for (c = 0; c < R.ncols; c++) {
		free(R.cols[c].key);
		free(R.cols[c].subject);
		free(R.cols[c].hosts);
	}
	free(R.rows);
	free(R.cols);
	free(R.errors);
	free(R.gate_only);
	for (i = 0; i < R.nacks; i++) {
		free(R.acks[i].commit);
		free(R.acks[i].metric);
		free(R.acks[i].reason);
	}
	free(R.acks);
	for (i = 0; i < ncr; i++) {
		free(cr[i].claimed);
		free(cr[i].reproduced);
		free(cr[i].verdict);
		free(cr[i].setup);
	}
	free(cr);
	records_free(&rs);
	return bad ? 1 : 0;
}
