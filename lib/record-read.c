// SPDX-License-Identifier: GPL-2.0
/*
 * record-read.c - read result records, strictly.  See record-read.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record-read.h"
#include "record-write.h"
#include "util.h"

/* Fields of params that readers use, and their type. */
static const char *const number_params[] = {
	"ns_size", "rebinds", "size", "len", "dst_page_offset",
};

static const char *const string_params[] = {
	"qemu_cpu", "cpu_model", "variant", "state",
};

__attribute__((format(printf, 3, 4)))
static int fail(const char *file, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: records: %s:%u: ", prog_name(), file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static const char *type_name(json_object *v)
{
	return v ? json_type_to_name(json_object_get_type(v)) : "null";
}

static int is_number(json_object *v)
{
	return json_object_is_type(v, json_type_double) ||
	       json_object_is_type(v, json_type_int);
}

/* KEY of O as a string: *out is NULL when absent or null; -1: another type */
static int get_str(json_object *o, const char *key, const char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -1;
	*out = json_object_get_string(v);
	return 0;
}

/* NaN and infinities anywhere in V; PATH names the first in BUF */
static int non_finite(json_object *v, char *buf, size_t len)
{
	size_t i, n = strlen(buf);

	if (json_object_is_type(v, json_type_double))
		return !isfinite(json_object_get_double(v));
	if (json_object_is_type(v, json_type_array)) {
		for (i = 0; i < json_object_array_length(v); i++) {
			snprintf(buf + n, len - n, "[%zu]", i);
			if (non_finite(json_object_array_get_idx(v, i), buf, len))
				return 1;
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			snprintf(buf + n, len - n, "%s%s", n ? "." : "", key);
			if (non_finite(val, buf, len))
				return 1;
		}
	}
	buf[n] = '\0';
	return 0;
}

static int check_cpu(json_object *o, const char *key, const char **name,
		     const char **vendor, const char *file, unsigned int line)
{
	static const char *const ints[] = { "family", "model", "stepping" };
	json_object *cpu, *v;
	const char *other;
	size_t i;

	*name = NULL;
	if (vendor)
		*vendor = NULL;
	if (!json_object_object_get_ex(o, key, &cpu) || !cpu)
		return 0;
	if (!json_object_is_type(cpu, json_type_object))
		return fail(file, line, "field '%s' is %s, not an object", key, type_name(cpu));
	if (get_str(cpu, "model_name", name) || get_str(cpu, "vendor", vendor ? vendor : &other))
		return fail(file, line, "field '%s': model_name and vendor must be strings", key);
	for (i = 0; i < ARRAY_SIZE(ints); i++)
		if (json_object_object_get_ex(cpu, ints[i], &v) && v &&
		    !json_object_is_type(v, json_type_int))
			return fail(file, line, "field '%s.%s' is %s, not an integer", key,
				    ints[i], type_name(v));
	if (json_object_object_get_ex(cpu, "flags", &v) && v) {
		if (!json_object_is_type(v, json_type_array))
			return fail(file, line, "field '%s.flags' is %s, not an array", key,
				    type_name(v));
		for (i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i),
						 json_type_string))
				return fail(file, line, "field '%s.flags[%zu]' is not a string",
					    key, i);
	}
	return 0;
}

static int check_params(struct record *r, json_object *o)
{
	json_object *v;
	size_t i;

	if (!json_object_object_get_ex(o, "params", &r->params) || !r->params) {
		r->params = NULL;
		return 0;
	}
	if (!json_object_is_type(r->params, json_type_object))
		return fail(r->file, r->line, "field 'params' is %s, not an object",
			    type_name(r->params));
	for (i = 0; i < ARRAY_SIZE(number_params); i++)
		if (json_object_object_get_ex(r->params, number_params[i], &v) && v &&
		    !is_number(v))
			return fail(r->file, r->line, "field 'params.%s' is %s, not a number",
				    number_params[i], type_name(v));
	for (i = 0; i < ARRAY_SIZE(string_params); i++)
		if (json_object_object_get_ex(r->params, string_params[i], &v) && v &&
		    !json_object_is_type(v, json_type_string))
			return fail(r->file, r->line, "field 'params.%s' is %s, not a string",
				    string_params[i], type_name(v));
	/* QEMU's -cpu: "qemu_cpu"; records before the rename say "cpu_model" */
	r->qemu_cpu = record_param_str(r, "qemu_cpu");
	if (!r->qemu_cpu)
		r->qemu_cpu = record_param_str(r, "cpu_model");
	return 0;
}

static int check_digest(struct record *r, json_object *o)
{
	size_t i;

	if (!json_object_object_get_ex(o, "digest", &r->digest) || !r->digest) {
		r->digest = NULL;
		return 0;
	}
	if (!json_object_is_type(r->digest, json_type_array))
		return fail(r->file, r->line, "field 'digest' is %s, not an array of strings",
			    type_name(r->digest));
	for (i = 0; i < json_object_array_length(r->digest); i++)
		if (!json_object_is_type(json_object_array_get_idx(r->digest, i),
					 json_type_string))
			return fail(r->file, r->line, "field 'digest[%zu]' is not a string", i);
	return 0;
}

static int parse(struct record *r, json_object *o)
{
	static const struct {
		const char *key;
		int required;
		size_t off;
	} strs[] = {
		{ "suite", 1, offsetof(struct record, suite) },
		{ "case", 1, offsetof(struct record, case_name) },
		{ "metric", 1, offsetof(struct record, metric) },
		{ "unit", 1, offsetof(struct record, unit) },
		{ "commit", 0, offsetof(struct record, commit) },
		{ "kernel", 0, offsetof(struct record, kernel) },
		{ "accel", 0, offsetof(struct record, accel) },
		{ "clock", 0, offsetof(struct record, clock) },
		{ "host", 0, offsetof(struct record, host) },
		{ "time", 0, offsetof(struct record, time) },
		{ "error", 0, offsetof(struct record, error) },
	};
	json_object *samples, *v;
	const char *schema;
	char where[128] = "";
	size_t i;

	if (!json_object_is_type(o, json_type_object))
		return fail(r->file, r->line, "a JSON %s, not a record (an object)", type_name(o));
	if (get_str(o, "schema", &schema) || !schema || strcmp(schema, RECORD_SCHEMA))
		return fail(r->file, r->line, "schema is '%s', expected '%s'",
			    schema ? schema : "(none)", RECORD_SCHEMA);
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		const char **dst = (const char **)((char *)r + strs[i].off);

		if (get_str(o, strs[i].key, dst)) {
			json_object_object_get_ex(o, strs[i].key, &v);
			return fail(r->file, r->line, "field '%s' is %s, not a string",
				    strs[i].key, type_name(v));
		}
		if (strs[i].required && !*dst)
			return fail(r->file, r->line, "field '%s' is missing", strs[i].key);
	}
	if (!r->clock)
		r->clock = "wall";
	if (strcmp(r->clock, "wall") && strcmp(r->clock, "icount"))
		return fail(r->file, r->line, "clock '%s' is neither 'wall' nor 'icount'", r->clock);
	if (check_cpu(o, "cpu", &r->cpu_name, &r->cpu_vendor, r->file, r->line) ||
	    check_cpu(o, "host_cpu", &r->host_cpu_name, NULL, r->file, r->line) ||
	    check_params(r, o) || check_digest(r, o))
		return -1;
	if (non_finite(o, where, sizeof(where)))
		return fail(r->file, r->line, "field '%s' is NaN or infinite: %s", where,
			    "a number that is no measurement (the producer must write an error record instead)");
	if (!json_object_object_get_ex(o, "samples", &samples) ||
	    !json_object_is_type(samples, json_type_array))
		return fail(r->file, r->line, "field 'samples' is %s, not an array of numbers",
			    samples ? type_name(samples) : "missing");
	r->n = json_object_array_length(samples);
	r->samples = xcalloc(r->n, sizeof(double));
	for (i = 0; i < r->n; i++) {
		v = json_object_array_get_idx(samples, i);
		if (!is_number(v)) {
			free(r->samples);
			r->samples = NULL;
			return fail(r->file, r->line, "sample %zu is %s, not a number", i,
				    type_name(v));
		}
		r->samples[i] = json_object_get_double(v);
	}
	r->obj = o;
	return 0;
}

/* the commit id a path names (out/ci/<commit>/...), in BUF, or NULL */
static const char *dir_commit(const char *path, char *buf, size_t len)
{
	const char *p = path, *found = NULL;
	size_t n, flen = 0;

	while (*p) {
		n = strcspn(p, "/");
		/* a component, not the file name: the last one has no '/' */
		if (p[n] == '/' && n >= 40 && strspn(p, "0123456789abcdef") >= 40 &&
		    (n == 40 || p[40] == '+')) {
			found = p;
			flen = n;
		}
		p += n;
		p += strspn(p, "/");
	}
	if (!found || flen + 1 > len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)flen, found);
	return buf;
}

/* FNV-1a of the record's text: the same text is the same record */
static size_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

static const char *text_of(const struct record *r)
{
	return json_object_to_json_string_ext(r->obj, JSON_C_TO_STRING_PLAIN);
}

/* same_text: the same record, compared by hash first (texts are costly) */
static int same_text(const struct record *a, const struct record *b)
{
	char *t;
	int same;

	if (a->identity != b->identity)
		return 0;
	t = xstrdup(text_of(a));
	same = !strcmp(t, text_of(b));
	free(t);
	return same;
}

static void hash_grow(struct records *rs)
{
	size_t i, nh = rs->nhash ? 2 * rs->nhash : 1024;

	free(rs->hash);
	rs->hash = xcalloc(nh, sizeof(*rs->hash));
	rs->nhash = nh;
	for (i = 0; i < rs->n; i++) {
		size_t h = rs->v[i].identity % nh;

		while (rs->hash[h])
			h = (h + 1) % nh;
		rs->hash[h] = i + 1;
	}
}

/* the record read before with the same text, or NULL (then it is added) */
static const struct record *seen(struct records *rs, struct record *r)
{
	size_t h;

	r->identity = text_hash(text_of(r));
	if (2 * (rs->n + 1) > rs->nhash)
		hash_grow(rs);
	for (h = r->identity % rs->nhash; rs->hash[h]; h = (h + 1) % rs->nhash)
		if (same_text(&rs->v[rs->hash[h] - 1], r))
			return &rs->v[rs->hash[h] - 1];
	rs->hash[h] = rs->n + 1;
	return NULL;
}

static int add(struct records *rs, json_object *o, const char *file, unsigned int line)
{
	const struct record *dup;
	struct record *r;
	char buf[128];
	const char *dc;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 256;
		rs->v = xrealloc(rs->v, rs->cap * sizeof(*rs->v));
	}
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->line = line;
	if (parse(r, o))
		return -1;
	dc = dir_commit(file, buf, sizeof(buf));
	if (dc && !streq(r->commit, dc)) {
		free(r->samples);
		return fail(file, line, "a record of commit '%s' in the directory of %s: %s",
			    r->commit ? r->commit : "(none)", dc,
			    "copied or written to the wrong place; move it to its commit's directory or remove it");
	}
	dup = seen(rs, r);
	if (dup) {
		warn("records: %s:%u: the same record as %s:%u (given twice, or a copy): counted once",
		     file, line, dup->file, dup->line);
		free(r->samples);
		rs->duplicates++;
		return 1;
	}
	rs->n++;
	return 0;
}

static int read_file(struct records *rs, const char *path)
{
	json_tokener *tok = json_tokener_new();
	FILE *f = fopen(path, "r");
	char *buf = NULL, *file;
	size_t cap = 0;
	unsigned int line = 0;
	ssize_t len;
	int ret = 0;

	if (!f || !tok) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", prog_name(), path,
			strerror(errno));
		if (f)
			fclose(f);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	rs->files = xrealloc(rs->files, (rs->nfiles + 1) * sizeof(*rs->files));
	file = rs->files[rs->nfiles++] = xstrdup(path);
	while ((len = getline(&buf, &cap, f)) >= 0) {
		json_object *o;
		int r;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len || strspn(buf, " \t") == (size_t)len)
			continue;
		if (strlen(buf) != (size_t)len) {
			ret = fail(file, line, "a NUL byte in the line: not a record");
			break;
		}
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, buf, len);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(o);
			ret = fail(file, line, "%s at column %zu: %s", json_tokener_get_error(tok) ==
				   json_tokener_continue ? "not JSON (cut short)" : "not JSON",
				   json_tokener_get_parse_end(tok) + 1,
				   "a line holds one record and nothing else");
			break;
		}
		if (json_tokener_get_parse_end(tok) < (size_t)len &&
		    strspn(buf + json_tokener_get_parse_end(tok), " \t") !=
		    (size_t)len - json_tokener_get_parse_end(tok)) {
			json_object_put(o);
			ret = fail(file, line, "more after the record at column %zu: %s",
				   json_tokener_get_parse_end(tok) + 1,
				   "a line holds one record and nothing else");
			break;
		}
		r = add(rs, o, file, line);
		if (r) {
			json_object_put(o);
			if (r < 0) {
				ret = -1;
				break;
			}
		}
	}
	if (!ret && ferror(f))
		ret = fail(file, line, "read error: %s", strerror(errno));
	free(buf);
	fclose(f);
	json_tokener_free(tok);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_dir(struct records *rs, const char *path)
{
	struct dirent **ents;
	int i, n, ret = 0;

	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: records: %s: cannot read the directory: %s\n",
			prog_name(), path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		struct stat st;
		char *sub;

		if (name[0] != '.' && !ret) {
			sub = xasprintf("%s/%s", path, name);
			if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				ret = read_dir(rs, sub);
			else if (len > 6 && !strcmp(name + len - 6, ".jsonl"))
				ret = read_file(rs, sub);
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int records_read(struct records *rs, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", prog_name(), path,
			strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? read_dir(rs, path) : read_file(rs, path);
}

void records_free(struct records *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].samples);
		json_object_put(rs->v[i].obj);
	}
	for (i = 0; i < rs->nfiles; i++)
		free(rs->files[i]);
	free(rs->files);
	free(rs->v);
	free(rs->hash);
	memset(rs, 0, sizeof(*rs));
}

double record_param(const struct record *r, const char *key)
{
	json_object *v;

	if (!r->params || !json_object_object_get_ex(r->params, key, &v) || !is_number(v))
		return NAN;
	return json_object_get_double(v);
}

const char *record_param_str(const struct record *r, const char *key)
{
	json_object *v;

	if (!r->params || !json_object_object_get_ex(r->params, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
