// SPDX-License-Identifier: GPL-2.0
/*
 * record-fields.c - one record's fields and their types: every field a
 * reader uses is checked, named when it is wrong, and anywhere in a record
 * what no reader can hold is refused: NaN and infinities, numbers past
 * 2^53 in magnitude, strings with a control character or bytes that are
 * not UTF-8.  See record-read.h.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record-fields.h"
#include "record-write.h"
#include "text.h"
#include "util.h"

/*
 * The largest magnitude of a number in a record: 2^53.  Past it a double
 * holds no longer every integer (json-c saturates a wider integer to
 * 2^63 - 1 or 2^64 - 1, without a word), and sums and squares of such
 * figures lose their digits or overflow (samples of +-1.7e308 gave a
 * mean of -2.4e22).  No measurement of the toolkit comes near it: a
 * count of 100 GiB of bytes is 1.1e11.
 */
#define RECORD_MAX_ABS 9007199254740992.0	/* 2^53 */
#define PAST_2_53 "past 2^53 (9007199254740992) in magnitude"
#define TOO_WIDE \
	"no reader holds it whole, nor its sums (no measurement comes near it: the producer wrote a wrong number)"
#define NOT_MEASURED \
	"a number that is no measurement (the producer must write an error record instead)"
#define ONE_LINE \
	"a text of a record is one line of UTF-8, which a report prints as it is (the producer must write it so)"

/* Fields of params that readers use, and their type. */
static const char *const number_params[] = {
	"ns_size", "rebinds", "size", "len", "dst_page_offset",
};

int record_fail(const char *file, unsigned int line, const char *fmt, ...)
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

/* "params.x", "samples[3]": the name of a value in a record */
static char *path_of(const char *path, const char *key, size_t idx)
{
	if (key)
		return xasprintf("%s%s%s", path, *path ? "." : "", key);
	return xasprintf("%s[%zu]", path, idx);
}

/* s (n bytes) as text a report can print, else -1 after saying why of what */
static int text_check(const struct record *r, const char *s, size_t n, const char *what)
{
	const char *why;
	size_t at = text_bad(s, n, &why);

	if (!why)
		return 0;
	return record_fail(r->file, r->line, "%s has %s (byte %zu): %s", what, why, at + 1,
			   ONE_LINE);
}

/*
 * What no reader can hold, anywhere in v (the record, or a value of it
 * named path): a number that is NaN, infinite, or past 2^53 in
 * magnitude; a string or a key with a control character or bytes that
 * are not UTF-8 (a unit with a line end split a Markdown row, bytes
 * \xff\xfe made report.json invalid UTF-8).  0, or -1 after saying so.
 */
static int check_values(const struct record *r, json_object *v, const char *path)
{
	size_t i;
	int bad = 0;
	char *p;

	switch (json_object_get_type(v)) {
	case json_type_double: {
		double x = json_object_get_double(v);

		if (!isfinite(x))
			return record_fail(r->file, r->line, "field '%s' is NaN or infinite: %s",
					   path, NOT_MEASURED);
		if (fabs(x) > RECORD_MAX_ABS)
			return record_fail(r->file, r->line, "field '%s' is %.17g, %s: %s", path, x,
					   PAST_2_53, TOO_WIDE);
		return 0;
	}
	case json_type_int: {
		int64_t k = json_object_get_int64(v);
		int sat = k == INT64_MAX || k == INT64_MIN;
		const char *text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);

		if (k > (int64_t)RECORD_MAX_ABS || k < -(int64_t)RECORD_MAX_ABS)
			return record_fail(r->file, r->line, "field '%s' is %s%s, %s: %s", path,
					   text, sat ? " or wider (json-c saturates it)" : "",
					   PAST_2_53, TOO_WIDE);
		return 0;
	}
	case json_type_string:
		p = xasprintf("field '%s'", path);
		bad = text_check(r, json_object_get_string(v), json_object_get_string_len(v), p);
		free(p);
		return bad;
	case json_type_array:
		for (i = 0; i < json_object_array_length(v) && !bad; i++) {
			p = path_of(path, NULL, i);
			bad = check_values(r, json_object_array_get_idx(v, i), p);
			free(p);
		}
		return bad;
	case json_type_object: {
		json_object_object_foreach(v, key, val) {
			p = *path ? xasprintf("a key of field '%s'", path) :
				    xstrdup("a key of the record");
			bad = text_check(r, key, strlen(key), p);
			free(p);
			if (bad)
				return -1;
			p = path_of(path, key, 0);
			bad = check_values(r, val, p);
			free(p);
			if (bad)
				return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
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
		return record_fail(file, line, "field '%s' is %s, not an object", key,
				   type_name(cpu));
	if (get_str(cpu, "model_name", name) || get_str(cpu, "vendor", vendor ? vendor : &other))
		return record_fail(file, line,
				   "field '%s': model_name and vendor must be strings", key);
	for (i = 0; i < ARRAY_SIZE(ints); i++)
		if (json_object_object_get_ex(cpu, ints[i], &v) && v &&
		    !json_object_is_type(v, json_type_int))
			return record_fail(file, line, "field '%s.%s' is %s, not an integer", key,
				    ints[i], type_name(v));
	if (json_object_object_get_ex(cpu, "flags", &v) && v) {
		if (!json_object_is_type(v, json_type_array))
			return record_fail(file, line, "field '%s.flags' is %s, not an array", key,
				    type_name(v));
		for (i = 0; i < json_object_array_length(v); i++)
			if (!json_object_is_type(json_object_array_get_idx(v, i),
						 json_type_string))
				return record_fail(file, line,
						   "field '%s.flags[%zu]' is not a string", key, i);
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
		return record_fail(r->file, r->line, "field 'params' is %s, not an object",
			    type_name(r->params));
	for (i = 0; i < ARRAY_SIZE(number_params); i++)
		if (json_object_object_get_ex(r->params, number_params[i], &v) && v &&
		    !is_number(v))
			return record_fail(r->file, r->line,
					   "field 'params.%s' is %s, not a number",
					   number_params[i], type_name(v));
	for (i = 0; record_name_params[i]; i++)
		if (json_object_object_get_ex(r->params, record_name_params[i], &v) && v &&
		    (!json_object_is_type(v, json_type_string) || !*json_object_get_string(v)))
			return record_fail(r->file, r->line,
					   "field 'params.%s' is %s, not a string of a name",
					   record_name_params[i],
					   json_object_is_type(v, json_type_string) ? "empty" :
					   type_name(v));
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
		return record_fail(r->file, r->line,
				   "field 'digest' is %s, not an array of strings",
				   type_name(r->digest));
	for (i = 0; i < json_object_array_length(r->digest); i++)
		if (!json_object_is_type(json_object_array_get_idx(r->digest, i),
					 json_type_string))
			return record_fail(r->file, r->line, "field 'digest[%zu]' is not a string",
					   i);
	return 0;
}

/*
 * The model's fields (doc/records.md): a model record names its label,
 * which readers print with its figures; its functions, where it has them,
 * are one array per sample of {name, rank, <counts>} objects.
 */
static int check_model(struct record *r, json_object *o)
{
	json_object *per, *f, *v;
	size_t i, j;

	if (r->model && !r->model_label)
		return record_fail(r->file, r->line, "model '%s' without its model_label",
				   r->model);
	if (!json_object_object_get_ex(o, "functions", &r->functions) || !r->functions) {
		r->functions = NULL;
		return 0;
	}
	if (!r->model)
		return record_fail(r->file, r->line, "field 'functions' in a record of no model");
	if (!json_object_is_type(r->functions, json_type_array) ||
	    json_object_array_length(r->functions) != r->n)
		return record_fail(r->file, r->line,
				   "field 'functions' is not an array of one list per sample (%zu)",
				   r->n);
	for (i = 0; i < r->n; i++) {
		per = json_object_array_get_idx(r->functions, i);
		if (!json_object_is_type(per, json_type_array))
			return record_fail(r->file, r->line,
					   "field 'functions[%zu]' is %s, not an array", i,
					   type_name(per));
		for (j = 0; j < json_object_array_length(per); j++) {
			f = json_object_array_get_idx(per, j);
			if (!json_object_is_type(f, json_type_object) ||
			    !json_object_object_get_ex(f, "name", &v) ||
			    !json_object_is_type(v, json_type_string) ||
			    !*json_object_get_string(v))
				return record_fail(r->file, r->line,
						   "field 'functions[%zu][%zu]' has no name", i, j);
			json_object_object_foreach(f, key, val)
				if (strcmp(key, "name") && !is_number(val))
					return record_fail(r->file, r->line,
							   "field 'functions[%zu][%zu].%s' is %s, not a number",
							   i, j, key, type_name(val));
		}
	}
	return 0;
}

/*
 * params.preempted, where a host benchmark writes it: per sample, how
 * often another task preempted it (the clean samples, stats_clean()):
 * as many integers 0 or above as samples.
 */
static int check_preempted(const struct record *r)
{
	json_object *a, *v;
	size_t i;

	if (!r->params || !json_object_object_get_ex(r->params, "preempted", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) != r->n)
		return record_fail(r->file, r->line,
				   "field 'params.preempted' is %s, not an array of %zu counts (one a sample)",
				   json_object_is_type(a, json_type_array) ?
				   "an array of another length" : type_name(a), r->n);
	for (i = 0; i < r->n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return record_fail(r->file, r->line,
					   "field 'params.preempted[%zu]' is %s, not a count 0 or above",
					   i, type_name(v));
	}
	return 0;
}

/* a sha256 in hex, as sha256sum prints it */
static int sha256_hex(const char *s)
{
	return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/*
 * The kernel build a record measured (build/build.sh's build-id.json):
 * its configuration's name and fragment, -O level, HZ, compiler, the
 * mitigations compiled in, and the sha256 of .config and bzImage.  The
 * writers check it with this too (bench-vm-collect --build).
 */
int record_build_check(json_object *b, const char *file, unsigned int line)
{
	static const char *const shas[] = {
		"fragment_sha256", "config_sha256", "bzimage_sha256",
	};
	static const char *const strs[] = { "kconfig", "opt", "cc", "mitigations" };
	json_object *v;
	const char *s;
	size_t i;

	if (!json_object_is_type(b, json_type_object))
		return record_fail(file, line, "field 'build' is %s, not an object", type_name(b));
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		if (get_str(b, strs[i], &s) || !s || !*s)
			return record_fail(file, line,
					   "field 'build.%s' is missing or not a string of a name",
					   strs[i]);
	get_str(b, "kconfig", &s);
	if (strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+_-") != strlen(s))
		return record_fail(file, line, "field 'build.kconfig' is not a name of %s",
				   "[a-z0-9+_-]");
	for (i = 0; i < ARRAY_SIZE(shas); i++)
		if (get_str(b, shas[i], &s) || !sha256_hex(s))
			return record_fail(file, line,
					   "field 'build.%s' is not a sha256 (%s)", shas[i],
					   "64 hex digits");
	if (!json_object_object_get_ex(b, "hz", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0)
		return record_fail(file, line, "field 'build.hz' is not a positive integer");
	return 0;
}

/*
 * A bench-vm record of schema 2 must name its build: a figure of one
 * build is never compared with another's as if they were one setup.
 */
static int check_build(struct record *r, json_object *o)
{
	if (!json_object_object_get_ex(o, "build", &r->build) || !r->build) {
		r->build = NULL;
		if (!r->schema_v1 && streq(r->suite, "bench-vm"))
			return record_fail(r->file, r->line, "%s without 'build': %s",
					   "a bench-vm record",
					   "which kernel build it measured is unknown (build/build.sh writes build-id.json; bench-vm-collect --build)");
		return 0;
	}
	return record_build_check(r->build, r->file, r->line);
}

int record_parse(struct record *r, json_object *o)
{
	static const struct {
		const char *key;
		int required, nonempty;
		size_t off;
	} strs[] = {
		{ "suite", 1, 1, offsetof(struct record, suite) },
		{ "case", 1, 1, offsetof(struct record, case_name) },
		{ "metric", 1, 1, offsetof(struct record, metric) },
		{ "unit", 1, 1, offsetof(struct record, unit) },
		{ "commit", 0, 1, offsetof(struct record, commit) },
		{ "kernel", 0, 0, offsetof(struct record, kernel) },
		{ "accel", 0, 1, offsetof(struct record, accel) },
		{ "clock", 0, 1, offsetof(struct record, clock) },
		{ "host", 0, 0, offsetof(struct record, host) },
		{ "time", 0, 0, offsetof(struct record, time) },
		{ "error", 0, 0, offsetof(struct record, error) },
		{ "model", 0, 1, offsetof(struct record, model) },
		{ "model_label", 0, 1, offsetof(struct record, model_label) },
		{ "reused_from", 0, 1, offsetof(struct record, reused_from) },
	};
	json_object *samples, *v;
	const char *schema;
	size_t i;

	if (!json_object_is_type(o, json_type_object))
		return record_fail(r->file, r->line, "a JSON %s, not a record (an object)",
				   type_name(o));
	if (get_str(o, "schema", &schema) || !schema ||
	    (strcmp(schema, RECORD_SCHEMA) && strcmp(schema, RECORD_SCHEMA_V1)))
		return record_fail(r->file, r->line, "schema is '%s', expected '%s' (or '%s')",
			    schema ? schema : "(none)", RECORD_SCHEMA, RECORD_SCHEMA_V1);
	r->schema_v1 = !strcmp(schema, RECORD_SCHEMA_V1);
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		const char **dst = (const char **)((char *)r + strs[i].off);

		if (get_str(o, strs[i].key, dst)) {
			json_object_object_get_ex(o, strs[i].key, &v);
			return record_fail(r->file, r->line, "field '%s' is %s, not a string",
				    strs[i].key, type_name(v));
		}
		if (strs[i].required && !*dst)
			return record_fail(r->file, r->line, "field '%s' is missing", strs[i].key);
		if (strs[i].nonempty && *dst && !**dst)
			return record_fail(r->file, r->line, "field '%s' is empty: %s", strs[i].key,
					   "a name is never empty (the producer leaves out what it does not know)");
	}
	if (!r->clock)
		r->clock = "wall";
	if (strcmp(r->clock, "wall") && strcmp(r->clock, "icount"))
		return record_fail(r->file, r->line, "clock '%s' is neither 'wall' nor 'icount'",
				   r->clock);
	if (check_cpu(o, "cpu", &r->cpu_name, &r->cpu_vendor, r->file, r->line) ||
	    check_cpu(o, "host_cpu", &r->host_cpu_name, NULL, r->file, r->line) ||
	    check_params(r, o) || check_digest(r, o) || check_build(r, o))
		return -1;
	if (check_values(r, o, ""))
		return -1;
	if (!json_object_object_get_ex(o, "samples", &samples) ||
	    !json_object_is_type(samples, json_type_array))
		return record_fail(r->file, r->line,
				   "field 'samples' is %s, not an array of numbers",
				   samples ? type_name(samples) : "missing");
	r->n = json_object_array_length(samples);
	r->samples = xcalloc(r->n, sizeof(double));
	for (i = 0; i < r->n; i++) {
		v = json_object_array_get_idx(samples, i);
		if (!is_number(v)) {
			free(r->samples);
			r->samples = NULL;
			return record_fail(r->file, r->line, "sample %zu is %s, not a number", i,
				    type_name(v));
		}
		r->samples[i] = json_object_get_double(v);
	}
	if (check_model(r, o) || check_preempted(r)) {
		free(r->samples);
		r->samples = NULL;
		return -1;
	}
	r->obj = o;
	return 0;
}

double record_param(const struct record *r, const char *key)
{
	json_object *v;

	if (!r->params || !json_object_object_get_ex(r->params, key, &v) || !is_number(v))
		return NAN;
	return json_object_get_double(v);
}

int record_param_has(const struct record *r, const char *key)
{
	return r->params && json_object_object_get_ex(r->params, key, NULL);
}

long record_preempted(const struct record *r, size_t i)
{
	json_object *a;

	if (!r->params || !json_object_object_get_ex(r->params, "preempted", &a) ||
	    i >= json_object_array_length(a))
		return 0;
	return json_object_get_int64(json_object_array_get_idx(a, i));
}

void samples_add(struct samples *sm, const struct record *r)
{
	size_t k;

	sm->v = xrealloc(sm->v, (sm->n + r->n + 1) * sizeof(*sm->v));
	sm->pre = xrealloc(sm->pre, (sm->n + r->n + 1) * sizeof(*sm->pre));
	for (k = 0; k < r->n; k++) {
		sm->v[sm->n + k] = r->samples[k];
		sm->pre[sm->n + k] = record_preempted(r, k);
	}
	sm->n += r->n;
	sm->marked |= record_param_has(r, "preempted");
}

void samples_free(struct samples *sm)
{
	free(sm->v);
	free(sm->pre);
	*sm = (struct samples){ 0 };
}

const char *record_param_str(const struct record *r, const char *key)
{
	json_object *v;

	if (!r->params || !json_object_object_get_ex(r->params, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
