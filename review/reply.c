// SPDX-License-Identifier: GPL-2.0
/*
 * reply.c - ci-reproduce reply: a tester's plain-text reply to the cover
 * letter, from the report's claims (make reply, review/reply.sh).
 *
 *   ci-reproduce reply REPORT COVER FROM TOOLKIT_COMMIT WHERE CC
 *
 * WHERE says whose records the report is of (a run here, or a committed
 * set); CC: more recipients, comma-separated (the lists and people the
 * cover went to, when COVER is the local copy without its To and Cc).
 * On stdout, a mail as git format-patch writes one (a "From " line, then
 * the headers): From FROM, To the cover's author, Cc its To and Cc and CC,
 * "Subject: Re: <its subject>", In-Reply-To its Message-Id, References
 * its References and Message-Id.  The body, at most 75 columns: per
 * patch, each claim with the claimed figure, the reproduced one with its
 * clock label and spread (the samples' sd), the verdict, the author's
 * setup (lib/claims.def's words) beside this run's; the commands that
 * give the figures again; and a Tested-by: FROM only when every claim
 * that a record measures reproduced at least in direction (else the
 * claims that did not, and no Tested-by).  What the records hold (the
 * suites of the report's rows) is said, never what a full run would
 * have done; a claim whose suite has no records here is "no data",
 * listed apart, never counted as one that did not reproduce.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "mbox.h"
#include "reviewer.h"
#include "util.h"

#define COLS 75

/* TEXT from column COL on, words whole, continuation lines at INDENT */
static void wrap(FILE *f, size_t col, const char *indent, const char *text)
{
	const char *w = text;
	size_t len, first = 1;

	while (*w) {
		while (*w == ' ' || *w == '\n')
			w++;
		if (!*w)
			break;
		len = strcspn(w, "\n ");
		if (!first && col + 1 + len > COLS) {
			fprintf(f, "\n%s", indent);
			col = strlen(indent);
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)len, w);
		col += len;
		w += len;
		first = 0;
	}
	fputc('\n', f);
}

/* a paragraph from column 0: LEAD, then the phrases of PARTS (NULL-ended) */
static void para(FILE *f, const char *lead, const char *const *parts)
{
	char *t = xstrdup(lead), *u;

	for (; *parts; parts++) {
		u = xasprintf("%s %s", t, *parts);
		free(t);
		t = u;
	}
	wrap(f, 0, "", t);
	free(t);
}

static const char *const intro[] = {
	"Per patch, each figure its changelog quotes, what these records",
	"gave, and where the setups differ (author: the changelog's; here:",
	"these records'):", NULL
};

static const char *const icount_caveat[] = {
	"count of the work it did: the same on every boot and host with the",
	"same QEMU, but every REP MOVS iteration is one instruction, MOVNTI",
	"costs what MOV costs, and no cache is modelled; a change there is how",
	"much work a patch removes, not whether its cache behaviour pays on",
	"hardware.", NULL
};

static const char *const none[] = { NULL };

/* "  label:  text", the text wrapped under itself */
static void field(FILE *f, const char *label, const char *text)
{
	char lead[32], indent[32];

	snprintf(lead, sizeof(lead), "    %-12s", label);
	snprintf(indent, sizeof(indent), "%*s", (int)strlen(lead), "");
	fputs(lead, f);
	wrap(f, strlen(lead), indent, text && *text ? text : "-");
}

static double num_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

/* a claim of a suite whose records the report holds ("no data": none) */
static int no_data(json_object *c)
{
	const char *v = str_of(c, "verdict");

	return str_of(c, "suite") && v && !strncmp(v, "no data", 7);
}

/* a claim that a record of the report measures */
static int measured(json_object *c)
{
	return str_of(c, "suite") && !no_data(c);
}

static int held(json_object *c)
{
	const char *v = str_of(c, "verdict");

	return v && (!strncmp(v, "reproduced", 10) || !strncmp(v, "direction reproduced", 20));
}

static void claim_write(FILE *f, json_object *c)
{
	const char *clock = str_of(c, "clock");
	json_object *lim;
	char *rep;
	double a = num_of(c, "reproduced_sd_from"), b = num_of(c, "reproduced_sd_to");

	fprintf(f, "  %s\n", str_of(c, "id"));
	field(f, "claimed:", str_of(c, "claimed"));
	if (measured(c) && !isnan(a))
		rep = xasprintf("%s; sd %.3g / %.3g [%s]", str_of(c, "reproduced"), a, b,
				streq(clock, "icount") ? "tcg-icount" : clock ? clock : "?");
	else if (no_data(c))
		rep = xasprintf("no data: these records hold no %s records", str_of(c, "suite"));
	else
		rep = xstrdup(measured(c) ? "-" : "not measured here: no record measures it");
	field(f, "reproduced:", rep);
	free(rep);
	field(f, "verdict:", str_of(c, "verdict"));
	lim = json_object_object_get(c, "limits");
	if (lim && str_of(lim, "text"))
		field(f, "limits:", str_of(lim, "text"));
	field(f, "author:", str_of(c, "what"));
	if (measured(c))
		field(f, "here:", str_of(c, "setup"));
}

/* the claims of the patch whose source is SRC, in the report's order */
static void patch_write(FILE *f, json_object *claims, const char *src)
{
	size_t i, n = json_object_array_length(claims);

	fputc('\n', f);
	wrap(f, 0, "  ", src);
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(claims, i);

		if (streq(str_of(c, "source"), src))
			claim_write(f, c);
	}
}

/* "base 1a2b3c4d5e6f .. 9f8e7d6c5b4a, 8 commits" of the report's columns */
static char *commits_of(json_object *report)
{
	json_object *cols = json_object_object_get(report, "columns");
	size_t n = cols ? json_object_array_length(cols) : 0;

	if (!n)
		return xstrdup("no commits");
	return xasprintf("%.12s .. %.12s, %zu commits",
			 str_of(json_object_array_get_idx(cols, 0), "key"),
			 str_of(json_object_array_get_idx(cols, n - 1), "key"), n);
}

static const char *hosts_of(json_object *report)
{
	json_object *cols = json_object_object_get(report, "columns");
	size_t i;

	for (i = 0; cols && i < json_object_array_length(cols); i++) {
		const char *h = str_of(json_object_array_get_idx(cols, i), "hosts");

		if (h && *h)
			return h;
	}
	return "?";
}

/* the N strings of V joined by ", ", each freed */
static char *join_free(char **v, size_t n)
{
	char *list = NULL, *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", v[i]);
		free(list);
		list = t;
		free(v[i]);
	}
	return list;
}

/* a suite's words in "these records hold ..." */
static const char *suite_words(const char *suite)
{
	if (streq(suite, "build"))
		return "the kernel builds";
	if (streq(suite, "bench-vm"))
		return "each kernel booted in QEMU with emulated NVDIMMs, its rebinds timed";
	if (streq(suite, "bench"))
		return "the host benchmark (copy-bench)";
	return NULL;
}

/*
 * What the report's records hold, in words: its rows' suites in the
 * pipeline's order, the checks by name ("checks: sparse, cocci, ...").
 */
static char *held_of(json_object *report)
{
	static const char *const order[] = { "build", "checks", "bench-vm", "bench" };
	json_object *rows = json_object_object_get(report, "rows");
	size_t i, j, k, n = rows ? json_object_array_length(rows) : 0;
	char *out = NULL, *t, *checks = NULL;

	for (k = 0; k < ARRAY_SIZE(order); k++) {
		const char *words = NULL;

		for (i = 0; i < n; i++) {
			json_object *row = json_object_array_get_idx(rows, i);
			const char *case_ = str_of(row, "case");
			size_t len;

			if (!streq(str_of(row, "suite"), order[k]))
				continue;
			words = order[k];
			if (strcmp(order[k], "checks") || !case_)
				continue;
			/* the check's name: the case up to its first '/' */
			len = strcspn(case_, "/");
			for (j = 0; j < i; j++) {
				json_object *o = json_object_array_get_idx(rows, j);
				const char *oc = str_of(o, "case");

				if (streq(str_of(o, "suite"), "checks") && oc &&
				    strcspn(oc, "/") == len && !strncmp(oc, case_, len))
					break;
			}
			if (j < i)
				continue;
			t = xasprintf("%s%s%.*s", checks ? checks : "", checks ? ", " : "",
				      (int)len, case_);
			free(checks);
			checks = t;
		}
		if (!words)
			continue;
		if (streq(words, "checks"))
			t = xasprintf("%s%sthe checks (%s)", out ? out : "", out ? "; " : "",
				      checks ? checks : "none named");
		else
			t = xasprintf("%s%s%s", out ? out : "", out ? "; " : "",
				      suite_words(words));
		free(out);
		out = t;
	}
	free(checks);
	return out ? out : xstrdup("no records of the pipeline's steps");
}

int cmd_reply(const char *report, const char *cover, const char *from, const char *toolkit,
	      const char *where, const char *more_cc)
{
	json_object *r = report_load(report), *claims = json_object_object_get(r, "claims");
	struct mbox box = { 0 };
	const struct mbox_msg *m;
	const char *id, *subj, *refs, *to, *cc, *date;
	char err[512], **bad = NULL, **nodata = NULL, *commits, *lead, *holds;
	size_t i, j, n, nmeasured = 0, nbad = 0, nnodata = 0;
	int have_to, have_cc, have_more = more_cc && *more_cc;
	FILE *f = stdout;

	if (mbox_read(cover, &box, err, sizeof(err)))
		die("cover: %s", err);
	if (box.nmsg != 1 || box.msg[0].err)
		die("cover: %s: not one mail (%zu)%s%s", cover, box.nmsg,
		    box.nmsg ? ": " : "", box.nmsg && box.msg[0].err ? box.msg[0].err : "");
	m = &box.msg[0];
	id = mbox_header(m, "Message-Id");
	subj = mbox_header(m, "Subject");
	if (!id || !subj || !*m->email)
		die("cover: %s has no %s: a reply needs its Message-Id, Subject and From", cover,
		    !id ? "Message-Id" : !subj ? "Subject" : "From address");
	refs = mbox_header(m, "References");
	to = mbox_header(m, "To");
	cc = mbox_header(m, "Cc");
	date = mbox_header(m, "Date");

	fprintf(f, "From x86-copy-series Mon Sep 17 00:00:00 2001\n");
	fprintf(f, "From: %s\n", from);
	fprintf(f, "To: %s <%s>\n", m->author, m->email);
	have_to = to && *to;
	have_cc = cc && *cc;
	if (have_to || have_cc || have_more)
		fprintf(f, "Cc: %s%s%s%s%s\n", have_to ? to : "", have_to && have_cc ? ", " : "",
			have_cc ? cc : "", (have_to || have_cc) && have_more ? ", " : "",
			have_more ? more_cc : "");
	fprintf(f, "Subject: %s%s\n", strncasecmp(subj, "Re:", 3) ? "Re: " : "", subj);
	fprintf(f, "In-Reply-To: %s\n", id);
	fprintf(f, "References: %s%s%s\n\n", refs ? refs : "", refs ? " " : "", id);

	fprintf(f, "On %s, %s wrote:\n", date ? date : "an unknown date", m->author);
	fputs("> ", f);
	wrap(f, 2, "> ", subj);
	fputc('\n', f);
	commits = commits_of(r);
	holds = held_of(r);
	lead = xasprintf("%s (%s) with x86-copy-series on host %s, from %s. They hold %s.",
			 "These are the series' commits", commits, hosts_of(r), where, holds);
	para(f, lead, intro);
	free(lead);
	free(holds);
	free(commits);

	n = claims ? json_object_array_length(claims) : 0;
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(claims, i);
		const char *src = str_of(c, "source");

		for (j = 0; j < i; j++)
			if (streq(str_of(json_object_array_get_idx(claims, j), "source"), src))
				break;
		if (j == i)
			patch_write(f, claims, src);
		if (no_data(c)) {
			nodata = xrealloc(nodata, (nnodata + 1) * sizeof(*nodata));
			nodata[nnodata++] = xstrdup(str_of(c, "id"));
		} else if (measured(c)) {
			nmeasured++;
			if (!held(c)) {
				bad = xrealloc(bad, (nbad + 1) * sizeof(*bad));
				bad[nbad++] = xstrdup(str_of(c, "id"));
			}
		}
	}

	fputc('\n', f);
	para(f, "Under the icount clock a guest's figures are a", icount_caveat);
	fprintf(f, "\nTo get these figures again (x86-copy-series %.12s):\n\n", toolkit);
	fputs("  make                # every commit: the report, out/ci/report.txt\n", f);
	fputs("  make reproduce ID=<claim id>    # one claim: kernels, tools, settings\n", f);
	fputs("  sh out/reproduce/<claim id, / as _>/reproduce.sh  # samples compared\n", f);
	fputc('\n', f);
	if (nnodata) {
		char *list = join_free(nodata, nnodata);

		lead = xasprintf("No data here for %zu claim%s (%s): %s.", nnodata,
				 nnodata == 1 ? "" : "s",
				 "these records hold none of their suite, so they are neither held nor failed",
				 list);
		para(f, lead, none);
		fputc('\n', f);
		free(lead);
		free(list);
	}
	free(nodata);
	if (!nmeasured) {
		para(f, "No claim was measured here, so no Tested-by.", none);
	} else if (nbad) {
		char *list = join_free(bad, nbad);

		lead = xasprintf("No Tested-by: %zu of the %zu claims measured here %s: %s.",
				 nbad, nmeasured, "did not reproduce in direction", list);
		para(f, lead, none);
		free(lead);
		free(list);
	} else {
		lead = xasprintf("Every one of the %zu claims measured here %s:", nmeasured,
				 "reproduced, at least in direction, so");
		para(f, lead, none);
		free(lead);
		fprintf(f, "\nTested-by: %s\n", from);
	}
	free(bad);
	mbox_free(&box);
	json_object_put(r);
	if (fflush(f) || ferror(f))
		die("reply: cannot write it");
	return 0;
}
