// SPDX-License-Identifier: GPL-2.0
/*
 * series-check - validate patches/series and the mbox files it names.
 *
 *   series-check patches/series
 *
 * The series file lists one mbox per line, in application order:
 *
 *   # comment
 *   0000-cover-letter.mbox    cover
 *   0001-foo.mbox             applied
 *   upstream/0001-bar.mbox    upstream  <40-hex upstream commit>
 *
 * Each mbox holds exactly one mail with From, Date and Subject; cover and
 * applied mails also have a Message-Id (an upstream commit mail may not).
 * The cover letter (if any) comes first and is "[PATCH ... 0/N]"; applied
 * patches are numbered 1/N..N/N in series order and carry a diff.
 *
 * Prints one line per entry on stdout, tab-separated, for the shell glue:
 *   status  path  upstream-commit-or-"-"  subject
 * Errors name the file and line; exit 1 on any error, 2 on usage.
 */
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbox.h"

#define PROG "series-check"

static int errors;

static void error(const char *file, unsigned int line, const char *what)
{
	fprintf(stderr, PROG ": %s:%u: %s\n", file, line, what);
	errors++;
}

/* Parse "[PATCH v2 3/7] subject": 0 and *k, *n on success. */
static int parse_number(const char *subject, int *k, int *n)
{
	const char *open = strchr(subject, '['), *close;
	const char *p;

	if (!open || !(close = strchr(open, ']')))
		return -1;
	for (p = close; p > open && *p != ' ' && *p != '['; p--)
		;
	if (sscanf(p + 1, "%d/%d", k, n) != 2)
		return -1;
	return 0;
}

static int is_hex40(const char *s)
{
	int i;

	for (i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return s[40] == '\0';
}

struct entry {
	char path[PATH_MAX];
	char status[16];
	char upstream[64];
	char subject[512];
	unsigned int line;
	int k, n;
};

static void check_mail(struct entry *e, const char *dir, const char *series)
{
	char full[PATH_MAX * 2], err[PATH_MAX + 256], what[PATH_MAX + 300];
	static const char *const need[] = { "From", "Date", "Subject",
					    "Message-Id" };
	struct mbox box;
	const char *subj;
	size_t i;

	snprintf(full, sizeof(full), "%s/%s", dir, e->path);
	if (mbox_read(full, &box, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		errors++;
		return;
	}
	if (box.nmsg != 1) {
		snprintf(what, sizeof(what),
			 "'%s' holds %zu mails; one mail per file", e->path,
			 box.nmsg);
		error(series, e->line, what);
		goto out;
	}
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!strcmp(need[i], "Message-Id") &&
		    !strcmp(e->status, "upstream"))
			continue;
		if (!mbox_header(&box.msg[0], need[i])) {
			snprintf(what, sizeof(what), "no %s: header", need[i]);
			error(full, box.msg[0].line, what);
		}
	}
	subj = mbox_header(&box.msg[0], "Subject");
	if (!subj)
		goto out;
	snprintf(e->subject, sizeof(e->subject), "%s", subj);
	if (strcmp(e->status, "upstream")) {
		if (parse_number(subj, &e->k, &e->n)) {
			error(full, box.msg[0].line,
			      "subject has no '[PATCH k/N]' number");
			goto out;
		}
	}
	if (!strcmp(e->status, "cover") == !!mbox_has_diff(&box.msg[0]))
		error(full, box.msg[0].body_line,
		      strcmp(e->status, "cover") ?
			      "no diff in the body: a patch must carry one" :
			      "the cover letter carries a diff");
out:
	mbox_free(&box);
}

int main(int argc, char **argv)
{
	char line[PATH_MAX + 256], dircopy[PATH_MAX], *dir;
	struct entry *ent = NULL;
	size_t nent = 0, i, j;
	unsigned int lineno = 0;
	int napplied = 0, k = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: " PROG " patches/series\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(PROG ": open series file");
		return 1;
	}
	snprintf(dircopy, sizeof(dircopy), "%s", argv[1]);
	dir = dirname(dircopy);

	while (fgets(line, sizeof(line), f)) {
		char extra[8];
		struct entry e = { .line = ++lineno };
		int n;

		if (!strchr(line, '\n') && !feof(f)) {
			error(argv[1], lineno, "line too long");
			break;
		}
		if (line[strspn(line, " \t\r\n")] == '\0' ||
		    line[strspn(line, " \t")] == '#')
			continue;
		n = sscanf(line, "%4095s %15s %63s %7s", e.path, e.status,
			   e.upstream, extra);
		if (n < 2 || n > 3) {
			error(argv[1], lineno,
			      "expected '<mbox> cover|applied|upstream [<commit>]'");
			continue;
		}
		if (strcmp(e.status, "cover") && strcmp(e.status, "applied") &&
		    strcmp(e.status, "upstream")) {
			error(argv[1], lineno,
			      "status must be cover, applied or upstream");
			continue;
		}
		if (!strcmp(e.status, "upstream") != (n == 3) ||
		    (n == 3 && !is_hex40(e.upstream))) {
			error(argv[1], lineno,
			      "an upstream patch, and only it, names its 40-hex upstream commit");
			continue;
		}
		if (n == 2)
			strcpy(e.upstream, "-");
		if (!strcmp(e.status, "cover") && nent) {
			error(argv[1], lineno, "the cover letter must come first");
			continue;
		}
		for (j = 0; j < nent; j++)
			if (!strcmp(ent[j].path, e.path))
				error(argv[1], lineno, "file listed twice");
		check_mail(&e, dir, argv[1]);
		if (!strcmp(e.status, "applied"))
			napplied++;
		ent = realloc(ent, (nent + 1) * sizeof(*ent));
		if (!ent) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		ent[nent++] = e;
	}
	fclose(f);
	if (!napplied)
		error(argv[1], lineno, "no applied patch in the series");

	/* numbering: cover 0/N, then 1/N..N/N in series order */
	for (i = 0; i < nent; i++) {
		char what[640];
		int want;

		if (!strcmp(ent[i].status, "upstream") || !ent[i].subject[0])
			continue;
		want = strcmp(ent[i].status, "cover") ? ++k : 0;
		if (ent[i].k != want || ent[i].n != napplied) {
			snprintf(what, sizeof(what),
				 "'%s' is numbered %d/%d, its place in the series is %d/%d",
				 ent[i].path, ent[i].k, ent[i].n, want, napplied);
			error(argv[1], ent[i].line, what);
		}
	}
	if (errors) {
		fprintf(stderr, PROG ": %s: %d error%s; nothing applied\n",
			argv[1], errors, errors == 1 ? "" : "s");
		free(ent);
		return 1;
	}
	for (i = 0; i < nent; i++)
		printf("%s\t%s\t%s\t%s\n", ent[i].status, ent[i].path,
		       ent[i].upstream, ent[i].subject);
	free(ent);
	return 0;
}
