// SPDX-License-Identifier: GPL-2.0
/*
 * copy-bench - reproduce the copy changelogs' numbers on the host CPU with
 * the tree's own code (bench/gen.sh builds it into variants.so).
 *
 * Usage:
 *   copy-bench --list
 *   copy-bench --variants SO --selftest [--seed N] [--cases N]
 *   copy-bench --variants SO [--commit ID] [--kernel VER] [--records FILE]
 *              [--only EXP[,EXP...]] [--samples N] [--pages N[,N...]]
 *              [--rounds N] [--cpu N] [--quick] [--perf PATH]
 *   copy-bench --variants SO --count FILE [--only EXP,...] [--pages N[,N...]]
 *
 * --pages: the replica's sizes (experiments that take one run once per
 * size).  --rounds N: the selected experiments, every size, N times over
 * in this one process, each record carrying params.round: what is
 * compared (the cost table's kernels and the replica, bench/costs.sh)
 * is timed interleaved, so that the machine's drift reaches all of it
 * alike, and the spread between rounds is measured, not assumed.
 *
 * --count: a counting run, under qemu-x86_64 with bench-vm's model plugin
 * (bench/costs.sh): one sample per case, no records; FILE names each
 * window the plugin counts (bench.h, window_open()).
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC_RAW), the vDSO's TSC-based clock,
 * read around a batch of calls long enough (tens of microseconds and up)
 * that its resolution does not matter; the timer's own cost, measured at
 * start (median of back-to-back reads), is subtracted from every batch.
 * RDTSC would give cycles, but turning them into time needs the TSC rate,
 * which a VM does not always report; the clock already does that work.
 * The call overhead (variant "nop") is measured and recorded, never
 * subtracted: the kernel pays it too.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "outfile.h"

#define PROG "copy-bench"

struct variant variants[] = {
#define VARIANT(name, kind, size, sym, desc) { name, kind, size, sym, desc, NULL },
#include "variants.def"
#undef VARIANT
};

const size_t nr_variants = ARRAY_SIZE(variants);

/* the one table of the changelogs' figures; ci-report gives the verdicts */
static const struct {
	const char *id, *patch, *quote, *what;
} claims[] = {
#define CLAIM(id, patch, quote, what, suite, metric, from, from_case, to, to_case, \
	      cfrom, cto, lo, hi) { id, patch, quote, what },
#include "claims.def"
#undef CLAIM
};

double timer_overhead_ns;

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void calibrate_timer(void)
{
	double d[1001];
	struct stats s;
	size_t i;

	for (i = 0; i < 1001; i++) {
		double t0 = now_ns();

		d[i] = now_ns() - t0;
	}
	stats_summary(d, 1001, &s);
	timer_overhead_ns = s.median;
}

static long ivcsw(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return ru.ru_nivcsw;
}

void lap_start(struct lap *l)
{
	l->ivcsw0 = ivcsw(RUSAGE_THREAD);
	l->t0 = now_ns();
}

double lap_stop(const struct lap *l, long *preempted)
{
	double t = now_ns() - l->t0 - timer_overhead_ns;

	*preempted = ivcsw(RUSAGE_THREAD) - l->ivcsw0;
	return t;
}

struct variant *variant_find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_variants; i++)
		if (!strcmp(variants[i].name, name))
			return &variants[i];
	return NULL;
}

/* ID names one claim of claims.def, or several: "ID/..." */
static int claim_of(const char *id, const char *claim)
{
	size_t n = strlen(id);

	return !strncmp(claim, id, n) && (!claim[n] || claim[n] == '/');
}

/*
 * The claims ID names, beside this experiment's own figure.  The verdict
 * is not made here: ci-report makes the one verdict of each claim, from
 * the records of the commit and its parent.
 */
void print_claim(const char *id, const char *reproduced)
{
	size_t i;
	int any = 0;

	for (i = 0; i < ARRAY_SIZE(claims); i++) {
		if (!claim_of(id, claims[i].id))
			continue;
		if (!any)
			printf("  claimed vs reproduced [%s%s of patches/series]:\n",
			       isdigit((unsigned char)claims[i].patch[0]) ? "patch " : "",
			       claims[i].patch);
		printf("    claimed    %s: %s: \"%s\"\n", claims[i].id, claims[i].what,
		       claims[i].quote);
		any = 1;
	}
	if (!any)
		return;
	printf("    reproduced %s\n", reproduced);
	printf("    verdict    ci-report's claims, by the commit against its parent\n");
}

void print_header(const struct bench *b, const char *title)
{
	const struct record_cpu *c = &b->ctx.cpu;

	printf("\n== %s\n", title);
	printf("   host CPU: %s (%s family %u model %u stepping %u;%s%s%s%s%s),",
	       b->cpu_name, c->vendor, c->family, c->model, c->stepping,
	       c->erms ? " erms" : "", c->fsrm ? " fsrm" : "",
	       c->clwb ? " clwb" : "", c->clflushopt ? " clflushopt" : "",
	       c->avx512f ? " avx512f" : "");
	printf(" ran on the host, pinned to CPU %d; commit %s\n", b->cpu,
	       b->ctx.commit ? b->ctx.commit : "(none)");
}

void window_open(struct bench *b, const char *case_name, unsigned long pages)
{
	b->window_seq++;
	if (b->windows && fprintf(b->windows, "window\tseq=%u\tcase=%s\tpages=%lu\n",
				  b->window_seq, case_name, pages) < 0) {
		fprintf(stderr, "copy-bench: --count: write failed: %s\n", strerror(errno));
		exit(1);
	}
	__asm__ volatile("nopl 0x4d564201(%%rax)" ::: "memory");
}

/* The experiments' helpers (bench.h). */
int samples_or(const struct bench *b, int dflt, int quick)
{
	if (b->samples)
		return b->samples;
	return b->quick ? quick : dflt;
}

struct variant *need(const char *name)
{
	struct variant *v = variant_find(name);

	if (!v || !v->fn) {
		fprintf(stderr, "copy-bench: variants: '%s' is not resolved\n", name);
		exit(1);
	}
	return v;
}

json_object *params(const struct variant *v)
{
	json_object *p = json_object_new_object();

	if (v) {
		json_object_object_add(p, "variant", json_object_new_string(v->name));
		json_object_object_add(p, "symbol", json_object_new_string(v->symbol));
		json_object_object_add(p, "description", json_object_new_string(v->desc));
	}
	return p;
}

void pset(json_object *p, const char *k, double v)
{
	json_object_object_add(p, k, json_object_new_double(v));
}

void pstr(json_object *p, const char *k, const char *v)
{
	json_object_object_add(p, k, json_object_new_string(v));
}

/* per-sample preemption counts next to the samples, for the record */
void ppre(json_object *p, const long *pre, size_t n)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(pre[i]));
	json_object_object_add(p, "preempted", a);
}

int emit(const struct bench *b, const char *case_name, const char *metric,
	 const char *unit, const double *samples, size_t n, json_object *params)
{
	json_object *rec;
	char load[128];
	FILE *lf;
	size_t i;

	if (!b->records) {
		json_object_put(params);
		return 0;
	}
	rec = record_new(&b->ctx, "bench", case_name, metric, unit);
	for (i = 0; i < n; i++)
		record_add_sample(rec, samples[i]);
	if (b->round) {
		/* --rounds: the reader pools a case's rounds or splits them */
		if (!params)
			params = json_object_new_object();
		json_object_object_add(params, "round", json_object_new_int((int)b->round));
	}
	if (params)
		record_set(rec, "params", params);
	/* the machine is shared: every figure carries the load it ran under */
	lf = fopen("/proc/loadavg", "r");
	if (lf) {
		if (fgets(load, sizeof(load), lf)) {
			load[strcspn(load, "\n")] = '\0';
			record_set(rec, "loadavg", json_object_new_string(load));
		}
		fclose(lf);
	}
	record_set(rec, "pinned_cpu", json_object_new_int(b->cpu));
	if (record_write(b->records, rec)) {
		fprintf(stderr, "copy-bench: records: write failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Buffers come from mmap and are prefaulted: a first-touch page fault
 * inside a timed copy would be counted as copy time.  huge asks for
 * transparent huge pages, closer to the kernel's direct map (2M/1G
 * pages) than 4 KiB pages are.
 */
void *map_buffer(size_t len, int huge)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "copy-bench: buffer: mmap of %zu bytes failed: %s\n",
			len, strerror(errno));
		return NULL;
	}
	if (huge)
		madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0x5a, len);
	return p;
}

void unmap_buffer(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/* Evict a range from every cache level: the "cold" side of a copy. */
void flush_range(const void *p, size_t len)
{
	const char *c = (const char *)((unsigned long)p & ~63UL);
	const char *end = (const char *)p + len;

	for (; c < end; c += 64)
		asm volatile("clflushopt %0" : "+m" (*(volatile char *)c));
	asm volatile("mfence" ::: "memory");
}

/* the CPUID brand string is padded with blanks on both sides */
static void trim_name(char *out, size_t size, const char *name)
{
	size_t n;

	while (*name == ' ')
		name++;
	snprintf(out, size, "%s", name);
	for (n = strlen(out); n && out[n - 1] == ' '; n--)
		out[n - 1] = '\0';
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		/* default: the last CPU we may run on, away from CPU 0's IRQs */
		if (sched_getaffinity(0, sizeof(set), &set))
			return -1;
		for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
			if (CPU_ISSET(cpu, &set))
				break;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "copy-bench: pinning: sched_setaffinity to CPU %d failed: %s\n",
			cpu, strerror(errno));
		return -1;
	}
	return cpu;
}

static int load_variants(const char *path, struct bench *b)
{
	void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!so) {
		fprintf(stderr,
			"copy-bench: variants: cannot load '%s': %s (build it with bench/gen.sh)\n",
			path, dlerror());
		return -1;
	}
	for (i = 0; i < nr_variants; i++) {
		variants[i].fn = dlsym(so, variants[i].symbol);
		if (!variants[i].fn) {
			fprintf(stderr,
				"copy-bench: variants: '%s' has no symbol '%s' for variant '%s': rebuild it with this bench/gen.sh\n",
				path, variants[i].symbol, variants[i].name);
			return -1;
		}
	}
	*(void **)&b->sfence = dlsym(so, "bench_sfence");
	if (!b->sfence) {
		fprintf(stderr, "copy-bench: variants: '%s' has no bench_sfence\n", path);
		return -1;
	}
	return 0;
}

static void list(void)
{
	static const char *const kinds[] = { "memcpy", "copy_user", "fc", "loop" };
	size_t i;

	printf("variants (bench/variants.def):\n");
	for (i = 0; i < nr_variants; i++)
		printf("  %-22s %-9s %-22s %s\n", variants[i].name,
		       kinds[variants[i].kind], variants[i].symbol,
		       variants[i].desc);
	printf("experiments:\n");
	for (i = 0; i < nr_experiments; i++)
		printf("  %-22s %s\n", experiments[i].name, experiments[i].desc);
}

static int only_has(const char *only, const char *name)
{
	size_t n = strlen(name);
	const char *p = only;

	if (!only)
		return 1;
	while ((p = strstr(p, name))) {
		if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: copy-bench --list\n"
		"       copy-bench --variants SO --selftest [--seed N] [--cases N]\n"
		"       copy-bench --variants SO [--commit ID] [--kernel VER] [--records FILE]\n"
		"                  [--only EXP,...] [--samples N] [--pages N[,N...]] [--rounds N]\n"
		"                  [--cpu N] [--quick] [--perf PATH]\n"
		"       copy-bench --variants SO --count FILE [--only EXP,...] [--pages N[,N...]]\n"
		"                  (under qemu-x86_64 and the model plugin: bench/costs.sh)\n");
	exit(2);
}

static unsigned long num(const char *opt, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "copy-bench: usage: %s wants a number, not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

#define MAX_PAGES 8

/* --pages N[,N...]: struct pages per pass, each above 0 */
static size_t pages_list(const char *s, unsigned long *v)
{
	char *dup = strdup(s), *tok, *save = NULL;
	size_t n = 0;

	if (!dup)
		exit(1);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_PAGES) {
			fprintf(stderr, "copy-bench: usage: --pages: at most %d sizes\n",
				MAX_PAGES);
			exit(2);
		}
		v[n] = num("--pages", tok);
		if (!v[n]) {
			fprintf(stderr, "copy-bench: usage: --pages: 0 struct pages is no pass\n");
			exit(2);
		}
		n++;
	}
	free(dup);
	if (!n) {
		fprintf(stderr, "copy-bench: usage: --pages: no size in '%s'\n", s);
		exit(2);
	}
	return n;
}

/* every selected experiment once, the paged ones once per size */
static int run_round(struct bench *b, const char *only, const unsigned long *pages,
		     size_t npages)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; i < nr_experiments; i++) {
		if (!only_has(only, experiments[i].name))
			continue;
		for (k = 0; k < (experiments[i].paged ? npages : 1); k++) {
			b->pages = pages[k];
			if (experiments[i].run(b)) {
				fprintf(stderr, "copy-bench: %s: failed\n", experiments[i].name);
				rc = 1;
			}
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "variants", required_argument, NULL, 'v' },
		{ "selftest", no_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'n' },
		{ "commit", required_argument, NULL, 'c' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "records", required_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "samples", required_argument, NULL, 'S' },
		{ "pages", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "quick", no_argument, NULL, 'q' },
		{ "perf", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'W' },
		{ "rounds", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct bench b = { .cpu = -1 };
	unsigned long pages[MAX_PAGES] = { 25000000 }, rounds = 0, r;
	size_t npages = 1;
	const char *so = NULL, *records = NULL, *only = NULL, *count = NULL;
	char *windows_tmp = NULL;
	unsigned long seed = 1, random_cases = 20000;
	int opt, do_list = 0, do_selftest = 0, rc = 0;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			do_list = 1;
			break;
		case 'v':
			so = optarg;
			break;
		case 't':
			do_selftest = 1;
			break;
		case 's':
			seed = num("--seed", optarg);
			break;
		case 'n':
			random_cases = num("--cases", optarg);
			break;
		case 'c':
			b.ctx.commit = optarg;
			break;
		case 'k':
			b.ctx.kernel = optarg;
			break;
		case 'r':
			records = optarg;
			break;
		case 'o':
			only = optarg;
			break;
		case 'S':
			b.samples = num("--samples", optarg);
			break;
		case 'p':
			npages = pages_list(optarg, pages);
			break;
		case 'R':
			rounds = num("--rounds", optarg);
			if (!rounds || rounds > 999) {
				fprintf(stderr, "copy-bench: usage: --rounds: 1 to 999, not %lu\n",
					rounds);
				return 2;
			}
			break;
		case 'C':
			b.cpu = num("--cpu", optarg);
			break;
		case 'q':
			b.quick = 1;
			break;
		case 'P':
			b.perf = optarg;
			break;
		case 'W':
			count = optarg;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc || (!do_list && !so) || (count && records) || (count && rounds))
		print_usage();
	if (only) {
		char *dup = strdup(only), *tok, *save = NULL;

		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			for (i = 0; i < nr_experiments; i++)
				if (!strcmp(experiments[i].name, tok))
					break;
			if (i == nr_experiments) {
				fprintf(stderr,
					"copy-bench: usage: --only: no experiment '%s' (see --list)\n",
					tok);
				free(dup);
				return 2;
			}
		}
		free(dup);
	}
	if (do_list) {
		list();
		return 0;
	}
	if (load_variants(so, &b))
		return 1;
	if (record_cpu_host(&b.ctx.cpu)) {
		fprintf(stderr,
			"copy-bench: cpu: CPUID is not available: this bench is x86-only\n");
		return 1;
	}
	trim_name(b.cpu_name, sizeof(b.cpu_name), b.ctx.cpu.model_name);
	if (do_selftest)
		return !!selftest(seed, random_cases);

	if (!b.ctx.cpu.clflushopt || !b.ctx.cpu.clwb) {
		fprintf(stderr,
			"copy-bench: cpu: this CPU lacks CLWB or CLFLUSHOPT: the cold cache states and the tree's clwb() need both\n");
		return 1;
	}
	b.ctx.accel = "host";
	b.cpu = pin_cpu(b.cpu);
	if (b.cpu < 0)
		return 1;
	if (records) {
		/* each run adds its records (bench/run.sh): a link refused */
		b.records = out_append(PROG, records);
		if (!b.records)
			return 1;
	}
	if (count) {
		/* a counting run (bench/costs.sh): one sample, no records */
		b.samples = 1;
		b.windows = out_open(PROG, count, &windows_tmp);
		if (!b.windows)
			return 1;
	}
	calibrate_timer();
	if (!rounds) {
		rc = run_round(&b, only, pages, npages);
	} else {
		for (r = 1; r <= rounds; r++) {
			b.round = r;
			printf("\n=== round %lu of %lu\n", r, rounds);
			fprintf(stderr, "copy-bench: round %lu of %lu\n", r, rounds);
			rc |= run_round(&b, only, pages, npages);
		}
	}
	if (b.windows && out_commit(PROG, b.windows, windows_tmp, count))
		rc = 1;
	if (b.records && fclose(b.records)) {
		fprintf(stderr, "copy-bench: records: closing '%s' failed: %s\n",
			records, strerror(errno));
		rc = 1;
	}
	return rc;
}
