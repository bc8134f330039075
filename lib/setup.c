// SPDX-License-Identifier: GPL-2.0
/*
 * setup.c - the names of what a record ran on, as the report prints them:
 * the accel and clock, the CPU (a guest's "on" its host's), the setup
 * parameters that make two runs different experiments, which way is
 * better for a unit.  See table.h.
 */
#define _GNU_SOURCE
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

char *record_cpu_setup(const struct record *r)
{
	char *cpu = record_cpu_name(r), *s;

	s = xasprintf("%s%s, %s", r->accel ? r->accel : "?",
		      record_is_icount(r) ? "-icount" : "", cpu);
	free(cpu);
	return s;
}

/* The setup parameters of a record ("-cpu max, ns 4 GiB"), or "". */
static char *param_setup(const struct record *r)
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

char *row_setup(const struct table *t, const struct record *r)
{
	char *p = param_setup(r), *c = t->by_cpu ? xstrdup("") : record_cpu_setup(r);
	char *s = xasprintf("%s%s%s", c, *c && *p ? ", " : "", p);

	free(p);
	free(c);
	return s;
}

char *row_name(const struct row *w)
{
	return xasprintf("%s.%s.%s", w->rec->suite, w->rec->case_name, w->rec->metric);
}
