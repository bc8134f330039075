/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.h - how ci-report writes numbers, p-values, changes and ids, the
 * same in every output.  Each returns its text in a struct, so that
 * printf(..., num(x).s, num(y).s) needs no shared buffer: the text lives
 * until the end of the full expression (C11 temporary lifetime).
 */
#ifndef CI_FORMAT_H
#define CI_FORMAT_H

#include <float.h>
#include <stdio.h>

#include "table.h"

/*
 * A number printed whole, whatever double it is: "%+.2f%%" of -DBL_MAX is
 * 315 characters (309 digits).  The reader refuses samples past 2^53, but
 * what the report computes of them need not stay there (a change against
 * a base of 1e-45 is +1e47%): 48 bytes cut such a number to a wrong one.
 */
#define TEXT_MAX (DBL_MAX_10_EXP + 12)

struct text {
	char s[TEXT_MAX];
};

struct text num(double x);		/* "12.34", "123456", "-" for NaN */
struct text num_int(double x);		/* "30", "-" for NaN */
struct text pval(double p);		/* "0.0123", "<0.0001", "-" */
struct text pct_str(double pct);	/* "+1.2%", "-" */
struct text short_id(const char *id);	/* the first 12 characters */
const char *mark(double p);		/* "*" p<0.05, "**", "***", "" */
const char *cmp_mark(const struct cmp *c);	/* the stars, or "e" exact */
struct text cmp_p(const struct cmp *c);	/* the p, or the rule without one */
const char *rule_name(enum rule r);	/* "exact", "constant", "welch", NULL */
void md_escape(FILE *f, const char *s);	/* '|' escaped for a table cell */

#endif /* CI_FORMAT_H */
