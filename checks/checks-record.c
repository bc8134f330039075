// SPDX-License-Identifier: GPL-2.0
/*
 * checks-record - write the records of checks results (doc/records.md).
 *
 *   checks-record COMMIT <lines.tsv >records.jsonl
 *
 * One record per input line, with tab-separated fields:
 *
 *   case  metric  unit  sample  [key=string | key:=json]...
 *
 * for instance "sparse/mm/mm_init.c  finding  count  1  severity=error
 * new:=true  message=...".  Suite "checks", accel "host", the host CPU.
 * Exit 1 on a malformed line (named with its number) or when stdout
 * cannot be written (a full disk: "write: stdout: ..."), 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record-write.h"

#define PROG "checks-record"
#define MAX_FIELDS 32

static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < MAX_FIELDS) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* key=value: a string field; key:=json: a parsed JSON field */
static int set_field(json_object *rec, char *kv)
{
	char *eq = strchr(kv, '=');
	json_object *v;

	if (!eq || eq == kv)
		return -1;
	*eq = '\0';
	if (eq[-1] == ':') {
		eq[-1] = '\0';
		v = json_tokener_parse(eq + 1);
		if (!v && strcmp(eq + 1, "null"))
			return -1;
	} else {
		v = json_object_new_string(eq + 1);
	}
	record_set(rec, kv, v);
	return 0;
}

int main(int argc, char **argv)
{
	struct record_ctx ctx = { .accel = "host" };
	char *line = NULL, *f[MAX_FIELDS], *end;
	unsigned int lineno = 0;
	size_t cap = 0;
	int n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: " PROG " COMMIT <lines.tsv\n");
		return 2;
	}
	ctx.commit = argv[1];
	record_cpu_host(&ctx.cpu);
	while (getline(&line, &cap, stdin) > 0) {
		json_object *rec;
		double sample;

		lineno++;
		n = split(line, f);
		if (n < 4) {
			fprintf(stderr, PROG ": stdin:%u: %s\n", lineno,
				"fewer than 4 fields (case, metric, unit, sample)");
			goto fail;
		}
		errno = 0;
		sample = strtod(f[3], &end);
		if (errno || end == f[3] || *end) {
			fprintf(stderr, PROG ": stdin:%u: sample '%s' is not a number\n",
				lineno, f[3]);
			goto fail;
		}
		rec = record_new(&ctx, "checks", f[0], f[1], f[2]);
		record_add_sample(rec, sample);
		for (i = 4; i < n; i++) {
			if (set_field(rec, f[i])) {
				fprintf(stderr, PROG ": stdin:%u: field '%s' is %s\n",
					lineno, f[i], "not key=value or key:=json");
				json_object_put(rec);
				goto fail;
			}
		}
		if (record_write(stdout, rec)) {
			fprintf(stderr, PROG ": write: stdout: %s\n", strerror(errno));
			goto fail;
		}
	}
	if (ferror(stdin)) {
		fprintf(stderr, PROG ": read: stdin: %s\n", strerror(errno));
		goto fail;
	}
	free(line);
	if (record_close(stdout)) {
		fprintf(stderr, PROG ": write: stdout: %s\n", strerror(errno));
		return 1;
	}
	return 0;
fail:
	free(line);
	return 1;
}
