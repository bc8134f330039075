// SPDX-License-Identifier: GPL-2.0
/*
 * record-write.c - write result records as JSON Lines with json-c.  See record-write.h.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record-write.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

int record_cpu_host(struct record_cpu *cpu)
{
	unsigned int a, b, c, d, i, max, sig;

	memset(cpu, 0, sizeof(*cpu));
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return -1;
	memcpy(cpu->vendor, &b, 4);
	memcpy(cpu->vendor + 4, &d, 4);
	memcpy(cpu->vendor + 8, &c, 4);
	if (!__get_cpuid(1, &sig, &b, &c, &d))
		return -1;
	cpu->stepping = sig & 0xf;
	cpu->model = (sig >> 4) & 0xf;
	cpu->family = (sig >> 8) & 0xf;
	if (cpu->family == 0xf)
		cpu->family += (sig >> 20) & 0xff;
	if (cpu->family >= 6)
		cpu->model |= ((sig >> 16) & 0xf) << 4;
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		cpu->erms = !!(b & (1u << 9));
		cpu->avx512f = !!(b & (1u << 16));
		cpu->clflushopt = !!(b & (1u << 23));
		cpu->clwb = !!(b & (1u << 24));
		cpu->fsrm = !!(d & (1u << 4));
	}
	if (__get_cpuid(0x80000000, &max, &b, &c, &d) && max >= 0x80000004) {
		unsigned int *p = (unsigned int *)cpu->model_name;

		for (i = 0; i < 3; i++)
			__get_cpuid(0x80000002 + i, &p[4 * i], &p[4 * i + 1],
				    &p[4 * i + 2], &p[4 * i + 3]);
		cpu->model_name[sizeof(cpu->model_name) - 1] = '\0';
	}
	return 0;
}
#else
int record_cpu_host(struct record_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	return -1;
}
#endif

json_object *record_cpu_json(const struct record_cpu *cpu)
{
	json_object *o = json_object_new_object();
	json_object *flags = json_object_new_array();
	char name[sizeof(cpu->model_name)];
	const char *p = cpu->model_name;
	size_t n;

	while (*p == ' ')
		p++;
	snprintf(name, sizeof(name), "%s", p);
	for (n = strlen(name); n && name[n - 1] == ' '; n--)
		name[n - 1] = '\0';
	json_object_object_add(o, "vendor", json_object_new_string(cpu->vendor));
	json_object_object_add(o, "family", json_object_new_int(cpu->family));
	json_object_object_add(o, "model", json_object_new_int(cpu->model));
	json_object_object_add(o, "stepping", json_object_new_int(cpu->stepping));
	json_object_object_add(o, "model_name", json_object_new_string(name));
	if (cpu->erms)
		json_object_array_add(flags, json_object_new_string("erms"));
	if (cpu->fsrm)
		json_object_array_add(flags, json_object_new_string("fsrm"));
	if (cpu->clwb)
		json_object_array_add(flags, json_object_new_string("clwb"));
	if (cpu->clflushopt)
		json_object_array_add(flags, json_object_new_string("clflushopt"));
	if (cpu->avx512f)
		json_object_array_add(flags, json_object_new_string("avx512f"));
	json_object_object_add(o, "flags", flags);
	return o;
}

static json_object *string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *record_new(const struct record_ctx *ctx, const char *suite,
			const char *case_name, const char *metric,
			const char *unit)
{
	json_object *rec = json_object_new_object();
	struct record_cpu host_cpu;
	char host[256] = "", when[32];
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);

	json_object_object_add(rec, "schema", json_object_new_string(RECORD_SCHEMA));
	json_object_object_add(rec, "suite", json_object_new_string(suite));
	json_object_object_add(rec, "case", json_object_new_string(case_name));
	json_object_object_add(rec, "metric", json_object_new_string(metric));
	json_object_object_add(rec, "unit", json_object_new_string(unit));
	json_object_object_add(rec, "samples", json_object_new_array());
	json_object_object_add(rec, "commit", string_or_null(ctx->commit));
	json_object_object_add(rec, "kernel", string_or_null(ctx->kernel));
	json_object_object_add(rec, "accel", string_or_null(ctx->accel));
	json_object_object_add(rec, "clock",
			       json_object_new_string(ctx->clock ? ctx->clock : "wall"));
	json_object_object_add(rec, "cpu", record_cpu_json(&ctx->cpu));
	/*
	 * The machine that ran the producer: for a guest, cpu is QEMU's
	 * model, and a TCG timing means nothing without the host behind it.
	 */
	record_cpu_host(&host_cpu);
	json_object_object_add(rec, "host_cpu", record_cpu_json(&host_cpu));
	json_object_object_add(rec, "host", json_object_new_string(host));
	json_object_object_add(rec, "time", json_object_new_string(when));
	if (ctx->build)
		json_object_object_add(rec, "build", json_object_get(ctx->build));
	return rec;
}

void record_add_sample(json_object *rec, double value)
{
	json_object *samples;

	if (json_object_object_get_ex(rec, "samples", &samples))
		json_object_array_add(samples, json_object_new_double(value));
}

void record_set(json_object *rec, const char *key, json_object *value)
{
	json_object_object_add(rec, key, value);
}

int record_json_parse(const char *text, json_object **v)
{
	json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	int ok;

	*v = NULL;
	if (!tok)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* the NUL too: it ends a number ("12"), which json-c would wait on */
	*v = json_tokener_parse_ex(tok, text, len + 1);
	ok = json_tokener_get_error(tok) == json_tokener_success &&
	     json_tokener_get_parse_end(tok) >= len;
	json_tokener_free(tok);
	if (!ok) {
		json_object_put(*v);
		*v = NULL;
		return -1;
	}
	return 0;
}

const char *const record_name_params[] = {
	"qemu_cpu", "qemu_version", "cpu_model", "variant", "state", NULL,
};

/* an empty string at KEYS of o */
static int empty_string(json_object *o, const char *const *keys)
{
	json_object *v;
	size_t i;

	for (i = 0; o && keys[i]; i++)
		if (json_object_object_get_ex(o, keys[i], &v) &&
		    json_object_is_type(v, json_type_string) && !*json_object_get_string(v))
			return 1;
	return 0;
}

/* a name or string field of the record that is empty: no reader takes it */
static int empty_name(json_object *rec)
{
	static const char *const keys[] = {
		"suite", "case", "metric", "unit", "commit", "accel", "clock", NULL,
	};
	json_object *params = NULL;

	json_object_object_get_ex(rec, "params", &params);
	return empty_string(rec, keys) ||
	       (json_object_is_type(params, json_type_object) &&
		empty_string(params, record_name_params));
}

/*
 * a bench-vm record of this schema that does not name the kernel build
 * it measured ("build"): the readers refuse it (record-fields.c); one of
 * schema 1 (record-reuse rewrites those as they are) is of the one build
 * there was then
 */
static int no_build(json_object *rec)
{
	json_object *v;

	return json_object_object_get_ex(rec, "suite", &v) &&
	       !strcmp(json_object_get_string(v), "bench-vm") &&
	       json_object_object_get_ex(rec, "schema", &v) &&
	       !strcmp(json_object_get_string(v), RECORD_SCHEMA) &&
	       !json_object_object_get_ex(rec, "build", NULL);
}

/* a NaN or an infinity anywhere in V: json-c would write "NaN" */
static int non_finite(json_object *v)
{
	size_t i;

	if (json_object_is_type(v, json_type_double))
		return !isfinite(json_object_get_double(v));
	if (json_object_is_type(v, json_type_array)) {
		for (i = 0; i < json_object_array_length(v); i++)
			if (non_finite(json_object_array_get_idx(v, i)))
				return 1;
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			(void)key;
			if (non_finite(val))
				return 1;
		}
	}
	return 0;
}

/*
 * One line, flushed at once: a full disk is seen at this record, not at
 * exit; the error stays with the stream (ferror) for record_close().  A
 * record with a number that is no number (NaN, an infinity) is not
 * written: no reader takes it, and a measurement that failed is an error
 * record.
 */
int record_write(FILE *f, json_object *rec)
{
	const char *s;
	int r = 0, e = 0;

	e = non_finite(rec) ? EDOM : empty_name(rec) || no_build(rec) ? EINVAL : 0;
	if (e) {
		json_object_put(rec);
		errno = e;
		return -1;
	}
	s = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		r = -1;
		e = ENOMEM;
	} else if (fputs(s, f) == EOF || putc('\n', f) == EOF || fflush(f)) {
		r = -1;
		e = errno;
	}
	json_object_put(rec);
	if (r)
		errno = e ? e : EIO;
	return r;
}

int record_close(FILE *f)
{
	int r = ferror(f) ? -1 : 0, e = errno;

	if (fflush(f)) {
		r = -1;
		e = errno;
	}
	if (fclose(f) && !r) {
		r = -1;
		e = errno;
	}
	if (r)
		errno = e ? e : EIO;
	return r;
}
