// SPDX-License-Identifier: GPL-2.0
/*
 * records.c - read result records with json-c.  See records.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record.h"
#include "records.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *ci_prog = "ci";

static int fail(const char *file, unsigned int line, const char *what)
{
	fprintf(stderr, "%s: records: %s:%u: %s\n", ci_prog, file, line, what);
	return -1;
}

static const char *str(json_object *o, const char *key, int *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = 1;
		return NULL;
	}
	return json_object_get_string(v);
}

static int parse(struct ci_record *r, json_object *o, const char *file,
		 unsigned int line)
{
	static const char *const required[] = { "suite", "case", "metric", "unit" };
	json_object *samples, *cpu;
	const char *schema;
	char msg[256];
	int bad = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object))
		return fail(file, line, "not a JSON object");
	schema = str(o, "schema", &bad);
	if (!schema || strcmp(schema, RECORD_SCHEMA)) {
		snprintf(msg, sizeof(msg), "schema is '%s', expected '%s'",
			 schema ? schema : "(none)", RECORD_SCHEMA);
		return fail(file, line, msg);
	}
	for (i = 0; i < ARRAY_SIZE(required); i++) {
		if (!str(o, required[i], &bad)) {
			snprintf(msg, sizeof(msg), "field '%s' is missing or not a string",
				 required[i]);
			return fail(file, line, msg);
		}
	}
	r->suite = str(o, "suite", &bad);
	r->case_name = str(o, "case", &bad);
	r->metric = str(o, "metric", &bad);
	r->unit = str(o, "unit", &bad);
	r->commit = str(o, "commit", &bad);
	r->kernel = str(o, "kernel", &bad);
	r->accel = str(o, "accel", &bad);
	r->clock = str(o, "clock", &bad);
	r->host = str(o, "host", &bad);
	r->time = str(o, "time", &bad);
	r->error = str(o, "error", &bad);
	if (json_object_object_get_ex(o, "cpu", &cpu) && cpu) {
		r->cpu_model = str(cpu, "model_name", &bad);
		r->cpu_vendor = str(cpu, "vendor", &bad);
	}
	if (json_object_object_get_ex(o, "host_cpu", &cpu) && cpu)
		r->host_cpu_model = str(cpu, "model_name", &bad);
	if (bad)
		return fail(file, line, "a string field holds another type");
	if (!json_object_object_get_ex(o, "samples", &samples) ||
	    !json_object_is_type(samples, json_type_array))
		return fail(file, line, "field 'samples' is missing or not an array");
	r->n = json_object_array_length(samples);
	r->samples = calloc(r->n ? r->n : 1, sizeof(double));
	if (!r->samples)
		return fail(file, line, "out of memory");
	for (i = 0; i < r->n; i++) {
		json_object *s = json_object_array_get_idx(samples, i);

		if (!json_object_is_type(s, json_type_double) &&
		    !json_object_is_type(s, json_type_int)) {
			free(r->samples);
			snprintf(msg, sizeof(msg), "sample %zu is not a number", i);
			return fail(file, line, msg);
		}
		r->samples[i] = json_object_get_double(s);
	}
	if (!json_object_object_get_ex(o, "params", &r->params) ||
	    !json_object_is_type(r->params, json_type_object))
		r->params = NULL;
	r->line = line;
	r->file = strdup(file);
	r->obj = o;
	return 0;
}

static int push(struct ci_records *rs, json_object *o, const char *file,
		unsigned int line)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 256;
		struct ci_record *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return fail(file, line, "out of memory");
		rs->v = v;
		rs->cap = cap;
	}
	if (parse(&rs->v[rs->n], o, file, line))
		return -1;
	rs->n++;
	return 0;
}

static int load_file(struct ci_records *rs, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	unsigned int line = 0;
	ssize_t len;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", ci_prog, path,
			strerror(errno));
		return -1;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		enum json_tokener_error jerr;
		json_object *o;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len)
			continue;
		o = json_tokener_parse_verbose(buf, &jerr);
		if (!o) {
			char msg[128];

			snprintf(msg, sizeof(msg), "not JSON: %s",
				 json_tokener_error_desc(jerr));
			ret = fail(path, line, msg);
			break;
		}
		if (push(rs, o, path, line)) {
			json_object_put(o);
			ret = -1;
			break;
		}
	}
	free(buf);
	fclose(f);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_dir(struct ci_records *rs, const char *path)
{
	struct dirent **ents;
	int i, n, ret = 0;

	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: records: %s: cannot read the directory: %s\n",
			ci_prog, path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		char *sub;
		struct stat st;

		if (name[0] == '.' || ret)
			goto next;
		if (asprintf(&sub, "%s/%s", path, name) < 0) {
			ret = -1;
			goto next;
		}
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			ret = load_dir(rs, sub);
		else if (len > 6 && !strcmp(name + len - 6, ".jsonl"))
			ret = load_file(rs, sub);
		free(sub);
next:
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int ci_records_load(struct ci_records *rs, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", ci_prog, path,
			strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? load_dir(rs, path) : load_file(rs, path);
}

void ci_records_free(struct ci_records *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].samples);
		free(rs->v[i].file);
		json_object_put(rs->v[i].obj);
	}
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

double ci_record_param(const struct ci_record *r, const char *key)
{
	json_object *v;

	if (!r->params || !json_object_object_get_ex(r->params, key, &v) ||
	    !(json_object_is_type(v, json_type_double) ||
	      json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}
