/* SPDX-License-Identifier: GPL-2.0 */
/*
 * records.h - read result records (doc/records.md) back: the reader that
 * goes with lib/record.c's writer.
 *
 * API, in call order:
 *   struct ci_records rs = { 0 };
 *   ci_records_load(&rs, path)     a .jsonl file, or a directory: every
 *                                  *.jsonl under it, in name order
 *   rs.v[i].suite, .samples, ...   the fields, read-only
 *   ci_records_free(&rs)
 *
 * A line that is not a record of schema RECORD_SCHEMA is an error naming
 * the file and line (stderr, "prog: records: FILE:LINE: ..."): results are
 * never skipped in silence.
 */
#ifndef CI_RECORDS_H
#define CI_RECORDS_H

#include <stddef.h>
#include <json-c/json.h>

struct ci_record {
	const char *suite, *case_name, *metric, *unit;
	const char *commit, *kernel, *accel, *host, *time;
	const char *clock;		/* "icount" or "wall"; NULL (older records): wall */
	const char *cpu_model, *cpu_vendor;
	const char *host_cpu_model;	/* NULL in records older than host_cpu */
	const char *error;		/* the error text of an error record */
	double *samples;
	size_t n;
	json_object *params;		/* or NULL */
	json_object *obj;		/* the whole record; owns the strings */
	char *file;
	unsigned int line;
};

struct ci_records {
	struct ci_record *v;
	size_t n, cap;
};

extern const char *ci_prog;	/* for error messages; set by main() */

int ci_records_load(struct ci_records *rs, const char *path);
void ci_records_free(struct ci_records *rs);
/* a number in params, or NAN */
double ci_record_param(const struct ci_record *r, const char *key);

#endif /* CI_RECORDS_H */
