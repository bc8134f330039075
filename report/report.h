/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what the parts of ci-report and ci-merge share: the report
 * (a table of the records, the gate's settings and acknowledgements, the
 * claims' results), passed to every part; no part keeps state of its own.
 *
 *   table (lib/table.c)   records -> rows, columns, cells, comparisons
 *   gate.c                the regression gate and its acknowledgements
 *   claims.c              the changelogs' figures against the table; the
 *                         series (patches/series) that names the commits
 *   out-text.c            the text report: changes, changelog text
 *   out-md.c              the Markdown report (and merge's table)
 *   out-json.c            the JSON report
 *   functions.c           where the work goes: the model's functions per commit
 *   predict.c             the model's binds priced by CPUs' cost tables (--costs)
 *   builds.c              the kernel builds measured and their mitigations
 *   plots.c               gnuplot scripts and data
 *   outputs.c             files written aside and renamed in at the end
 *   report-main.c         ci-report: options, then the parts in order
 *   merge-main.c          ci-merge: the same table by CPU
 */
#ifndef CI_REPORT_H
#define CI_REPORT_H

#include <stdio.h>
#include <sys/types.h>

#include "costs.h"
#include "table.h"

/* A maintainer's acceptance of a change the gate flags (--gate-ack). */
struct ack {
	char *commit, *metric, *reason;
	double max_pct;
	unsigned int line;
	int used;
};

/* A claim of a changelog against the report's figures. */
struct claim_result {
	const char *id, *patch, *quote, *what;
	const char *measures;	/* the patch whose change it measures too, or NULL */
	const char *suite, *metric, *from_case, *to_case;	/* suite NULL: no record */
	const char *from_commit, *to_commit;	/* the columns' keys, or NULL: not in it */
	char *source;		/* the patch: "2/7 mm/mm_init: ...", the cover letter */
	char *claimed, *reproduced, *verdict, *setup;	/* allocated: never cut */
	char *model;		/* the model's est_cycles change beside it, or NULL */
	char *predicted;	/* the cost tables' predicted change beside it, or NULL */
	/* rfrom, rto: the statistic's, "mean" or "clean-median" (claims.c) */
	const char *statistic;
	double cfrom, cto, cpct, rfrom, rto, rpct, p;
	double sdfrom, sdto;	/* the samples' standard deviations; NAN: none */
	const char *clock;	/* the records' clock ("icount", "wall"), or NULL */
	double mfrom, mto, mpct;	/* that change; NAN: no model records */
	size_t nfrom, nto;
	int stale;		/* the changelog does not quote it (any more) */
	struct limits *limits;	/* a bind claim's (limits.c), or NULL */
};

/* A bind or host claim against the limits of its work (limits.c). */
struct limits {
	double ns_bytes;	/* the namespace bound (claims.def WORK) */
	const char *map;	/* "dev" or "mem": where its memmap lives */
	int hardware;		/* the claimed time is of hardware */
	/* struct pages a bind writes (64 B each), and how they were known */
	double cpages, rpages;	/* the claimed bind's; the reproduced one's (NAN: none) */
	const char *cpages_how, *rpages_how;
	double claimed_from, claimed_to;	/* GB/s the times imply; NAN: none */
	double reproduced_from, reproduced_to;
	double hz;		/* the reproduced kernel's HZ (its build); NAN: unknown */
	const char *accel;	/* the reproduced records' */
	/* a host claim's pass (claims.def PASS) instead of a bind */
	const char *kind;	/* "memory" or "cache"; NULL: a bind */
	double cbytes, rbytes;	/* bytes a pass writes: the claim's; the records' */
	double run_nt;		/* the streaming stores measured in the same run; NAN: none */
	char *rcpu;		/* the reproduced records' CPU, or NULL */
};

/*
 * A figure a changelog quotes (claims.c: series_figures): a number not
 * inside a word, an identifier or a version, with its unit when one
 * follows ("ms", "%", "GB/s", ...).
 */
struct figure {
	double value;
	int decimals;		/* digits after the point, as written */
	char unit[8];		/* "" when none */
	size_t off;		/* offset in the text read */
	unsigned int line;	/* line of the mbox file */
	const char *claim;	/* the id of a claim whose quote holds it, or NULL */
};

/* An entry of patches/series and its mail (claims.c: series_read). */
struct series_patch {
	char *path;		/* as patches/series names it */
	char *status;		/* "cover", "applied", "upstream" */
	char *upstream;		/* upstream's commit id, or NULL */
	unsigned int number;	/* applied: K of "K/N" (its identity); else 0 */
	char *subject;		/* without its "[PATCH ...]" */
	char *log;		/* the changelog: the body up to its "---" line */
	unsigned int log_line;	/* the file's line of the changelog's first */
	struct figure *figs;	/* the figures the changelog quotes */
	size_t nfigs;
};

struct series {
	char *path;		/* patches/series; NULL: none was found */
	struct series_patch *p;
	size_t n;
	unsigned int napplied;
};

struct report {
	struct table t;
	double alpha;
	double gate_pct, gate_pct_tcg, gate_pct_icount;	/* NAN: no gate */
	const char **gate_only;		/* "suite/case/metric" globs */
	size_t ngate_only;
	struct ack *acks;
	size_t nacks;
	const char *ack_file;
	const char *plots_link;	/* the plots' directory beside the Markdown, or NULL */
	struct claim_result *claims;
	size_t nclaims;
	/* the series the claims and the plots' commits are named by */
	const char *series_path;	/* NULL: patches/series, if there */
	struct series series;
	ssize_t *col_patch;	/* per column: its entry of series.p, or -1 */
	size_t nfigs, nfigs_claimed;	/* the changelogs' figures; in a claim's quote */
	struct cost_table *costs;	/* the CPUs' cost tables (--costs) */
	size_t ncosts;
	/* a CPU's measured ceilings, GB/s (--ceilings); NAN: none given */
	double ceil_nt, ceil_wa;	/* streaming stores; write-allocate stores */
	char *ceil_cpu;			/* whose: its model name and the file */
	char *ceil_cpu_name;		/* its model name alone */
};

/* What the gate decided for row w at column c against its parent. */
struct gate {
	int gated;		/* the gate looks at it */
	struct cmp cm;
	double threshold, worse;	/* worse: percent worse than the parent */
	int beyond;		/* a change past the threshold, by its rule, either way */
	int regression;		/* beyond, and worse */
	struct ack *ack;	/* the maintainer's acceptance of it, or NULL */
};

/* gate.c */
/* "suite/case/metric" of row w, as the gate's globs name it (allocated) */
char *slash_name(const struct row *w);
void gate_read_acks(struct report *r, const char *path);
void gate_decide(const struct report *r, const struct row *w, size_t c, struct gate *g);
const char *gate_tag(const struct report *r, const struct row *w, size_t c, char *buf,
		     size_t len);
void gate_rules(const struct report *r, FILE *f);
int gate_write(struct report *r, FILE *f, int md);
int ack_names_cell(const struct ack *a, const char *commit, const struct cell *cl);
void gate_free(struct report *r);

/* claims.c */
void claims_eval(struct report *r);
/* what claims_eval reads, for claims-lint (claims.c's header says how) */
void series_read(struct report *r);
ssize_t series_find(const struct series *se, const char *patch);
char *patch_name(const struct series *se, ssize_t i);
size_t series_figures(const char *text, unsigned int line0, struct figure **out);
int quote_find(const char *text, const char *quote, size_t **ranges, size_t *nfrag);
double half_digit(int d);	/* half the last digit of d decimals, -1: 0.05 */
const struct series_patch *column_patch(const struct report *r, size_t c);
void claims_free(struct report *r);
int claim_known(const char *id);

/* limits.c */
void limits_ceilings(struct report *r, const char *path);
void limits_eval(const struct report *r, struct claim_result *res, const struct row *to,
		 size_t to_col);
void limits_check(int (*known)(const char *id));
void limits_line(const struct report *r, const struct claim_result *c, FILE *f);
void limits_write(const struct report *r, FILE *f, int md);
struct json_object *limits_json(const struct report *r, const struct claim_result *c);

/* functions.c: where the work goes, by the model's per-function counts */
#define FN_NMETRICS 5		/* est_cycles, insns, stores, nt_stores, llc_misses */
#define FN_SHOWN 8		/* functions shown per case in the text and Markdown */

struct fn_change {
	const char *name;
	double parent[FN_NMETRICS], commit[FN_NMETRICS];	/* per bind; NAN: below the top */
};

/* one rebind case's functions at column col against col - 1 */
struct fn_diff {
	const struct row *row;		/* the case's est_cycles row */
	size_t col;
	struct fn_change *v;		/* by the size of the est_cycles change */
	size_t n;
	unsigned int top;		/* the plugin's top N per bind */
};

size_t functions_diff(const struct report *r, size_t c, struct fn_diff **out);
void functions_diff_free(struct fn_diff *d, size_t n);
void functions_write(const struct report *r, FILE *f, size_t c, int md);
struct json_object *functions_json(const struct report *r);

/* predict.c: the model's binds priced by a CPU's cost table */
struct prediction {
	int valid;
	double from_ns, to_ns;	/* per bind, the mean of the cell's binds */
	double pct, pct_ci;	/* the change, and its 95% interval (+-) */
	const char *why;	/* not valid: why */
};

int predict_change(const struct report *r, const struct cost_table *t, const struct row *w,
		   size_t from, size_t to, struct prediction *p);
char *predict_label(const struct cost_table *t);	/* COST_LABEL, allocated */
void predict_write(const struct report *r, FILE *f, int md);
struct json_object *predict_json(const struct report *r);
char *predict_beside(const struct report *r, const char *suite, const char *from_case,
		     const char *to_case, size_t fa, size_t fb);

/* builds.c: the kernel builds measured, and the mitigations applied */
void builds_write(const struct report *r, FILE *f, int md);
struct json_object *builds_json(const struct report *r);

/* out-text.c */
void text_wrap(FILE *f, const char *text, const char *indent);
void list_item(FILE *f, const char *text, int md, const char *lead);
int text_write(struct report *r, FILE *f);
void errors_write(const struct report *r, FILE *f);
void text_changelog(const struct report *r, FILE *f);
void text_changes(const struct report *r, FILE *f, size_t c);
int row_shown(const struct report *r, const struct row *w, size_t c);

/* summary.c: per patch, its claims held, not, or not told here, and the evidence */
enum { HELD, NOT_HELD, UNTOLD, NR_OUTCOMES };
int claim_outcome(const struct claim_result *c);
void summary_write(const struct report *r, FILE *f, int md);

/* out-md.c */
void md_write(struct report *r, FILE *f);

/* out-json.c */
int json_write(const struct report *r, FILE *f);

/* out-kcidb.c: KCIDB v5.3 JSON; PATCHSETS: report/kcidb.sh's checked patchsets, or NULL */
int kcidb_write(const struct report *r, FILE *f, const char *patchsets);

/* plots.c */
void plots_write(const struct report *r, const char *dir);

#endif /* CI_REPORT_H */
