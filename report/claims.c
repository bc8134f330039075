// SPDX-License-Identifier: GPL-2.0
/*
 * claims.c - every figure a changelog quotes (lib/claims.def, one row
 * each) against the cells of the report that reproduce it: the one
 * verdict of each, computed here only.  See report.h.
 *
 * The series (patches/series, or the report's series_path) names the
 * report's commits and is what the claims are checked against:
 *
 *   series_read()     every entry of patches/series and its mail: status,
 *                     identity (cover, K of K/N, upstream:ID), subject,
 *                     changelog (the body up to its "---" line)
 *   series_figures()  the figures a text quotes: each number that is no
 *                     part of a word, an identifier, a commit id, a
 *                     numbering (3/7, 1-5) or a dotted version, with its
 *                     decimals, unit (after a blank or a line break) and
 *                     line; a range with a unit ("5-8%") is two figures.
 *                     The one reader of changelog figures: the claims
 *                     below, and report.json's "figures" (every figure of
 *                     every changelog, and the claim that quotes it, if
 *                     any: what a claims lint needs)
 *   quote_find()      a claim's quote in a changelog, blanks as one space,
 *                     its " ... " fragments in order
 *   map_columns()     the report's columns to the series' patches: a
 *                     column is patch K when its commit's subject is the
 *                     subject of patch K's mail (git am makes the one
 *                     from the other); when the columns are the base and
 *                     every applied patch (make ci), by their place too,
 *                     so a mail renamed since the commits were made still
 *                     finds its commit
 *
 * A claim names its patch by its identity in the series, never by a
 * subject: its quote must be in that patch's changelog, and each claimed
 * number among the quote's figures, or the claim is stale.  The mails are
 * read as make export writes them (plain text; a quoted-printable or
 * encoded changelog would not match and read as stale, never as fine).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "mbox.h"
#include "report.h"
#include "util.h"

struct claim {
	const char *id, *patch, *quote, *what;
	const char *suite, *metric, *from, *from_case, *to, *to_case;
	double cfrom, cto, pct_lo, pct_hi;
};

/* equal as figures: what a double keeps of a decimal a changelog writes */
#define EPS 0.000000001

/* the verdict of a claim that no comparison of records measures */
#define NO_VERDICT \
	"no verdict: no comparison of records measures it; see copy-bench's tables"

static const struct claim claims[] = {
#define CLAIM(id, patch, quote, what, suite, metric, from, from_case, to, to_case, \
	      cfrom, cto, lo, hi) \
	{ id, patch, quote, what, suite, metric, from, from_case, to, to_case, \
	  cfrom, cto, lo, hi },
#include "claims.def"

#undef CLAIM
};

/* the claims that measure another patch's change (claims.def: MEASURES) */
static const struct {
	const char *id, *patch;
} measures[] = {
#define MEASURES(id, patch) { id, patch },
#include "claims.def"

#undef MEASURES
};

/* the patch whose change claim id measures, besides its own mail's, or NULL */
static const char *measures_of(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(measures); i++)
		if (!strcmp(measures[i].id, id))
			return measures[i].patch;
	return NULL;
}

/* a MEASURES of no claim is claims.def's mistake: said, never skipped */
static void measures_check(void)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(measures); i++) {
		for (j = 0; j < ARRAY_SIZE(claims) && strcmp(claims[j].id, measures[i].id); j++)
			;
		if (j == ARRAY_SIZE(claims))
			die("claims: lib/claims.def: MEASURES(\"%s\") names no claim",
			    measures[i].id);
	}
}

int claim_known(const char *id)
{
	size_t j;

	for (j = 0; j < ARRAY_SIZE(claims); j++)
		if (!strcmp(claims[j].id, id))
			return 1;
	return 0;
}

/* ---- the series ---- */

static int unit_char(int c)
{
	return isalpha(c) || c == '%' || c == '/';
}

static const char *const units[] = {
	"%", "ms", "us", "ns", "s", "GB/s", "MB/s", "GiB/s", "B", "KB", "MB", "GB", "TB",
	"KiB", "MiB", "GiB", "TiB", "K", "M", "G", "T", "GHz", "MHz", "bytes", "pages",
	"ticks", "x",
};

/* the unit at s ("ms," -> "ms"); "" when none of the table */
static size_t read_unit(const char *s, char *unit, size_t len)
{
	size_t n = 0, i;

	while (unit_char((unsigned char)s[n]))
		n++;
	/* "GB/s" is one unit, "ms/call" is "ms" */
	for (; n; n--) {
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (strlen(units[i]) == n && !strncmp(s, units[i], n))
				break;
		if (i < ARRAY_SIZE(units) && n < len) {
			memcpy(unit, s, n);
			unit[n] = '\0';
			return n;
		}
	}
	unit[0] = '\0';
	return 0;
}

/*
 * At the "-" of "5-8%" or "10-15 ns": the unit of the range's second
 * figure, in unit (1), or 0 when what follows is no figure with a unit
 * (a numbering "1-5", a date, a name).
 */
static int range_unit(const char *e, char *unit, size_t len)
{
	const char *u = e + 1;
	size_t ul;

	if (!isdigit((unsigned char)*u))
		return 0;
	while (isdigit((unsigned char)*u) || (*u == '.' && isdigit((unsigned char)u[1])))
		u++;
	if ((*u == ' ' || *u == '\n') && unit_char((unsigned char)u[1]) && u[1] != '/')
		u++;
	ul = read_unit(u, unit, len);
	if (!ul || isalnum((unsigned char)u[ul])) {
		unit[0] = '\0';
		return 0;
	}
	return 1;
}

/* a character that makes a digit after it part of a word or a number */
static int word_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* the figures of text, lines counted from line0 */
size_t series_figures(const char *text, unsigned int line0, struct figure **out)
{
	struct figure *figs = NULL;
	unsigned int line = line0;
	size_t n = 0;
	const char *s;

	for (s = text; *s; s++) {
		const char *num = s, *e, *u;
		int sign = 0, dots = 0;
		struct figure f = { 0 };
		size_t ul;

		if (*s == '\n')
			line++;
		if ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]) &&
		    (s == text || !isalnum((unsigned char)s[-1])))
			sign = 1;
		else if (!isdigit((unsigned char)*s) ||
			 (s > text && word_char((unsigned char)s[-1])))
			continue;
		for (e = num + sign;
		     isdigit((unsigned char)*e) || (*e == '.' && isdigit((unsigned char)e[1])); e++)
			dots += *e == '.';
		s = e - 1;
		/* a version (6.12.117), an identifier or a hex id (68674f94ffc9) */
		if (dots > 1 || (*e == '.' && isdigit((unsigned char)e[1])) || *e == '_')
			continue;
		/* a range of figures, "5-8%": the first, in the unit of the range */
		if (*e == '-' && range_unit(e, f.unit, sizeof(f.unit)))
			goto figure;
		/* a numbering (3/7, 1-5) or a name (E5-2690, linux-source-6.12) */
		if ((*e == '/' || *e == '-') && isdigit((unsigned char)e[1]))
			continue;
		if (!sign && num - text >= 2 && (num[-1] == '/' || num[-1] == '-') &&
		    isalnum((unsigned char)num[-2]) &&
		    !(num[-1] == '-' && isdigit((unsigned char)num[-2]) &&
		      range_unit(num - 1, f.unit, sizeof(f.unit))))
			continue;
		u = e;
		if ((*u == ' ' || *u == '\n') && unit_char((unsigned char)u[1]) && u[1] != '/')
			u++;
		ul = read_unit(u, f.unit, sizeof(f.unit));
		if (isalnum((unsigned char)*e) && !ul)
			continue;
		if (ul && isalnum((unsigned char)u[ul]))
			f.unit[0] = '\0';	/* "5 more", "2 ways": a word, no unit */
		if (isalnum((unsigned char)*e) && !f.unit[0])
			continue;
figure:
		f.value = strtod(num, NULL);
		u = memchr(num, '.', e - num);
		f.decimals = u ? (int)(e - u - 1) : 0;
		f.off = num - text;
		f.line = line;
		figs = xrealloc(figs, (n + 1) * sizeof(*figs));
		figs[n++] = f;
	}
	*out = figs;
	return n;
}

/* a shortlog's author line, "Li Zhe (5):": where a cover letter's text ends */
static int shortlog_line(const char *s, size_t n)
{
	size_t i = n;

	if (n < 5 || s[n - 1] != ':' || s[n - 2] != ')')
		return 0;
	for (i = n - 3; i > 0 && isdigit((unsigned char)s[i]); i--)
		;
	return i < n - 3 && s[i] == '(' && i > 1 && s[i - 1] == ' ';
}

/*
 * The subject and the changelog of the mail at path, read as git am reads
 * it (lib/mbox.c: mailsplit and mailinfo, so a folded, encoded or CRLF
 * header is read right): the body to its "---", or a cover letter's to
 * its shortlog or signature, with the line it starts on.
 */
static void read_mail(const char *series, unsigned int ln, struct series_patch *p, const char *path)
{
	struct mbox box;
	char err[512];
	const struct mbox_msg *m;
	const char *s, *end, *l;

	if (mbox_read(path, &box, err, sizeof(err)))
		die("series: %s:%u: %s; see 'series-check %s'", series, ln, err, series);
	if (box.nmsg != 1 || box.msg[0].err)
		die("series: %s:%u: %s: %s; see 'series-check %s'", series, ln, path,
		    box.nmsg != 1 ? "not one mail" : box.msg[0].err, series);
	m = &box.msg[0];
	p->subject = mbox_bare_subject(m->subject);
	if (!p->subject)
		die("memory: out of memory");
	s = m->body;
	p->log_line = m->body_line;
	end = strstr(s, "\n---\n");
	if (!end)
		end = strstr(s, "\n--\x20\n");	/* the signature */
	for (l = s; *l && (!end || l < end);) {
		size_t n = strcspn(l, "\n");

		if (l >= s + 2 && l[-2] == '\n' && shortlog_line(l, n)) {
			end = l - 1;
			break;
		}
		l += n + (l[n] != '\0');
	}
	p->log = end ? xasprintf("%.*s\n", (int)(end - s), s) : xstrdup(s);
	mbox_free(&box);
	p->nfigs = series_figures(p->log, p->log_line, &p->figs);
}

void series_read(struct report *r)
{
	struct series *se = &r->series;
	const char *path = r->series_path;
	char *line = NULL, *dir, err[8192];
	size_t cap = 0;
	unsigned int ln = 0;
	FILE *f;

	if (!path) {
		if (access("patches/series", R_OK))
			return;
		path = "patches/series";
	}
	dir = strrchr(path, '/') ? xasprintf("%.*s", (int)(strrchr(path, '/') - path), path) :
				   xstrdup(".");
	/* no file of the series' directory is read through a link */
	if (mbox_dir_plain(dir, err, sizeof(err)))
		die("patches: %s", err);
	f = fopen(path, "r");
	if (!f)
		die("series: %s: cannot open: %s", path, strerror(errno));
	se->path = xstrdup(path);
	while (getline(&line, &cap, f) >= 0) {
		char *file, *status, *id, *save, *mbox;
		struct series_patch *p;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		file = strtok_r(line, " \t", &save);
		if (!file || *file == '#')
			continue;
		status = strtok_r(NULL, " \t", &save);
		id = strtok_r(NULL, " \t", &save);
		if (!status || (strcmp(status, "cover") && strcmp(status, "applied") &&
				strcmp(status, "upstream")))
			die("series: %s:%u: '%s': status '%s' is not %s; see 'series-check %s'",
			    path, ln, file, status ? status : "", "cover, applied or upstream",
			    path);
		if (!strcmp(status, "upstream") && !id)
			die("series: %s:%u: '%s': an upstream entry without its commit id",
			    path, ln, file);
		se->p = xrealloc(se->p, (se->n + 1) * sizeof(*se->p));
		p = &se->p[se->n++];
		memset(p, 0, sizeof(*p));
		p->path = xstrdup(file);
		p->status = xstrdup(status);
		p->upstream = id ? xstrdup(id) : NULL;
		if (!strcmp(status, "applied"))
			p->number = ++se->napplied;
		mbox = xasprintf("%s/%s", dir, file);
		read_mail(path, ln, p, mbox);
		free(mbox);
	}
	if (ferror(f))
		die("series: %s: read failed: %s", path, strerror(errno));
	fclose(f);
	free(line);
	free(dir);
}

/* the entry of the series a claim's patch names, or -1 */
ssize_t series_find(const struct series *se, const char *patch)
{
	size_t i;
	char *end;
	unsigned long k;

	for (i = 0; i < se->n; i++) {
		const struct series_patch *p = &se->p[i];

		if (!strcmp(patch, "cover") && !strcmp(p->status, "cover"))
			return i;
		if (!strncmp(patch, "upstream:", 9) && p->upstream &&
		    !strncmp(p->upstream, patch + 9, strlen(patch + 9)))
			return i;
	}
	k = strtoul(patch, &end, 10);
	if (!isdigit((unsigned char)*patch) || *end || !k)
		return -1;
	for (i = 0; i < se->n; i++)
		if (se->p[i].number == k)
			return i;
	return -1;
}

/* "2/7 mm/mm_init: add ...", "the cover letter", "upstream 236222d39347 x86/..." */
char *patch_name(const struct series *se, ssize_t i)
{
	const struct series_patch *p = &se->p[i];

	if (p->number)
		return xasprintf("%u/%u %s", p->number, se->napplied, p->subject);
	if (p->upstream)
		return xasprintf("upstream %.12s %s", p->upstream, p->subject);
	return xasprintf("cover letter (0/%u)", se->napplied);
}

/*
 * The quote in text, blanks as one space, its " ... " fragments in order;
 * 1 with each fragment's place in text (ranges[2 * k], ranges[2 * k + 1]).
 */
int quote_find(const char *text, const char *quote, size_t **ranges, size_t *nfrag)
{
	size_t len = strlen(text), n = 0, i, *map = xcalloc(len + 1, sizeof(*map));
	char *norm = xcalloc(len + 1, 1), *q = xstrdup(quote), *frag, *at, *from;
	int ok = 1;

	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)text[i])) {
			if (!n || norm[n - 1] == ' ')
				continue;
			norm[n] = ' ';
		} else {
			norm[n] = text[i];
		}
		map[n++] = i;
	}
	map[n] = len;
	*ranges = NULL;
	*nfrag = 0;
	from = norm;
	for (frag = q; frag && ok; frag = at) {
		char *hit;

		at = strstr(frag, " ... ");
		if (at) {
			*at = '\0';
			at += 5;
		}
		hit = strstr(from, frag);
		if (!hit) {
			ok = 0;
			break;
		}
		*ranges = xrealloc(*ranges, (*nfrag + 1) * 2 * sizeof(**ranges));
		(*ranges)[2 * *nfrag] = map[hit - norm];
		(*ranges)[2 * *nfrag + 1] = map[hit - norm + strlen(frag) - 1] + 1;
		(*nfrag)++;
		from = hit + strlen(frag);
	}
	free(q);
	free(norm);
	free(map);
	return ok;
}

/* the quote's figure of value x (the sign aside: "57.5% reduction"), or NULL */
static const struct figure *quote_figure(const struct figure *figs, size_t n, double x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fabs(fabs(figs[i].value) - fabs(x)) < EPS * fmax(1, fabs(x)))
			return &figs[i];
	return NULL;
}

/*
 * The report's columns to the series' patches (the header comment says
 * how); warns once for each column taken by its place.
 */
static void map_columns(struct report *r)
{
	const struct table *t = &r->t;
	const struct series *se = &r->series;
	size_t c, i, next = 0;

	r->col_patch = xcalloc(t->ncols ? t->ncols : 1, sizeof(*r->col_patch));
	for (c = 0; c < t->ncols; c++)
		r->col_patch[c] = -1;
	for (c = 1; c < t->ncols; c++)
		for (i = next; i < se->n; i++)
			if (se->p[i].number && streq(se->p[i].subject, t->cols[c].subject)) {
				r->col_patch[c] = i;
				next = i + 1;
				break;
			}
	if (!se->napplied || t->ncols != se->napplied + 1)
		return;
	for (c = 1; c < t->ncols; c++) {
		if (r->col_patch[c] >= 0)
			continue;
		for (i = 0; i < se->n && se->p[i].number != c; i++)
			;
		for (next = 1; next < t->ncols; next++)
			if (r->col_patch[next] == (ssize_t)i)
				break;
		if (next < t->ncols)
			continue;
		r->col_patch[c] = i;
		warn("series: commit %s '%s' is taken for %u/%u '%s' of %s by its place (%s): %s",
		     short_id(t->cols[c].key).s, t->cols[c].subject, se->p[i].number, se->napplied,
		     se->p[i].subject, se->path, "the columns are the base and every patch",
		     "its subject differs");
	}
}

/* the column of entry i of the series, or -1 */
static ssize_t patch_column(const struct report *r, ssize_t i)
{
	size_t c;

	for (c = 0; c < r->t.ncols; c++)
		if (r->col_patch[c] == i && i >= 0)
			return c;
	return -1;
}

/* "base", "2/7" or the short id of column c */
static struct text col_name(const struct report *r, size_t c)
{
	struct text t;

	if (c == 0)
		snprintf(t.s, sizeof(t.s), "base");
	else if (r->col_patch[c] >= 0)
		snprintf(t.s, sizeof(t.s), "%u/%u", r->series.p[r->col_patch[c]].number,
			 r->series.napplied);
	else
		t = short_id(r->t.cols[c].key);
	return t;
}

/* ---- the verdicts ---- */

/*
 * A claim compares like with like: its two cells are of one setup.  The
 * table keeps rows of two setups apart (accel, CPU, -cpu, namespace size,
 * QEMU and kernel builds, model: row_setup()); a row's cells may still be
 * of runs with other rebind counts, which is a setup too.  The setup of a
 * cell, for a claim: its row's (full: with the model, else without) and
 * the rebinds of its records ("5 rebinds", "5/30 rebinds" for a cell of
 * several runs that differ).
 */
static char *cell_setup(const struct table *t, const struct row *w, const struct cell *cl,
			int full)
{
	char *s = full ? xstrdup(w->setup) : row_setup_plain(t, w->rec), *x, *reb = NULL;
	size_t i, j;

	for (i = 0; i < cl->nrecs; i++) {
		double k = record_param(cl->recs[i], "rebinds");

		for (j = 0; j < i && !isnan(k); j++)
			if (record_param(cl->recs[j], "rebinds") == k)
				break;
		if (isnan(k) || j < i)
			continue;
		x = xasprintf("%s%s%g", reb ? reb : "", reb ? "/" : "", k);
		free(reb);
		reb = x;
	}
	if (!reb)
		return s;
	x = xasprintf("%s%s%s rebinds", s, *s ? ", " : "", reb);
	free(s);
	free(reb);
	return x;
}

/* whether the setup text y has the part (of ", "-separated parts) at p, n long */
static int has_part(const char *y, const char *p, size_t n)
{
	while (*y) {
		const char *e = strstr(y, ", ");
		size_t k = e ? (size_t)(e - y) : strlen(y);

		if (k == n && !memcmp(y, p, n))
			return 1;
		y += k + (e ? 2 : 0);
	}
	return 0;
}

/* the parts of setup x that y lacks, ", "-joined */
static char *parts_not_in(const char *x, const char *y)
{
	char *out = xstrdup(""), *t;

	while (*x) {
		const char *e = strstr(x, ", ");
		size_t n = e ? (size_t)(e - x) : strlen(x);

		if (!has_part(y, x, n)) {
			t = xasprintf("%s%s%.*s", out, *out ? ", " : "", (int)n, x);
			free(out);
			out = t;
		}
		x += n + (e ? 2 : 0);
	}
	return out;
}

/* "ns 100 GiB vs ns 4 GiB": what differs of two setups, else both whole */
static char *setup_diff(const char *x, const char *y)
{
	char *a = parts_not_in(x, y), *b = parts_not_in(y, x), *d;

	d = *a && *b ? xasprintf("%s vs %s", a, b) : xasprintf("%s vs %s", x, y);
	free(a);
	free(b);
	return d;
}

/* the cells a claim compares, and their setups */
struct pair {
	const struct row *a, *b;
	const struct cell *ca, *cb;
	char *sa, *sb;		/* their setups (cell_setup(), full) */
	char *setup;		/* found: their one setup, without a model's part */
	char *why;		/* not comparable: what differs */
};

enum pair_found { PAIR_FOUND, PAIR_MISSING, PAIR_DIFFER };

/* the rows of suite, case and metric with samples at column col */
static size_t candidates(const struct table *t, const char *suite, const char *case_name,
			 const char *metric, size_t col, const struct row ***out)
{
	const struct row **v = NULL;
	size_t i, n = 0;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];

		if (!streq(w->rec->suite, suite) || !streq(w->rec->case_name, case_name) ||
		    !streq(w->rec->metric, metric) || !w->cells[col].n)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = w;
	}
	*out = v;
	return n;
}

static void free_all(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The cells of a claim, from_case at column fa and to_case at fb: the
 * first pair of rows, in the table's order, whose cells are of one setup
 * (cell_setup(), full) and, where want is given, of that setup without
 * their model's part (the model beside a claim measured what the claim
 * did).  PAIR_MISSING: a side has no row with samples there (p->ca or
 * p->cb NULL); PAIR_DIFFER: both have, never of one setup: p->a, p->b
 * are the first of each side, p->why what differs.  pair_free() after.
 */
static enum pair_found find_pair(const struct table *t, const char *suite, const char *from_case,
				 const char *to_case, const char *metric, size_t fa, size_t fb,
				 const char *want, struct pair *p)
{
	const struct row **va, **vb;
	size_t na = candidates(t, suite, from_case, metric, fa, &va);
	size_t nb = candidates(t, suite, to_case, metric, fb, &vb), i, j;
	char **sa = xcalloc(na + 1, sizeof(char *)), **sb = xcalloc(nb + 1, sizeof(char *));
	char **plain = xcalloc(na + 1, sizeof(char *));
	enum pair_found found = na && nb ? PAIR_DIFFER : PAIR_MISSING;
	size_t ka = 0, kb = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < na; i++) {
		sa[i] = cell_setup(t, va[i], &va[i]->cells[fa], 1);
		plain[i] = cell_setup(t, va[i], &va[i]->cells[fa], 0);
	}
	for (j = 0; j < nb; j++)
		sb[j] = cell_setup(t, vb[j], &vb[j]->cells[fb], 1);
	for (i = 0; i < na && found == PAIR_DIFFER; i++) {
		if (want && strcmp(plain[i], want))
			continue;
		for (j = 0; j < nb && strcmp(sa[i], sb[j]); j++)
			;
		if (j < nb) {
			found = PAIR_FOUND;
			ka = i;
			kb = j;
			p->setup = xstrdup(plain[i]);
		}
	}
	if (na) {
		p->a = va[ka];
		p->ca = &va[ka]->cells[fa];
		p->sa = xstrdup(sa[ka]);
	}
	if (nb) {
		p->b = vb[kb];
		p->cb = &vb[kb]->cells[fb];
		p->sb = xstrdup(sb[kb]);
	}
	/* the first of each side differ, or (want) both differ from it */
	if (found == PAIR_DIFFER)
		p->why = strcmp(sa[0], sb[0]) ? setup_diff(sa[0], sb[0]) :
			 setup_diff(want, plain[0]);
	free_all(sa, na);
	free_all(sb, nb);
	free_all(plain, na);
	free(va);
	free(vb);
	return found;
}

static void pair_free(struct pair *p)
{
	free(p->sa);
	free(p->sb);
	free(p->setup);
	free(p->why);
	memset(p, 0, sizeof(*p));
}

/* half the last digit of a figure written with d decimals (-1: unknown) */
double half_digit(int d)
{
	return d >= 0 ? 0.5 * pow(10, -d) + EPS : 0.05;
}

/* could Welch's test of these samples tell the claimed change (lib/stats.c)? */
static int test_can_tell(const struct stats *sa, const struct stats *sb,
			 const struct stats_welch *w, double cpct, double alpha)
{
	return stats_welch_detects(sa, sb, w, fabs(cpct) / 100 * fabs(sa->mean), alpha);
}

/* the claimed change in percent, and the decimals its quote writes */
struct claimed {
	double lo, hi;
	int dfrom, dto, dpct;		/* -1: not checked against a quote */
};

#define TOO_FEW "inconclusive"

/* what a test too weak for the claim says: "inconclusive (n 2): make bench ..." */
static char *too_few(const struct claim *c, const struct stats *sa, const struct stats *sb)
{
	if (sa->n == sb->n)
		return xasprintf(TOO_FEW " (n %zu): make %s for enough samples", sa->n, c->suite);
	return xasprintf(TOO_FEW " (n %zu/%zu): make %s for enough samples", sa->n, sb->n,
			 c->suite);
}

/* the one verdict of a claim against the figures that reproduce it */
static char *verdict(const struct claim *c, const struct claim_result *res,
		     const struct cmp *cm, const struct stats *sa, const struct stats *sb,
		     const struct claimed *cl, double alpha)
{
	/* exact (icount) or constant figures: no test, the size decides */
	int sized = cm->rule == RULE_EXACT || cm->rule == RULE_CONSTANT;
	double lo = cl->lo, hi = cl->hi;

	/* no change: reproduced where the claim is of no change (x -> x) */
	if (sized && res->rpct == 0) {
		if (isnan(c->cfrom) || c->cfrom != c->cto)
			return xasprintf("not reproduced: no change (%s figures)",
					 cm->rule == RULE_EXACT ? "exact" : "constant");
		return fabs(res->rfrom - c->cfrom) <= half_digit(cl->dfrom) ?
		       xasprintf("reproduced: the claimed figures") :
		       xasprintf("reproduced: the claimed change (none)");
	}
	if (!sized && !cm->w.valid)
		return too_few(c, sa, sb);
	/* a claim of no change (x -> x) and figures that changed */
	if (!isnan(c->cfrom) && c->cfrom == c->cto) {
		if (!sized && !(cm->p < alpha))
			return xasprintf("reproduced: no significant change, as claimed");
		return xasprintf("not reproduced: %+.1f%%%s where the claim is of no change",
				 res->rpct, sized ? "" : " (significant)");
	}
	/* "not reproduced" only where the test could have told the claimed change */
	if (!sized && !(cm->p < alpha))
		return test_can_tell(sa, sb, &cm->w, fabs(lo) < fabs(hi) ? lo : hi, alpha) ?
		       xasprintf("not reproduced: no significant change") :
		       too_few(c, sa, sb);
	if (signbit(res->rpct) != signbit(lo))
		return xasprintf("not reproduced: opposite direction");
	if (!isnan(c->cfrom) && fabs(res->rfrom - c->cfrom) <= half_digit(cl->dfrom) &&
	    fabs(res->rto - c->cto) <= half_digit(cl->dto))
		return xasprintf("reproduced: the claimed figures");
	if (lo == hi && fabs(res->rpct - lo) <= half_digit(cl->dpct))
		return xasprintf("reproduced: the claimed change");
	if (lo != hi && res->rpct >= lo && res->rpct <= hi)
		return xasprintf("reproduced: within the claimed range");
	return xasprintf("direction reproduced; %.1f points %s than claimed",
			 fabs(res->rpct - lo), fabs(res->rpct) > fabs(lo) ? "more" : "less");
}

/*
 * The statistic a claim's figures are compared by, as its suite's own
 * tables print them: a host benchmark's (copy-bench) is the median of the
 * samples no other task preempted (stats_clean()), a guest's the mean.
 */
static const char *claim_statistic(const struct claim *c)
{
	return c->suite && !strcmp(c->suite, "bench") ? "clean-median" : "mean";
}

/*
 * That statistic of a cell's samples; *how: 0 a mean or the median of
 * samples no record says were preempted, 1 the median of the unpreempted
 * ones, 2 of all (too few unpreempted: copy-bench marks it "*").
 */
static double cell_statistic(const struct cell *cl, const char *stat, int *how)
{
	struct samples sm = { 0 };
	size_t i, used;
	struct stats s;
	int rc;

	*how = 0;
	if (strcmp(stat, "clean-median"))
		return cl->s.mean;
	for (i = 0; i < cl->nrecs; i++)
		samples_add(&sm, cl->recs[i]);
	rc = stats_clean(sm.v, sm.pre, sm.n, &s, &used);
	*how = !sm.marked ? 0 : rc == 1 ? 2 : 1;
	samples_free(&sm);
	if (rc < 0)
		die("stats: %s: no memory", cl->first->file);
	return s.median;
}

/* what reproduced figures of a statistic are, for the claims' lines */
static const char *statistic_label(const char *stat, int how_from, int how_to)
{
	int how = how_from > how_to ? how_from : how_to;

	if (!strcmp(stat, "mean"))
		return "";
	return how == 2 ? "medians, of all samples where too few were unpreempted: " :
	       how == 1 ? "medians of the unpreempted samples: " : "medians: ";
}

static void reproduce(const struct report *r, const struct claim *c,
		      struct claim_result *res, const struct row *a, const struct row *b,
		      const struct cell *ca, const struct cell *cb, const struct claimed *cl)
{
	const struct stats *sa = &ca->s, *sb = &cb->s;
	struct cmp cm;
	char *setup;
	int how_from, how_to;

	table_compare(ca, cb, &cm);
	res->nfrom = sa->n;
	res->nto = sb->n;
	res->statistic = claim_statistic(c);
	res->rfrom = cell_statistic(ca, res->statistic, &how_from);
	res->rto = cell_statistic(cb, res->statistic, &how_to);
	res->rpct = stats_pct(res->rfrom, res->rto);
	res->sdfrom = sa->sd;
	res->sdto = sb->sd;
	res->clock = b->rec->clock;
	res->p = cm.p;
	setup = xasprintf("%s; %s", res->setup, b->setup);
	free(res->setup);
	res->setup = setup;
	if (cm.rule == RULE_EXACT)
		res->reproduced = xasprintf("%s -> %s %s (%s, %s, n %zu/%zu)", num(res->rfrom).s,
					    num(res->rto).s, a->rec->unit, pct_str(res->rpct).s,
					    "exact: tcg-icount, no test", sa->n, sb->n);
	else
		res->reproduced = xasprintf("%s -> %s %s (%s%s, p %s, n %zu/%zu)",
					    num(res->rfrom).s, num(res->rto).s, a->rec->unit,
					    statistic_label(res->statistic, how_from, how_to),
					    pct_str(res->rpct).s, cmp_p(&cm).s, sa->n, sb->n);
	if (!res->verdict)
		res->verdict = verdict(c, res, &cm, sa, sb, cl, r->alpha);
}

/* the text of a claimed change: two figures, a range or one change */
static char *claimed_text(const struct claim *c, double cpct, const struct claimed *cl)
{
	int d = cl->dpct >= 0 ? cl->dpct : 1;

	if (!isnan(c->cfrom))
		return xasprintf("%s -> %s (%+.*f%%)", num(c->cfrom).s, num(c->cto).s, d, cpct);
	if (c->pct_lo != c->pct_hi)
		return xasprintf("%+.0f%%..%+.0f%%", c->pct_hi, c->pct_lo);
	return xasprintf("%+.*f%%", cl->dpct >= 0 ? cl->dpct : 0, c->pct_lo);
}

/*
 * The claim against its patch's changelog: its quote there, and each
 * claimed number among the quote's figures.  NULL when it holds, else the
 * stale verdict.  Marks the changelog's figures that the quote holds.
 */
static char *check_quote(struct report *r, const struct claim *c, ssize_t pi,
			 const char *source, struct claimed *cl)
{
	struct series_patch *p = &r->series.p[pi];
	const double want[] = { c->cfrom, c->cto, c->pct_lo, c->pct_hi };
	int *dec[] = { &cl->dfrom, &cl->dto, &cl->dpct, &cl->dpct };
	const struct figure *f;
	struct figure *qf;
	size_t *ranges, nfrag, nq, i, k;
	char *why = NULL;

	if (!quote_find(p->log, c->quote, &ranges, &nfrag)) {
		free(ranges);
		return xasprintf("stale: the changelog of %s does not say \"%s\" (any more): %s",
				 source, c->quote, "lib/claims.def must claim what it says now");
	}
	for (i = 0; i < p->nfigs; i++)
		for (k = 0; k < nfrag; k++)
			if (!p->figs[i].claim && p->figs[i].off >= ranges[2 * k] &&
			    p->figs[i].off < ranges[2 * k + 1])
				p->figs[i].claim = c->id;
	free(ranges);
	nq = series_figures(c->quote, 1, &qf);
	for (i = 0; i < ARRAY_SIZE(want) && !why; i++) {
		if (isnan(want[i]))
			continue;
		f = quote_figure(qf, nq, want[i]);
		if (f)
			*dec[i] = f->decimals;
		else
			why = xasprintf("stale: lib/claims.def claims %g, %s \"%s\" of %s %s",
					want[i], "which its quote", c->quote, source,
					"does not say");
	}
	free(qf);
	return why;
}

/*
 * The column of a claim's commit: "base", "head", "patch" or "parent";
 * -1 when it is not in the report.  A parent that is not, where the
 * patch is, is the column before the patch's: *note says so.
 */
static ssize_t claim_commit(const struct report *r, ssize_t pi, const char *sel, char **note)
{
	const struct series *se = &r->series;
	ssize_t c, k;
	size_t i;

	if (!strcmp(sel, "base"))
		return r->t.ncols ? 0 : -1;
	if (!strcmp(sel, "head")) {
		/* the series' last patch, not the report's last column (CI_COMMITS) */
		if (!se->napplied)
			return r->t.ncols ? (ssize_t)r->t.ncols - 1 : -1;
		for (i = 0; i < se->n && se->p[i].number != se->napplied; i++)
			;
		return patch_column(r, i);
	}
	if (pi < 0 || !se->p[pi].number)
		return -1;
	if (!strcmp(sel, "patch"))
		return patch_column(r, pi);
	if (se->p[pi].number == 1)
		return r->t.ncols ? 0 : -1;
	for (i = 0; i < se->n && se->p[i].number != se->p[pi].number - 1; i++)
		;
	c = patch_column(r, i);
	k = patch_column(r, pi);
	if (c < 0 && k > 0) {
		c = k - 1;
		*note = xasprintf(" (%u/%u, the parent, is not in the report: %s -> %u/%u %s)",
				  se->p[i].number, se->napplied, col_name(r, c).s, se->p[pi].number,
				  se->napplied, "is the change of several patches");
	}
	return c;
}

/*
 * Beside a claim, the change of the same cases and commits in the cache
 * model's est_cycles (bench-vm --model cache), where the records have it:
 * what the model says of the work the claim times.
 */
static void model_beside(const struct report *r, const struct claim *c,
			 struct claim_result *res, ssize_t fa, ssize_t fb, const char *setup)
{
	struct pair p;
	enum pair_found found = find_pair(&r->t, c->suite, c->from_case, c->to_case,
					  "est_cycles", fa, fb, setup, &p);

	if (found == PAIR_MISSING || !p.a->rec->model || !p.b->rec->model) {
		pair_free(&p);
		return;
	}
	if (found == PAIR_DIFFER) {
		res->model = xasprintf("not comparable: %s", p.why);
		pair_free(&p);
		return;
	}
	res->mfrom = p.ca->s.mean;
	res->mto = p.cb->s.mean;
	res->mpct = stats_pct(p.ca->s.mean, p.cb->s.mean);
	res->model = xasprintf("est_cycles %s -> %s (%s; %s)", num(res->mfrom).s,
			       num(res->mto).s, pct_str(res->mpct).s, p.b->rec->model_label);
	pair_free(&p);
}

static void claim_eval(struct report *r, const struct claim *c, struct claim_result *res)
{
	enum pair_found found = PAIR_MISSING;
	struct pair pr = { 0 };
	struct claimed cl = { .dfrom = -1, .dto = -1, .dpct = -1 };
	ssize_t fa, fb, pi = series_find(&r->series, c->patch);
	char *note = NULL;

	memset(res, 0, sizeof(*res));
	res->id = c->id;
	res->patch = c->patch;
	res->measures = measures_of(c->id);
	res->quote = c->quote;
	res->what = c->what;
	res->suite = c->suite;
	res->metric = c->metric;
	res->from_case = c->from_case;
	res->to_case = c->to_case;
	res->cfrom = c->cfrom;
	res->cto = c->cto;
	res->rfrom = NAN;
	res->rto = NAN;
	res->rpct = NAN;
	res->sdfrom = NAN;
	res->sdto = NAN;
	res->p = NAN;
	res->mfrom = NAN;
	res->mto = NAN;
	res->mpct = NAN;
	if (pi >= 0) {
		res->source = patch_name(&r->series, pi);
		res->verdict = check_quote(r, c, pi, res->source, &cl);
		res->stale = !!res->verdict;
	} else if (!r->series.path) {
		res->source = xasprintf("patch %s (no patches/series read)", c->patch);
	} else {
		res->source = xasprintf("patch %s: not in %s", c->patch, r->series.path);
		res->verdict = xasprintf("not in the series: %s has no patch %s (%u applied)",
					 r->series.path, c->patch, r->series.napplied);
	}
	if (!c->suite) {
		res->cpct = NAN;
		res->claimed = xasprintf("\"%s\"", c->quote);
		res->reproduced = xstrdup("-");
		if (!res->verdict)
			res->verdict = xstrdup(NO_VERDICT);
		res->setup = xstrdup("");
		return;
	}
	cl.lo = !isnan(c->pct_lo) ? fmin(c->pct_lo, c->pct_hi) : stats_pct(c->cfrom, c->cto);
	cl.hi = !isnan(c->pct_lo) ? fmax(c->pct_lo, c->pct_hi) : cl.lo;
	res->cpct = !isnan(c->pct_lo) ? c->pct_lo : cl.lo;
	res->claimed = claimed_text(c, res->cpct, &cl);
	fa = claim_commit(r, pi, c->from, &note);
	fb = claim_commit(r, pi, c->to, &note);
	res->from_commit = fa >= 0 ? r->t.cols[fa].key : NULL;
	res->to_commit = fb >= 0 ? r->t.cols[fb].key : NULL;
	if (strcmp(c->from_case, c->to_case))
		res->setup = xasprintf("%s %s -> %s %s%s", fa >= 0 ? col_name(r, fa).s : c->from,
				       c->from_case, fb >= 0 ? col_name(r, fb).s : c->to,
				       c->to_case, note ? note : "");
	else
		res->setup = xasprintf("%s -> %s, %s%s", fa >= 0 ? col_name(r, fa).s : c->from,
				       fb >= 0 ? col_name(r, fb).s : c->to, c->to_case,
				       note ? note : "");
	free(note);
	if (fa >= 0 && fb >= 0)
		found = find_pair(&r->t, c->suite, c->from_case, c->to_case, c->metric, fa, fb,
				  NULL, &pr);
	if (fa < 0 || fb < 0) {
		if (!res->verdict && pi < 0)
			res->verdict = xasprintf("no data: no patches/series to find patch %s in",
						 c->patch);
		else if (!res->verdict && fb < 0 && !strcmp(c->to, "head"))
			res->verdict = xasprintf("no data: the head (%u/%u) is not in the report",
						 r->series.napplied, r->series.napplied);
		else if (!res->verdict)
			res->verdict = xasprintf("no data: %s is not in the report",
						 fb < 0 ? res->source :
						 "its parent (nor any commit before it)");
		res->reproduced = xstrdup("-");
	} else if (found == PAIR_MISSING) {
		if (!res->verdict)
			res->verdict = xasprintf("no data: no %s record of %s at %s", c->metric,
						 !pr.ca ? c->from_case : c->to_case,
						 col_name(r, !pr.ca ? fa : fb).s);
		res->reproduced = xstrdup("-");
	} else if (found == PAIR_DIFFER) {
		/* two setups: no figures, no verdict of figures (the reply's Tested-by) */
		char *setup = xasprintf("%s; %s vs %s", res->setup, pr.sa, pr.sb);

		free(res->setup);
		res->setup = setup;
		if (!res->verdict)
			res->verdict = xasprintf("not comparable: %s", pr.why);
		res->reproduced = xstrdup("-");
	} else {
		reproduce(r, c, res, pr.a, pr.b, pr.ca, pr.cb, &cl);
		limits_eval(r, res, pr.b, fb);
		model_beside(r, c, res, fa, fb, pr.setup);
		res->predicted = predict_beside(r, c->suite, c->from_case, c->to_case, fa, fb);
	}
	/* a bind claim without records: its claimed side's limits alone */
	if (!res->limits)
		limits_eval(r, res, NULL, 0);
	pair_free(&pr);
}

void claims_eval(struct report *r)
{
	char applied[32];
	size_t i, j;

	measures_check();
	limits_check(claim_known);
	series_read(r);
	map_columns(r);
	r->nclaims = ARRAY_SIZE(claims);
	r->claims = xcalloc(r->nclaims, sizeof(*r->claims));
	for (i = 0; i < r->nclaims; i++)
		claim_eval(r, &claims[i], &r->claims[i]);
	/* a patch that is not in the series: named once, whatever its claims */
	for (i = 0; i < r->nclaims; i++) {
		for (j = 0; j < i && strcmp(claims[j].patch, claims[i].patch); j++)
			;
		if (j < i || series_find(&r->series, claims[i].patch) >= 0)
			continue;
		snprintf(applied, sizeof(applied), "(%u applied)", r->series.napplied);
		if (r->series.path)
			warn("claims: lib/claims.def names patch '%s', which %s has not %s: %s",
			     claims[i].patch, r->series.path, applied, "its claims say so");
		else if (!i || series_find(&r->series, claims[0].patch) >= 0)
			warn("claims: no patches/series here: %s (%s)",
			     "the claims of patches have no commits",
			     "run ci-report where patches/ is, as make does");
	}
	for (i = 0; i < r->series.n; i++)
		for (j = 0; j < r->series.p[i].nfigs; j++) {
			r->nfigs++;
			r->nfigs_claimed += !!r->series.p[i].figs[j].claim;
		}
}

/* the entry of the series of column c, or NULL: for the plots' names */
const struct series_patch *column_patch(const struct report *r, size_t c)
{
	return r->col_patch && r->col_patch[c] >= 0 ? &r->series.p[r->col_patch[c]] : NULL;
}

void claims_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nclaims; i++) {
		free(r->claims[i].source);
		free(r->claims[i].claimed);
		free(r->claims[i].reproduced);
		free(r->claims[i].verdict);
		free(r->claims[i].setup);
		free(r->claims[i].model);
		free(r->claims[i].predicted);
		if (r->claims[i].limits)
			free(r->claims[i].limits->rcpu);
		free(r->claims[i].limits);
	}
	free(r->claims);
	r->claims = NULL;
	r->nclaims = 0;
	for (i = 0; i < r->series.n; i++) {
		free(r->series.p[i].path);
		free(r->series.p[i].status);
		free(r->series.p[i].upstream);
		free(r->series.p[i].subject);
		free(r->series.p[i].log);
		free(r->series.p[i].figs);
	}
	free(r->series.p);
	free(r->series.path);
	memset(&r->series, 0, sizeof(r->series));
	free(r->col_patch);
	r->col_patch = NULL;
}
