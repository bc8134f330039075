// SPDX-License-Identifier: GPL-2.0
/*
 * builds.c - the kernel builds a report's figures measured, said before
 * them: per build (lib/setup.c's record_build_name), its compiler, the
 * CPU mitigations built in, and those the guest kernel applied on the
 * CPU QEMU gave it (params.mitigations, the guest's
 * /sys/devices/system/cpu/vulnerabilities), every state seen.  A figure
 * of tinyconfig at -Os is not a distro kernel's: the report says which
 * it is.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

struct build {
	char *name;
	const struct record *first;
	json_object *applied;		/* name -> array of the states seen */
};

static void applied_add(json_object *applied, const struct record *rec)
{
	json_object *m, *states;
	size_t i;

	if (!rec->params || !json_object_object_get_ex(rec->params, "mitigations", &m) ||
	    !json_object_is_type(m, json_type_object))
		return;
	json_object_object_foreach(m, key, val) {
		const char *s = json_object_get_string(val);

		if (!json_object_object_get_ex(applied, key, &states)) {
			states = json_object_new_array();
			json_object_object_add(applied, key, states);
		}
		for (i = 0; i < json_object_array_length(states); i++)
			if (streq(json_object_get_string(json_object_array_get_idx(states, i)), s))
				break;
		if (i == json_object_array_length(states))
			json_object_array_add(states, json_object_new_string(s));
	}
}

/* the builds of the report's records, in the order first met */
static struct build *builds_of(const struct report *r, size_t *n)
{
	const struct table *t = &r->t;
	struct build *b = NULL;
	size_t w, c, k, i;

	*n = 0;
	for (w = 0; w < t->nrows; w++)
		for (c = 0; c < t->ncols; c++)
			for (k = 0; k < t->rows[w].cells[c].nrecs; k++) {
				const struct record *rec = t->rows[w].cells[c].recs[k];
				char *name = record_build_name(rec);

				if (!name)
					continue;
				for (i = 0; i < *n && strcmp(b[i].name, name); i++)
					;
				if (i == *n) {
					b = xrealloc(b, (*n + 1) * sizeof(*b));
					b[i].name = name;
					b[i].first = rec;
					b[i].applied = json_object_new_object();
					(*n)++;
				} else {
					free(name);
				}
				applied_add(b[i].applied, rec);
			}
	return b;
}

static const char *build_str(const struct record *rec, const char *key)
{
	json_object *v;

	if (!rec->build || !json_object_object_get_ex(rec->build, key, &v))
		return NULL;
	return json_object_get_string(v);
}

void builds_write(const struct report *r, FILE *f, int md)
{
	size_t n, i, k;
	struct build *b = builds_of(r, &n);

	if (n)
		fprintf(f, md ? "## Kernel builds measured\n\n" : "Kernel builds measured:\n");
	for (i = 0; i < n; i++) {
		const char *cc = build_str(b[i].first, "cc");
		const char *mit = build_str(b[i].first, "mitigations");

		fprintf(f, "%s%s", md ? "- **" : "  ", b[i].name);
		fprintf(f, "%s", md ? "**" : "");
		if (cc)
			fprintf(f, ": %s; mitigations built in: %s", cc, mit ? mit : "?");
		fprintf(f, "\n");
		if (!json_object_object_length(b[i].applied))
			continue;
		fprintf(f, "%sthe guest applied (its /sys/devices/system/cpu/vulnerabilities):\n",
			md ? "  - " : "    ");
		json_object_object_foreach(b[i].applied, key, states) {
			fprintf(f, "%s%s: ", md ? "    - " : "      ", key);
			for (k = 0; k < json_object_array_length(states); k++) {
				json_object *st = json_object_array_get_idx(states, k);

				fprintf(f, "%s%s", k ? " | " : "", json_object_get_string(st));
			}
			fprintf(f, "\n");
		}
	}
	if (n)
		fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		free(b[i].name);
		json_object_put(b[i].applied);
	}
	free(b);
}

json_object *builds_json(const struct report *r)
{
	size_t n, i;
	struct build *b = builds_of(r, &n);
	json_object *a = json_object_new_array();

	for (i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_object_new_string(b[i].name));
		json_object_object_add(e, "build", json_object_get(b[i].first->build));
		json_object_object_add(e, "mitigations_applied", b[i].applied);
		json_object_array_add(a, e);
		free(b[i].name);
	}
	free(b);
	return a;
}
