// SPDX-License-Identifier: GPL-2.0
/*
 * trailers-collect - find review trailers for the series in reply mails.
 *
 *   trailers-collect [--ids] [--sloppy] patches/series replies.mbox
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
 * Trailers are the Reviewed-by, Tested-by, Acked-by, Reported-by and
 * Suggested-by lines (the person trailers of submitting-patches.rst a
 * reply gives; Co-developed-by needs its author's Signed-off-by, which
 * only the author adds) that start a
 * line of the reply's own text (not quoted with '>', not below a "-- "
 * signature or an "-----Original Message-----" line), read as git
 * interpret-trailers --parse reads them: the lines after one that start
 * with a blank continue it (a folded trailer), each line end and the
 * blanks after it one space.  Each is written "Kind: Name <address>",
 * valid as an address of RFC 5322, as git send-email reads it from the
 * patch: the name's RFC 2047 words decoded (UTF-8), its blanks one space,
 * quoted where it has a special (a comma: "Doe, John" was two addresses),
 * of any length.  A trailer that cannot be written so (no <address>, two,
 * text after it, an address that is none, a control character or bytes
 * that are not UTF-8 in the name, an encoded word that does not decode)
 * is refused: "mbox:LINE: reply 'subject': trailer '...': why" on stderr
 * (LINE the trailer's, or the mail's where the body is encoded), and
 * exit 1 once every reply is read: make trailers then changes nothing.
 *
 * A trailer is the sender's word: one whose address is not the reply's
 * From: address (compared without case) is not printed but listed on
 * stderr, "mbox:LINE: reply '...': trailer '...' is not its sender's
 * (From: <address>): not folded", as b4 am lists a from/email mismatch
 * and leaves the trailer out; --sloppy prints it all the same (b4 am
 * -S, make trailers TRAILERS_SLOPPY=1).  The others of the mbox are
 * folded: a mismatch is the maintainer's to judge, not an error.
 *
 * Prints "file<TAB>trailer" lines in the order found (a pair may
 * repeat: series/trailers.sh keeps the first); with --ids, a third column:
 * the Message-Id of the reply it came from ("-" when it has none), what
 * series/trailers.sh keeps as the trailer's provenance.  Exit 1 when the series or
 * the mbox cannot be read, a trailer is refused, or stdout cannot be
 * written; 2 on usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler.h"
#include "mbox.h"
#include "outfile.h"
#include "text.h"

#define PROG "trailers-collect"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct patch {
	char *file;
	char *msgid;
	char *subject;		/* bare: without "Re:" and "[...]" */
	int cover;
};

/* what the thread of a reply leads to */
enum { NONE = -1, CONFLICT = -2 };

struct reply {
	const struct mbox_msg *m;
	char *msgid;
	int state;		/* 0 new, 1 being resolved, 2 resolved */
	int patch;		/* NONE, CONFLICT, or the non-cover patch */
	int cover;		/* the cover letter is in its thread */
	int foreign;		/* a mail of the mbox not of the series is */
	int posting;		/* not a reply: a patch or a cover letter */
};

static const char *const kinds[] = {
	"Reviewed-by", "Tested-by", "Acked-by", "Reported-by", "Suggested-by"
};

/* --ids: each trailer with the Message-Id of its reply */
static int with_ids;
/* --sloppy: a trailer of another address than its sender's is printed too */
static int sloppy;
/* trailers left out: not their sender's */
static int mismatched;

static void __noreturn oom(void)
{
	fputs(PROG ": memory: out of memory\n", stderr);
	exit(1);
}

static void *must(void *p)
{
	if (!p)
		oom();
	return p;
}

static __printf(1, 2) char *str(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	return s;
}

/*
 * The n-th "<...>" of a header value (n from 0), or "" when there is none;
 * a value with no <> at all is taken whole, for a bare Message-Id.
 * Allocated.
 */
static char *nth_id(const char *v, int n)
{
	const char *open, *close;

	if (!v)
		return str("%s", "");
	if (!strchr(v, '<')) {
		while (isspace((unsigned char)*v))
			v++;
		if (n == 0 && *v)
			return str("<%.*s>", (int)strcspn(v, " \t"), v);
		return str("%s", "");
	}
	for (open = strchr(v, '<'); open; open = strchr(close, '<')) {
		close = strchr(open, '>');
		if (!close)
			break;
		if (n-- == 0)
			return str("%.*s", (int)(close - open + 1), open);
	}
	return str("%s", "");
}

static void patches_free(struct patch *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].file);
		free(p[i].msgid);
		free(p[i].subject);
	}
	free(p);
}

static int load_series(const char *series, struct patch **out, size_t *n)
{
	const char *slash = strrchr(series, '/');
	char *dir = slash == series ? str("/") :
		    slash ? str("%.*s", (int)(slash - series), series) : str(".");
	char *line = NULL, *path, err[1024];
	struct patch *p = NULL;
	size_t cap = 0;
	FILE *f;

	*n = 0;
	/* no file of the series' directory is read through a link */
	if (mbox_dir_plain(dir, err, sizeof(err))) {
		fprintf(stderr, PROG ": patches: %s\n", err);
		free(dir);
		return -1;
	}
	f = fopen(series, "r");
	if (!f) {
		fprintf(stderr, PROG ": %s: cannot open\n", series);
		free(dir);
		return -1;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *file, *status, *save;
		struct mbox box;
		const struct mbox_msg *m;

		file = strtok_r(line, " \t\n", &save);
		status = file ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!status || file[0] == '#' ||
		    (strcmp(status, "applied") && strcmp(status, "cover")))
			continue;
		path = str("%s/%s", dir, file);
		if (mbox_read(path, &box, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			free(path);
			goto fail;
		}
		m = &box.msg[0];
		if (box.nmsg != 1 || m->err) {
			fprintf(stderr, PROG ": %s:%u: %s\n", path, m->line,
				m->err ? m->err : "not one mail: run series-check");
			mbox_free(&box);
			free(path);
			goto fail;
		}
		free(path);
		p = must(realloc(p, (*n + 1) * sizeof(*p)));
		memset(&p[*n], 0, sizeof(p[*n]));
		p[*n].file = str("%s", file);
		p[*n].msgid = nth_id(mbox_header(m, "Message-Id"), 0);
		p[*n].subject = must(mbox_bare_subject(m->subject));
		p[*n].cover = !strcmp(status, "cover");
		(*n)++;
		mbox_free(&box);
	}
	fclose(f);
	free(line);
	free(dir);
	*out = p;
	return 0;
fail:
	fclose(f);
	free(line);
	free(dir);
	patches_free(p, *n);
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
		char *id;
		int k, j;

		if (strcasecmp(m->hdr[h].name, "In-Reply-To") &&
		    strcasecmp(m->hdr[h].name, "References"))
			continue;
		for (k = 0; (id = nth_id(m->hdr[h].value, k)), id[0]; k++, free(id)) {
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
		free(id);
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

/*
 * s as a message may show it: each control character and each byte that
 * is not UTF-8 as \xNN, never as itself (an escape a terminal would
 * run).  Allocated.
 */
static char *printable(const char *s)
{
	size_t n = strlen(s), i = 0, k, o = 0;
	char *out = must(malloc(4 * n + 1));
	const char *why;

	while (i < n) {
		k = text_bad(s + i, n - i, &why);
		memcpy(out + o, s + i, k);
		o += k;
		i += k;
		if (i < n) {
			sprintf(out + o, "\\x%02x", (unsigned char)s[i]);
			o += 4;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

/*
 * A trailer's kind at the start of line ("Reviewed-by:", in any case, with
 * blanks before the ':' as git allows), 0 when none, else the kind + 1;
 * *value: after the ':' and its blanks.
 */
static int trailer_kind(const char *line, const char **value)
{
	const char *v;
	size_t k, n;

	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		n = strlen(kinds[k]);
		if (strncasecmp(line, kinds[k], n))
			continue;
		for (v = line + n; *v == ' ' || *v == '\t'; v++)
			;
		if (*v != ':')
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		*value = v;
		return k + 1;
	}
	return 0;
}

/* s without its blanks at either end, in place */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* a character of a dot-atom of RFC 5322 (atext or '.'); domain: of a host name */
static int atom_char(int c, int domain)
{
	if (!c || c >= 0x80)
		return 0;
	if (isalnum(c) || c == '.' || c == '-')
		return 1;
	return !domain && strchr("!#$%&'*+/=?^_`{|}~", c);
}

/* an addr-spec of RFC 5322 in its plain form: local@domain, dot-atoms */
static int address_ok(const char *a, size_t n)
{
	const char *at = memchr(a, '@', n);
	size_t i, k;

	if (!at)
		return 0;
	k = at - a;
	if (!k || k == n - 1 || memchr(at + 1, '@', n - k - 1))
		return 0;
	for (i = 0; i < n; i++)
		if (i != k && !atom_char((unsigned char)a[i], i > k))
			return 0;
	/* no dot at either end of a part, nor two in a row */
	return a[0] != '.' && a[k - 1] != '.' && a[k + 1] != '.' && a[n - 1] != '.' &&
	       !memmem(a, n, "..", 2);
}

/*
 * A name as a phrase of RFC 5322: as it is, or quoted where it holds a
 * special other than '.' (which names such as "Darrick J. Wong" have,
 * and every reader takes), '\' and '"' escaped.  A name quoted already
 * is unquoted first.  Allocated.
 */
static char *phrase(const char *name)
{
	size_t n = strlen(name), i, o = 0;
	char *plain = must(malloc(n + 1)), *q;

	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		for (i = 1; i < n - 1; i++) {
			if (name[i] == '\\' && i + 1 < n - 1)
				i++;
			plain[o++] = name[i];
		}
		plain[o] = '\0';
	} else {
		memcpy(plain, name, n + 1);
	}
	if (!plain[strcspn(plain, "()<>[]:;@\\,\"")])
		return plain;
	q = must(malloc(2 * strlen(plain) + 3));
	o = 0;
	q[o++] = '"';
	for (i = 0; plain[i]; i++) {
		if (plain[i] == '"' || plain[i] == '\\')
			q[o++] = '\\';
		q[o++] = plain[i];
	}
	q[o++] = '"';
	q[o] = '\0';
	free(plain);
	return q;
}

/*
 * The trailer "Kind: Name <address>" of a value, valid (see the top), in
 * *out; NULL, or why it cannot be written so (allocated).
 */
static char *trailer_write(const char *kind, const char *value, char **out)
{
	char *buf = str("%s", value), *v = trim(buf), *lt = strrchr(v, '<'), *gt, *name;
	char *dec = NULL, *why = NULL, *ph;
	const char *bad;
	size_t i, o;

	*out = NULL;
	gt = lt ? strchr(lt, '>') : NULL;
	if (!lt || !gt) {
		why = str("no <address>: a trailer names one, 'Name <address>'");
		goto out;
	}
	if (*trim(gt + 1)) {
		why = str("text after the address: a trailer is 'Name <address>' and nothing more");
		goto out;
	}
	if (!address_ok(lt + 1, gt - lt - 1)) {
		why = str("'%.*s' is not an address (local@domain)", (int)(gt - lt - 1), lt + 1);
		goto out;
	}
	*lt = '\0';
	name = trim(v);
	if (strpbrk(name, "<>")) {
		why = str("two addresses, or an address in the name: a trailer names one");
		goto out;
	}
	if (mbox_decode_words(name, &dec, &why)) {
		if (!why)
			oom();
		goto out;
	}
	/* blanks as git send-email shows them: one space each */
	for (i = o = 0; dec[i]; i++) {
		if (dec[i] == '\t')
			dec[i] = ' ';
		if (dec[i] != ' ' || (o && dec[o - 1] != ' '))
			dec[o++] = dec[i];
	}
	while (o && dec[o - 1] == ' ')
		o--;
	dec[o] = '\0';
	i = text_bad(dec, o, &bad);
	if (bad) {
		char *shown = printable(dec);

		why = str("the name has %s (byte %zu of '%s')", bad, i + 1, shown);
		free(shown);
		goto out;
	}
	ph = phrase(dec);
	*out = str("%s: %s%s<%.*s>", kind, ph, *ph ? " " : "", (int)(gt - lt - 1), lt + 1);
	free(ph);
out:
	free(dec);
	free(buf);
	return why;
}

/*
 * The line of the mbox where line (of the decoded text) is, from the
 * body's line *from on: the mail's own line where the body is encoded
 * and has it nowhere as it is.
 */
static unsigned int trailer_line(const struct mbox_msg *m, const char *line, const char **from)
{
	const char *b = *from, *next;
	unsigned int ln = m->body_line;
	size_t n = strlen(line), k;

	for (next = m->body; next < b; next++)
		ln += *next == '\n';
	while (*b) {
		k = strcspn(b, "\n");
		next = b + k + (b[k] == '\n');
		while (k && isspace((unsigned char)b[k - 1]))
			k--;
		if (k == n && !memcmp(b, line, n)) {
			*from = next;
			return ln;
		}
		ln++;
		b = next;
	}
	return m->line;
}

/*
 * The address of trailer (written: "Kind: Name <address>") is email, the
 * sender's, without regard to case
 */
static int is_senders(const char *trailer, const char *email)
{
	const char *lt = strrchr(trailer, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	return lt && gt && email && strlen(email) == (size_t)(gt - lt - 1) &&
	       !strncasecmp(lt + 1, email, gt - lt - 1);
}

/*
 * The trailers of one reply: its message and the patch part git mailinfo
 * split off, up to a signature; each printed, or refused on stderr
 * (path:line).  The number of trailers refused.
 */
static int collect(const char *path, const struct mbox_msg *m, const char *id,
		   const struct patch *p, size_t n, int t)
{
	char *text = str("%s%s", m->message, m->patch), *line, *next;
	const char *from = m->body;
	int refused = 0;

	for (line = text; *line; line = next) {
		char *value, *out, *why, *first;
		const char *v;
		size_t len;
		int k;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		len = strlen(line);
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		/* the signature, or an unquoted original below it */
		if (!strcmp(line, "--") ||
		    !strncmp(line, "-----Original Message-----", 26))
			break;
		k = trailer_kind(line, &v);
		if (!k)
			continue;
		/* folded: git's unfold_value(), a line end and its blanks one space */
		first = line;
		value = str("%s", v);
		while (*next == ' ' || *next == '\t') {
			char *l = next, *w;

			next = l + strcspn(l, "\n");
			if (*next)
				*next++ = '\0';
			w = str("%s %s", value, trim(l));
			free(value);
			value = w;
		}
		why = trailer_write(kinds[k - 1], value, &out);
		if (why) {
			unsigned int ln = trailer_line(m, first, &from);
			char *whole = str("%s: %s", kinds[k - 1], value), *shown = printable(whole);

			fprintf(stderr, PROG ": %s:%u: reply '%s': trailer '%s': %s: %s\n", path,
				ln, m->subject && *m->subject ? m->subject : "(no subject)",
				shown, why,
				"write it 'Name <address>' in the mbox, or remove it, and run again");
			free(whole);
			free(shown);
			free(why);
			refused++;
		} else if (!sloppy && !is_senders(out, m->email)) {
			unsigned int ln = trailer_line(m, first, &from);
			char *shown = printable(out), *sender = printable(m->email ? m->email : "");

			fprintf(stderr,
				PROG ": %s:%u: reply '%s': trailer '%s' %s (From: <%s>): %s\n",
				path, ln, m->subject && *m->subject ? m->subject : "(no subject)",
				shown, "is not its sender's", sender,
				"not folded (b4 am: from/email mismatch)");
			free(shown);
			free(sender);
			free(out);
			mismatched++;
		} else {
			emit(p, n, t, out, id);
			free(out);
		}
		free(value);
	}
	free(text);
	return refused;
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
	char err[1024];
	struct reply *r = NULL;
	struct patch *p;
	struct mbox box;
	size_t n, i;
	int rc = 0, refused = 0;

	/* "--ids" and "--sloppy" are never a series: with one file after them, a usage error */
	while (argc >= 2 && (!strcmp(argv[1], "--ids") || !strcmp(argv[1], "--sloppy"))) {
		if (!strcmp(argv[1], "--ids"))
			with_ids = 1;
		else
			sloppy = 1;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: " PROG " [--ids] [--sloppy] patches/series replies.mbox\n");
		return 2;
	}
	if (load_series(argv[1], &p, &n))
		return 1;
	if (mbox_read(argv[2], &box, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		patches_free(p, n);
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
		r[i].msgid = nth_id(mbox_header(m, "Message-Id"), 0);
		while (isspace((unsigned char)*s))
			s++;
		r[i].posting = !m->err &&
			       (find_patch(p, n, r[i].msgid) >= 0 || *s == '[' ||
				(!is_re(s) && mbox_has_diff(m)));
	}
	for (i = 0; i < box.nmsg; i++) {
		const struct mbox_msg *m = &box.msg[i];
		struct reply *me = &r[i];
		char *what, *bare;
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
		bare = must(mbox_bare_subject(m->subject));
		count = by_subject(bare, p, n, &bys);
		t = me->patch >= 0 ? me->patch : me->cover ? cover_of(p, n) : NONE;
		what = NULL;
		if (me->foreign)
			what = str("%s", "answers a mail of the mbox that is not of this series");
		else if (me->patch == CONFLICT)
			what = str("%s",
				   "has two patches of the series in its thread (In-Reply-To, References)");
		else if (t >= 0 && count && strcmp(p[t].subject, bare))
			what = str("answers %s by its thread, its subject names %s", p[t].file,
				   p[bys].file);
		free(bare);
		if (what) {
			discard(argv[2], m, "%s", what);
			free(what);
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
		refused += collect(argv[2], m, me->msgid, p, n, t);
	}
	if (mismatched)
		fprintf(stderr,
			PROG ": %s: %d trailer(s) not their sender's (above), left out: %s\n",
			argv[2], mismatched,
			"fold them anyway with TRAILERS_SLOPPY=1 (b4 am -S) once you know they are given");
	if (refused) {
		fprintf(stderr, PROG ": %s: %d trailer(s) refused (above): %s\n", argv[2], refused,
			"nothing of this mbox is to be folded until they are written right");
		rc = 1;
	}
out:
	if (out_close(PROG, stdout, "stdout"))
		rc = 1;
	for (i = 0; r && i < box.nmsg; i++)
		free(r[i].msgid);
	free(r);
	mbox_free(&box);
	patches_free(p, n);
	return rc;
}
