// SPDX-License-Identifier: GPL-2.0
/*
 * report-main.c - ci-report: the per-commit report of the CI pipeline,
 * computed from records only (doc/records.md).
 *
 *   ci-report [options] RECORDS...      files (.jsonl) or directories
 *
 * Per metric and commit: n, median, mean, sd, 95% CI of the mean; the
 * change of the mean against the parent and against the base in percent,
 * with Welch's t-test p-value and a mark (* p<0.05, ** p<0.01,
 * *** p<0.001).  Prints lkp-style comparison tables, text a changelog can
 * quote, and "claimed vs reproduced" for every figure of lib/claims.def.
 * Options:
 *   --commits FILE   the commits in order, base first: "ID<TAB>SUBJECT"
 *                    lines (default: the order the records name them)
 *   --text FILE      the text report (default: stdout)
 *   --markdown FILE  --json FILE   the report as Markdown, as JSON
 *   --kcidb FILE     the records as KCIDB v5.3 JSON (out-kcidb.c)
 *   --kcidb-patchsets FILE  per commit, its base and patchset hash, checked
 *                    by report/kcidb.sh ("COMMIT BASE SHA256 PATCH", tabs)
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
 *                    change is reported with its reason and does not fail.
 *                    A line that can never be right is an error naming it:
 *                    a broken glob, a MAX-PCT that is not a decimal above
 *                    0, a glob that names no metric of a suite the records
 *                    hold, a commit outside --gate-series
 *   --gate-series FILE  the whole series, base first ("ID<TAB>SUBJECT" lines,
 *                    as --commits, which may be a part of it: make quick):
 *                    the commits a --gate-ack line may name
 *   --series FILE    patches/series: names the commits of the claims by
 *                    their patch and checks each claim's quote against its
 *                    changelog (default: patches/series here)
 *   --gate-only GLOB only "suite/case/metric" names matching GLOB count for
 *                    the gate (repeatable; default all)
 *   --alpha A        significance level (default 0.05)
 *   --costs PATH     a CPU's cost table (bench/costs.sh: cost-table.jsonl, or
 *                    a directory of them; repeatable): the cache model's binds
 *                    priced by it, per commit, beside the icount and model
 *                    changes and the claims, labelled as predictions
 *   --ceilings FILE  a CPU's measured ceilings (make costs' records.jsonl:
 *                    its streaming-store bandwidth and write-allocate
 *                    kernel): each bind claim's rate as a fraction of them
 * Thresholds are decimal numbers (5, 2.5), 0 or above; alpha is above 0
 * and below 1: "-1", "0x10", "1e1" or " 5" are usage errors.
 * The files given are written aside and renamed into place when all of
 * them are complete: a run that fails leaves the previous ones whole.
 * Exit: 0; 1 bad records or an output error (no file replaced), or the
 * gate found a regression (the report is written); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "report.h"
#include "util.h"

static void usage_exit(void)
{
	fprintf(stderr,
		"%s: usage: ci-report [--commits FILE] [--text FILE] [--markdown FILE] [--json FILE] [--kcidb FILE] [--kcidb-patchsets FILE] [--plots DIR] [--gate-pct P] [--gate-pct-tcg P] [--gate-pct-icount P] [--gate-ack FILE] [--gate-series FILE] [--series FILE] [--gate-only GLOB]... [--alpha A] [--costs PATH]... [--ceilings FILE] RECORDS...\n",
		prog_name());
	exit(2);
}

/* a threshold or a level: a decimal number, all of its text, 0 or above */
static double number_arg(const char *opt, const char *s)
{
	double x;

	if (decimal_parse(s, &x)) {
		fprintf(stderr, "%s: usage: %s: '%s' is not a decimal number 0 or above (%s)\n",
			prog_name(), opt, s, "such as 5 or 2.5");
		exit(2);
	}
	return x;
}

struct files {
	const char *commits, *text, *md, *json, *plots, *acks, *gate_series;
	const char *kcidb, *kcidb_patchsets, *ceilings;
	const char **costs;
	size_t ncosts;
};

static void parse_args(int argc, char **argv, struct report *r, struct files *fl)
{
	static const struct option opts[] = {
		{ "commits", required_argument, NULL, 'c' },
		{ "text", required_argument, NULL, 'x' },
		{ "markdown", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "kcidb", required_argument, NULL, 'K' },
		{ "kcidb-patchsets", required_argument, NULL, 'P' },
		{ "plots", required_argument, NULL, 'p' },
		{ "gate-pct", required_argument, NULL, 'g' },
		{ "gate-pct-tcg", required_argument, NULL, 't' },
		{ "gate-pct-icount", required_argument, NULL, 'i' },
		{ "gate-ack", required_argument, NULL, 'k' },
		{ "gate-series", required_argument, NULL, 's' },
		{ "series", required_argument, NULL, 'S' },
		{ "gate-only", required_argument, NULL, 'o' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "costs", required_argument, NULL, 'C' },
		{ "ceilings", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			fl->commits = optarg;
			break;
		case 'x':
			fl->text = optarg;
			break;
		case 'm':
			fl->md = optarg;
			break;
		case 'j':
			fl->json = optarg;
			break;
		case 'K':
			fl->kcidb = optarg;
			break;
		case 'P':
			fl->kcidb_patchsets = optarg;
			break;
		case 'p':
			fl->plots = optarg;
			break;
		case 'g':
			r->gate_pct = number_arg("--gate-pct", optarg);
			break;
		case 't':
			r->gate_pct_tcg = number_arg("--gate-pct-tcg", optarg);
			break;
		case 'i':
			r->gate_pct_icount = number_arg("--gate-pct-icount", optarg);
			break;
		case 'k':
			fl->acks = optarg;
			break;
		case 's':
			fl->gate_series = optarg;
			break;
		case 'S':
			r->series_path = optarg;
			break;
		case 'a':
			r->alpha = number_arg("--alpha", optarg);
			break;
		case 'C':
			fl->costs = xrealloc(fl->costs, (fl->ncosts + 1) * sizeof(char *));
			fl->costs[fl->ncosts++] = optarg;
			break;
		case 'L':
			fl->ceilings = optarg;
			break;
		case 'o':
			r->gate_only = xrealloc(r->gate_only, (r->ngate_only + 1) * sizeof(char *));
			r->gate_only[r->ngate_only++] = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (!(r->alpha > 0 && r->alpha < 1)) {
		fprintf(stderr, "%s: usage: --alpha: %g is not above 0 and below 1\n", prog_name(),
			r->alpha);
		exit(2);
	}
	if (optind >= argc)
		usage_exit();
}

/* some key of KEYS (N of them) starts with the commit ID */
static int names_commit(char *const *keys, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(keys[i], id, strlen(id)))
			return 1;
	return 0;
}

/*
 * Whether GLOB, as the gate matches it (the whole "suite/case/metric",
 * '*' across '/'), can name a row of the records: -1 when no row is of
 * its suite (a run without that step tells nothing), else 1 when a row
 * matches, or would with GLOB's own case in place of the row's (a case
 * missing from this run: no map=mem namespace), else 0, with a row's
 * metric of that suite in *example.
 */
static int glob_names_row(const struct table *t, const char *glob, const char **example)
{
	size_t slen = strcspn(glob, "/"), i;
	const char *last = strrchr(glob, '/');
	int found = -1;

	*example = NULL;
	for (i = 0; i < t->nrows && found != 1; i++) {
		const struct record *rec = t->rows[i].rec;
		char *suite = xasprintf("%.*s", (int)slen, glob), *name;

		if (fnmatch(suite, rec->suite, 0)) {
			free(suite);
			continue;
		}
		free(suite);
		name = slash_name(&t->rows[i]);
		found = !fnmatch(glob, name, 0);
		free(name);
		if (!found && last && last > glob + slen) {
			name = xasprintf("%s/%.*s/%s", rec->suite, (int)(last - glob - slen - 1),
					 glob + slen + 1, rec->metric);
			found = !fnmatch(glob, name, 0);
			free(name);
		}
		*example = rec->metric;
	}
	return found;
}

/* some cell of the table holds results reused from the ack's commit */
static int names_reused(const struct table *t, const struct ack *a)
{
	size_t i, c;

	for (i = 0; i < t->nrows; i++)
		for (c = 0; c < t->ncols; c++)
			if (t->rows[i].cells[c].first &&
			    ack_names_cell(a, "", &t->rows[i].cells[c]))
				return 1;
	return 0;
}

/*
 * A --gate-ack line that can never accept anything is an error, not a
 * line of the report: its commit outside the series (--gate-series, the
 * whole of it: --commits may be a part), or its glob matching no row of
 * its suite, even with the glob's own case (a misspelt metric).  A case
 * may be missing from a run (no map=mem namespace), a suite too (a run
 * without its step): that tells nothing.
 */
static void check_acks(const struct report *r, const char *series_path)
{
	struct table series = { .by_cpu = 1 };
	size_t i;

	if (series_path)
		table_read_commits(&series, series_path);
	for (i = 0; i < r->nacks; i++) {
		const struct ack *a = &r->acks[i];
		const char *example;

		if (series_path && !names_commit(series.series, series.nseries, a->commit) &&
		    !names_reused(&r->t, a))
			die("gate-ack: %s:%u: '%s' is not a commit of the series (%s): %s",
			    r->ack_file, a->line, a->commit, series_path,
			    "a rebased or edited commit whose results are not reused needs its own line; remove the old one");
		if (!glob_names_row(&r->t, a->metric, &example))
			die("gate-ack: %s:%u: '%s' names no metric of the records: %s",
			    r->ack_file, a->line, a->metric,
			    xasprintf("none of suite '%.*s' (such as '%s')",
				      (int)strcspn(a->metric, "/"), a->metric, example));
	}
	table_free(&series);
}

/*
 * The plots' directory as the Markdown links it: its name, when the two
 * are in one directory (make report's out/report/<set>/), else NULL (a
 * link that would not resolve is none).
 */
static const char *plots_beside(const char *md, const char *plots)
{
	const char *ms, *ps;

	if (!md || !plots)
		return NULL;
	ms = strrchr(md, '/');
	ps = strrchr(plots, '/');
	if ((ms ? ms - md : 0) != (ps ? ps - plots : 0) ||
	    (ms && strncmp(md, plots, (size_t)(ms - md))) || !*(ps ? ps + 1 : plots))
		return NULL;
	return ps ? ps + 1 : plots;
}

int main(int argc, char **argv)
{
	struct report r = {
		.alpha = 0.05, .gate_pct = NAN, .gate_pct_tcg = NAN, .gate_pct_icount = 1,
		.ceil_nt = NAN, .ceil_wa = NAN,
	};
	struct records rs = { 0 }, cost_rs = { 0 };
	struct outputs out = { 0 };
	char *why;
	size_t i;
	struct files fl = { 0 };
	FILE *f;
	int bad;

	prog_set("ci-report");
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv, &r, &fl);
	for (; optind < argc; optind++)
		if (records_read(&rs, argv[optind]))
			exit(1);
	if (fl.commits)
		table_read_commits(&r.t, fl.commits);
	table_build(&r.t, &rs);
	if (!r.t.nrows)
		die("records: no samples in the records given (%zu records)", rs.n);
	if (fl.acks) {
		gate_read_acks(&r, fl.acks);
		check_acks(&r, fl.gate_series);
	}
	for (i = 0; i < fl.ncosts; i++) {
		size_t n0 = cost_rs.n, k;

		if (records_read(&cost_rs, fl.costs[i]))
			exit(1);
		for (k = n0; k < cost_rs.n && strcmp(cost_rs.v[k].suite, COST_SUITE); k++)
			;
		/* every file given is a table: a wrong path is no silent nothing */
		if (k == cost_rs.n)
			die("costs: %s: no record of suite %s (%s)", fl.costs[i], COST_SUITE,
			    "bench/costs.sh writes cost-table.jsonl");
	}
	if (cost_tables(&cost_rs, &r.costs, &r.ncosts, &why))
		die("costs: %s", why);
	if (fl.ceilings)
		limits_ceilings(&r, fl.ceilings);
	claims_eval(&r);
	r.plots_link = plots_beside(fl.md, fl.plots);

	f = fl.text ? outputs_file(&out, fl.text) : stdout;
	bad = text_write(&r, f);
	if (fl.text)
		outputs_close(&out, f);
	if (fl.md) {
		f = outputs_file(&out, fl.md);
		md_write(&r, f);
		outputs_close(&out, f);
	}
	if (fl.json) {
		f = outputs_file(&out, fl.json);
		if (json_write(&r, f))
			die("output: %s: write failed", fl.json);
		outputs_close(&out, f);
	}
	if (fl.kcidb) {
		f = outputs_file(&out, fl.kcidb);
		if (kcidb_write(&r, f, fl.kcidb_patchsets))
			die("output: %s: write failed", fl.kcidb);
		outputs_close(&out, f);
	} else if (fl.kcidb_patchsets) {
		usage_exit();
	}
	if (fl.plots)
		plots_write(&r, outputs_dir(&out, fl.plots));
	outputs_commit(&out);
	if (bad)
		fprintf(stderr, "%s: gate: %d regression(s) (%s)\n", prog_name(), bad,
			"the rules and every decision are in the report; a change that is right is accepted in a --gate-ack file, never by a higher threshold");

	claims_free(&r);
	free(r.ceil_cpu);
	free(r.ceil_cpu_name);
	gate_free(&r);
	free(r.gate_only);
	table_free(&r.t);
	records_free(&rs);
	cost_tables_free(r.costs, r.ncosts);
	records_free(&cost_rs);
	free(fl.costs);
	/* line buffered: a failed write leaves nothing for fflush() to fail on */
	if (!fl.text && (fflush(stdout) | ferror(stdout)))
		die("write: stdout: %s", strerror(errno));
	return bad ? 1 : 0;
}
