// SPDX-License-Identifier: GPL-2.0
/*
 * report-json.c - the report the reviewer's tools read: ci-report --json
 * of make ci's commits, with its claims (reviewer.h).  Its own file so
 * that reproduce.c (make reproduce) and reply.c (make reply) both use it
 * and neither calls into the other for it.
 */
#include <stdio.h>

#include <json-c/json.h>

#include "reviewer.h"
#include "util.h"

#define SCHEMA_REPORT "x86-copy-series/ci-report/1"

json_object *read_json(const char *path, const char *what)
{
	json_object *o = json_object_from_file(path);

	if (!o)
		die("%s: %s: cannot read it as JSON (%s)", what, path, json_util_get_last_err());
	return o;
}

const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* make ci's report, with its claims */
json_object *report_load(const char *report)
{
	json_object *r = read_json(report, "report"), *claims;
	const char *schema = str_of(r, "schema");

	if (!streq(schema, SCHEMA_REPORT))
		die("report: %s is not a ci-report --json (schema '%s', not " SCHEMA_REPORT ")",
		    report, schema ? schema : "none");
	if (!streq(str_of(r, "mode"), "commits"))
		die("report: %s is a table by CPU (make merge), not of commits: %s", report,
		    "use make ci's report (out/ci/report.json)");
	if (!json_object_object_get_ex(r, "claims", &claims) ||
	    !json_object_is_type(claims, json_type_array))
		die("report: %s has no claims[]", report);
	return r;
}
