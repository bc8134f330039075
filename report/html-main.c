// SPDX-License-Identifier: GPL-2.0
/*
 * html-main.c - ci-html: a report as one self-contained HTML page, for a
 * reviewer to open with no network and no framework.
 *
 *   ci-html --report DIR --out FILE [--title TEXT] [--merge FILE.md]
 *           [--range-diff FILE] [--range-diff-note TEXT] [--report-cmd TEXT]
 *
 * DIR is what ci-report wrote (report.md, report.json, plots/ drawn by
 * gnuplot).  The page puts the answer first and in this order: the
 * summary per patch, the claims, the results by CPU (--merge: ci-merge's
 * merge.md), the gate with its acknowledgements, the plots, the
 * range-diff to the previous version, the commands that reproduce it;
 * then the rest of report.md in its order.  The Markdown is report.md's,
 * rendered by cmark-gfm (GFM tables) with raw HTML left out, so a commit
 * subject is text, never markup; the plots are gnuplot's SVG as data:
 * images (a script in an SVG never runs in an <img>), and a
 * Content-Security-Policy lets the page load nothing else.  The same
 * inputs give the same bytes: nothing of the clock or the host is read.
 * The page is written aside and renamed in (outputs.h).  Exit 0; 1 an
 * input missing or unreadable (no page written); 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <json-c/json.h>

#include "outputs.h"
#include "util.h"

struct section {
	char *title;	/* its heading's text */
	struct cmark_node **nodes;
	size_t n;
	int shown;
};

struct page {
	struct cmark_parser *parser;
	struct cmark_node *doc;
	struct section *s;
	size_t ns;
	const char *dir;
	FILE *f;
};

/* the sections the page leads with, by report.md's heading, in order */
static const char *const lead[] = { "Summary", "Claimed vs reproduced",
				    "Limits of the claims" };
static const char *const after_gate[] = { "Regression gate" };
/* the page's own sections, and the gate between them: id, link text */
static const char *const fixed[][2] = {
	{ "results-by-cpu-make-merge", "Results by CPU" },
	{ "regression-gate", "Regression gate" },
	{ "plots", "Plots" },
	{ "range-diff-to-the-previous-version", "Range-diff" },
	{ "reproduce", "Reproduce" },
};

static void usage_exit(void)
{
	fprintf(stderr,
		"%s: usage: ci-html --report DIR --out FILE [--title TEXT] [--merge FILE.md] [--range-diff FILE] [--range-diff-note TEXT] [--report-cmd TEXT]\n",
		prog_name());
	exit(2);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		die("input: %s: %s", path, strerror(errno));
	do {
		if (cap - n < 65536)
			buf = xrealloc(buf, cap = cap * 2 + 65536);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f))
		die("input: %s: read error", path);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* a heading's id: its letters and digits, lower case, '-' between words */
static void slug(FILE *f, const char *s)
{
	int dash = 0, any = 0;

	for (; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    (*s >= 'A' && *s <= 'Z')) {
			if (dash && any)
				fputc('-', f);
			fputc(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s, f);
			dash = 0;
			any = 1;
		} else {
			dash = 1;
		}
	}
}

/* the plain text of a node's inlines (a heading's title) */
static char *node_text(cmark_node *n)
{
	cmark_iter *it = cmark_iter_new(n);
	char *out = xstrdup("");
	cmark_event_type ev;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cmark_iter_get_node(it);
		const char *lit;
		char *t;

		if (ev != CMARK_EVENT_ENTER)
			continue;
		if (cmark_node_get_type(c) != CMARK_NODE_TEXT &&
		    cmark_node_get_type(c) != CMARK_NODE_CODE)
			continue;
		lit = cmark_node_get_literal(c);
		t = xasprintf("%s%s", out, lit ? lit : "");
		free(out);
		out = t;
	}
	cmark_iter_free(it);
	return out;
}

/*
 * Links and images that would leave the page: a link to plots/ goes to
 * the page's plots; any other relative link or image becomes its text
 * (the files beside report.md are not beside the page).
 */
static void keep_inside(cmark_node *doc)
{
	cmark_iter *it = cmark_iter_new(doc);
	cmark_node **v = NULL;
	size_t n = 0, i;
	cmark_event_type ev;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(c);

		if (ev == CMARK_EVENT_ENTER && (t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = c;
		}
	}
	cmark_iter_free(it);
	for (i = 0; i < n; i++) {
		const char *url = cmark_node_get_url(v[i]);
		cmark_node *ch;

		if (!url)
			url = "";
		if (cmark_node_get_type(v[i]) == CMARK_NODE_LINK &&
		    (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7) || *url == '#'))
			continue;
		if (cmark_node_get_type(v[i]) == CMARK_NODE_LINK && !strncmp(url, "plots/", 6)) {
			cmark_node_set_url(v[i], "#plots");
			continue;
		}
		while ((ch = cmark_node_first_child(v[i])))
			cmark_node_insert_before(v[i], ch);
		cmark_node_free(v[i]);
	}
	free(v);
}

/* report.md cut at its level-2 headings; what comes before the first is left out */
static void sections_read(struct page *p, const char *path)
{
	size_t len;
	char *md = slurp(path, &len);
	cmark_node *doc, *c, *next;
	struct section *cur = NULL;

	cmark_parser_feed(p->parser, md, len);
	doc = cmark_parser_finish(p->parser);
	p->doc = doc;
	free(md);
	keep_inside(doc);
	for (c = cmark_node_first_child(doc); c; c = next) {
		next = cmark_node_next(c);
		if (cmark_node_get_type(c) == CMARK_NODE_HEADING &&
		    cmark_node_get_heading_level(c) <= 2) {
			if (cmark_node_get_heading_level(c) == 1) {
				cur = NULL;
				continue;
			}
			p->s = xrealloc(p->s, (p->ns + 1) * sizeof(*p->s));
			cur = &p->s[p->ns++];
			memset(cur, 0, sizeof(*cur));
			cur->title = node_text(c);
			continue;
		}
		if (!cur)
			continue;
		cur->nodes = xrealloc(cur->nodes, (cur->n + 1) * sizeof(*cur->nodes));
		cur->nodes[cur->n++] = c;
	}
	if (!p->ns)
		die("input: %s: no '## ' sections: not a report.md of ci-report", path);
}

static void heading(FILE *f, const char *title)
{
	fputs("<section id=\"", f);
	slug(f, title);
	fputs("\">\n<h2>", f);
	esc(f, title);
	fputs("</h2>\n", f);
}

static void md_section(struct page *p, struct section *s)
{
	size_t i;

	heading(p->f, s->title);
	for (i = 0; i < s->n; i++) {
		char *html = cmark_render_html(s->nodes[i], CMARK_OPT_DEFAULT,
					       cmark_parser_get_syntax_extensions(p->parser));

		fputs(html, p->f);
		free(html);
	}
	fputs("</section>\n", p->f);
	s->shown = 1;
}

static void md_sections(struct page *p, const char *const *titles, size_t n)
{
	size_t i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < p->ns; i++)
			if (!p->s[i].shown && streq(p->s[i].title, titles[j]))
				md_section(p, &p->s[i]);
}

/* ci-merge's merge.md: its table, under this page's heading */
static void merge_section(struct page *p, const char *path)
{
	FILE *f = p->f;

	heading(f, "Results by CPU (make merge)");
	if (!path) {
		fputs("<p>No make merge was given (MERGE=DIR: the directory make merge wrote,\n"
		      "its merge.md): this page is of one set of records.</p>\n", f);
	} else {
		cmark_parser *mp = cmark_parser_new(CMARK_OPT_DEFAULT);
		size_t len;
		char *md = slurp(path, &len), *html;
		cmark_node *doc, *c;

		fputs("<p>make merge's table, from <code>", f);
		esc(f, path);
		fputs("</code>:</p>\n", f);
		cmark_parser_attach_syntax_extension(mp, cmark_find_syntax_extension("table"));
		cmark_parser_feed(mp, md, len);
		doc = cmark_parser_finish(mp);
		free(md);
		keep_inside(doc);
		/* its own "# Results by CPU model" is this section's heading */
		c = cmark_node_first_child(doc);
		if (c && cmark_node_get_type(c) == CMARK_NODE_HEADING)
			cmark_node_free(c);
		html = cmark_render_html(doc, CMARK_OPT_DEFAULT,
					 cmark_parser_get_syntax_extensions(mp));
		fputs(html, f);
		free(html);
		cmark_node_free(doc);
		cmark_parser_free(mp);
	}
	fputs("</section>\n", f);
}

static void base64(FILE *f, const unsigned char *s, size_t n)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		fputc(a[s[i] >> 2], f);
		fputc(a[(s[i] & 3) << 4 | s[i + 1] >> 4], f);
		fputc(a[(s[i + 1] & 15) << 2 | s[i + 2] >> 6], f);
		fputc(a[s[i + 2] & 63], f);
	}
	if (n - i == 1) {
		fputc(a[s[i] >> 2], f);
		fputc(a[(s[i] & 3) << 4], f);
		fputs("==", f);
	} else if (n - i == 2) {
		fputc(a[s[i] >> 2], f);
		fputc(a[(s[i] & 3) << 4 | s[i + 1] >> 4], f);
		fputc(a[(s[i + 1] & 15) << 2], f);
		fputc('=', f);
	}
}

/*
 * The plots, as plots/index.md lists them ("- NAME.svg (.png): what it
 * shows"), each drawn inline; a plot the index names and gnuplot did not
 * draw stops the page (make report said why).
 */
static void plots_section(struct page *p)
{
	char *index_path = xasprintf("%s/plots/index.md", p->dir);
	char *index = slurp(index_path, NULL), *line, *save = NULL;
	FILE *f = p->f;
	size_t nplots = 0;

	heading(f, "Plots");
	for (line = strtok_r(index, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *svg, *path, *caption, *data;
		size_t len;

		caption = strstr(line, ".svg (.png): ");
		if (strncmp(line, "- ", 2) || !caption)
			continue;
		svg = strndup(line + 2, caption + 4 - (line + 2));
		if (!svg)
			die("out of memory");
		caption += strlen(".svg (.png): ");
		if (strchr(svg, '/') || *svg == '.')
			die("input: %s: '%s' is not a file of plots/", index_path, svg);
		path = xasprintf("%s/plots/%s", p->dir, svg);
		data = slurp(path, &len);
		if (!strstr(data, "<svg"))
			die("input: %s: not an SVG (gnuplot's svg terminal draws it: make report)",
			    path);
		fputs("<figure>\n<img alt=\"", f);
		esc(f, caption);
		fputs("\" src=\"data:image/svg+xml;base64,", f);
		base64(f, (const unsigned char *)data, len);
		fputs("\">\n<figcaption>", f);
		esc(f, caption);
		fputs(" (", f);
		esc(f, svg);
		fputs(")</figcaption>\n</figure>\n", f);
		nplots++;
		free(data);
		free(path);
		free(svg);
	}
	if (!nplots)
		fputs("<p>No plots: plots/index.md lists none.</p>\n", f);
	fputs("</section>\n", f);
	free(index);
	free(index_path);
}

static void range_diff_section(struct page *p, const char *path, const char *note)
{
	FILE *f = p->f;

	heading(f, "Range-diff to the previous version");
	if (note || !path) {
		fputs("<p>", f);
		esc(f, note ? note : "Not given.");
		fputs("</p>\n", f);
	}
	if (path) {
		char *text = slurp(path, NULL);

		fputs("<pre>", f);
		esc(f, text);
		fputs("</pre>\n", f);
		free(text);
	}
	fputs("</section>\n", f);
}

/* a word for a POSIX shell: as it is when it is safe, else single-quoted */
static void sh_word(FILE *f, const char *s)
{
	const char *c;

	static const char plain[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=+-:,@%";

	if (*s && strspn(s, plain) == strlen(s)) {
		esc(f, s);
		return;
	}
	fputc('\'', f);
	for (c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", f);
		else
			esc(f, (char[]){ *c, 0 });
	}
	fputc('\'', f);
}

/* the commands that make this page's figures again, from report.json's claims */
static void reproduce_section(struct page *p, const char *report_cmd)
{
	char *json_path = xasprintf("%s/report.json", p->dir);
	struct json_object *r = json_object_from_file(json_path), *claims, *c, *v;
	FILE *f = p->f;
	size_t i, n, guest = 0;

	if (!r || !json_object_object_get_ex(r, "claims", &claims) ||
	    !json_object_is_type(claims, json_type_array))
		die("input: %s: not ci-report's report.json (no claims array)", json_path);
	heading(f, "Reproduce");
	fputs("<p>This page again, from the same records (the same bytes):</p>\n<pre>", f);
	esc(f, report_cmd ? report_cmd : "make html");
	fputs("</pre>\n<p>A guest claim's figures again, on any Debian 12 with QEMU (make\n"
	      "reproduce writes the kernels, the agent and a script that boots each side\n"
	      "as the records' run did and compares the samples):</p>\n<pre>", f);
	n = json_object_array_length(claims);
	for (i = 0; i < n; i++) {
		c = json_object_array_get_idx(claims, i);
		if (!json_object_object_get_ex(c, "suite", &v) ||
		    !streq(json_object_get_string(v), "bench-vm") ||
		    !json_object_object_get_ex(c, "id", &v))
			continue;
		fputs("make reproduce ID=", f);
		sh_word(f, json_object_get_string(v));
		fputs(" REPORT=", f);
		sh_word(f, json_path);
		fputs("\n", f);
		guest++;
	}
	if (!guest)
		fputs("(no guest claim in this report)\n", f);
	fputs("</pre>\n<p>A host claim (bench) is a timing of this machine's CPU: <code>make\n"
	      "bench</code> measures it again.  A reply to the series' thread with these\n"
	      "figures: <code>make reply REPORT=", f);
	sh_word(f, json_path);
	fputs("</code>.</p>\n</section>\n", f);
	json_object_put(r);
	free(json_path);
}

static const char style[] =
	"body{font:15px/1.45 sans-serif;max-width:80em;margin:1em auto;padding:0 1em;color:#111}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:13px}\n"
	"th,td{border:1px solid #bbb;padding:2px 6px;vertical-align:top;text-align:left}\n"
	"th{background:#eee}\n"
	"pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:13px}\n"
	"figure{margin:1em 0}\n"
	"figure img{max-width:100%;height:auto}\n"
	"figcaption{font-size:13px;color:#444}\n"
	"nav li{display:inline;margin-right:1em}\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "merge", required_argument, NULL, 'm' },
		{ "range-diff", required_argument, NULL, 'd' },
		{ "range-diff-note", required_argument, NULL, 'n' },
		{ "report-cmd", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *title = "x86-copy-series: CI report", *merge = NULL;
	const char *rd = NULL, *rd_note = NULL, *report_cmd = NULL;
	struct page p = { 0 };
	struct outputs o = { 0 };
	char *md_path;
	size_t i;
	int opt;

	prog_set("ci-html");
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			p.dir = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			title = optarg;
			break;
		case 'm':
			merge = optarg;
			break;
		case 'd':
			rd = optarg;
			break;
		case 'n':
			rd_note = optarg;
			break;
		case 'c':
			report_cmd = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind != argc || !p.dir || !out)
		usage_exit();

	cmark_gfm_core_extensions_ensure_registered();
	p.parser = cmark_parser_new(CMARK_OPT_DEFAULT);
	cmark_parser_attach_syntax_extension(p.parser, cmark_find_syntax_extension("table"));
	md_path = xasprintf("%s/report.md", p.dir);
	sections_read(&p, md_path);

	p.f = outputs_file(&o, out);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
	      " img-src data:; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>", p.f);
	esc(p.f, title);
	fprintf(p.f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	esc(p.f, title);
	fputs("</h1>\n<nav><ul>", p.f);
	for (i = 0; i < ARRAY_SIZE(lead); i++) {
		fputs("<li><a href=\"#", p.f);
		slug(p.f, lead[i]);
		fprintf(p.f, "\">%s</a></li>", lead[i]);
	}
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		fprintf(p.f, "<li><a href=\"#%s\">%s</a></li>", fixed[i][0], fixed[i][1]);
	for (i = 0; i < p.ns; i++) {
		size_t j;
		int led = streq(p.s[i].title, after_gate[0]);

		for (j = 0; j < ARRAY_SIZE(lead); j++)
			led |= streq(p.s[i].title, lead[j]);
		if (led)
			continue;
		fputs("<li><a href=\"#", p.f);
		slug(p.f, p.s[i].title);
		fputs("\">", p.f);
		esc(p.f, p.s[i].title);
		fputs("</a></li>", p.f);
	}
	fputs("</ul></nav>\n", p.f);

	md_sections(&p, lead, ARRAY_SIZE(lead));
	merge_section(&p, merge);
	md_sections(&p, after_gate, ARRAY_SIZE(after_gate));
	plots_section(&p);
	range_diff_section(&p, rd, rd_note);
	reproduce_section(&p, report_cmd);
	for (i = 0; i < p.ns; i++)
		if (!p.s[i].shown)
			md_section(&p, &p.s[i]);
	fputs("</body>\n</html>\n", p.f);
	outputs_close(&o, p.f);
	outputs_commit(&o);
	for (i = 0; i < p.ns; i++) {
		free(p.s[i].title);
		free(p.s[i].nodes);
	}
	free(p.s);
	cmark_node_free(p.doc);
	cmark_parser_free(p.parser);
	free(md_path);
	return 0;
}
