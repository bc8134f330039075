// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c - ci-verdict: do make ci's results pass the current series?
 * What make send asks before SEND=1 (series/send.sh), from what make ci
 * wrote: ci-report's JSON (the commits it is of, the gate's cells) and
 * ci/run.sh's summary.txt (each commit's step outcomes).
 *
 *   ci-verdict REPORT SUMMARY COMMIT...
 *
 * COMMIT... are the series' commits, base first, as commit_list gives
 * them.  The results pass when REPORT's columns are exactly those commits,
 * every step of each of them in SUMMARY is ok, same or reused, and no gate
 * cell has a regression_pct no one accepted.
 *
 * Exit 0: they pass, nothing printed.  Exit 1: they do not, or REPORT or
 * SUMMARY cannot be read as such: one line on stdout saying why (send
 * prints it after "not sent:").  Exit 2: usage.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"

#define USAGE "usage: ci-verdict REPORT SUMMARY COMMIT..."
/* summary.txt names a commit by its first 12 digits */
#define SHORT 12
#define NOT_REPORT "not a ci-report (make ci) report"

/* the one line of a verdict that does not pass, and exit 1 */
static __noreturn __printf(1, 2) void refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(fflush(stdout) ? 2 : 1);
}

static const char *member_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *member_array(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

/* the report's columns are the series' commits, in order */
static void columns_check(const char *report, json_object *r, char **want, int nwant)
{
	json_object *cols = member_array(r, "columns");
	size_t n, i;
	const char *last;

	if (!cols)
		refuse("%s is " NOT_REPORT ": it has no columns[]", report);
	n = json_object_array_length(cols);
	for (i = 0; i < n; i++)
		if (!member_str(json_object_array_get_idx(cols, i), "key"))
			refuse("%s is " NOT_REPORT ": column %zu has no key", report, i + 1);
	last = n ? member_str(json_object_array_get_idx(cols, n - 1), "key") : "none";
	if (n != (size_t)nwant)
		goto other;
	for (i = 0; i < n; i++)
		if (!streq(member_str(json_object_array_get_idx(cols, i), "key"), want[i]))
			goto other;
	return;
other:
	refuse("%s is of %zu commits ending at %.*s, not of the %d of the %s %.*s: run 'make ci'",
	       report, n, SHORT, last, nwant, "current series ending at", SHORT, want[nwant - 1]);
}

/* every step of every commit ok, same or reused in summary.txt */
static void steps_check(const char *summary, char **want, int nwant)
{
	static const char SPACE[] = " \t\n";
	FILE *f = fopen(summary, "r");
	char **line = xcalloc(nwant, sizeof(*line));
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, i;

	if (!f)
		refuse("%s cannot be read: %s", summary, strerror(errno));
	while ((len = getline(&buf, &cap, f)) != -1) {
		/* the first line names the steps */
		if (lineno++ == 0)
			continue;
		for (i = 0; i < nwant; i++)
			if (!strncmp(buf, want[i], SHORT) && buf[SHORT] == ' ' && !line[i])
				line[i] = xstrdup(buf + SHORT);
	}
	if (ferror(f))
		refuse("%s cannot be read: %s", summary, strerror(errno));
	fclose(f);
	free(buf);
	for (i = 0; i < nwant; i++) {
		char bad[512] = "", *w, *save;
		size_t used = 0, room;

		if (!line[i])
			refuse("%.*s did not pass its steps (lost in %s)", SHORT, want[i], summary);
		for (w = strtok_r(line[i], SPACE, &save); w; w = strtok_r(NULL, SPACE, &save)) {
			if (streq(w, "ok") || streq(w, "same") || streq(w, "reused"))
				continue;
			room = used < sizeof(bad) ? sizeof(bad) - used : 0;
			used += snprintf(bad + used, room, "%s%s", used ? " " : "", w);
		}
		if (used)
			refuse("%.*s did not pass its steps (%s in %s)", SHORT, want[i], bad,
			       summary);
		free(line[i]);
	}
	free(line);
}

/* a gate cell's regression counts unless a maintainer accepted it */
static int accepted(json_object *cell)
{
	json_object *a;

	if (!json_object_object_get_ex(cell, "accepted", &a) || !a)
		return 0;
	return json_object_is_type(a, json_type_object) ||
	       (json_object_is_type(a, json_type_boolean) && json_object_get_boolean(a));
}

/* "<commit> suite/case/metric +N%" of a cell the gate flags, or NULL */
static char *cell_worse(const char *report, json_object *row, json_object *cell,
			size_t i, size_t j)
{
	const char *col = member_str(cell, "column"), *suite = member_str(row, "suite");
	const char *cs = member_str(row, "case"), *metric = member_str(row, "metric");
	json_object *pct;

	if (!json_object_object_get_ex(cell, "regression_pct", &pct) || accepted(cell))
		return NULL;
	if (!col || !suite || !cs || !metric || !(json_object_is_type(pct, json_type_double) ||
						  json_object_is_type(pct, json_type_int)))
		refuse("%s is " NOT_REPORT ": row %zu, cell %zu: %s", report, i + 1, j + 1,
		       "a regression without its column, suite, case, metric or number");
	return xasprintf("%.*s %s/%s/%s +%.1f%%", SHORT, col, suite, cs, metric,
			 json_object_get_double(pct));
}

/* no regression the gate flags that no one accepted */
static void gate_check(const char *report, json_object *r)
{
	json_object *rows = member_array(r, "rows");
	size_t nr = rows ? json_object_array_length(rows) : 0, i, j, nworse = 0;
	char *worse = xstrdup(""), *w, *more;

	for (i = 0; i < nr; i++) {
		json_object *row = json_object_array_get_idx(rows, i);
		json_object *cells = member_array(row, "cells");
		size_t nc = cells ? json_object_array_length(cells) : 0;

		for (j = 0; j < nc; j++) {
			w = cell_worse(report, row, json_object_array_get_idx(cells, j), i, j);
			if (!w)
				continue;
			more = xasprintf("%s%s%s", worse, nworse++ ? "; " : "", w);
			free(worse);
			free(w);
			worse = more;
		}
	}
	if (nworse)
		refuse("the gate flags %zu change(s) no one accepted: %s", nworse, worse);
	free(worse);
}

int main(int argc, char **argv)
{
	json_object *r;
	int i;

	prog_set("ci-verdict");
	if (argc < 4) {
		fprintf(stderr, "ci-verdict: " USAGE "\n");
		return 2;
	}
	for (i = 3; i < argc; i++)
		if (strlen(argv[i]) < SHORT) {
			fprintf(stderr, "ci-verdict: '%s' is not a commit id\n", argv[i]);
			fprintf(stderr, "ci-verdict: " USAGE "\n");
			return 2;
		}
	r = json_object_from_file(argv[1]);
	if (!r || !json_object_is_type(r, json_type_object))
		refuse("%s is " NOT_REPORT ": %s", argv[1],
		       r ? "not a JSON object" : json_util_get_last_err());
	columns_check(argv[1], r, argv + 3, argc - 3);
	steps_check(argv[2], argv + 3, argc - 3);
	gate_check(argv[1], r);
	json_object_put(r);
	return 0;
}
