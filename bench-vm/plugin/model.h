/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - bench-vm's store and cache model of a guest, counted per
 * window (a bind of the agent, agent.c): what every access does to a
 * per-vCPU L1d and a shared LLC, kept per guest function.
 *
 *   model_init()     the parameters, the caches, the functions' counters
 *   model_open()     a window starts: counters zero, caches empty (cold)
 *   model_access()   a load or store of an instruction, by its class
 *   model_exec()     a streaming store, SFENCE or MFENCE executed
 *   model_close()    the window ends: its totals and top functions
 *                    written as lines (model_write())
 * Instructions are counted by QEMU itself, inline, into insns[] (one
 * counter per function, never reset): a window's are the difference
 * between its close and its open.
 *
 * The model: caches of 64-byte lines, LRU, write-back; a cached store
 * allocates its line (write-allocate: a miss reads the line first); a
 * streaming store bypasses both levels and evicts its line where present
 * (written back first when dirty); L1d is not inclusive of the LLC.  The
 * last MODEL_INFLIGHT lines streamed are kept as in flight: a load or
 * store that misses the LLC on one of them is an nt_reread (it waits for
 * the streaming store to reach memory, a latency, not a bandwidth).  No
 * prefetch, no timing, no coherence between vCPUs (the bench guest has
 * one); addresses are guest virtual addresses.
 */
#ifndef BENCH_VM_MODEL_H
#define BENCH_VM_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "cache.h"
#include "decode.h"

/* The events of a window and of a function (events.def). */
enum model_event {
#define MODEL_EVENT(name, desc) EV_##name,
#include "events.def"
#undef MODEL_EVENT
	NR_EVENTS
};

extern const char *const model_event_names[NR_EVENTS];

struct model_params {
	uint64_t l1d_size, llc_size;
	unsigned int l1d_ways, llc_ways;
	unsigned int top;	/* functions written per window */
	/*
	 * est_cycles = insns + w_l1 * L1d misses + w_llc * LLC misses
	 *   + w_mem * (LLC write-backs + streaming bytes / 64)
	 *   + w_fence * (SFENCE + MFENCE)
	 */
	uint64_t w_l1, w_llc, w_mem, w_fence;
};

#define MODEL_LINE 64
/* streamed lines kept as in flight, direct-mapped by line: a power of two */
#define MODEL_INFLIGHT 64
#define MODEL_LINE_SHIFT 6

/* The defaults: every host gives the same figures (model.c, README). */
extern const struct model_params model_defaults;

struct model {
	struct model_params p;
	unsigned int nr_vcpus;
	struct cache *l1d;	/* one per vCPU */
	struct cache llc;
	size_t nr_funcs;
	uint64_t (*ev)[NR_EVENTS];	/* per function, this window */
	uint64_t *insns;		/* per function, QEMU's inline counters */
	uint64_t *insns_open;		/* insns[] at the window's open */
	int active;
	unsigned int seq;		/* windows opened */
	unsigned int bad_markers;	/* an open inside a window, a close outside */
	uint64_t inflight[MODEL_INFLIGHT];	/* line + 1 of recent streams; 0: none */
	/*
	 * REP starts: an iteration whose load or store address is not where
	 * the last iteration's ended starts a REP (rep_starts).  Two REPs
	 * back to back on contiguous addresses count as one (clear_page on
	 * consecutive pages); a backward (DF=1) REP counts every iteration.
	 */
	uint64_t rep_next_load, rep_next_store;
	int rep_load_jumped;
};

/* 0, or -1 with *@why. */
int model_init(struct model *m, const struct model_params *p, unsigned int nr_vcpus,
	       size_t nr_funcs, const char **why);
void model_free(struct model *m);
void model_open(struct model *m);
void model_access(struct model *m, unsigned int vcpu, size_t func, enum insn_class cls,
		  uint64_t vaddr, unsigned int size, int store);
/* An instruction of class INSN_NT, INSN_SFENCE or INSN_MFENCE executed. */
void model_exec(struct model *m, size_t func, enum insn_class cls);
/* The window's totals, est_cycles last in @tot[NR_EVENTS]. */
void model_totals(const struct model *m, uint64_t tot[NR_EVENTS + 1]);
uint64_t model_est_cycles(const struct model_params *p, const uint64_t ev[NR_EVENTS]);
/*
 * Close the window and write it to @f: a "window" line of the totals,
 * then up to p.top "func" lines, by est_cycles; @name names a function.
 * Returns what fprintf returned last (negative: a write failed).
 */
int model_close(struct model *m, FILE *f, const char *(*name)(size_t func, void *arg),
		void *arg);
/* The "model" line: the parameters, written first. */
int model_write_params(const struct model *m, FILE *f);

#endif
