// SPDX-License-Identifier: GPL-2.0
/*
 * format.c - numbers and names as the report writes them.  See format.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"

struct text num(double x)
{
	struct text t;

	if (isnan(x))
		snprintf(t.s, sizeof(t.s), "-");
	else if (fabs(x) >= 100000)
		snprintf(t.s, sizeof(t.s), "%.0f", x);
	else
		snprintf(t.s, sizeof(t.s), "%.2f", x);
	return t;
}

struct text num_int(double x)
{
	struct text t;

	if (isnan(x))
		snprintf(t.s, sizeof(t.s), "-");
	else
		snprintf(t.s, sizeof(t.s), "%.0f", x);
	return t;
}

struct text pval(double p)
{
	struct text t;

	if (isnan(p))
		snprintf(t.s, sizeof(t.s), "-");
	else if (p < 0.0001)
		snprintf(t.s, sizeof(t.s), "<0.0001");
	else
		snprintf(t.s, sizeof(t.s), "%.4f", p);
	return t;
}

struct text pct_str(double pct)
{
	struct text t;

	if (isnan(pct))
		snprintf(t.s, sizeof(t.s), "-");
	else
		snprintf(t.s, sizeof(t.s), "%+.1f%%", pct);
	return t;
}

struct text short_id(const char *id)
{
	struct text t;

	snprintf(t.s, sizeof(t.s), "%.12s", id ? id : "(none)");
	return t;
}

const char *mark(double p)
{
	if (isnan(p))
		return "";
	if (p < 0.001)
		return "***";
	if (p < 0.01)
		return "**";
	if (p < 0.05)
		return "*";
	return "";
}

const char *cmp_mark(const struct cmp *c)
{
	if (c->rule == RULE_EXACT)
		return "e";
	return mark(c->p);
}

struct text cmp_p(const struct cmp *c)
{
	struct text t;

	if (c->rule == RULE_EXACT)
		snprintf(t.s, sizeof(t.s), "none (exact)");
	else if (c->rule == RULE_CONSTANT)
		snprintf(t.s, sizeof(t.s), "none (sd 0)");
	else
		t = pval(c->p);
	return t;
}

const char *rule_name(enum rule r)
{
	switch (r) {
	case RULE_EXACT:
		return "exact";
	case RULE_CONSTANT:
		return "constant";
	case RULE_WELCH:
		return "welch";
	default:
		return NULL;
	}
}

/*
 * Text of the records (a subject, a setup) as Markdown text, never as
 * markup: what CommonMark and GFM would read as a table cell's end, code,
 * emphasis, a link, raw HTML or an autolink ('<' before a letter, '/',
 * '!' or '?'), or an entity ('&' before a letter, a digit or '#') is
 * backslash-escaped (any ASCII punctuation may be); '_' only where it
 * could open or close emphasis, not inside a word (mm_init).
 */
void md_escape(FILE *f, const char *s)
{
	const char *p;

	for (p = s; p && *p; p++) {
		unsigned char next = p[1];

		if (strchr("\\`*[]|", *p) ||
		    (*p == '<' && (isalpha(next) || (next && strchr("/!?", next)))) ||
		    (*p == '&' && (isalnum(next) || next == '#')) ||
		    (*p == '_' && !(p > s && isalnum((unsigned char)p[-1]) && isalnum(next))))
			fputc('\\', f);
		fputc(*p, f);
	}
}
