// SPDX-License-Identifier: GPL-2.0
/*
 * merge-main.c - ci-merge: the records of several hosts as one table, a
 * column per CPU (accel and model), a row per metric and commit, in the
 * order of the series; each cell's change is against the series' base on
 * the same CPU, whatever order the inputs come in.
 *
 *   ci-merge --commits FILE [--text FILE] [--markdown FILE] [--json FILE]
 *            [--records FILE] RECORDS...
 *
 * --commits: the series, base first ("ID<TAB>SUBJECT" lines); records of
 * other commits are left out, with a warning.  --records: every record
 * read, once (a record given twice counts once), as JSON Lines.  The
 * files are written aside and renamed into place at the end.  Exit 0; 1
 * bad records or an output error (no file replaced); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "record-write.h"
#include "report.h"
#include "util.h"

static void usage_exit(void)
{
	fprintf(stderr,
		"%s: usage: ci-merge --commits FILE [--text FILE] [--markdown FILE] [--json FILE] [--records FILE] RECORDS...\n",
		prog_name());
	exit(2);
}

static void write_records(const struct records *rs, FILE *f)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (record_write(f, json_object_get(rs->v[i].obj)))
			die("output: records: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commits", required_argument, NULL, 'c' },
		{ "text", required_argument, NULL, 'x' },
		{ "markdown", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "records", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *commits = NULL, *text = NULL, *md = NULL, *js = NULL, *recs = NULL;
	struct report r = {
		.t.by_cpu = 1, .alpha = 0.05, .gate_pct = NAN, .gate_pct_tcg = NAN,
		.gate_pct_icount = NAN,
	};
	struct records rs = { 0 };
	struct outputs out = { 0 };
	size_t i, differ = 0;
	struct agree a;
	FILE *f;
	int opt;

	prog_set("ci-merge");
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			commits = optarg;
			break;
		case 'x':
			text = optarg;
			break;
		case 'm':
			md = optarg;
			break;
		case 'j':
			js = optarg;
			break;
		case 'r':
			recs = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind >= argc || !commits)
		usage_exit();
	for (; optind < argc; optind++) {
		size_t before = rs.n + rs.duplicates;

		if (records_read(&rs, argv[optind]))
			exit(1);
		if (rs.n + rs.duplicates == before)
			die("records: %s: no records in it (%s)", argv[optind],
			    "an empty file, or a directory without *.jsonl: give the results of a run");
	}
	table_read_commits(&r.t, commits);
	table_build(&r.t, &rs);
	if (!r.t.nrows)
		die("records: no samples of the series' commits in the records given (%zu records)",
		    rs.n);

	f = text ? outputs_file(&out, text) : stdout;
	md_write(&r, f);
	if (text)
		outputs_close(&out, f);
	if (md) {
		f = outputs_file(&out, md);
		md_write(&r, f);
		outputs_close(&out, f);
	}
	if (js) {
		f = outputs_file(&out, js);
		if (json_write(&r, f))
			die("output: %s: write failed", js);
		outputs_close(&out, f);
	}
	if (recs) {
		f = outputs_file(&out, recs);
		write_records(&rs, f);
		outputs_close(&out, f);
	}
	outputs_commit(&out);
	for (i = 0; i < r.t.nrows; i++) {
		table_icount_agree(&r.t, &r.t.rows[i], &a);
		differ += a.state == AGREE_DIFFER;
	}
	if (differ)
		fprintf(stderr, "%s: merge: %zu tcg-icount row(s) %s: %s\n", prog_name(), differ,
			"whose hosts or runs do not agree to the metric's resolution (DIFFER in the table)",
			"the same kernel should count the same instructions on any host under the same QEMU");
	table_free(&r.t);
	records_free(&rs);
	if (!text && fflush(stdout))
		die("write: stdout: %s", strerror(errno));
	return 0;
}
