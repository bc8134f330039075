// SPDX-License-Identifier: GPL-2.0
/*
 * plots.c - gnuplot scripts and their data: the distribution of every
 * bench-vm rebind metric per commit (box plots with the samples beside),
 * and the bench curves over the size, one line per variant and commit.
 * Run them with gnuplot in their directory (ci/run.sh does).  See
 * report.h.
 *
 * Every text of a script (a patch's subject, a record's host, CPU,
 * metric, unit and variant, the file names) is written by one writer,
 * gp_str(), as a single-quoted gnuplot string: in a double-quoted one
 * gnuplot runs a backquoted text as a shell command (a Subject
 * "introduce `id>pwn` memcpy_nontemporal()" did, from an x axis label),
 * and a quote of the text would end the string and start a command.  In
 * single quotes gnuplot 5.4 expands nothing (no backquote, no @macro:
 * tried), and only a doubled ' stands for itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "format.h"
#include "report.h"
#include "util.h"

static void safe_name(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z') ||
			 (src[i] >= '0' && src[i] <= '9') || src[i] == '-' || src[i] == '.' ?
			 src[i] : '_';
	dst[i] = '\0';
}

static FILE *open_out(const char *dir, const char *name, const char *ext)
{
	char *p = xasprintf("%s/%s.%s", dir, name, ext);
	FILE *f = fopen(p, "w");

	if (!f)
		die("plots: %s: cannot create: %s", p, strerror(errno));
	free(p);
	return f;
}

static void close_out(FILE *f, const char *dir, const char *name)
{
	if (ferror(f) | fclose(f))
		die("plots: %s/%s: write failed: %s", dir, name, strerror(errno));
}

/* the length of the UTF-8 character at s (1 to 4), or 0 where none starts */
static size_t utf8_char(const unsigned char *s)
{
	size_t n, i;
	unsigned int c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* no overlong form, no surrogate, nothing past U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/*
 * A text as a label shows it, on one line: control characters dropped (a
 * newline would end the gnuplot command, or add a line to a data file),
 * a byte that starts no UTF-8 character shown as '?' (cairo and SVG take
 * UTF-8 only; gnuplot warns of anything else).
 */
static char *text_clean(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	char *out = xcalloc(strlen(text) + 1, 1), *o = out;
	size_t n;

	while (*s) {
		n = utf8_char(s);
		if (!n) {
			*o++ = '?';
			s++;
		} else if (n == 1 && (*s < 0x20 || *s == 0x7f)) {
			s++;
		} else {
			memcpy(o, s, n);
			o += n;
			s += n;
		}
	}
	*o = '\0';
	return out;
}

/*
 * The text of a key: at most width bytes, cut at a character with "..."
 * (a variant's name is a record's: a long one would push the curves out
 * of the picture, gnuplot "difficulty fitting plot titles into key")
 */
static char *text_cut(const char *text, size_t width)
{
	char *t = text_clean(text), *cut;
	size_t n = width - 3;

	if (strlen(t) <= width)
		return t;
	while (n > 0 && (t[n] & 0xc0) == 0x80)
		n--;
	cut = xasprintf("%.*s...", (int)n, t);
	free(t);
	return cut;
}

/* the one writer of a text in a script: a single-quoted gnuplot string */
static void gp_str(FILE *g, const char *text)
{
	char *t = text_clean(text), *s;

	fputc('\'', g);
	for (s = t; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		fputc(*s, g);
	}
	fputc('\'', g);
	free(t);
}

/* a line break between two single-quoted strings: a string of its own */
static void gp_newline(FILE *g)
{
	fprintf(g, ".\"\\n\".");
}

/* name.png, then name.svg of the same plot (name: safe_name's) */
static void gp_terminals(FILE *g, const char *name, int on)
{
	char *file = xasprintf("%s.%s", name, on ? "svg" : "png");

	if (on == 0)
		fprintf(g, "set terminal pngcairo noenhanced size 1100,650 font ',10'\n");
	else
		fprintf(g, "set terminal svg noenhanced size 1100,650 dynamic font ',10'\n");
	fprintf(g, "set output ");
	gp_str(g, file);
	fprintf(g, on ? "\nreplot\n" : "\n");
	free(file);
}

/*
 * Text as gnuplot lines of at most width characters, cut between words
 * (each line a string, joined by "\n"): a title that fits the picture
 * instead of running off both its edges.  At most maxl lines; what is
 * left is cut with "...".
 */
static void gp_wrapped(FILE *g, const char *text, size_t width, size_t maxl)
{
	char *clean = text_clean(text);
	const char *s = clean;
	size_t nl = 0;

	if (!*s)
		gp_str(g, "");
	while (*s && nl < maxl) {
		size_t n = strlen(s), cut = n;
		char *piece;

		while (*s == ' ')
			s++, n--;
		cut = n;
		if (n > width) {
			for (cut = width; cut > 0 && s[cut] != ' '; cut--)
				;
			/*
			 * a word longer than a line (an identifier: memcpy_
			 * nontemporal()) is cut after its last '_' that fits,
			 * else at the width: it would run into its
			 * neighbour's label
			 */
			if (!cut) {
				for (cut = width; cut > 1 && s[cut - 1] != '_'; cut--)
					;
				if (cut <= 1)
					cut = width;
				/* never inside a character */
				while (cut > 1 && (s[cut] & 0xc0) == 0x80)
					cut--;
			}
		}
		if (nl)
			gp_newline(g);
		if (nl + 1 == maxl && cut < n) {
			size_t end = cut + 3 > width ? width - 3 : cut;

			while (end > 0 && s[end] != ' ')
				end--;
			piece = xasprintf("%.*s...", (int)(end ? end : cut), s);
			cut = n;
		} else {
			piece = xasprintf("%.*s", (int)cut, s);
		}
		gp_str(g, piece);
		free(piece);
		s += cut;
		nl++;
	}
	free(clean);
}

/* the subtitle of a plot: what its figures are, on what */
static char *machine_text(const struct record *r, const char *setup)
{
	char *cpu = record_cpu_name(r), *t;

	t = setup ? xasprintf("%s (host %s). %s", setup, r->host ? r->host : "?",
			      record_accel_name(r)) :
		    xasprintf("%s, CPU: %s (host %s)", record_accel_name(r), cpu,
			      r->host ? r->host : "?");
	free(cpu);
	return t;
}

/* a title: its first line, then the subtitle wrapped to fit */
static void gp_title(FILE *g, const char *first, const char *sub)
{
	fprintf(g, "set title ");
	gp_wrapped(g, first, 150, 1);
	gp_newline(g);
	gp_wrapped(g, sub, 150, 3);
	fprintf(g, "\n");
}

/* words a short subject does without: its verb and article */
static const char *const lead_words[] = {
	"add", "adds", "extend", "use", "introduce", "optimize", "improve", "make", "move",
	"switch", "convert", "implement", "a", "an", "the",
};

/*
 * The name of column c on an x axis: "base", "2/7 template-based fast
 * path for zone-device..." (the patch's number and its subject without
 * its area and verb, in lines of 18), or the short commit id.
 */
static void gp_column_name(FILE *g, const struct report *r, size_t c)
{
	const struct series_patch *p = column_patch(r, c);
	const char *s;
	char *text;
	size_t i;

	if (c == 0) {
		gp_str(g, "base");
		return;
	}
	if (!p) {
		gp_str(g, short_id(r->t.cols[c].key).s);
		return;
	}
	s = strrchr(p->subject, ':') ? strrchr(p->subject, ':') + 1 : p->subject;
	for (;;) {
		while (*s == ' ')
			s++;
		for (i = 0; i < ARRAY_SIZE(lead_words); i++)
			if (!strncasecmp(s, lead_words[i], strlen(lead_words[i])) &&
			    s[strlen(lead_words[i])] == ' ')
				break;
		if (i == ARRAY_SIZE(lead_words))
			break;
		s += strlen(lead_words[i]);
	}
	text = xasprintf("%u/%u %s", p->number, r->series.napplied, s);
	gp_wrapped(g, text, 18, 4);
	free(text);
}

/* "base", "2/7" or the short commit id of column c: for a curve's key */
static struct text col_text(const struct report *r, size_t c)
{
	const struct series_patch *p = column_patch(r, c);
	struct text t;

	if (c == 0)
		snprintf(t.s, sizeof(t.s), "base");
	else if (p)
		snprintf(t.s, sizeof(t.s), "%u/%u", p->number, r->series.napplied);
	else
		t = short_id(r->t.cols[c].key);
	return t;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/*
 * An axis's unit for figures up to max: a time in us up to 1.2e6 reads
 * as 1,200 ms, not "1.2e+06" (gnuplot's default format past 1e5); a unit
 * that is not a time keeps its figures, with SI prefixes past 1e4
 * ("1.2M").  The data files are written divided by div.
 */
struct axis {
	double div;
	char unit[32];
	int si;			/* not a time, and large: "%.1s%c" ticks */
};

static void axis_for(const char *unit, double max, struct axis *a)
{
	static const struct {
		const char *unit, *next;
	} times[] = { { "ns", "us" }, { "us", "ms" }, { "ms", "s" } };
	size_t i;
	int time = 0;

	a->div = 1;
	a->si = 0;
	snprintf(a->unit, sizeof(a->unit), "%s", unit);
	for (;;) {
		for (i = 0; i < ARRAY_SIZE(times); i++)
			if (!strcmp(a->unit, times[i].unit))
				break;
		time |= i < ARRAY_SIZE(times) || !strcmp(a->unit, "s");
		if (i == ARRAY_SIZE(times) || !(max / a->div >= 1e4))
			break;
		a->div *= 1e3;
		snprintf(a->unit, sizeof(a->unit), "%s", times[i].next);
	}
	a->si = !time && max >= 1e4;
}

/* the y axis's label and tick format: "bind_us (ms)" */
static void gp_yaxis(FILE *g, const char *metric, const struct axis *a)
{
	char *text = xasprintf("%s (%s)", metric, a->unit);

	fprintf(g, "set ylabel ");
	gp_str(g, text);
	fprintf(g, "\n%s", a->si ? "set format y '%.1s%c'\n" : "");
	free(text);
}

/*
 * The change against the parent where the gate finds it beyond its
 * threshold (gate_decide), above the box of column c at x k: "-16.2%",
 * a regression in red.
 */
static void gp_gate_mark(FILE *g, const struct report *r, const struct row *w, size_t c,
			 size_t k, double div)
{
	const struct cell *cell = &w->cells[c];
	struct gate gd;
	char *text;

	gate_decide(r, w, c, &gd);
	if (!gd.beyond)
		return;
	text = xasprintf("%s%s", pct_str(gd.cm.pct).s,
			 gd.regression ? gd.ack ? " (accepted)" : " REGRESSION" : "");
	/* just above the highest sample of the box */
	fprintf(g, "set label %zu ", k + 1);
	gp_str(g, text);
	fprintf(g, " at %zu, %.17g %s textcolor rgb '%s'\n", k, cell->s.max / div,
		"center offset 0, 1 front", gd.regression ? "#c00000" : "#007000");
	free(text);
}

/* whether the gate decides on row w at some column (the plot's marks) */
static int row_gated(const struct report *r, const struct row *w)
{
	struct gate gd;
	size_t c;

	for (c = 1; c < r->t.ncols; c++) {
		gate_decide(r, w, c, &gd);
		if (gd.gated)
			return 1;
	}
	return 0;
}

static void plot_rebinds(const struct report *r, const char *dir, const struct row *w,
			 const char *base)
{
	const struct table *t = &r->t;
	char *name = row_name(w), *first, *sub, *text;
	double max = 0;
	struct axis ax;
	FILE *d, *g;
	size_t c, j, k = 0;

	for (c = 0; c < t->ncols; c++)
		if (w->cells[c].n)
			max = fmax(max, w->cells[c].s.max);
	axis_for(w->rec->unit, max, &ax);
	d = open_out(dir, base, "dat");
	g = open_out(dir, base, "gp");
	gp_terminals(g, base, 0);
	first = xasprintf("%s per commit%s", name, row_gated(r, w) ?
			  " (marked: the changes against the parent the gate decides on)" : "");
	sub = machine_text(w->rec, w->setup);
	gp_title(g, first, sub);
	free(first);
	free(sub);
	gp_yaxis(g, w->rec->metric, &ax);
	fprintf(g, "set grid ytics\nset key off\n");
	fprintf(g, "set style fill solid 0.25 border\nset boxwidth 0.4\nset bmargin 6\n");
	fprintf(g, "set xtics font ',8' (");
	for (c = 0; c < t->ncols; c++) {
		if (!w->cells[c].n)
			continue;
		for (j = 0; j < w->cells[c].n; j++)
			fprintf(d, "%.17g\n", w->cells[c].x[j] / ax.div);
		fprintf(d, "\n\n");
		fprintf(g, "%s", k ? ", " : "");
		gp_column_name(g, r, c);
		fprintf(g, " %zu", k);
		k++;
	}
	fprintf(g, ")\n");
	for (c = 0, k = 0; c < t->ncols; c++) {
		if (!w->cells[c].n)
			continue;
		gp_gate_mark(g, r, w, c, k, ax.div);
		k++;
	}
	fprintf(g, "set xrange [-0.7:%zu.7]\nset yrange [0:*]\n", k ? k - 1 : 0);
	text = xasprintf("%s.dat", base);
	fprintf(g, "plot for [i=0:%zu] ", k - 1);
	gp_str(g, text);
	fprintf(g, " index i using (i):1 with boxplot lc i+1, \\\n     for [i=0:%zu] ", k - 1);
	gp_str(g, text);
	fprintf(g, " index i using (i+0.3+0.08*(rand(0)-0.5)):1 with points pt 7 ps 0.5 lc i+1\n");
	free(text);
	gp_terminals(g, base, 1);
	close_out(d, dir, base);
	close_out(g, dir, base);
	free(name);
}

/*
 * Bench curves: x is the size (or len) parameter, one line per variant
 * and commit (the first and the last commit that have the experiment).
 */
static const char *const x_params[] = { "size", "len" };

static double x_of(const struct record *r, const char **key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(x_params); i++) {
		double x = record_param(r, x_params[i]);

		if (!isnan(x)) {
			*key = x_params[i];
			return x;
		}
	}
	return NAN;
}

/* the variant without its size: "fc-inline-4" -> "fc-inline" */
static void curve_name(char *dst, size_t len, const struct record *r, double x)
{
	const char *variant = record_param_str(r, "variant");
	struct text sfx = num_int(x);	/* whole, however wide */
	size_t n, s;

	snprintf(dst, len, "%s", variant ? variant : r->case_name);
	n = strlen(dst);
	s = strlen(sfx.s);
	if (n > s + 1 && !strcmp(dst + n - s, sfx.s) && strchr("-/", dst[n - s - 1]))
		dst[n - s - 1] = '\0';
}

/* v is a point of the curves of experiment/metric at column c: its x */
static int curve_row(const struct row *v, const char *experiment, const char *metric,
		     size_t c, double *x)
{
	const char *xkey;
	size_t len = strlen(experiment);

	if (strncmp(v->rec->case_name, experiment, len) || v->rec->case_name[len] != '/' ||
	    strcmp(v->rec->metric, metric) || !v->cells[c].n)
		return 0;
	*x = x_of(v->rec, &xkey);
	return !isnan(*x);
}

static int by_x(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* the points of curve CNAME at column c, by x, as a data block of D */
static void curve_data(const struct table *t, FILE *d, const char *experiment,
		       const char *metric, size_t c, const char *cname, const char *title,
		       double div)
{
	double (*pts)[2] = NULL, x;
	char vn[128], *clean;
	size_t k, j, np = 0;

	for (k = 0; k < t->nrows; k++) {
		if (!curve_row(&t->rows[k], experiment, metric, c, &x))
			continue;
		curve_name(vn, sizeof(vn), t->rows[k].rec, x);
		if (strcmp(vn, cname))
			continue;
		pts = xrealloc(pts, (np + 1) * sizeof(*pts));
		pts[np][0] = x;
		pts[np][1] = t->rows[k].cells[c].s.median / div;
		np++;
	}
	qsort(pts, np, sizeof(*pts), by_x);
	clean = text_clean(title);
	fprintf(d, "# %s\n", clean);
	free(clean);
	for (j = 0; j < np; j++)
		fprintf(d, "%.17g %.17g\n", pts[j][0], pts[j][1]);
	fprintf(d, "\n\n");
	free(pts);
}

/* the first and the last column that have the experiment; 0 when none */
static size_t curve_columns(const struct table *t, const char *experiment, const char *metric,
			    size_t cols[2], const struct row **any)
{
	size_t c, i, ncols = 0;
	double x;

	*any = NULL;
	for (c = 0; c < t->ncols; c++) {
		for (i = 0; i < t->nrows; i++) {
			if (!curve_row(&t->rows[i], experiment, metric, c, &x))
				continue;
			if (ncols < 2 && !(ncols == 1 && cols[0] == c))
				cols[ncols++] = c;
			else
				cols[1] = c;
			*any = &t->rows[i];
			break;
		}
	}
	return ncols;
}

static void plot_curves(const struct report *r, const char *dir, const char *experiment,
			const char *metric, FILE *index)
{
	const struct table *t = &r->t;
	char base[200], cname[128], *title, *sub, *key;
	const char *xkey = "size";
	size_t i, j, c, pass, nlines = 0, cols[2], ncols;
	const struct row *any;
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0, x;
	struct axis ax;
	char **lines = NULL;
	FILE *d, *g;

	ncols = curve_columns(t, experiment, metric, cols, &any);
	if (!any)
		return;
	x_of(any->rec, &xkey);
	/* one size only (memcpy-state: 4 KiB in three cache states): no curve */
	for (pass = 0; pass < ncols; pass++)
		for (i = 0; i < t->nrows; i++)
			if (curve_row(&t->rows[i], experiment, metric, cols[pass], &x)) {
				xmin = fmin(xmin, x);
				xmax = fmax(xmax, x);
				ymax = fmax(ymax, t->rows[i].cells[cols[pass]].s.median);
			}
	if (xmin == xmax)
		return;
	axis_for(any->rec->unit, ymax, &ax);
	title = xasprintf("bench-%s-%s", experiment, metric);
	safe_name(base, sizeof(base), title);
	free(title);
	d = open_out(dir, base, "dat");
	g = open_out(dir, base, "gp");
	for (pass = 0; pass < ncols; pass++) {
		size_t first = nlines;

		c = cols[pass];
		for (i = 0; i < t->nrows; i++) {
			int seen = 0;

			if (!curve_row(&t->rows[i], experiment, metric, c, &x))
				continue;
			curve_name(cname, sizeof(cname), t->rows[i].rec, x);
			title = xasprintf("%s @ %s", cname, col_text(r, c).s);
			for (j = first; j < nlines; j++)
				seen |= !strcmp(lines[j], title);
			if (seen) {
				free(title);
				continue;
			}
			lines = xrealloc(lines, (nlines + 1) * sizeof(*lines));
			lines[nlines++] = title;
			curve_data(t, d, experiment, metric, c, cname, title, ax.div);
		}
	}
	gp_terminals(g, base, 0);
	title = xasprintf("bench %s: median %s over %s", experiment, metric, xkey);
	sub = machine_text(any->rec, NULL);
	gp_title(g, title, sub);
	free(title);
	free(sub);
	title = xasprintf("%s (bytes)", xkey);
	fprintf(g, "set xlabel ");
	gp_str(g, title);
	free(title);
	fprintf(g, "\n");
	gp_yaxis(g, metric, &ax);
	fprintf(g, "set grid\nset key outside right\n");
	/* binary prefixes on a size axis of powers of two: "4Ki", not 4096 */
	if (xmin > 0 && xmax / xmin > 64)
		fprintf(g, "set logscale x 2\nset format x '%%.0b%%B'\n");
	fprintf(g, "plot ");
	title = xasprintf("%s.dat", base);
	for (i = 0; i < nlines; i++) {
		fprintf(g, "%s", i ? ", \\\n     " : "");
		gp_str(g, title);
		fprintf(g, " index %zu using 1:2 with linespoints dt %d title ", i,
			ends_with(lines[i], col_text(r, cols[0]).s) ? 1 : 2);
		key = text_cut(lines[i], 48);
		gp_str(g, key);
		free(key);
	}
	free(title);
	fprintf(g, "\n");
	gp_terminals(g, base, 1);
	fprintf(index,
		"- %s.svg (.png): bench %s, the median %s over %s, per variant at the first and the last commit\n",
		base, experiment, metric, xkey);
	for (i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	close_out(d, dir, base);
	close_out(g, dir, base);
}

/*
 * The bench experiments whose records have a size, with a metric each: a
 * pair, not one text (an experiment or a metric may have a blank).
 */
struct curve_key {
	char *experiment;
	const char *metric;
};

static size_t curve_experiments(const struct table *t, struct curve_key **out)
{
	size_t i, j, n = 0;
	struct curve_key *exps = NULL;

	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		const char *xkey, *slash = strchr(w->rec->case_name, '/');
		char *e;
		int seen = 0;

		/* memcpy-align has a size too, but its x is the alignment */
		if (strcmp(w->rec->suite, "bench") || !slash || isnan(x_of(w->rec, &xkey)) ||
		    !isnan(record_param(w->rec, "dst_page_offset")))
			continue;
		e = xasprintf("%.*s", (int)(slash - w->rec->case_name), w->rec->case_name);
		for (j = 0; j < n; j++)
			seen |= !strcmp(exps[j].experiment, e) && !strcmp(exps[j].metric,
									  w->rec->metric);
		if (seen) {
			free(e);
			continue;
		}
		exps = xrealloc(exps, (n + 1) * sizeof(*exps));
		exps[n].experiment = e;
		exps[n++].metric = w->rec->metric;
	}
	*out = exps;
	return n;
}

/*
 * A rebind row is flat when every commit's mean is within FLAT_PCT of the
 * first's (an unbind that no patch touches): its plot would show one
 * line; the index names it instead, with its spread.
 */
#define FLAT_PCT 1.0

static int row_flat(const struct row *w, size_t ncols, double *spread)
{
	size_t c, first = ncols;
	struct cmp cm;

	*spread = 0;
	for (c = 0; c < ncols; c++) {
		if (!w->cells[c].n)
			continue;
		if (first == ncols) {
			first = c;
			continue;
		}
		table_compare(&w->cells[first], &w->cells[c], &cm);
		if (!cm.valid || isnan(cm.pct) || fabs(cm.pct) >= FLAT_PCT)
			return 0;
		*spread = fmax(*spread, fabs(cm.pct));
	}
	return first < ncols;
}

/* a rebind row's plot: its samples per commit, the gate's marks */
static int rebind_row(const struct table *t, const struct row *w)
{
	size_t c, with = 0;

	for (c = 0; c < t->ncols; c++)
		with += w->cells[c].n >= 2;
	return !strcmp(w->rec->suite, "bench-vm") && strstr(w->rec->case_name, "/rebind") &&
	       unit_direction(w->rec->unit) && with;
}

/*
 * The summary chart of metric: per commit, each driver's change of the
 * mean against the base (the first commit with figures), a line per
 * rebind row; and the changelogs' claims on those rows, each at the
 * commit it names: the claimed change applied to this run's figure at
 * the claim's from-commit (so a claim against the base sits at its
 * figure), filled where it held here, open where it did not.  Claims
 * between two drivers, or of no row here, are not drawn (the report's
 * table has them).
 */
static int claim_on_row(const struct claim_result *cl, const struct row *w)
{
	return cl->suite && !strcmp(cl->suite, w->rec->suite) &&
	       !strcmp(cl->metric, w->rec->metric) && cl->from_case && cl->to_case &&
	       !strcmp(cl->from_case, w->rec->case_name) &&
	       !strcmp(cl->to_case, w->rec->case_name) && cl->from_commit && cl->to_commit &&
	       !isnan(cl->cpct) && !cl->stale && cl->setup && w->setup &&
	       strstr(cl->setup, w->setup) && claim_outcome(cl) != UNTOLD;
}

static ssize_t col_of(const struct table *t, const char *key)
{
	size_t c;

	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].key, key))
			return (ssize_t)c;
	return -1;
}

/* the change of row w's mean at column c against its first column; NAN: none */
static double vs_first(const struct table *t, const struct row *w, size_t c)
{
	size_t f;
	struct cmp cm;

	for (f = 0; f < t->ncols && !w->cells[f].n; f++)
		;
	if (f == t->ncols || !w->cells[c].n)
		return NAN;
	if (f == c)
		return 0;
	table_compare(&w->cells[f], &w->cells[c], &cm);
	return cm.valid ? cm.pct : NAN;
}

#define SUMMARY_CLAIMS_TEXT \
	"claims: filled where they held here, open where not; each at the commit it names, its claimed change applied to this run's figure at the commit it starts from."

static const char *const held_text[] = { "held here", "not held here" };

static int plot_summary(const struct report *r, const char *dir, const char *metric,
			FILE *index)
{
	const struct table *t = &r->t;
	const struct row **rows = NULL;
	size_t nrows = 0, i, c, k, npos = 0, nheld = 0, nnot = 0, blk;
	ssize_t (*claim_blk)[2];
	ssize_t *pos = xcalloc(t->ncols, sizeof(*pos));
	char base[200], *title, *text;
	FILE *d, *g;
	int b;

	for (i = 0; i < t->nrows; i++)
		if (rebind_row(t, &t->rows[i]) && !strcmp(t->rows[i].rec->metric, metric)) {
			rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
			rows[nrows++] = &t->rows[i];
		}
	for (c = 0; c < t->ncols; c++) {
		pos[c] = -1;
		for (i = 0; i < nrows && pos[c] < 0; i++)
			if (rows[i]->cells[c].n)
				pos[c] = (ssize_t)npos++;
	}
	if (npos < 2) {
		free(rows);
		free(pos);
		return 0;
	}
	title = xasprintf("summary-%s", metric);
	safe_name(base, sizeof(base), title);
	free(title);
	d = open_out(dir, base, "dat");
	g = open_out(dir, base, "gp");
	gp_terminals(g, base, 0);
	title = xasprintf("%s per commit: the change of the mean against the base, per driver%s",
			  metric, r->nclaims ? "; the changelogs' claims marked" : "");
	text = xasprintf("%s %s", SUMMARY_CLAIMS_TEXT, rows[0]->setup ? rows[0]->setup : "");
	gp_title(g, title, text);
	free(title);
	free(text);
	fprintf(g, "set ylabel ");
	gp_str(g, "change against the base (%)");
	fprintf(g, "\nset grid ytics\nset bmargin 11\n"
		   "set key at screen 0.5, 0.01 center bottom horizontal maxcols 3\n"
		   "set xzeroaxis lt -1\nset xtics font ',8' (");
	for (c = 0, k = 0; c < t->ncols; c++) {
		if (pos[c] < 0)
			continue;
		fprintf(g, "%s", k++ ? ", " : "");
		gp_column_name(g, r, c);
		fprintf(g, " %zd", pos[c]);
	}
	fprintf(g, ")\nset xrange [-0.7:%zu.7]\n", npos - 1);
	claim_blk = xcalloc(nrows, sizeof(*claim_blk));
	/* blocks 0..nrows-1: the rows; then per row, the claims held and not */
	for (i = 0; i < nrows; i++) {
		text = text_clean(rows[i]->rec->case_name);
		fprintf(d, "# %s\n", text);
		free(text);
		for (c = 0; c < t->ncols; c++)
			if (pos[c] >= 0 && !isnan(vs_first(t, rows[i], c)))
				fprintf(d, "%zd %.17g\n", pos[c], vs_first(t, rows[i], c));
		fprintf(d, "\n\n");
	}
	/* then the claims' blocks that have points (an empty one is a warning) */
	for (i = 0, blk = nrows; i < nrows; i++)
		for (b = 0; b < 2; b++) {
			char *pts = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&pts, &len);

			if (!m)
				die("plots: out of memory");
			for (k = 0; k < r->nclaims; k++) {
				const struct claim_result *cl = &r->claims[k];
				ssize_t fa, fb;
				double from;

				if (!claim_on_row(cl, rows[i]) ||
				    (claim_outcome(cl) == NOT_HELD) != b)
					continue;
				fa = col_of(t, cl->from_commit);
				fb = col_of(t, cl->to_commit);
				from = fa < 0 ? NAN : vs_first(t, rows[i], (size_t)fa);
				if (fb < 0 || pos[fb] < 0 || isnan(from))
					continue;
				fprintf(m, "%zd %.17g\n", pos[fb],
					((1 + from / 100) * (1 + cl->cpct / 100) - 1) * 100);
				b ? nnot++ : nheld++;
			}
			fclose(m);
			claim_blk[i][b] = len ? (ssize_t)blk++ : -1;
			if (len) {
				text = text_clean(rows[i]->rec->case_name);
				fprintf(d, "# claims %s on %s\n%s\n\n", b ? "not held" : "held",
					text, pts);
				free(text);
			}
			free(pts);
		}
	text = xasprintf("%s.dat", base);
	fprintf(g, "plot ");
	for (i = 0; i < nrows; i++) {
		double off = ((double)i - (double)(nrows - 1) / 2) * 0.1;

		fprintf(g, "%s", i ? ", \\\n     " : "");
		gp_str(g, text);
		fprintf(g, " index %zu using ($1%+.3f):2 with linespoints pt 7 lc %zu title ", i,
			off, i + 1);
		gp_str(g, rows[i]->rec->case_name);
		for (b = 0; b < 2; b++) {
			if (claim_blk[i][b] < 0)
				continue;
			fprintf(g, ", \\\n     ");
			gp_str(g, text);
			fprintf(g, " index %zd using ($1%+.3f):2 with points pt %d ps 1.6 lc %zu",
				claim_blk[i][b], off, b ? 8 : 9, i + 1);
			title = xasprintf("%s claims, %s", rows[i]->rec->case_name, held_text[b]);
			fprintf(g, " title ");
			gp_str(g, title);
			free(title);
		}
	}
	fprintf(g, "\n");
	free(text);
	gp_terminals(g, base, 1);
	close_out(d, dir, base);
	close_out(g, dir, base);
	fprintf(index,
		"- %s.svg (.png): %s per commit, each driver's change against the base; %zu claims marked (%zu held, %zu not)\n",
		base, metric, nheld + nnot, nheld, nnot);
	free(claim_blk);
	free(rows);
	free(pos);
	return 1;
}

/* the metrics of the summary charts: those the claims name, else memmap_init_ms */
static void plot_summaries(const struct report *r, const char *dir, FILE *index)
{
	const char **done = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < r->nclaims; i++) {
		const struct claim_result *cl = &r->claims[i];

		if (!cl->suite || strcmp(cl->suite, "bench-vm") || !cl->metric)
			continue;
		for (j = 0; j < n && strcmp(done[j], cl->metric); j++)
			;
		if (j < n)
			continue;
		done = xrealloc(done, (n + 1) * sizeof(*done));
		done[n++] = cl->metric;
		plot_summary(r, dir, cl->metric, index);
	}
	if (!n)
		plot_summary(r, dir, "memmap_init_ms", index);
	free(done);
}

void plots_write(const struct report *r, const char *dir)
{
	const struct table *t = &r->t;
	size_t i, j, nexp, nnames = 0;
	struct curve_key *exps;
	char **names = NULL, base[200];
	const char *setup0 = NULL;
	FILE *index;

	if (mkdir(dir, 0777) && errno != EEXIST)
		die("plots: %s: cannot create: %s", dir, strerror(errno));
	index = open_out(dir, "index", "md");
	fprintf(index, "# Plots\n\n%s\n\n",
		"Each a gnuplot script (.gp) and its data (.dat), drawn as .png and .svg (make report runs gnuplot).");
	for (i = 0; i < t->nrows && !setup0; i++)
		if (rebind_row(t, &t->rows[i]))
			setup0 = t->rows[i].setup;
	if (setup0)
		fprintf(index, "The guests' records: %s (a plot of other records says so).\n\n",
			setup0);
	plot_summaries(r, dir, index);
	for (i = 0; i < t->nrows; i++) {
		const struct row *w = &t->rows[i];
		char *name;
		double spread;
		size_t dup = 0;

		if (!rebind_row(t, w))
			continue;
		name = row_name(w);
		if (row_flat(w, t->ncols, &spread)) {
			fprintf(index,
				"- not drawn: %s, flat (every commit within %.2f%% of the first, under %.0f%%)\n",
				name, spread, FLAT_PCT);
			free(name);
			continue;
		}
		/* two setups of one row name (two CPU models) get two files */
		safe_name(base, sizeof(base) - 24, name);
		for (j = 0; j < nnames; j++)
			dup += !strcmp(names[j], base);
		names = xrealloc(names, (nnames + 1) * sizeof(*names));
		names[nnames++] = xstrdup(base);
		if (dup)
			snprintf(base + strlen(base), 24, "-%zu", dup + 1);
		plot_rebinds(r, dir, w, base);
		fprintf(index, "- %s.svg (.png): %s per commit, its samples%s%s%s\n", base, name,
			setup0 && w->setup && strcmp(w->setup, setup0) ? " (" : "",
			setup0 && w->setup && strcmp(w->setup, setup0) ? w->setup : "",
			setup0 && w->setup && strcmp(w->setup, setup0) ? ")" : "");
		free(name);
	}
	nexp = curve_experiments(t, &exps);
	for (j = 0; j < nexp; j++) {
		plot_curves(r, dir, exps[j].experiment, exps[j].metric, index);
		free(exps[j].experiment);
	}
	free(exps);
	for (j = 0; j < nnames; j++)
		free(names[j]);
	free(names);
	close_out(index, dir, "index.md");
}
