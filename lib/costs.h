/* SPDX-License-Identifier: GPL-2.0 */
/*
 * costs.h - a CPU's cost table: what each class of work the guest model
 * counts (bench-vm/plugin/events.def) costs on that CPU, fitted by
 * cost-fit (bench/cost-fit.c) from the host kernels of copy-bench's
 * cost-classes experiment; and a prediction from it: counts times costs,
 * with the uncertainty of the fit.  A prediction is never a measurement:
 * every line that shows one carries COST_LABEL and the table's CPU.
 *
 * The classes, from a window's event counts (cost_counts()), by side:
 *   core    insn        instructions, less REP iterations
 *           load        loads, less REP iterations (a REP MOVS iteration's
 *                       load is in its rep_byte; a REP STOS has none and
 *                       so takes one load too many off: in the kernel's
 *                       bind windows REP STOS is under 1% of the loads)
 *           store       cached stores, less REP iterations
 *   memory  l1_load_miss, l1_store_miss   L1d misses the LLC serves
 *           llc_load    lines read from memory for a load
 *           llc_store   lines read from memory for a store (write-allocate)
 *           writeback   dirty lines written back to memory
 *           nt_line     64-byte lines of streaming stores (nt_bytes / 64)
 *   serial  fence       SFENCE and MFENCE
 *           nt_reread   misses on a line a streaming store has in flight
 *           rep_byte    bytes of REP MOVS/STOS
 *           rep_start   REP MOVS/STOS started (rep_starts): the start-up a
 *                       short REP (an -Os kernel's 64-byte struct page
 *                       copy, REP MOVSL; not an -O2 one's) pays per copy
 * REP is serial: a string instruction's copy does not overlap the memory
 * traffic around it.  Priced on the core side (the rule of the tables
 * fitted before 2026-12-06, whose records name no side, and are read so),
 * the replica's REP MOVSL copies of 64-96 B a struct page were predicted
 * -12..-34% at 1M and 4M pages (records of results/2026-12-05-costs-amd-epyc-
 * two-runs fitted again: out of sample, median |error| 17.1 -> 11.6%,
 * worst 33.8 -> 26.0%).  A table's records say each class's side
 * (params.side), and a prediction prices with the table's own.
 * Every timed call starts flushed (bench/costs.c, bench/experiments.c:
 * params.start "flushed"), as the model's window starts cold: before,
 * load-llc-4m walked what load-llc had left in the LLC and was held out
 * +93%; flushed, the kernels held out RMS went 22.6/21.5% -> 9.6/5.9%
 * (results/2026-12-07-costs-amd-epyc-flushed).
 * Terms tried and not kept (the same records fitted with and without):
 *   owed write-backs (the plugin's owed_writebacks, a window's dirty lines
 *   at its close) priced as write-backs (cost-fit --owed): held out and
 *   the check worse in all four runs, warm and flushed (the same
 *   results' owed-ab/): a flushed host pays them outside the clock.
 * Costs are ns per event, extra to the classes above them on its side (a
 * load that misses costs load + l1_load_miss + llc_load).
 *
 * A prediction of one part (a function of a window, or a whole window):
 *   max(core, memory) + serial
 * core and memory overlap (out-of-order execution hides the cheaper
 * under the larger); a fence or a read of a line in flight waits, and
 * waits for both.  A window of several parts (its top functions and the
 * rest) is the sum of its parts.  The standard error is the table's,
 * propagated through the side each max took, and, where the table has
 * them, two terms relative to the prediction: the model's error (the fit
 * kernels each predicted by a fit of the others, cost-fit) and the
 * run-to-run spread of the CPU's times (between rounds of the kernels,
 * or two runs).
 *
 * The table as records (doc/records.md): suite "cost-table", one record
 * per class, case "cost/<class>", metric "ns_per_event", the fitted cost
 * its one sample, params.sd its standard error, params.cov its row of the
 * covariance (class order), params.table the table's identity (CPU, host,
 * fit time), with the CPU's microcode and caches; params.model_error_rel
 * and params.run_spread_rel (one standard deviation, relative), absent in
 * tables fitted before they were measured (2026-12-02: read as 0, and
 * has_error_terms says so); params.side the class's side (absent before
 * 2026-12-06: REP on the core side then).
 *
 * API:
 *   cost_counts(get, arg, a)       the classes of one window's events
 *   cost_tables(rs, &v, &n, why)   the tables among records rs
 *   cost_predict(t, a, &ns, &sd)   ns and its standard error
 *   cost_predict_parts(t, a, n, &ns, &sd)   the same for n parts
 *   cost_tables_free(v, n)
 */
#ifndef LIB_COSTS_H
#define LIB_COSTS_H

#include <stddef.h>

#include "record-read.h"

enum cost_class {
	COST_INSN, COST_LOAD, COST_STORE, COST_REP_BYTE, COST_REP_START,
	COST_L1_LOAD_MISS, COST_L1_STORE_MISS, COST_LLC_LOAD, COST_LLC_STORE, COST_WRITEBACK,
	COST_NT_LINE,
	COST_FENCE, COST_NT_REREAD,
	NR_COST_CLASSES
};

enum cost_side { COST_CORE, COST_MEMORY, COST_SERIAL, NR_COST_SIDES };

/* the sides a table is fitted with now (a table read has its own: side[]) */
extern const enum cost_side cost_class_side[NR_COST_CLASSES];
extern const char *const cost_side_names[NR_COST_SIDES];
extern const char *const cost_class_names[NR_COST_CLASSES];

#define COST_SUITE "cost-table"
/* the table's id, then its CPU by family and model (record_cpu_ident) */
#define COST_LABEL "predicted from the cost table of %s (%s), not measured"

/* the model's events (bench-vm/plugin/events.def) the classes are made of */
#define NR_COST_EVENTS 15
extern const char *const cost_events[NR_COST_EVENTS];

/*
 * The class counts of a window whose event EVENT get() returns (NAN: not
 * there): 0, or -1 when an event is missing.
 */
int cost_counts(double (*get)(const char *event, void *arg), void *arg,
		double a[NR_COST_CLASSES]);

struct cost_table {
	const char *id;		/* params.table: "<CPU> on <host>, fit <time>" */
	enum cost_side side[NR_COST_CLASSES];	/* params.side, or the old rule's */
	int sides_named;	/* records of it that name params.side */
	const char *cpu;	/* the CPU's brand string */
	char *cpu_ident;	/* and its family and model (record_cpu_ident) */
	const char *microcode;	/* or NULL */
	double c[NR_COST_CLASSES];
	double cov[NR_COST_CLASSES][NR_COST_CLASSES];
	double model_error;	/* relative, 1 sd: held-out kernels (cost-fit) */
	double run_spread;	/* relative, 1 sd: between rounds or runs of the kernels */
	int has_error_terms;	/* 0: one or both absent (read as 0) */
	const char *file;	/* the first record's */
};

/*
 * The tables among @rs (suite COST_SUITE; other records are left alone):
 * 0, or -1 with *@why (a table without a class, a class twice, a cov of
 * the wrong size), naming the record's file and line.
 */
int cost_tables(const struct records *rs, struct cost_table **v, size_t *n, char **why);
void cost_tables_free(struct cost_table *v, size_t n);
void cost_predict(const struct cost_table *t, const double a[NR_COST_CLASSES], double *ns,
		  double *sd);
/*
 * A window of @n parts, @a their class counts one part after the other
 * (n * NR_COST_CLASSES): the sum of each part's prediction.
 */
void cost_predict_parts(const struct cost_table *t, const double *a, size_t n, double *ns,
			double *sd);
/* the same, and in @d the counts it priced (each part's larger side, and serial) */
void cost_predict_counts(const struct cost_table *t, const double *a, size_t n, double *ns,
			 double *sd, double d[NR_COST_CLASSES]);
/* one side's sum of part @a: no max, no serial (cost-fit's fits) */
double cost_side_sum(const struct cost_table *t, const double a[NR_COST_CLASSES],
		     enum cost_side side);

#endif /* LIB_COSTS_H */
