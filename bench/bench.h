/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - what copy-bench's files share.
 *
 * copy-bench.c   options, CPU pinning, the variant table, records
 * experiments.c  the experiments, one function each, in a table
 * selftest.c     the differential test of every variant against memcpy()
 * costs.c        the cost table's kernels (costs.S), one class each
 * stats.c        median and 95% CI (GSL)
 * ntstore.S      non-temporal store bandwidth loops
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "record-write.h"
#include "stats.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum variant_kind { V_MEMCPY, V_COPY_USER, V_FC, V_LOOP };

typedef void *(*memcpy_fn)(void *dst, const void *src, size_t len);
typedef unsigned long (*copy_user_fn)(void *dst, const void *src, size_t len);
typedef void (*fc_fn)(void *dst, const void *src, size_t len);
typedef void (*loop_fn)(void *dst, const void *src, size_t count,
			size_t stride);

struct variant {
	const char *name;
	enum variant_kind kind;
	size_t size;		/* V_LOOP: bytes per copy */
	const char *symbol;
	const char *desc;
	void *fn;		/* resolved in variants.so */
};

extern struct variant variants[];
extern const size_t nr_variants;

struct bench {
	struct record_ctx ctx;
	char cpu_name[64];	/* brand string, trimmed */
	FILE *records;		/* JSON Lines out */
	int cpu;		/* pinned to */
	int quick;		/* small counts: tests, not figures */
	int samples;		/* 0: each experiment's default */
	unsigned long pages;	/* template copy: struct pages per pass */
	unsigned int round;	/* --rounds: this one, 1-based (0: no rounds) */
	const char *perf;	/* perf binary for the peer check, or NULL */
	void (*sfence)(void);
	FILE *windows;		/* --count: each window's case, in order */
	unsigned int window_seq;
};

/*
 * The model plugin's window markers (bench-vm/plugin/decode.h) around
 * each timed call the cost fit uses (cost-fit.c): a 7-byte NOP on the
 * host; under qemu-x86_64 with bench-vm-model.so (bench/costs.sh), the
 * window whose counts the fit joins to the call's host time.  With
 * --count, window_open() writes "window\tseq=N\tcase=NAME\tpages=P" to
 * b->windows: P is the record's params.pages (0: none), for the join.
 */
void window_open(struct bench *b, const char *case_name, unsigned long pages);
static inline void window_close(void)
{
	__asm__ volatile("nopl 0x4d564202(%%rax)" ::: "memory");
}

struct variant *variant_find(const char *name);
void print_claim(const char *id, const char *reproduced);
void print_header(const struct bench *b, const char *title);
/* one record: case, metric, unit, samples, params (owned) */
int emit(const struct bench *b, const char *case_name, const char *metric,
	 const char *unit, const double *samples, size_t n, json_object *params);
/* the experiments' shared helpers */
int samples_or(const struct bench *b, int dflt, int quick);
struct variant *need(const char *name);	/* resolved, or exit(1) */
json_object *params(const struct variant *v);	/* a params object */
void pset(json_object *p, const char *k, double v);
void pstr(json_object *p, const char *k, const char *v);
void ppre(json_object *p, const long *pre, size_t n);	/* "preempted" */
double now_ns(void);
extern double timer_overhead_ns;

/*
 * A long sample (milliseconds and up) on a shared machine: its wall time,
 * and how many times another task took the CPU during it (involuntary
 * context switches), which the tables use to set such samples aside.
 */
struct lap {
	double t0;
	long ivcsw0;
};

void lap_start(struct lap *l);
double lap_stop(const struct lap *l, long *preempted);
void *map_buffer(size_t len, int huge);
void unmap_buffer(void *p, size_t len);
void flush_range(const void *p, size_t len);

struct experiment {
	const char *name;
	int (*run)(struct bench *b);
	const char *desc;
	int paged;		/* reads b->pages: run once per --pages size */
};

int exp_cost_classes(struct bench *b);	/* costs.c */
extern const struct experiment experiments[];
extern const size_t nr_experiments;

int selftest(unsigned long seed, unsigned long random_cases);

/* the cost-classes kernels (costs.S) */
void cost_alu(size_t count);
void cost_load(void *buf, size_t len, size_t reps);
void cost_load_line(void *buf, size_t len, size_t reps);
void cost_store(void *buf, size_t len, size_t reps);
void cost_store_line(void *buf, size_t len, size_t reps);
void cost_rmw(void *buf, size_t len, size_t reps);
void cost_nt(void *buf, size_t len, size_t reps);
void cost_fence(void *buf, size_t len, size_t reps);
void cost_reread(void *buf, size_t len, size_t reps);
void cost_rep(void *dst, const void *src, size_t len, size_t reps);
void cost_rep_short(void *dst, const void *src, size_t len, size_t reps);

void bench_nt_movnti(void *dst, size_t len);
void bench_nt_avx512(void *dst, size_t len);

#endif /* BENCH_H */
