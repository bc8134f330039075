// SPDX-License-Identifier: GPL-2.0
/*
 * setup.c - the names of what a record ran on, as the report prints them:
 * the accel and clock, the CPU (a guest's "on" its host's), the setup
 * parameters that make two runs different experiments, which way is
 * better for a unit.  See table.h.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "util.h"

/* Which way is better, by unit; units not listed (count) are not gated. */
static const struct {
	const char *unit;
	int dir;		/* -1: lower is better, +1: higher is better */
} directions[] = {
	{ "ns", -1 }, { "us", -1 }, { "ms", -1 }, { "s", -1 }, { "GB/s", 1 },
};

int unit_direction(const char *unit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(directions); i++)
		if (!strcmp(directions[i].unit, unit))
			return directions[i].dir;
	return 0;
}

/* a guest clock that counts emulated instructions, not time */
int record_is_icount(const struct record *r)
{
	return streq(r->clock, "icount");
}

const char *record_accel_name(const struct record *r)
{
	const char *accel = r->accel;

	if (record_is_icount(r))
		return "tcg-icount: " ICOUNT_NOTE;
	if (streq(accel, "tcg"))
		return "TCG (relative change only)";
	if (streq(accel, "kvm"))
		return "KVM";
	if (streq(accel, "host"))
		return "host";
	return accel ? accel : "accel unknown";
}

/*
 * The CPU of a record: a guest's model "on" the host's when they differ
 * (TCG: QEMU's model on whatever host emulated it, which is what decides
 * the timings), else the one model.
 */
char *record_cpu_name(const struct record *r)
{
	const char *cpu = r->cpu_name ? r->cpu_name : "CPU unknown";

	if (r->host_cpu_name && *r->host_cpu_name && !streq(r->host_cpu_name, cpu))
		return xasprintf("%s on %s", cpu, r->host_cpu_name);
	return xstrdup(cpu);
}

char *record_cpu_ident(const struct record *r)
{
	struct json_object *cpu, *v;
	long fam = -1, model = -1;

	if (json_object_object_get_ex(r->obj, "cpu", &cpu) &&
	    json_object_is_type(cpu, json_type_object)) {
		if (json_object_object_get_ex(cpu, "family", &v))
			fam = json_object_get_int64(v);
		if (json_object_object_get_ex(cpu, "model", &v))
			model = json_object_get_int64(v);
	}
	if (fam < 0 || model < 0)
		return xstrdup(r->cpu_name ? r->cpu_name : "an unnamed CPU");
	return xasprintf("%s family %ld model %ld", r->cpu_name ? r->cpu_name : "?", fam, model);
}

char *record_cpu_setup(const struct record *r)
{
	char *cpu = record_cpu_name(r), *s;

	s = xasprintf("%s%s, %s", r->accel ? r->accel : "?",
		      record_is_icount(r) ? "-icount" : "", cpu);
	free(cpu);
	return s;
}

/* param_setup() without the QEMU build */
static char *param_setup_base(const struct record *r)
{
	double ns = record_param(r, "ns_size");
	char *s;

	if (r->qemu_cpu && !isnan(ns))
		return xasprintf("-cpu %s, ns %g GiB", r->qemu_cpu, ns / (1 << 30));
	if (r->qemu_cpu)
		return xasprintf("-cpu %s", r->qemu_cpu);
	if (!isnan(ns))
		return xasprintf("ns %g GiB", ns / (1 << 30));
	s = xstrdup("");
	return s;
}

/*
 * The QEMU build of a record ("7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)",
 * from params.qemu_version), or NULL: an icount figure belongs to one
 * build, so another build is another row, never compared as exact.
 */
static const char *qemu_build(const struct record *r)
{
	const char *v = record_param_str(r, "qemu_version"), *p;

	if (!v)
		return NULL;
	p = strstr(v, "version ");
	return p ? p + 8 : v;
}

/*
 * The kernel build of a record ("kernel distro -O2 HZ 1000, fragment
 * 1a2b3c4d"), or NULL: a figure of one build is another row than one of
 * another build.  bench-vm records written before builds were named
 * (schema 1) are of the only build there was then, tinyconfig at -Os.
 */
char *record_build_name(const struct record *r)
{
	json_object *b = r->build;

	if (b)
		return xasprintf("kernel %s %s HZ %" PRId64 ", fragment %.8s",
				 json_object_get_string(json_object_object_get(b, "kconfig")),
				 json_object_get_string(json_object_object_get(b, "opt")),
				 json_object_get_int64(json_object_object_get(b, "hz")),
				 json_object_get_string(json_object_object_get(b,
									       "fragment_sha256")));
	if (r->schema_v1 && streq(r->suite, "bench-vm"))
		return xstrdup("kernel tinyconfig -Os (records before builds were named)");
	return NULL;
}

/* The setup parameters of a record ("-cpu max, ns 4 GiB"), or "". */
static char *param_setup(const struct record *r)
{
	const char *q = qemu_build(r);
	char *s = param_setup_base(r), *b = record_build_name(r), *t;

	if (q) {
		t = xasprintf("%s%sQEMU %s", s, *s ? ", " : "", q);
		free(s);
		s = t;
	}
	if (b) {
		t = xasprintf("%s%s%s", s, *s ? ", " : "", b);
		free(s);
		free(b);
		s = t;
	}
	return s;
}

/* a model's parameter KEY (model_params), or NAN */
static double model_param(const struct record *r, const char *key)
{
	json_object *mp, *v;

	if (!json_object_object_get_ex(r->obj, "model_params", &mp) ||
	    !json_object_object_get_ex(mp, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

/*
 * The model of a record, with its label: "cache model L1d 48 KiB, LLC 16
 * MiB (model: ...; not hardware time)", or "" for a measurement.  Its
 * sizes are part of the experiment: another cache is another row.
 */
static char *model_setup(const struct record *r)
{
	if (!r->model)
		return xstrdup("");
	return xasprintf("; %s model L1d %g KiB, LLC %g MiB (%s)", r->model,
			 model_param(r, "l1d_size") / 1024, model_param(r, "llc_size") / (1 << 20),
			 r->model_label);
}

char *row_setup_plain(const struct table *t, const struct record *r)
{
	char *p = param_setup(r), *c = t->by_cpu ? xstrdup("") : record_cpu_setup(r);
	char *s = xasprintf("%s%s%s", c, *c && *p ? ", " : "", p);

	free(p);
	free(c);
	return s;
}

char *row_setup(const struct table *t, const struct record *r)
{
	char *p = row_setup_plain(t, r), *m = model_setup(r);
	char *s = xasprintf("%s%s", p, m);

	free(p);
	free(m);
	return s;
}

char *row_name(const struct row *w)
{
	return xasprintf("%s.%s.%s", w->rec->suite, w->rec->case_name, w->rec->metric);
}
