// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - bench-vm-report: the bench-vm results of one or more kernels,
 * in the shape the changelogs quote: a view of the table of the records
 * (lib/table.c, read by lib/record-read.c, statistics of lib/stats.c),
 * plus the comparison of the struct pages.
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
 * printed before the figures), [kvm].  A kernel with an error record is
 * reported and makes the exit status 1, and so do struct pages (the
 * digests of bench-vm/pages) that differ from the first kernel's: the
 * first differing pfn and field are named.  With the model's records
 * (run.sh --model cache), each bind's streaming and cached stores; with
 * run.sh --hmm, the load of test_hmm.ko: its pages and its window's
 * stores, with the three functions of its top list that stored most.  Records that are not records
 * (a wrong type, NaN, a line of garbage) are an error naming file and
 * line, exit 1; the same file twice counts once.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record-read.h"
#include "table.h"
#include "util.h"

/* dax_pmem_mem: dax_pmem on the map=mem namespace (agent.c, mem_ns=1) */
static const char *const drivers[] = { "nd_pmem", "dax_pmem", "dax_pmem_mem",
				       /* hmm=1 pages=1: test_hmm.ko's chunks (agent.c) */
				       "hmm_private", "hmm_coherent" };
#define NR_DRIVERS ARRAY_SIZE(drivers)

/*
 * Under -icount shift=0,sleep=off the guest clock counts the instructions
 * QEMU executes, 1 ns each: exact and the same on any host, but emulated
 * work, not time.  The caveats go where the figures are.
 */
#define ICOUNT_CAVEATS \
	"tcg-icount: " ICOUNT_NOTE ".\n" \
	"  Exact: the same kernel gives the same figures on any host, loaded or\n" \
	"  idle.  But every REP MOVS iteration counts as an instruction, MOVNTI\n" \
	"  costs what MOV costs and no cache is modelled: a change shows how much\n" \
	"  work a patch removes, not whether its cache behaviour pays (that needs\n" \
	"  KVM on real hardware, or make bench).  A first binding costs what a\n" \
	"  rebind costs: the host's first touch of the NVDIMM files is invisible\n" \
	"  to this clock.\n"

/* One kernel: a column of the table, and what its records say of it. */
struct kernel {
	const char *commit, *kernel, *accel, *clock, *qemu_cpu, *error;
	char flags[64];
	char label[32];		/* what every line ends with: accel[-icount] */
	const struct cell *first[NR_DRIVERS], *rebind[NR_DRIVERS];
	struct json_object *digest[NR_DRIVERS];	/* bench_vm_pages.ko's lines */
	/* the model's streaming and cached stores of each bind's window */
	const struct cell *nt[NR_DRIVERS][2], *st[NR_DRIVERS][2];
	/* the load of test_hmm.ko (run.sh --hmm): its pages, its window's stores */
	const struct cell *hmm_pages, *hmm_nt, *hmm_st, *hmm_est;
	double first_bind_ms;			/* NAN: none */
};

/* the cell of SUITE bench-vm, CASE and METRIC at column c, or NULL */
static const struct cell *cell_of(const struct table *t, size_t c, const char *case_name,
				  const char *metric)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];

		if (w->cells[c].n && !strcmp(w->rec->suite, "bench-vm") &&
		    !strcmp(w->rec->case_name, case_name) && !strcmp(w->rec->metric, metric))
			return &w->cells[c];
	}
	return NULL;
}

static void flags_of(char *dst, size_t size, const struct record *r)
{
	json_object *cpu, *flags;
	size_t i, n = 0;

	dst[0] = '\0';
	if (!json_object_object_get_ex(r->obj, "cpu", &cpu) || !cpu ||
	    !json_object_object_get_ex(cpu, "flags", &flags) || !flags)
		return;
	/* record-read.c checked: an array of strings */
	for (i = 0; i < json_object_array_length(flags); i++) {
		const char *fl = json_object_get_string(json_object_array_get_idx(flags, i));

		if (n + strlen(fl) + 2 < size)
			n += snprintf(dst + n, size - n, "%s%s", i ? "," : "", fl);
	}
}

/* the first value of each field among the bench-vm records of a run */
static void take(struct kernel *k, const struct record *r)
{
	if (strcmp(r->suite, "bench-vm"))
		return;
	if (!k->commit)
		k->commit = r->commit ? r->commit : "(none)";
	if (!k->kernel)
		k->kernel = r->kernel;
	if (!k->accel)
		k->accel = r->accel;
	if (!k->clock && r->clock)
		k->clock = r->clock;
	if (!k->qemu_cpu)
		k->qemu_cpu = r->qemu_cpu;
	if (!k->flags[0])
		flags_of(k->flags, sizeof(k->flags), r);
	if (!k->error && !strcmp(r->metric, "error"))
		k->error = r->error ? r->error : "(no error text)";
}

static void kernel_of(const struct table *t, const struct records *rs, size_t c,
		      struct kernel *k)
{
	const struct cell *boot;
	size_t i, d;
	char *name;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < rs->n; i++)
		if (streq(rs->v[i].file, t->cols[c].key))
			take(k, &rs->v[i]);
	snprintf(k->label, sizeof(k->label), "%s%s", k->accel ? k->accel : "?",
		 streq(k->clock, "icount") ? "-icount" : "");
	for (d = 0; d < NR_DRIVERS; d++) {
		name = xasprintf("%s/first", drivers[d]);
		k->first[d] = cell_of(t, c, name, "memmap_init_ms");
		free(name);
		name = xasprintf("%s/rebind", drivers[d]);
		k->rebind[d] = cell_of(t, c, name, "memmap_init_ms");
		free(name);
		for (i = 0; i < 2; i++) {
			name = xasprintf("%s/%s", drivers[d], i ? "rebind" : "first");
			k->nt[d][i] = cell_of(t, c, name, "nt_stores");
			k->st[d][i] = cell_of(t, c, name, "stores");
			free(name);
		}
		name = xasprintf("%s/pages", drivers[d]);
		if (cell_of(t, c, name, "page_classes"))
			k->digest[d] = cell_of(t, c, name, "page_classes")->first->digest;
		free(name);
	}
	k->hmm_pages = cell_of(t, c, "hmm/load", "pages");
	k->hmm_nt = cell_of(t, c, "hmm/load", "nt_stores");
	k->hmm_st = cell_of(t, c, "hmm/load", "stores");
	k->hmm_est = cell_of(t, c, "hmm/load", "est_cycles");
	boot = cell_of(t, c, "boot", "first_bind_ms");
	k->first_bind_ms = boot ? boot->x[0] : NAN;
}

/* The changelog's two lines for one driver. */
static void print_driver(const struct kernel *k, size_t d)
{
	const struct cell *f = k->first[d], *r = k->rebind[d];

	if (f)
		printf("  First binding for %s driver: %.2f ms [%s]\n", drivers[d], f->x[0],
		       k->label);
	if (r)
		printf("  Average of rebinds for %s driver: %.2f ms (sd %.2f, n %zu) [%s]\n",
		       drivers[d], r->s.mean, r->s.n > 1 ? r->s.sd : 0, r->s.n, k->label);
}

static double fn_num(json_object *fn, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(fn, key, &v) ? json_object_get_double(v) : 0;
}

/* The 3 functions of a window's top list that stored the most, and how. */
static void print_top_stores(json_object *fns)
{
	json_object *top[3] = { NULL };
	size_t i, j, n = json_object_array_length(fns);

	for (i = 0; i < n; i++) {
		json_object *fn = json_object_array_get_idx(fns, i);
		double v = fn_num(fn, "stores") + fn_num(fn, "nt_stores");

		for (j = 0; j < 3; j++) {
			if (top[j] && fn_num(top[j], "stores") + fn_num(top[j], "nt_stores") >= v)
				continue;
			memmove(&top[j + 1], &top[j], (2 - j) * sizeof(top[0]));
			top[j] = fn;
			break;
		}
	}
	for (j = 0; j < 3 && top[j]; j++) {
		json_object *name;

		json_object_object_get_ex(top[j], "name", &name);
		printf("    %s: %.0f streaming, %.0f cached stores\n", json_object_get_string(name),
		       fn_num(top[j], "nt_stores"), fn_num(top[j], "stores"));
	}
}

/*
 * The model's stores (run.sh --model cache): per bind, then of the load of
 * test_hmm.ko, whose pgmaps (DEVICE_PRIVATE, DEVICE_COHERENT) no owner
 * marked for streaming (bench-vm/checked.sh hmm reads the line).
 */
static void print_stores(const struct kernel *k)
{
	const struct cell *nt, *st;
	size_t d, i;

	for (d = 0; d < NR_DRIVERS; d++)
		for (i = 0; i < 2; i++) {
			nt = k->nt[d][i];
			st = k->st[d][i];
			if (!nt || !st)
				continue;
			printf("  Model window of the %s for %s driver: ",
			       i ? "rebinds" : "first binding", drivers[d]);
			printf("%.0f streaming (fewest %.0f), ", nt->s.mean, nt->s.min);
			printf("%.0f cached stores (means, n %zu) [%s]\n", st->s.mean, nt->s.n,
			       k->label);
		}
	if (k->hmm_pages)
		printf("  Load of test_hmm.ko (pgmaps no owner marked for streaming): %.0f pages\n",
		       k->hmm_pages->x[0]);
	if (!k->hmm_pages || !k->hmm_nt || !k->hmm_st)
		return;
	printf("  Model window of the load of %s: %.0f streaming, %.0f cached stores [%s]\n",
	       "test_hmm.ko", k->hmm_nt->x[0], k->hmm_st->x[0], k->label);
	if (k->hmm_est && k->hmm_est->first->functions)
		print_top_stores(json_object_array_get_idx(k->hmm_est->first->functions, 0));
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

/* the lowest first_pfn of a class one side has and the other lacks */
static const char *first_differing_pfn(json_object *da, json_object *db)
{
	json_object *side[2] = { da, db };
	unsigned long long best = ~0ULL;
	const char *best_pfn = NULL;
	size_t i, j, s;

	for (s = 0; s < 2; s++) {
		json_object *mine = side[s], *other = side[!s];

		for (i = 0; i < json_object_array_length(mine); i++) {
			const char *l = at(mine, i), *p = strstr(l, " first_pfn=");
			int found = 0;

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
	return best_pfn;
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
	char wa[64], wb[64], pfn[32], fprefix[32];
	const char *fields, *best_pfn;
	size_t i, n;
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
	printf("  struct pages of %s: DIFFER from %.12s [%s]\n", drivers[d], a->commit, b->label);
	best_pfn = first_differing_pfn(da, db);
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

static void change(const char *what, const char *driver, const struct cell *from,
		   const struct cell *to, int first, const char *label)
{
	double a = from ? (first ? from->x[0] : from->s.mean) : -1;
	double b = to ? (first ? to->x[0] : to->s.mean) : -1;

	if (a > 0 && b >= 0)
		printf("  %s for %s driver: %+.1f%% [%s]\n", what, driver, stats_pct(a, b), label);
	else
		printf("  %s for %s driver: n/a (missing or zero figure) [%s]\n", what, driver,
		       label);
}

/* What the header line of a kernel says about its clock. */
static const char *clock_note(const struct kernel *k)
{
	if (streq(k->clock, "icount"))
		return ": " ICOUNT_NOTE;
	if (streq(k->accel, "tcg"))
		return ": timings show relative change only";
	return "";
}

static int print_kernel(const struct kernel *k)
{
	size_t d;

	printf("%.12s (kernel %s, cpu %s: %s) [%s%s]\n", k->commit, k->kernel ? k->kernel : "?",
	       k->qemu_cpu ? k->qemu_cpu : "?", k->flags[0] ? k->flags : "no erms/fsrm",
	       k->label, clock_note(k));
	if (k->error)
		printf("  run failed: %s [%s]\n", k->error, k->label);
	for (d = 0; d < NR_DRIVERS; d++)
		print_driver(k, d);
	print_stores(k);
	if (!isnan(k->first_bind_ms))
		printf("  Boot to first bind: %.0f ms (guest clock) [%s]\n", k->first_bind_ms,
		       k->label);
	return k->error ? 1 : 0;
}

/* kernel b against a, the first: every figure's change, the struct pages */
static int print_change(const struct kernel *a, const struct kernel *b)
{
	int status = 0;
	size_t d;

	printf("Change %.12s vs %.12s:%s\n", b->commit, a->commit,
	       strcmp(b->label, a->label) ? " (different accel or clock: not comparable)" : "");
	for (d = 0; d < NR_DRIVERS; d++) {
		/* a device neither run had (no mem_ns=1) */
		if (!a->first[d] && !a->rebind[d] && !a->digest[d] &&
		    !b->first[d] && !b->rebind[d] && !b->digest[d])
			continue;
		change("First binding", drivers[d], a->first[d], b->first[d], 1, b->label);
		change("Average of rebinds", drivers[d], a->rebind[d], b->rebind[d], 0, b->label);
		status |= compare_pages(a, b, d);
	}
	return status;
}

/*
 * A file is a run of one kernel (bench-vm/run.sh's records.jsonl): the
 * records of two commits in it would be pooled into one column.  Dies
 * naming both.
 */
static void one_kernel(const struct records *rs, size_t from)
{
	const char *c = rs->v[from].commit;
	size_t i;

	for (i = from + 1; i < rs->n; i++) {
		if (streq(rs->v[i].commit, c))
			continue;
		die("records: %s:%u is of commit %.12s, %s:%u of %.12s: one file per kernel",
		    rs->v[i].file, rs->v[i].line, rs->v[i].commit ? rs->v[i].commit : "(none)",
		    rs->v[from].file, rs->v[from].line, c ? c : "(none)");
	}
}

int main(int argc, char **argv)
{
	struct records rs = { 0 };
	struct table t = { .by_file = 1 };
	struct kernel *k;
	int i, status = 0, icount = 0;
	size_t c, n, nk = 0;

	prog_set("bench-vm-report");
	if (argc < 2) {
		fprintf(stderr, "%s: usage: bench-vm-report RECORDS.jsonl...\n", prog_name());
		return 2;
	}
	/* a column per file, a run each; a file read before adds nothing */
	for (i = 1; i < argc; i++) {
		n = rs.n;
		if (records_read(&rs, argv[i])) {
			table_free(&t);
			records_free(&rs);
			return 1;
		}
		if (rs.n > n)
			one_kernel(&rs, n);
		if (rs.n > n)
			table_add_column(&t, rs.v[n].file, "");
		else if (!rs.duplicates)
			warn("records: %s: no records in it: the run wrote none", argv[i]);
		status |= rs.n == n && !rs.duplicates;
	}
	table_build(&t, &rs);
	k = xcalloc(t.ncols, sizeof(*k));
	for (c = 0; c < t.ncols; c++) {
		kernel_of(&t, &rs, c, &k[nk]);
		/* a run of only other suites' records is none of bench-vm's */
		if (!k[nk].commit)
			continue;
		icount |= streq(k[nk].clock, "icount");
		nk++;
	}
	/* the caveats before the figures they qualify */
	if (icount)
		fputs(ICOUNT_CAVEATS, stdout);
	for (c = 0; c < nk; c++)
		status |= print_kernel(&k[c]);
	for (c = 1; c < nk; c++)
		status |= print_change(&k[0], &k[c]);
	free(k);
	table_free(&t);
	records_free(&rs);
	if (fflush(stdout) || ferror(stdout))
		die("write: stdout: write error (a full disk?)");
	return status;
}
