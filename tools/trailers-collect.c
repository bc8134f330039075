// SPDX-License-Identifier: GPL-2.0
/*
 * trailers-collect - find review trailers for the series in reply mails.
 *
 *   trailers-collect [--ids] patches/series replies.mbox
 *
 * Both the patches and the replies are read as git am reads mail
 * (lib/mbox.c: git mailsplit, git mailinfo): a CRLF mbox, a "From " line
 * with no blank line before it, an encoded subject or a quoted-printable
 * body make no difference.
 *
 * A reply belongs to the patch its thread names: the Message-Ids of its
 * In-Reply-To and References headers and, for the replies among them that
 * are in the same mbox, theirs in turn.  A reply in the cover letter's
 * thread, and in no patch's, counts for every applied patch.  Only a reply
 * whose thread leads to no mail of the series (no In-Reply-To, or ids that
 * are neither the series' nor of mails of the mbox that lead to it) is
 * matched by its subject: "Re:" and the subject of exactly one mail of the
 * series.  Anything else is reported on stderr and skipped, never guessed:
 *
 *   - a thread that names two patches of the series, or a mail of the mbox
 *     that is not of the series (another version's patch, say);
 *   - a subject that names another mail of the series than the thread;
 *   - no thread and a subject that fits no mail of the series, or several;
 *   - a mail of the series itself (its Message-Id), or a posting (a
 *     subject that starts with "[", as "[PATCH v2 3/7] ..."), not a reply;
 *   - a mail git mailinfo cannot read.
 *
 * Trailers are the Reviewed-by, Tested-by and Acked-by lines that start a
 * line of the reply's own text (not quoted with '>', not below a "-- "
 * signature or an "-----Original Message-----" line) and name an address
 * in <...>.  Prints "file<TAB>trailer" lines in the order found (a pair may
 * repeat: scripts/trailers.sh keeps the first); with --ids, a third column:
 * the Message-Id of the reply it came from ("-" when it has none), what
 * scripts/trailers.sh keeps as the trailer's provenance.  Exit 1 when the series or
 * the mbox cannot be read, or stdout cannot be written; 2 on usage.
 */
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox.h"
#include "outfile.h"

#define PROG "trailers-collect"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct patch {
	char file[PATH_MAX];
	char msgid[512];
	char subject[512];	/* bare: without "Re:" and "[...]" */
	int cover;
};

/* what the thread of a reply leads to */
enum { NONE = -1, CONFLICT = -2 };

struct reply {
	const struct mbox_msg *m;
	char msgid[512];
	int state;		/* 0 new, 1 being resolved, 2 resolved */
	int patch;		/* NONE, CONFLICT, or the non-cover patch */
	int cover;		/* the cover letter is in its thread */
	int foreign;		/* a mail of the mbox not of the series is */
	int posting;		/* not a reply: a patch or a cover letter */
};

static const char *const kinds[] = { "Reviewed-by", "Tested-by", "Acked-by" };

/* --ids: each trailer with the Message-Id of its reply */
static int with_ids;

/*
 * The n-th "<...>" of a header value (n from 0), or "" when there is none;
 * a value with no <> at all is taken whole, for a bare Message-Id.
 */
static void nth_id(const char *v, int n, char *out, size_t len)
{
	const char *open, *close;

	out[0] = '\0';
	if (!v)
		return;
	if (!strchr(v, '<')) {
		while (isspace((unsigned char)*v))
			v++;
		if (n == 0 && *v)
			snprintf(out, len, "<%.*s>", (int)strcspn(v, " \t"), v);
		return;
	}
	for (open = strchr(v, '<'); open; open = strchr(close, '<')) {
		close = strchr(open, '>');
		if (!close)
			return;
		if (n-- == 0) {
			snprintf(out, len, "%.*s", (int)(close - open + 1), open);
			return;
		}
	}
}

static int load_series(const char *series, struct patch **out, size_t *n)
{
	char line[PATH_MAX + 64], dircopy[PATH_MAX], path[PATH_MAX * 2];
	char err[PATH_MAX + 256], status[16], file[PATH_MAX];
	struct patch *p = NULL, *np;
	FILE *f;
	char *dir;

	snprintf(dircopy, sizeof(dircopy), "%s", series);
	dir = dirname(dircopy);
	/* no file of the series' directory is read through a link */
	if (mbox_dir_plain(dir, err, sizeof(err))) {
		fprintf(stderr, PROG ": patches: %s\n", err);
		return -1;
	}
	f = fopen(series, "r");
	if (!f) {
		fprintf(stderr, PROG ": %s: cannot open\n", series);
		return -1;
	}
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct mbox box;
		const struct mbox_msg *m;

		if (sscanf(line, "%4095s %15s", file, status) != 2 ||
		    file[0] == '#' ||
		    (strcmp(status, "applied") && strcmp(status, "cover")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (mbox_read(path, &box, err, sizeof(err)))
			goto fail;
		m = &box.msg[0];
		if (box.nmsg != 1 || m->err) {
			fprintf(stderr, PROG ": %s:%u: %s\n", path, m->line,
				m->err ? m->err : "not one mail: run series-check");
			mbox_free(&box);
			goto close;
		}
		np = realloc(p, (*n + 1) * sizeof(*p));
		if (!np) {
			snprintf(err, sizeof(err), "%s: out of memory", series);
			mbox_free(&box);
			goto fail;
		}
		p = np;
		memset(&p[*n], 0, sizeof(p[*n]));
		snprintf(p[*n].file, sizeof(p[*n].file), "%s", file);
		nth_id(mbox_header(m, "Message-Id"), 0, p[*n].msgid,
		       sizeof(p[*n].msgid));
		mbox_bare_subject(m->subject, p[*n].subject, sizeof(p[*n].subject));
		p[*n].cover = !strcmp(status, "cover");
		(*n)++;
		mbox_free(&box);
	}
	fclose(f);
	*out = p;
	return 0;
fail:
	fprintf(stderr, PROG ": %s\n", err);
close:
	fclose(f);
	free(p);
	return -1;
}

static int find_patch(const struct patch *p, size_t n, const char *id)
{
	size_t i;

	for (i = 0; id[0] && i < n; i++)
		if (!strcmp(p[i].msgid, id))
			return i;
	return NONE;
}

static int find_reply(const struct reply *r, size_t n, const char *id)
{
	size_t i;

	for (i = 0; id[0] && i < n; i++)
		if (!strcmp(r[i].msgid, id))
			return i;
	return NONE;
}

static int merge(int a, int b)
{
	if (a == NONE)
		return b;
	if (b == NONE || a == b)
		return a;
	return CONFLICT;
}

/* every id of the thread: In-Reply-To and References, all of them */
static void resolve(struct reply *r, size_t nr, size_t i,
		    const struct patch *p, size_t np)
{
	struct reply *me = &r[i];
	const struct mbox_msg *m = me->m;
	size_t h;

	if (me->state)
		return;		/* done, or a loop in the thread */
	me->state = 1;
	for (h = 0; h < m->nhdr; h++) {
		char id[512];
		int k, j;

		if (strcasecmp(m->hdr[h].name, "In-Reply-To") &&
		    strcasecmp(m->hdr[h].name, "References"))
			continue;
		for (k = 0; nth_id(m->hdr[h].value, k, id, sizeof(id)), id[0]; k++) {
			j = find_patch(p, np, id);
			if (j >= 0) {
				if (p[j].cover)
					me->cover = 1;
				else
					me->patch = merge(me->patch, j);
				continue;
			}
			j = find_reply(r, nr, id);
			if (j < 0 || (size_t)j == i)
				continue;
			if (r[j].posting) {
				me->foreign = 1;
				continue;
			}
			resolve(r, nr, j, p, np);
			me->patch = merge(me->patch, r[j].patch);
			me->cover |= r[j].cover;
			me->foreign |= r[j].foreign;
		}
	}
	me->state = 2;
}

/* how many mails of the series have this bare subject; *found the last */
static int by_subject(const char *bare, const struct patch *p, size_t n,
		      int *found)
{
	size_t i;
	int count = 0;

	*found = NONE;
	for (i = 0; bare[0] && i < n; i++) {
		if (strcmp(p[i].subject, bare))
			continue;
		count++;
		*found = i;
	}
	return count;
}

static int cover_of(const struct patch *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].cover)
			return i;
	return NONE;
}

static int is_re(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !strncasecmp(s, "re:", 3);
}

static int emit(const struct patch *p, size_t n, int t, const char *trailer, const char *id)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (p[t].cover ? p[i].cover : i != (size_t)t)
			continue;
		if (with_ids)
			printf("%s\t%s\t%s\n", p[i].file, trailer, *id ? id : "-");
		else
			printf("%s\t%s\n", p[i].file, trailer);
		k++;
	}
	return k;
}

/* "Reviewed-by: Name <addr>" at the start of a line; 0 or the kind + 1 */
static int trailer_kind(const char *line, const char **value)
{
	const char *v, *lt, *at, *gt;
	size_t k, n;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		n = strlen(kinds[k]);
		if (strncasecmp(line, kinds[k], n) || line[n] != ':')
			continue;
		for (v = line + n + 1; *v == ' ' || *v == '\t'; v++)
			;
		lt = strchr(v, '<');
		at = lt ? strchr(lt, '@') : NULL;
		gt = at ? strchr(at, '>') : NULL;
		if (!gt || memchr(lt + 1, ' ', gt - lt - 1))
			return 0;
		*value = v;
		return k + 1;
	}
	return 0;
}

/*
 * The trailers of one reply: its message and the patch part git mailinfo
 * split off, up to a signature; the number of lines printed, or -1.
 */
static int collect(const struct mbox_msg *m, const char *id, const struct patch *p, size_t n,
		   int t)
{
	size_t a = strlen(m->message), b = strlen(m->patch);
	char *copy = malloc(a + b + 1), *line, *next;
	int printed = 0;

	if (!copy)
		return -1;
	memcpy(copy, m->message, a);
	memcpy(copy + a, m->patch, b + 1);
	for (line = copy; *line; line = next) {
		const char *value;
		char out[1024];
		size_t len;
		int k;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		len = strlen(line);
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		/* the signature, or an unquoted original below it */
		if (!strcmp(line, "--") ||
		    !strncmp(line, "-----Original Message-----", 26))
			break;
		k = trailer_kind(line, &value);
		if (!k)
			continue;
		snprintf(out, sizeof(out), "%s: %s", kinds[k - 1], value);
		printed += emit(p, n, t, out, id);
	}
	free(copy);
	return printed;
}

static void discard(const char *path, const struct mbox_msg *m,
		    const char *why, const char *arg)
{
	fprintf(stderr, PROG ": %s:%u: reply '%s' ", path, m->line,
		m->subject && *m->subject ? m->subject : "(no subject)");
	fprintf(stderr, why, arg);
	fputs(": skipped\n", stderr);
}

int main(int argc, char **argv)
{
	char err[PATH_MAX + 256];
	struct reply *r = NULL;
	struct patch *p;
	struct mbox box;
	size_t n, i;
	int rc = 0;

	/* "--ids" is never a series: with one file after it, a usage error */
	if (argc >= 2 && !strcmp(argv[1], "--ids")) {
		with_ids = 1;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: " PROG " [--ids] patches/series replies.mbox\n");
		return 2;
	}
	if (load_series(argv[1], &p, &n))
		return 1;
	if (mbox_read(argv[2], &box, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		free(p);
		return 1;
	}
	r = calloc(box.nmsg ? box.nmsg : 1, sizeof(*r));
	if (!r) {
		fprintf(stderr, PROG ": %s: out of memory\n", argv[2]);
		rc = 1;
		goto out;
	}
	for (i = 0; i < box.nmsg; i++) {
		const struct mbox_msg *m = &box.msg[i];
		const char *s = m->subject ? m->subject : "";

		r[i].m = m;
		r[i].patch = NONE;
		nth_id(mbox_header(m, "Message-Id"), 0, r[i].msgid,
		       sizeof(r[i].msgid));
		while (isspace((unsigned char)*s))
			s++;
		r[i].posting = !m->err &&
			       (find_patch(p, n, r[i].msgid) >= 0 || *s == '[' ||
				(!is_re(s) && mbox_has_diff(m)));
	}
	for (i = 0; i < box.nmsg; i++) {
		const struct mbox_msg *m = &box.msg[i];
		struct reply *me = &r[i];
		char what[PATH_MAX * 2 + 64], bare[512];
		int t, bys, count;

		if (m->err) {
			discard(argv[2], m, "cannot be read: %s", m->err);
			continue;
		}
		if (find_patch(p, n, me->msgid) >= 0) {
			discard(argv[2], m, "is %s itself, not a reply",
				"a mail of the series");
			continue;
		}
		if (me->posting) {
			discard(argv[2], m, "is %s, not a reply",
				"a patch or a cover letter");
			continue;
		}
		resolve(r, box.nmsg, i, p, n);
		mbox_bare_subject(m->subject, bare, sizeof(bare));
		count = by_subject(bare, p, n, &bys);
		if (me->foreign) {
			discard(argv[2], m, "%s",
				"answers a mail of the mbox that is not of this series");
			continue;
		}
		if (me->patch == CONFLICT) {
			discard(argv[2], m, "%s",
				"has two patches of the series in its thread (In-Reply-To, References)");
			continue;
		}
		t = me->patch >= 0 ? me->patch : me->cover ? cover_of(p, n) : NONE;
		if (t >= 0 && count && strcmp(p[t].subject, bare)) {
			snprintf(what, sizeof(what),
				 "answers %s by its thread, its subject names %s",
				 p[t].file, p[bys].file);
			discard(argv[2], m, "%s", what);
			continue;
		}
		if (t == NONE) {
			if (!is_re(m->subject) || !count) {
				discard(argv[2], m, "%s",
					"matches no patch of the series (by In-Reply-To, References or subject)");
				continue;
			}
			if (count > 1) {
				discard(argv[2], m, "%s",
					"has no thread and a subject that fits several mails of the series");
				continue;
			}
			t = bys;
		}
		if (collect(m, me->msgid, p, n, t) < 0) {
			fprintf(stderr, PROG ": %s: out of memory\n", argv[2]);
			rc = 1;
			break;
		}
	}
out:
	if (out_close(PROG, stdout, "stdout"))
		rc = 1;
	free(r);
	mbox_free(&box);
	free(p);
	return rc;
}
