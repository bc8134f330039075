/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what the parts of ci-report and ci-merge share: the report
 * (a table of the records, the gate's settings and acknowledgements, the
 * claims' results), passed to every part; no part keeps state of its own.
 *
 *   table (lib/table.c)   records -> rows, columns, cells, comparisons
 *   gate.c                the regression gate and its acknowledgements
 *   claims.c              the changelogs' figures against the table
 *   out-text.c            the text report: changes, changelog text
 *   out-md.c              the Markdown report (and merge's table)
 *   out-json.c            the JSON report
 *   plots.c               gnuplot scripts and data
 *   outputs.c             files written aside and renamed in at the end
 *   report-main.c         ci-report: options, then the parts in order
 *   merge-main.c          ci-merge: the same table by CPU
 */
#ifndef CI_REPORT_H
#define CI_REPORT_H

#include <stdio.h>

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
	const char *id, *source, *what;
	char *claimed, *reproduced, *verdict, *setup;	/* allocated: never cut */
	double cfrom, cto, cpct, rfrom, rto, rpct, p;
	size_t nfrom, nto;
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
	struct claim_result *claims;
	size_t nclaims;
};

/* What the gate decided for row w at column c against its parent. */
struct gate {
	int gated;		/* the gate looks at it */
	struct cmp cm;
	double threshold, worse;	/* worse: percent worse than the parent */
	int regression;		/* worse beyond the threshold, by its rule */
	struct ack *ack;	/* the maintainer's acceptance of it, or NULL */
};

/* gate.c */
void gate_read_acks(struct report *r, const char *path);
void gate_decide(const struct report *r, const struct row *w, size_t c, struct gate *g);
const char *gate_tag(const struct report *r, const struct row *w, size_t c, char *buf,
		     size_t len);
void gate_rules(const struct report *r, FILE *f);
int gate_write(struct report *r, FILE *f, int md);
void gate_free(struct report *r);

/* claims.c */
void claims_eval(struct report *r);
void claims_free(struct report *r);

/* out-text.c */
void text_wrap(FILE *f, const char *text, const char *indent);
int text_write(struct report *r, FILE *f);
void errors_write(const struct report *r, FILE *f);
void text_changelog(const struct report *r, FILE *f);
void text_changes(const struct report *r, FILE *f, size_t c);
int row_shown(const struct report *r, const struct row *w, size_t c);

/* out-md.c */
void md_write(struct report *r, FILE *f);

/* out-json.c */
int json_write(const struct report *r, FILE *f);

/* plots.c */
void plots_write(const struct report *r, const char *dir);

#endif /* CI_REPORT_H */
