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
 * What b4 am cannot assemble is refused in cover and applied mails: a
 * body line starting with "From ", a folded From:, Date: or Subject:.
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
#include "outfile.h"

#define PROG "series-check"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

	close = open ? strchr(open, ']') : NULL;
	if (!close)
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
	int numbered;		/* its mail was read and has k/N */
	int k, n;
};

/* a path inside patches/: relative, no ".." component */
static int inside(const char *path)
{
	const char *p = path;

	if (*path == '/')
		return 0;
	for (; *p; p += strcspn(p, "/"), p += *p == '/')
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
	return 1;
}

/*
 * b4 am reads an mbox with Python's mailbox module, which starts a new
 * mail at every line that starts with "From ", where git would not.
 */
static void check_from_lines(const struct mbox_msg *m, const char *full)
{
	const char *b = m->body;
	unsigned int line = m->body_line;

	for (; b && *b; line++) {
		if (!strncmp(b, "From ", 5))
			error(full, line,
			      "a line of the mail starts with 'From ': b4 am (Python's mbox reader) would cut the mail there; reword the line or indent it");
		b = strchr(b, '\n');
		b = b ? b + 1 : "";
	}
}

/*
 * b4 am 0.12 reads the mbox with Python's mailbox module, whose headers
 * keep their folding line breaks, and copies From:, Date: and Subject:
 * into a new message (get_am_message()), whose header writer refuses a
 * value with a line break: "ValueError: Header values may not contain
 * linefeed or carriage return characters", a traceback and no patch
 * named.  Any fold of those three does it, two lines or more, in the
 * cover letter too; other headers (To:, Cc:, References:) may be folded.
 */
static void check_folds(const struct mbox_msg *m, const char *full)
{
	static const char *const names[] = { "From", "Date", "Subject" };
	char what[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const struct mbox_header *h = mbox_header_at(m, names[i]);

		if (!h || h->lines < 2)
			continue;
		snprintf(what, sizeof(what),
			 "the %s: header is folded over %u lines: b4 am cannot assemble a mail whose From:, Date: or Subject: is folded (Python: 'Header values may not contain linefeed'); put it on one line",
			 h->name, h->lines);
		error(full, h->line, what);
	}
}

static void check_mail(struct entry *e, const char *dir, const char *series)
{
	char full[PATH_MAX * 2], err[PATH_MAX * 2 + 256], what[PATH_MAX + 300];
	static const struct {
		const char *name, *why;
	} need[] = {
		{ "From", "no From: header with an address git am can read" },
		{ "Date", "no Date: header" },
		{ "Subject", "no Subject: header" },
		{ "Message-Id", "no Message-Id: header" },
	};
	const struct mbox_msg *m;
	struct mbox box;
	size_t i;

	snprintf(full, sizeof(full), "%s/%s", dir, e->path);
	if (mbox_read(full, &box, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		errors++;
		return;
	}
	if (box.nmsg != 1) {
		snprintf(what, sizeof(what),
			 "'%s' holds %zu mails (as git mailsplit splits it); one mail per file",
			 e->path, box.nmsg);
		error(series, e->line, what);
		goto out;
	}
	m = &box.msg[0];
	if (m->err) {
		error(full, m->line, m->err);
		goto out;
	}
	/* what git mailinfo reads, as git am will */
	for (i = 0; i < ARRAY_SIZE(need); i++) {
		const char *v = i == 0 ? m->email : i == 1 ? m->date :
				i == 2 ? m->subject : mbox_header(m, need[i].name);

		if (i == 3 && !strcmp(e->status, "upstream"))
			continue;
		if (!v || !*v)
			error(full, m->line, need[i].why);
	}
	if (strcmp(e->status, "upstream")) {
		check_folds(m, full);
		check_from_lines(m, full);
	}
	if (!strcmp(e->status, "cover") == !!mbox_has_diff(m))
		error(full, m->body_line,
		      strcmp(e->status, "cover") ?
			      "no diff in the body: a patch must carry one" :
			      "the cover letter carries a diff");
	if (!*m->subject)
		goto out;
	snprintf(e->subject, sizeof(e->subject), "%s", m->subject);
	/* the output is tab-separated */
	for (i = 0; e->subject[i]; i++)
		if (e->subject[i] == '\t')
			e->subject[i] = ' ';
	if (strcmp(e->status, "upstream")) {
		if (parse_number(m->subject, &e->k, &e->n)) {
			error(full, m->line,
			      "subject has no '[PATCH k/N]' number");
			goto out;
		}
		e->numbered = 1;
	}
out:
	mbox_free(&box);
}

int main(int argc, char **argv)
{
	char line[PATH_MAX + 256], dircopy[PATH_MAX], err[PATH_MAX * 2 + 256], *dir;
	struct entry *ent = NULL;
	size_t nent = 0, i, j;
	unsigned int lineno = 0;
	int napplied = 0, k = 0, unsure = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: " PROG " patches/series\n");
		return 2;
	}
	snprintf(dircopy, sizeof(dircopy), "%s", argv[1]);
	dir = dirname(dircopy);
	/* no file of the series' directory is read through a link */
	if (mbox_dir_plain(dir, err, sizeof(err))) {
		fprintf(stderr, PROG ": patches: %s\n", err);
		return 1;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(PROG ": open series file");
		return 1;
	}

	/*
	 * One error per fault: a line whose status is unknown leaves the
	 * places of the others unknown, so numbering is then not checked;
	 * a mail that cannot be read keeps its place.
	 */
	while (fgets(line, sizeof(line), f)) {
		char extra[8];
		struct entry e = { .line = ++lineno };
		struct entry *ne;
		int n, three, up, dup = 0;

		if (!strchr(line, '\n') && !feof(f)) {
			error(argv[1], lineno, "line too long");
			unsure = 1;
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
			unsure = 1;
			continue;
		}
		if (strcmp(e.status, "cover") && strcmp(e.status, "applied") &&
		    strcmp(e.status, "upstream")) {
			error(argv[1], lineno,
			      "status must be cover, applied or upstream");
			unsure = 1;
			continue;
		}
		three = n == 3;
		up = !strcmp(e.status, "upstream");
		if (up != three || (three && !is_hex40(e.upstream))) {
			error(argv[1], lineno,
			      "an upstream patch, and only it, names its 40-hex upstream commit");
			unsure = 1;
			continue;
		}
		if (!inside(e.path)) {
			error(argv[1], lineno,
			      "the path must be relative to the series file's directory and stay in it (no '/' first, no '..')");
			unsure = 1;
			continue;
		}
		if (n == 2)
			snprintf(e.upstream, sizeof(e.upstream), "-");
		if (!strcmp(e.status, "cover") && nent) {
			error(argv[1], lineno, "the cover letter must come first");
			continue;
		}
		for (j = 0; j < nent; j++)
			if (!strcmp(ent[j].path, e.path))
				dup = 1;
		if (dup) {
			error(argv[1], lineno, "file listed twice");
			continue;
		}
		check_mail(&e, dir, argv[1]);
		if (!strcmp(e.status, "applied"))
			napplied++;
		ne = realloc(ent, (nent + 1) * sizeof(*ent));
		if (!ne) {
			fprintf(stderr, PROG ": out of memory\n");
			free(ent);
			fclose(f);
			return 1;
		}
		ent = ne;
		ent[nent++] = e;
	}
	fclose(f);
	if (!napplied && !unsure)
		error(argv[1], lineno, "no applied patch in the series");

	/* numbering: cover 0/N, then 1/N..N/N in series order */
	for (i = 0; i < nent && !unsure; i++) {
		char what[PATH_MAX + 128];
		int want;

		if (!strcmp(ent[i].status, "upstream"))
			continue;
		want = strcmp(ent[i].status, "cover") ? ++k : 0;
		if (!ent[i].numbered)
			continue;
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
	return out_close(PROG, stdout, "stdout") ? 1 : 0;
}
