/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table.h - records as a table: a row per measured thing (suite, case,
 * metric and the setup it ran on), a column per commit (or, to join
 * several hosts' results, per CPU), and in each cell the samples and
 * their statistics.  ci-report, ci-merge and bench-vm-report are views
 * of it.
 *
 * API, in call order:
 *   struct table t = { .by_cpu = 0 };
 *   table_read_commits(&t, path)   "ID<TAB>SUBJECT" lines, the base first:
 *                                  the columns (by_cpu: the series order)
 *   table_add_column(&t, id, subject)   the same, one at a time
 *   table_build(&t, &records)      rows and cells; error records apart
 *   table_compare(&a, &b, &cmp)    b against a: the change of the mean in
 *                                  percent, and the rule that decides it
 *   table_base_row(&t, row)        by_cpu: the row of the series' base
 *   table_icount_agree(&t, row, &a)   by_cpu: do the exact (icount)
 *                                  records of a row agree, host against
 *                                  host and run against run
 *   table_free(&t)
 *
 * Without commits, the columns come in the order the records name them;
 * by file, they are the files given (table_add_column), a run each.
 * By CPU, columns are in the order of their names, rows are per commit
 * too, ordered by the series, and records of commits outside it are left
 * out (with a warning): the inputs' order changes nothing.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stdio.h>

#include "record-read.h"
#include "stats.h"

#define ICOUNT_NOTE "emulated instructions at 1 ns each, not hardware time"
/* what an icount figure does not show, printed where such figures are */
#define ICOUNT_CAVEAT \
	"tcg-icount: the same kernel gives the same figures on any host, " \
	"loaded or idle, but every REP MOVS iteration counts as an instruction, " \
	"MOVNTI costs what MOV costs and no cache is modelled: a change shows " \
	"how much work a patch removes, not whether its cache behaviour pays " \
	"(that needs KVM on real hardware, or the host benchmarks, make bench). " \
	"A first binding costs what a rebind costs: the host's first touch of " \
	"the NVDIMM files is invisible to this clock."

/* what the rows of bench-vm's cache model are, printed where they are */
#define MODEL_CAVEAT \
	"Rows with a cache model in their setup (bench-vm --model cache) count " \
	"what icount cannot see: loads, cached and streaming stores, the misses " \
	"of a modelled L1d and LLC, est_cycles (a weighted sum, bench-vm/README.md). " \
	"They are a model, exact on every boot, not hardware time."

struct cell {
	double *x;
	size_t n, cap;
	struct stats s;
	int exact;		/* every record of it has clock "icount" */
	const struct record *first;	/* its first record */
	const struct record **recs;	/* every record of it, in order */
	size_t nrecs;
	int runs_differ;	/* exact, but its records disagree (table_icount_agree) */
};

struct row {
	const struct record *rec;	/* the first record of the row */
	char *setup;			/* accel, CPU, setup params */
	const char *commit;		/* by_cpu: the commit of the row */
	size_t order;			/* by_cpu: its place in the series */
	struct cell *cells;		/* one per column */
};

struct column {
	char *key;		/* commit id, or "accel, cpu" by CPU */
	char *subject;
	char *hosts;
	/* "suite <id>, ..." of the suites reused from another commit, or "" */
	char *reused;
};

/* The rule that decides a comparison (and the gate). */
enum rule {
	RULE_NONE,		/* too few samples for any */
	RULE_WELCH,		/* Welch's t-test, p < alpha, then the size */
	RULE_EXACT,		/* icount: exact figures, the size alone */
	RULE_CONSTANT,		/* sd 0 on both sides: the size alone */
};

struct cmp {
	int valid;
	double pct, p;		/* p: NAN unless rule is RULE_WELCH */
	struct stats_welch w;
	enum rule rule;
};

struct table {
	int by_cpu;		/* a column per CPU, a row per commit too */
	int by_file;		/* a column per file read (a run): bench-vm-report */
	struct column *cols;
	size_t ncols;
	struct row *rows;
	size_t nrows;
	const struct record **errors;
	size_t nerrors;
	char **series;		/* by_cpu: the commits, base first */
	size_t nseries;
};

void table_read_commits(struct table *t, const char *path);
void table_add_column(struct table *t, const char *key, const char *subject);
void table_build(struct table *t, const struct records *rs);
void table_compare(const struct cell *a, const struct cell *b, struct cmp *c);
const struct row *table_base_row(const struct table *t, const struct row *w);
/*
 * Whether the exact (icount) records of a row agree: the same kernel under
 * the same QEMU counts the same instructions on any host.  Compared is
 * what is exact, never the number of samples: the distinct values, each
 * within the metric's resolution of one of the other record's (the
 * kernel prints memmap_init_ms in whole ms); for the agent's own clock
 * (bind_us, unbind_us, boot), the i-th sample of one record against the
 * i-th of the other (the i-th bind after boot is the same work) within a
 * tolerance.  See the table of resolutions in table.c.
 */
enum agree_state {
	AGREE_NONE,		/* fewer than two records to compare */
	AGREE_EQUAL,		/* the same values */
	AGREE_WITHIN,		/* apart, but within the tolerance */
	AGREE_DIFFER,		/* apart beyond it */
};

struct agree {
	enum agree_state state;
	double apart;		/* the largest distance found, in the row's unit */
	double tol;		/* the tolerance where it was found (or the worst) */
	const char *rule;	/* what the tolerance is, in words */
};

void table_icount_agree(const struct table *t, const struct row *w, struct agree *a);
/* a number of an option or an input: a decimal, all of its text (no sign) */
int decimal_parse(const char *s, double *x);
int table_any_exact(const struct table *t);
int table_any_model(const struct table *t);	/* a row of bench-vm's model */
void table_free(struct table *t);

/* setup.c: names of what a record ran on, for setups, titles, columns */
int record_is_icount(const struct record *r);
const char *record_accel_name(const struct record *r);
char *record_cpu_name(const struct record *r);
/*
 * The CPU as a measured ceiling or a cost table must match it: its model
 * name, family and model (VMs of two EPYC generations both say "AMD EPYC")
 */
char *record_cpu_ident(const struct record *r);
char *record_cpu_setup(const struct record *r);
/* the kernel build a record measured, as the report names it, or NULL */
char *record_build_name(const struct record *r);
char *row_name(const struct row *w);
char *row_setup(const struct table *t, const struct record *r);
/* row_setup() without its model: what a model's row measured beside it */
char *row_setup_plain(const struct table *t, const struct record *r);
int unit_direction(const char *unit);

#endif /* TABLE_H */
