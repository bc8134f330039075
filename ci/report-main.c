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
 * The files given are written aside and renamed into place when all of
 * them are complete: a run that fails leaves the previous ones whole.
 * Exit: 0; 1 bad records or an output error (no file replaced), or the
 * gate found a regression (the report is written); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
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
		"%s: usage: ci-report [--commits FILE] [--text FILE] [--markdown FILE] [--json FILE] [--plots DIR] [--gate-pct P] [--gate-pct-tcg P] [--gate-pct-icount P] [--gate-ack FILE] [--gate-only GLOB]... [--alpha A] RECORDS...\n",
		prog_name());
	exit(2);
}

static double number_arg(const char *opt, const char *s)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x)) {
		fprintf(stderr, "%s: usage: %s: '%s' is not a number\n", prog_name(), opt, s);
		exit(2);
	}
	return x;
}

struct files {
	const char *commits, *text, *md, *json, *plots, *acks;
};

static void parse_args(int argc, char **argv, struct report *r, struct files *fl)
{
	static const struct option opts[] = {
		{ "commits", required_argument, NULL, 'c' },
		{ "text", required_argument, NULL, 'x' },
		{ "markdown", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "plots", required_argument, NULL, 'p' },
		{ "gate-pct", required_argument, NULL, 'g' },
		{ "gate-pct-tcg", required_argument, NULL, 't' },
		{ "gate-pct-icount", required_argument, NULL, 'i' },
		{ "gate-ack", required_argument, NULL, 'k' },
		{ "gate-only", required_argument, NULL, 'o' },
		{ "alpha", required_argument, NULL, 'a' },
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
		case 'a':
			r->alpha = number_arg("--alpha", optarg);
			break;
		case 'o':
			r->gate_only = xrealloc(r->gate_only, (r->ngate_only + 1) * sizeof(char *));
			r->gate_only[r->ngate_only++] = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind >= argc || !(r->alpha > 0 && r->alpha < 1))
		usage_exit();
}

int main(int argc, char **argv)
{
	struct report r = {
		.alpha = 0.05, .gate_pct = NAN, .gate_pct_tcg = NAN, .gate_pct_icount = 1,
	};
	struct records rs = { 0 };
	struct outputs out = { 0 };
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
	if (fl.acks)
		gate_read_acks(&r, fl.acks);
	table_build(&r.t, &rs);
	if (!r.t.nrows)
		die("records: no samples in the records given (%zu records)", rs.n);
	claims_eval(&r);

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
	if (fl.plots)
		plots_write(&r, outputs_dir(&out, fl.plots));
	outputs_commit(&out);
	if (bad)
		fprintf(stderr, "%s: gate: %d regression(s) (%s)\n", prog_name(), bad,
			"the rules and every decision are in the report; a change that is right is accepted in a --gate-ack file, never by a higher threshold");

	claims_free(&r);
	gate_free(&r);
	free(r.gate_only);
	table_free(&r.t);
	records_free(&rs);
	if (!fl.text && fflush(stdout))
		die("write: stdout: %s", strerror(errno));
	return bad ? 1 : 0;
}
