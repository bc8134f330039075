// SPDX-License-Identifier: GPL-2.0
/*
 * costs.c - the cost-classes experiment: the kernels of costs.S timed on
 * this CPU, the raw material of its cost table (cost-fit.c).
 *
 * Each kernel adds one class of work the guest model counts to what the
 * ones before it do: ALU instructions, L1-hit loads and stores, lines
 * served by the LLC, lines read from memory for a load, for a store
 * (write-allocate) and written back, streaming-store lines, SFENCEs
 * after a streaming store, reads of a line just streamed, REP MOVSB
 * bytes and REP starts.  The host time of one call
 * is a sample; the same call under qemu-x86_64 and the model plugin
 * (copy-bench --count, bench/costs.sh) gives its counts; cost-fit joins
 * the two by case name.  The fit does not know which class a kernel was
 * meant for: it solves for all classes from all kernels.
 *
 * Every class has two kernels (another size, or another mix of its
 * classes: a REP MOVSB of 1 KiB beside the 4 KiB one, a REP MOVSL of
 * 128 bytes beside the 64-byte one), so that the fit has degrees of
 * freedom left and can be seen not to fit (cost-fit: chi^2, and each
 * kernel predicted by the fit of the others).
 *
 * The records carry what identifies the CPU beyond CPUID (record.h): the
 * microcode revision and the cache sizes, from /proc/cpuinfo and sysfs.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { BUF_L1, BUF_LLC, BUF_MEM, NR_BUFS };

/*
 * The buffers: L1 fits the smallest L1d of x86-64 CPUs (32 KiB) and the
 * model's; LLC is past every L1d and L2 of interest yet within the
 * model's 16 MiB LLC; MEM is past every LLC (and the model's) by 8x.
 * The LLC kernels walk 4 and 8 MiB: 4x and 8x the 1 MiB L2 of AMD's Zen 4
 * and 5, 2x and 4x Intel's 2 MiB.  (A 2 MiB kernel beside the 4 MiB one
 * had part of its lines in a 1 MiB L2: 0.92 ns a line against 1.31 on
 * the family 26 VM of 2026-12-05, 35% off when held out.)
 */
static const size_t buf_len[NR_BUFS] = { 16UL << 10, 8UL << 20, 256UL << 20 };
static const char *const buf_name[NR_BUFS] = { "l1", "llc", "mem" };

/*
 * bound: which side of a prediction the kernel fits (lib/costs.h): core
 * work, memory traffic (overlapped with the core's: the larger counts),
 * or serial work (a fence, a read waiting for a streaming store, a REP
 * string copy) added to both.  cost-fit fits each side on its own kernels.
 */
/*
 * len: the bytes of the buffer a kernel walks (0: all of it); for the
 * REP kernels, the length of one copy (0: 4 KiB).  The REP kernels are
 * the copies a priced path makes: REP MOVSL of a struct page's 64 B and
 * of twice that (an -Os kernel's copy of 64-96 B), REP MOVSB of 1 and 4
 * KiB (memcpy() of ERMS CPUs from 512 B up, 2/7).  No such path makes a
 * short REP MOVSB (memcpy_orig below 512 B; FSRM, which would, is not in
 * QEMU's TCG guests), so none is fitted: a 256 B one cost 11.9 ns a copy
 * where the 64 B REP MOVSL cost 6.8 and 1 KiB of REP MOVSB 15.6 (family
 * 26 VM, 2026-12-05), a rate no line through the others meets.
 */
static const struct cost_kernel {
	const char *name;
	const char *adds;	/* the class it is meant to add, for the reader */
	void (*fn)(void *buf, size_t len, size_t reps);
	int buf;
	size_t len;
	size_t reps;
	const char *bound;
} kernels[] = {
	{ "alu", "instructions: 8 ADDs to 8 registers + loop (throughput)",
	  NULL, BUF_L1, 0, 4000000, "core" },
	{ "alu-1m", "the same, a quarter of the iterations", NULL, BUF_L1, 0, 1000000, "core" },
	{ "load-l1", "L1d-hit loads, 8 per line", cost_load, BUF_L1, 0, 2000, "core" },
	{ "load-l1-8k", "the same on 8 KiB", cost_load, BUF_L1, 8UL << 10, 4000, "core" },
	{ "store-l1", "L1d-hit stores, 8 per line", cost_store, BUF_L1, 0, 2000, "core" },
	{ "store-l1-8k", "the same on 8 KiB", cost_store, BUF_L1, 8UL << 10, 4000, "core" },
	{ "rep-l1", "REP MOVSB, 4 KiB, L1d-hot", NULL, BUF_L1, 0, 2048, "serial" },
	{ "rep-l1-1k", "REP MOVSB, 1 KiB, L1d-hot: bytes and starts mixed otherwise",
	  NULL, BUF_L1, 1024, 8192, "serial" },
	{ "rep-short", "REP MOVSL of 64 B, L1d-hot: REP starts", NULL, BUF_L1, 64, 1000000,
	  "serial" },
	{ "rep-short-128", "REP MOVSL of 128 B, L1d-hot", NULL, BUF_L1, 128, 500000, "serial" },
	{ "load-llc", "loads of lines the LLC serves, 1 per line",
	  cost_load_line, BUF_LLC, 0, 4, "memory" },
	{ "load-llc-4m", "the same on 4 MiB", cost_load_line, BUF_LLC, 4UL << 20, 8, "memory" },
	{ "store-llc", "stores to lines the LLC serves, 1 per line",
	  cost_store_line, BUF_LLC, 0, 4, "memory" },
	{ "store-llc-4m", "the same on 4 MiB", cost_store_line, BUF_LLC, 4UL << 20, 8, "memory" },
	{ "load-mem", "loads of lines read from memory, 1 per line",
	  cost_load_line, BUF_MEM, 0, 1, "memory" },
	{ "load-mem-128m", "the same on 128 MiB", cost_load_line, BUF_MEM, 128UL << 20, 2,
	  "memory" },
	{ "store-mem", "stores that write-allocate, then write back, 8 per line",
	  cost_store, BUF_MEM, 0, 1, "memory" },
	{ "store-mem-128m", "the same on 128 MiB", cost_store, BUF_MEM, 128UL << 20, 2, "memory" },
	{ "rmw-mem", "a load, then 8 stores per line: write-backs",
	  cost_rmw, BUF_MEM, 0, 1, "memory" },
	{ "rmw-mem-128m", "the same on 128 MiB", cost_rmw, BUF_MEM, 128UL << 20, 2, "memory" },
	{ "nt-mem", "streaming stores, 8 MOVNTI per line", cost_nt, BUF_MEM, 0, 1, "memory" },
	{ "nt-mem-128m", "the same on 128 MiB", cost_nt, BUF_MEM, 128UL << 20, 2, "memory" },
	{ "fence", "1 MOVNTI then SFENCE per line", cost_fence, BUF_LLC, 4UL << 20, 4, "serial" },
	{ "fence-2m", "the same on 2 MiB", cost_fence, BUF_LLC, 2UL << 20, 8, "serial" },
	{ "reread", "1 MOVNTI, SFENCE, a load of that line, per line",
	  cost_reread, BUF_LLC, 4UL << 20, 4, "serial" },
	{ "reread-2m", "the same on 2 MiB", cost_reread, BUF_LLC, 2UL << 20, 8, "serial" },
};

#define NR_KERNELS ARRAY_SIZE(kernels)
#define REP_LEN 4096UL

static size_t kernel_len(const struct cost_kernel *k)
{
	if (k->fn)
		return k->len ? k->len : buf_len[k->buf];
	return k->len ? k->len : REP_LEN;
}

/*
 * A timed call starts as the model's window does (bench-vm/plugin/model.c,
 * model_open()): nothing it touches in any cache.  Without this a kernel
 * inherited the round's order: load-llc-4m walked the lines load-llc had
 * just left in the LLC, which the model counted as read from memory (held
 * out +93%, 2026-12-06).  Untimed: before lap_start().
 */
static void kernel_cold(const struct cost_kernel *k, char *const bufs[NR_BUFS])
{
	if (strncmp(k->name, "alu", 3))
		flush_range(bufs[k->fn ? k->buf : BUF_L1], buf_len[k->fn ? k->buf : BUF_L1]);
}

static void run_kernel(const struct cost_kernel *k, char *const bufs[NR_BUFS])
{
	if (!strncmp(k->name, "alu", 3))
		cost_alu(k->reps);
	else if (!strncmp(k->name, "rep-short", 9))
		cost_rep_short(bufs[BUF_L1], bufs[BUF_L1] + REP_LEN, kernel_len(k), k->reps);
	else if (!k->fn)
		cost_rep(bufs[BUF_L1], bufs[BUF_L1] + REP_LEN, kernel_len(k), k->reps);
	else
		k->fn(bufs[k->buf], kernel_len(k), k->reps);
}

/* "microcode : 0x..." of the first CPU, or NULL */
static char *cpu_microcode(void)
{
	char line[256], *v = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !v && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "microcode", 9) || !c)
			continue;
		c += 1 + strspn(c + 1, " \t");
		c[strcspn(c, "\n")] = '\0';
		v = strdup(c);
	}
	if (f)
		fclose(f);
	return v;
}

/* The caches of the pinned CPU from sysfs: "l1d_size" etc. in bytes. */
static void cpu_caches(json_object *p, int cpu)
{
	char path[128], level[16], type[32], size[32];
	int i;

	for (i = 0; i < 8; i++) {
		FILE *f;
		char key[32], *end;
		unsigned long v;
		int ok;

#define READ(what, buf) (snprintf(path, sizeof(path), \
		"/sys/devices/system/cpu/cpu%d/cache/index%d/" what, cpu, i), \
		(f = fopen(path, "r")) && (ok = !!fgets(buf, sizeof(buf), f), fclose(f), ok))
		if (!READ("level", level) || !READ("type", type) || !READ("size", size))
			break;
#undef READ
		type[strcspn(type, "\n")] = '\0';
		if (!strcmp(type, "Instruction"))
			continue;
		v = strtoul(size, &end, 10);
		if (*end == 'K')
			v <<= 10;
		else if (*end == 'M')
			v <<= 20;
		snprintf(key, sizeof(key), "cache_l%d%s_bytes", atoi(level),
			 !strcmp(type, "Data") ? "d" : "");
		pset(p, key, (double)v);
	}
}

int exp_cost_classes(struct bench *b)
{
	int n = samples_or(b, 15, 3), r;
	size_t k, i;
	char *bufs[NR_BUFS];
	double *t = calloc(NR_KERNELS * n, sizeof(*t));
	long *pre = calloc(NR_KERNELS * n, sizeof(*pre));
	char *ucode = cpu_microcode();

	for (i = 0; i < NR_BUFS; i++) {
		/*
		 * huge pages past L1, as the replica's memmap (experiments.c)
		 * and the kernel's direct map have them: the model counts no
		 * TLB.  (On the family 26 VM it moved no LLC kernel: 8 MiB
		 * cost 1.15 ns a line on small pages, 1.23 on huge ones.)
		 */
		bufs[i] = map_buffer(buf_len[i], i != BUF_L1);
		if (!bufs[i])
			return -1;
	}
	if (!t || !pre)
		return -1;
	/* rounds: every kernel once per round (experiments.c) */
	for (r = 0; r < n; r++)
		for (k = 0; k < NR_KERNELS; k++) {
			struct lap lap;
			char cn[64];

			snprintf(cn, sizeof(cn), "cost/%s", kernels[k].name);
			kernel_cold(&kernels[k], bufs);
			lap_start(&lap);
			window_open(b, cn, 0);
			run_kernel(&kernels[k], bufs);
			window_close();
			t[k * n + r] = lap_stop(&lap, &pre[k * n + r]);
		}
	print_header(b, "cost classes: the kernels of the cost table (cost-fit), ns per call");
	printf("   microcode %s; each kernel adds one class the guest model counts\n",
	       ucode ? ucode : "unknown");
	printf("   %-14s %-5s %9s %-28s %5s  %s\n", "kernel", "buf", "reps", "ns [95% CI]",
	       "clean", "adds");
	for (k = 0; k < NR_KERNELS; k++) {
		const struct cost_kernel *c = &kernels[k];
		json_object *p = params(NULL);
		struct stats s;
		size_t used;
		char cn[64];
		int all;

		pstr(p, "kernel", c->name);
		pstr(p, "adds", c->adds);
		pstr(p, "bound", c->bound);
		pstr(p, "start", "flushed");
		pstr(p, "buffer", buf_name[c->buf]);
		pset(p, "buffer_bytes", (double)buf_len[c->buf]);
		pset(p, "bytes", (double)kernel_len(c));
		pset(p, "reps", (double)c->reps);
		if (ucode)
			pstr(p, "cpu_microcode", ucode);
		cpu_caches(p, b->cpu);
		ppre(p, &pre[k * n], n);
		snprintf(cn, sizeof(cn), "cost/%s", c->name);
		if (emit(b, cn, "ns_per_call", "ns", &t[k * n], n, p))
			return -1;
		all = stats_clean(&t[k * n], &pre[k * n], n, &s, &used) > 0;
		printf("   %-14s %-5s %9zu %10.0f [%7.0f,%7.0f] %2zu/%-2d%c %s\n", c->name,
		       buf_name[c->buf], c->reps, s.median, s.lo, s.hi, used, n,
		       all ? '*' : ' ', c->adds);
	}
	for (i = 0; i < NR_BUFS; i++)
		unmap_buffer(bufs[i], buf_len[i]);
	free(ucode);
	free(t);
	free(pre);
	return 0;
}
