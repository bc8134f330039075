// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - the bench-vm results of one or more kernels, in the shape the
 * changelogs quote, from records only (doc/records.md).
 *
 *   bench-vm-report RECORDS.jsonl...     one file per kernel, base first
 *
 * Per kernel, for nd_pmem, dax_pmem and dax_pmem_mem (dax_pmem on the
 * map=mem namespace, when the run had one): "First binding for <driver>
 * driver: X ms", "Average of rebinds for <driver> driver: Y ms (sd S, n N)"
 * (memmap_init_ms, the kernel's pr_debug), then the change of each figure
 * against the first kernel in percent.  Every line ends with the accel
 * and, for a guest clock that counts instructions, the clock: [tcg] (wall
 * clock under TCG: timings show relative change only), [tcg-icount]
 * (emulated instructions at 1 ns each, not hardware time; the caveats are
 * printed before the figures), [kvm].  A file with an error record
 * is reported and makes the exit status 1, and so do struct pages (the
 * digests of bench-vm/pages) that differ from the first kernel's: the
 * first differing pfn and field are named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>
#include <json-c/json.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PROG "bench-vm-report"

/* dax_pmem_mem: dax_pmem on the map=mem namespace (agent.c, mem_ns=1) */
static const char *const drivers[] = { "nd_pmem", "dax_pmem", "dax_pmem_mem" };
#define NR_DRIVERS ARRAY_SIZE(drivers)

/*
 * Under -icount shift=0,sleep=off the guest clock counts the instructions
 * QEMU executes, 1 ns each: exact and the same on any host, but emulated
 * work, not time.  The caveats go where the figures are.
 */
#define ICOUNT_NOTE "emulated instructions at 1 ns each, not hardware time"
#define ICOUNT_CAVEATS \
	"tcg-icount: " ICOUNT_NOTE ".\n" \
	"  Exact: the same kernel gives the same figures on any host, loaded or\n" \
	"  idle.  But every REP MOVS iteration counts as an instruction, MOVNTI\n" \
	"  costs what MOV costs and no cache is modelled: a change shows how much\n" \
	"  work a patch removes, not whether its cache behaviour pays (that needs\n" \
	"  KVM on real hardware, or make bench).  A first binding costs what a\n" \
	"  rebind costs: the host's first touch of the NVDIMM files is invisible\n" \
	"  to this clock.\n"

struct kernel {
	const char *file;
	char commit[64], kernel[64], accel[16], cpu_model[64], flags[64];
	char clock[16];		/* "icount" or "wall" (records without one) */
	char label[32];		/* what every line ends with: accel[-icount] */
	double first[NR_DRIVERS];	/* first binding, ms; < 0: missing */
	double mean[NR_DRIVERS], sd[NR_DRIVERS];
	size_t n[NR_DRIVERS];
	double first_bind_ms;
	struct json_object *digest[NR_DRIVERS];	/* bench_vm_pages.ko's lines */
	char error[512];
};

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void copy(char *dst, size_t size, const char *src)
{
	if (src && !dst[0])
		snprintf(dst, size, "%s", src);
}

/* Samples of a record as a fresh array, or NULL when it has none. */
static double *samples(json_object *rec, size_t *n)
{
	json_object *arr;
	double *v;
	size_t i;

	*n = 0;
	if (!json_object_object_get_ex(rec, "samples", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return NULL;
	*n = json_object_array_length(arr);
	if (!*n)
		return NULL;
	v = calloc(*n, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < *n; i++)
		v[i] = json_object_get_double(json_object_array_get_idx(arr, i));
	return v;
}

static void take(struct kernel *k, json_object *rec)
{
	const char *cs = str(rec, "case"), *metric = str(rec, "metric");
	json_object *o, *p;
	double *v;
	size_t d, n, i;

	copy(k->commit, sizeof(k->commit), str(rec, "commit"));
	copy(k->kernel, sizeof(k->kernel), str(rec, "kernel"));
	copy(k->accel, sizeof(k->accel), str(rec, "accel"));
	copy(k->clock, sizeof(k->clock), str(rec, "clock"));
	if (json_object_object_get_ex(rec, "params", &p))
		copy(k->cpu_model, sizeof(k->cpu_model), str(p, "cpu_model"));
	if (!k->flags[0] && json_object_object_get_ex(rec, "cpu", &o) &&
	    json_object_object_get_ex(o, "flags", &o)) {
		for (i = 0; i < json_object_array_length(o); i++) {
			const char *fl = json_object_get_string(json_object_array_get_idx(o, i));

			if (strlen(k->flags) + strlen(fl) + 2 < sizeof(k->flags))
				sprintf(k->flags + strlen(k->flags), "%s%s",
					i ? "," : "", fl);
		}
	}
	if (!cs || !metric)
		return;
	if (!strcmp(metric, "error")) {
		copy(k->error, sizeof(k->error), str(rec, "error"));
		return;
	}
	if (!strcmp(cs, "boot") && !strcmp(metric, "first_bind_ms")) {
		v = samples(rec, &n);
		if (v)
			k->first_bind_ms = v[0];
		free(v);
		return;
	}
	if (!strcmp(metric, "page_classes")) {
		for (d = 0; d < NR_DRIVERS; d++)
			if (!strncmp(cs, drivers[d], strlen(drivers[d])) &&
			    !strcmp(cs + strlen(drivers[d]), "/pages") &&
			    json_object_object_get_ex(rec, "digest", &o) && !k->digest[d])
				k->digest[d] = json_object_get(o);
		return;
	}
	if (strcmp(metric, "memmap_init_ms"))
		return;
	for (d = 0; d < NR_DRIVERS; d++) {
		size_t len = strlen(drivers[d]);

		if (strncmp(cs, drivers[d], len) || cs[len] != '/')
			continue;
		v = samples(rec, &n);
		if (!v)
			return;
		if (!strcmp(cs + len + 1, "first")) {
			k->first[d] = v[0];
		} else if (!strcmp(cs + len + 1, "rebind")) {
			k->mean[d] = gsl_stats_mean(v, 1, n);
			k->sd[d] = n > 1 ? gsl_stats_sd_m(v, 1, n, k->mean[d]) : 0;
			k->n[d] = n;
		}
		free(v);
	}
}

static int load(struct kernel *k)
{
	char *line = NULL;
	size_t cap = 0, d;
	FILE *f;
	int lineno = 0, r = 0;

	for (d = 0; d < NR_DRIVERS; d++)
		k->first[d] = -1;
	k->first_bind_ms = -1;
	f = fopen(k->file, "r");
	if (!f) {
		fprintf(stderr, PROG ": read: %s: %s\n", k->file, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		json_object *rec = json_tokener_parse(line);

		lineno++;
		if (!rec || !json_object_is_type(rec, json_type_object)) {
			fprintf(stderr, PROG ": parse: %s:%d: not a JSON object\n",
				k->file, lineno);
			json_object_put(rec);
			r = -1;
			break;
		}
		if (str(rec, "suite") && !strcmp(str(rec, "suite"), "bench-vm"))
			take(k, rec);
		json_object_put(rec);
	}
	free(line);
	fclose(f);
	return r;
}

/* The changelog's two lines for one driver. */
static void print_driver(const struct kernel *k, size_t d)
{
	if (k->first[d] >= 0)
		printf("  First binding for %s driver: %.2f ms [%s]\n",
		       drivers[d], k->first[d], k->label);
	if (k->n[d])
		printf("  Average of rebinds for %s driver: %.2f ms (sd %.2f, n %zu) [%s]\n",
		       drivers[d], k->mean[d], k->sd[d], k->n[d], k->label);
}

static const char *at(json_object *arr, size_t i)
{
	return json_object_get_string(json_object_array_get_idx(arr, i));
}

/* The line of digest D starting with PREFIX and, if PFN, its first_pfn. */
static const char *digest_line(json_object *dg, const char *prefix, const char *pfn)
{
	size_t i, n = strlen(prefix);

	for (i = 0; i < json_object_array_length(dg); i++) {
		const char *l = at(dg, i);
		const char *p = strstr(l, " first_pfn=");

		if (strncmp(l, prefix, n))
			continue;
		if (!pfn || (p && !strncmp(p + 11, pfn, strlen(pfn)) && p[11 + strlen(pfn)] == ' '))
			return l;
	}
	return NULL;
}

/* Word W ("wN=...") of a class line, in BUF. */
static const char *class_word(const char *l, int w, char *buf, size_t size)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), " w%d=", w);
	p = l ? strstr(l, key) : NULL;
	if (!p) {
		snprintf(buf, size, "(none)");
		return buf;
	}
	p += strlen(key);
	snprintf(buf, size, "%.*s", (int)strcspn(p, " "), p);
	return buf;
}

/*
 * The struct pages of kernel B against kernel A: the same digest lines, or
 * the first differing pfn (the lowest first_pfn of a class the other
 * kernel lacks) and the first differing word there, with its field names.
 * Returns 0 when equal.
 */
static int compare_pages(const struct kernel *a, const struct kernel *b, size_t d)
{
	json_object *da = a->digest[d], *db = b->digest[d];
	const struct kernel *side[2] = { a, b };
	unsigned long long best = ~0ULL;
	const char *best_pfn = NULL;
	char wa[64], wb[64], pfn[32], fprefix[32];
	const char *fields;
	size_t i, s, n;
	int w;

	if (!da || !db) {
		printf("  struct pages of %s: not compared (no digest: run with PAGES=1) [%s]\n",
		       drivers[d], b->label);
		return 0;
	}
	n = json_object_array_length(da);
	if (n == json_object_array_length(db)) {
		for (i = 0; i < n; i++)
			if (strcmp(at(da, i), at(db, i)))
				break;
		if (i == n) {
			printf("  struct pages of %s: equal (%s) [%s]\n", drivers[d],
			       digest_line(db, "range ", NULL) ?: "?", b->label);
			return 0;
		}
	}
	/* a class of one side that the other lacks, at the lowest pfn */
	for (s = 0; s < 2; s++) {
		json_object *mine = side[s]->digest[d], *other = side[!s]->digest[d];

		for (i = 0; i < json_object_array_length(mine); i++) {
			const char *l = at(mine, i);
			const char *p = strstr(l, " first_pfn=");
			size_t j, found = 0;

			if (strncmp(l, "class ", 6) || !p)
				continue;
			for (j = 0; j < json_object_array_length(other); j++) {
				const char *q = strstr(at(other, j), " first_pfn=");

				found |= q && !strcmp(p, q);
			}
			if (!found && strtoull(p + 11, NULL, 0) < best) {
				best = strtoull(p + 11, NULL, 0);
				best_pfn = p + 11;
			}
		}
	}
	printf("  struct pages of %s: DIFFER from %.12s [%s]\n", drivers[d], a->commit, b->label);
	if (!best_pfn) {
		printf("    same classes, different order or range: %s vs %s\n",
		       digest_line(da, "range ", NULL) ?: "?",
		       digest_line(db, "range ", NULL) ?: "?");
		return 1;
	}
	snprintf(pfn, sizeof(pfn), "%.*s", (int)strcspn(best_pfn, " "), best_pfn);
	for (w = 0; w < 16; w++) {
		class_word(digest_line(da, "class ", pfn), w, wa, sizeof(wa));
		class_word(digest_line(db, "class ", pfn), w, wb, sizeof(wb));
		if (strcmp(wa, wb))
			break;
	}
	snprintf(fprefix, sizeof(fprefix), "field %d ", w);
	fields = digest_line(db, fprefix, NULL);
	printf("    first differing pfn %s, word %d (%s): %.12s %s, %.12s %s\n", pfn, w,
	       fields ? fields + strlen(fprefix) : "?", a->commit, wa, b->commit, wb);
	return 1;
}

static void change(const char *what, double from, double to, const char *accel)
{
	if (from > 0 && to >= 0)
		printf("  %s: %+.1f%% [%s]\n", what, (to - from) / from * 100, accel);
	else
		printf("  %s: n/a (missing or zero figure) [%s]\n", what, accel);
}

/* What the header line of a kernel says about its clock. */
static const char *clock_note(const struct kernel *k)
{
	if (!strcmp(k->clock, "icount"))
		return ": " ICOUNT_NOTE;
	if (!strcmp(k->accel, "tcg"))
		return ": timings show relative change only";
	return "";
}

int main(int argc, char **argv)
{
	struct kernel *k;
	int i, status = 0, icount = 0;
	size_t d;

	if (argc < 2) {
		fprintf(stderr, "usage: " PROG " RECORDS.jsonl...\n");
		return 2;
	}
	k = calloc((size_t)argc, sizeof(*k));
	if (!k)
		return 1;
	for (i = 1; i < argc; i++) {
		k[i].file = argv[i];
		if (load(&k[i]))
			return 1;
		if (!k[i].accel[0])
			snprintf(k[i].accel, sizeof(k[i].accel), "?");
		if (!k[i].clock[0])
			snprintf(k[i].clock, sizeof(k[i].clock), "wall");
		snprintf(k[i].label, sizeof(k[i].label), "%s%s", k[i].accel,
			 strcmp(k[i].clock, "icount") ? "" : "-icount");
		icount |= !strcmp(k[i].clock, "icount");
	}
	/* the caveats before the figures they qualify */
	if (icount)
		fputs(ICOUNT_CAVEATS, stdout);
	for (i = 1; i < argc; i++) {
		printf("%.12s (kernel %s, cpu %s: %s) [%s%s]\n",
		       k[i].commit[0] ? k[i].commit : k[i].file,
		       k[i].kernel[0] ? k[i].kernel : "?",
		       k[i].cpu_model[0] ? k[i].cpu_model : "?",
		       k[i].flags[0] ? k[i].flags : "no erms/fsrm", k[i].label,
		       clock_note(&k[i]));
		if (k[i].error[0]) {
			printf("  run failed: %s [%s]\n", k[i].error, k[i].label);
			status = 1;
		}
		for (d = 0; d < NR_DRIVERS; d++)
			print_driver(&k[i], d);
		if (k[i].first_bind_ms >= 0)
			printf("  Boot to first bind: %.0f ms (guest clock) [%s]\n",
			       k[i].first_bind_ms, k[i].label);
	}
	for (i = 2; i < argc; i++) {
		char what[96];

		printf("Change %.12s vs %.12s:%s\n", k[i].commit, k[1].commit,
		       strcmp(k[i].label, k[1].label) ?
		       " (different accel or clock: not comparable)" : "");
		for (d = 0; d < NR_DRIVERS; d++) {
			/* a device neither run had (no mem_ns=1) */
			if (k[1].first[d] < 0 && !k[1].n[d] && !k[1].digest[d] &&
			    k[i].first[d] < 0 && !k[i].n[d] && !k[i].digest[d])
				continue;
			snprintf(what, sizeof(what), "First binding for %s driver", drivers[d]);
			change(what, k[1].first[d], k[i].first[d], k[i].label);
			snprintf(what, sizeof(what), "Average of rebinds for %s driver",
				 drivers[d]);
			change(what, k[1].n[d] ? k[1].mean[d] : -1,
			       k[i].n[d] ? k[i].mean[d] : -1, k[i].label);
			if (compare_pages(&k[1], &k[i], d))
				status = 1;
		}
	}
	for (i = 1; i < argc; i++)
		for (d = 0; d < NR_DRIVERS; d++)
			json_object_put(k[i].digest[d]);
	free(k);
	return status;
}
