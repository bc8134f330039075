// SPDX-License-Identifier: GPL-2.0
/*
 * reply.c - ci-reproduce reply: a tester's plain-text reply to the cover
 * letter, from the report's claims (make reply, scripts/reply.sh).
 *
 *   ci-reproduce reply REPORT COVER FROM TOOLKIT_COMMIT
 *
 * On stdout, a mail as git format-patch writes one (a "From " line, then
 * the headers): From FROM, To the cover's author, Cc its To and Cc,
 * "Subject: Re: <its subject>", In-Reply-To its Message-Id, References
 * its References and Message-Id.  The body, at most 75 columns: per
 * patch, each claim with the claimed figure, the reproduced one with its
 * clock label and spread (the samples' sd), the verdict, the author's
 * setup (lib/claims.def's words) beside this run's; the commands that
 * give the figures again; and a Tested-by: FROM only when every claim
 * that a record measures reproduced at least in direction (else the
 * claims that did not, and no Tested-by).
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
	"with x86-copy-series (make ci: build, sparse, coccinelle, checkpatch,",
	"then each kernel booted in QEMU with emulated NVDIMMs, an fsdax",
	"namespace with map=dev and devdax namespaces with align=2M, and the",
	"rebinds timed). Per patch, each figure its changelog quotes, what",
	"these runs gave, and where the setups differ (author: the changelog's;",
	"here: these runs'):", NULL
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

/* a claim that a record measures and that reproduced, at least in direction */
static int measured(json_object *c)
{
	return !!str_of(c, "suite");
}

static int held(json_object *c)
{
	const char *v = str_of(c, "verdict");

	return v && (!strncmp(v, "reproduced", 10) || !strncmp(v, "direction reproduced", 20));
}

static void claim_write(FILE *f, json_object *c)
{
	const char *clock = str_of(c, "clock");
	char *rep;
	double a = num_of(c, "reproduced_sd_from"), b = num_of(c, "reproduced_sd_to");

	fprintf(f, "  %s\n", str_of(c, "id"));
	field(f, "claimed:", str_of(c, "claimed"));
	if (measured(c) && !isnan(a))
		rep = xasprintf("%s; sd %.3g / %.3g [%s]", str_of(c, "reproduced"), a, b,
				streq(clock, "icount") ? "tcg-icount" : clock ? clock : "?");
	else
		rep = xstrdup(measured(c) ? "-" : "not measured here: no record measures it");
	field(f, "reproduced:", rep);
	free(rep);
	field(f, "verdict:", str_of(c, "verdict"));
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

int cmd_reply(const char *report, const char *cover, const char *from, const char *toolkit)
{
	json_object *r = report_load(report), *claims = json_object_object_get(r, "claims");
	struct mbox box = { 0 };
	const struct mbox_msg *m;
	const char *id, *subj, *refs, *to, *cc, *date;
	char err[512], **bad = NULL, *commits, *lead;
	size_t i, j, n, nmeasured = 0, nbad = 0;
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
	if ((to && *to) || (cc && *cc))
		fprintf(f, "Cc: %s%s%s\n", to ? to : "", to && *to && cc && *cc ? ", " : "",
			cc ? cc : "");
	fprintf(f, "Subject: %s%s\n", strncasecmp(subj, "Re:", 3) ? "Re: " : "", subj);
	fprintf(f, "In-Reply-To: %s\n", id);
	fprintf(f, "References: %s%s%s\n\n", refs ? refs : "", refs ? " " : "", id);

	fprintf(f, "On %s, %s wrote:\n", date ? date : "an unknown date", m->author);
	fputs("> ", f);
	wrap(f, 2, "> ", subj);
	fputc('\n', f);
	commits = commits_of(r);
	lead = xasprintf("I ran the series' commits (%s) on host %s", commits, hosts_of(r));
	para(f, lead, intro);
	free(lead);
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
		if (measured(c)) {
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
	if (!nmeasured) {
		para(f, "No claim was measured here, so no Tested-by.", none);
	} else if (nbad) {
		char *list = NULL;

		for (i = 0; i < nbad; i++) {
			char *t = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", bad[i]);

			free(list);
			list = t;
			free(bad[i]);
		}
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
