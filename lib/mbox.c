// SPDX-License-Identifier: GPL-2.0
/*
 * mbox.c - read mails from an mbox file as git am reads them.  See mbox.h.
 *
 * git mailsplit cuts the file into one file per mail in a temporary
 * directory; git mailinfo -k parses each of them, writing the message and
 * the patch into pipes, so nothing it decodes can be lost on a full disk.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler.h"
#include "mbox.h"

/* a new string of fmt, or NULL: no memory */
static __printf(1, 2) char *astr(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void seterr(char *err, size_t errlen, const char *path,
		   unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, "%s:%u: ", path, line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
}

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->cap - b->len < n + 1) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (cap - b->len < n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* the whole file, NUL-terminated; NULL with errno set */
static char *slurp(const char *path, size_t *lenp)
{
	struct buf b = { 0 };
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (buf_add(&b, chunk, n))
			goto fail;
	}
	close(fd);
	if (!b.p && buf_add(&b, "", 0)) {
		errno = ENOMEM;
		return NULL;
	}
	*lenp = b.len;
	return b.p;
fail:
	n = errno;
	close(fd);
	free(b.p);
	errno = n;
	return NULL;
}

/*
 * git mailsplit's test for the line that starts a mail (builtin/mailsplit.c,
 * is_from_line()): "From ", then something ending in "hh:mm:ss year"
 * with a year after 90.  line holds len bytes, its '\n' included.
 */
static int is_from_line(const char *line, size_t len)
{
	const char *colon, *start = line;

	if (len < 20 || memcmp("From ", line, 5))
		return 0;
	colon = line + len - 2;
	line += 5;
	for (;;) {
		if (colon < line)
			return 0;
		if (*--colon == ':')
			break;
	}
	if (colon - start < 4 ||
	    !isdigit((unsigned char)colon[-4]) ||
	    !isdigit((unsigned char)colon[-2]) ||
	    !isdigit((unsigned char)colon[-1]) ||
	    !isdigit((unsigned char)colon[1]) ||
	    !isdigit((unsigned char)colon[2]))
		return 0;
	return strtol(colon + 3, NULL, 10) > 90;
}

/*
 * Run git with ARGV, stdin from IN; out[0] gets its stdout, out[1] its
 * stderr, out[2..] what it writes to /dev/fd/3.. .  0 and *status, or -1
 * with errno when it could not be run.
 */
static int run_git(char *const argv[], const char *in, struct buf *out,
		   int nout, int *status)
{
	int rd[4], wr[4], i, open_fds = 0, r = -1, saved, lost = 0;
	posix_spawn_file_actions_t fa;
	struct pollfd pfd[4];
	pid_t pid;

	for (i = 0; i < 4; i++) {
		rd[i] = -1;
		wr[i] = -1;
	}
	for (i = 0; i < nout; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC))
			goto close;
		rd[i] = p[0];
		/* above the child's targets 0..4, so no dup2 clobbers one */
		wr[i] = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
		close(p[1]);
		if (wr[i] < 0)
			goto close;
	}
	if (posix_spawn_file_actions_init(&fa))
		goto close;
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	for (i = 0; i < nout; i++)
		posix_spawn_file_actions_adddup2(&fa, wr[i], i + 1);
	errno = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (errno)
		goto close;
	for (i = 0; i < nout; i++) {
		close(wr[i]);
		wr[i] = -1;
		pfd[i].fd = rd[i];
		pfd[i].events = POLLIN;
		open_fds++;
	}
	while (open_fds && !lost) {
		if (poll(pfd, nout, -1) < 0) {
			if (errno != EINTR)
				lost = errno;
			continue;
		}
		for (i = 0; i < nout; i++) {
			char chunk[65536];
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				lost = errno;
			else if (n > 0 && buf_add(&out[i], chunk, n))
				lost = ENOMEM;
			if (n > 0 && !lost)
				continue;
			pfd[i].fd = -1;
			open_fds--;
		}
	}
	/* a child that cannot write any more ends with EPIPE */
	for (i = 0; i < nout; i++) {
		close(rd[i]);
		rd[i] = -1;
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			goto close;
	errno = lost;
	r = lost ? -1 : 0;
close:
	saved = errno;
	for (i = 0; i < nout; i++) {
		if (rd[i] >= 0)
			close(rd[i]);
		if (wr[i] >= 0)
			close(wr[i]);
	}
	errno = saved;
	return r;
}

/* the first line of git's stderr, for a message (allocated; NULL: no memory) */
static char *first_line(struct buf *b)
{
	const char *s = b->p ? b->p : "";

	return astr("%.*s", (int)strcspn(s, "\n"), s);
}

/* the temporary directory dir and what mailsplit wrote into dir/split */
static void remove_tmp(const char *dir)
{
	char *split = astr("%s/split", dir), *path;
	struct dirent *d;
	DIR *dh = split ? opendir(split) : NULL;

	while (dh && (d = readdir(dh))) {
		if (d->d_name[0] == '.')
			continue;
		path = astr("%s/%s", split, d->d_name);
		if (path)
			unlink(path);
		free(path);
	}
	if (dh)
		closedir(dh);
	if (split)
		rmdir(split);
	free(split);
	rmdir(dir);
}

/*
 * mailinfo's is_rfc2822_header(): a "From " line, or a name of printable
 * characters other than ':' followed by ':'.
 */
static int is_header(const char *line)
{
	int ch;

	if (!strncmp(line, "From ", 5) || !strncmp(line, ">From ", 6))
		return 1;
	while ((ch = (unsigned char)*line++)) {
		if (ch == ':')
			return 1;
		if ((ch >= 33 && ch <= 57) || (ch >= 59 && ch <= 126))
			continue;
		break;
	}
	return 0;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static int add_header(struct mbox_msg *m, char *line, unsigned int at,
		      unsigned int lines)
{
	struct mbox_header *nh;
	char *colon = strchr(line, ':'), *v;

	if (!strncmp(line, "From ", 5) || !strncmp(line, ">From ", 6) ||
	    !colon)
		return 0;	/* an mbox separator line, not a field */
	nh = realloc(m->hdr, (m->nhdr + 1) * sizeof(*nh));
	if (!nh)
		return -1;
	m->hdr = nh;
	for (v = colon + 1; isspace((unsigned char)*v); v++)
		;
	nh[m->nhdr].name = strndup(line, colon - line);
	nh[m->nhdr].value = strdup(v);
	nh[m->nhdr].line = at;
	nh[m->nhdr].lines = lines;
	if (!nh[m->nhdr].name || !nh[m->nhdr].value) {
		free(nh[m->nhdr].name);
		free(nh[m->nhdr].value);
		return -1;
	}
	m->nhdr++;
	return 0;
}

/* next line of s: its length without '\n'; *next after it */
static size_t line_at(const char *s, const char **next)
{
	const char *nl = strchr(s, '\n');
	size_t len = nl ? (size_t)(nl - s) : strlen(s);

	*next = nl ? nl + 1 : s + len;
	return len;
}

/*
 * The header block and body of one mail as mailinfo's
 * read_one_header_line() reads them; the first line is mailsplit's
 * "From " line.
 */
static int parse_raw(struct mbox_msg *m, const char *piece)
{
	const char *p = piece, *next;
	unsigned int line = m->line;
	char *h = NULL;

	line_at(p, &next);
	p = next;
	line++;
	for (;;) {
		size_t len = line_at(p, &next);
		unsigned int at = line;

		h = strndup(p, len);
		if (!h)
			return -1;
		rtrim(h);
		if (!*p || !*h || !is_header(h)) {
			int blank = *p && !*h;

			free(h);
			/* an empty line ends the block; another line is body */
			m->body = strdup(blank ? next : p);
			m->body_line = blank ? line + 1 : line;
			return m->body ? 0 : -1;
		}
		p = next;
		line++;
		/* folding: the first blank of a continuation becomes a space */
		while (*p == ' ' || *p == '\t') {
			char *c, *nh;

			len = line_at(p, &next);
			c = strndup(p, len);
			if (!c)
				goto oom;
			c[0] = ' ';
			rtrim(c);
			nh = realloc(h, strlen(h) + strlen(c) + 1);
			if (!nh) {
				free(c);
				goto oom;
			}
			h = nh;
			strcat(h, c);
			free(c);
			p = next;
			line++;
		}
		if (add_header(m, h, at, line - at))
			goto oom;
		free(h);
	}
oom:
	free(h);
	return -1;
}

/* "Author: ...", "Email: ...", "Subject: ...", "Date: ..." of mailinfo */
static int parse_info(struct mbox_msg *m, const char *info)
{
	static const char *const names[] = { "Author", "Email", "Subject",
					      "Date" };
	char **fields[] = { &m->author, &m->email, &m->subject, &m->date };
	const char *p = info, *next;
	size_t i, len, n;

	while (*p) {
		len = line_at(p, &next);
		if (!len)
			break;
		for (i = 0; i < 4; i++) {
			n = strlen(names[i]);
			if (len > n + 1 && !strncmp(p, names[i], n) &&
			    p[n] == ':' && p[n + 1] == ' ' && !*fields[i]) {
				*fields[i] = strndup(p + n + 2, len - n - 2);
				if (!*fields[i])
					return -1;
			}
		}
		p = next;
	}
	for (i = 0; i < 4; i++) {
		if (!*fields[i])
			*fields[i] = strdup("");
		if (!*fields[i])
			return -1;
	}
	return 0;
}

static char *take(struct buf *b)
{
	char *s = b->p ? b->p : strdup("");

	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	return s;
}

/* git mailinfo -k of one split mail; msg->err says why it failed */
static int parse_mail(struct mbox_msg *m, const char *piece_path)
{
	char *const argv[] = { "git", "mailinfo", "-k", "--no-scissors",
			       "--encoding=UTF-8", "/dev/fd/3", "/dev/fd/4",
			       NULL };
	struct buf out[4] = { { 0 } };
	char *line = NULL;
	int status, i, r = -1;

	if (run_git(argv, piece_path, out, 4, &status)) {
		m->err = astr("cannot run git mailinfo: %s", strerror(errno));
		r = m->err ? 0 : -1;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		line = first_line(&out[1]);
		if (line && !*line) {	/* a broken encoded word: mailinfo says nothing */
			free(line);
			line = astr("it exits %d without a word",
				    WIFEXITED(status) ? WEXITSTATUS(status) :
				    128 + WTERMSIG(status));
		}
		if (line)
			m->err = astr("git mailinfo cannot read this mail (%s): %s",
				      "git am would refuse it", line);
		r = m->err ? 0 : -1;
		goto out;
	}
	if (parse_info(m, out[0].p ? out[0].p : ""))
		goto out;
	m->message = take(&out[2]);
	m->patch = take(&out[3]);
	r = m->message && m->patch ? 0 : -1;
out:
	free(line);
	for (i = 0; i < 4; i++)
		free(out[i].p);
	return r;
}

/* bytes of buf that git mailsplit writes: CRLF ends become LF */
static size_t split_size(const char *p, size_t len)
{
	size_t n = 0;
	const char *end = p + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl) {
			n += end - p;
			break;
		}
		n += nl - p + 1;
		if (nl - p >= 1 && nl[-1] == '\r')
			n--;
		p = nl + 1;
	}
	return n;
}

int mbox_read(const char *path, struct mbox *box, char *err, size_t errlen)
{
	char *tmp = NULL, *dir = NULL, *piece = NULL, *opt = NULL, *line = NULL;
	const char *tmpdir = getenv("TMPDIR");
	struct buf out[2] = { { 0 } };
	size_t len, skip, first, total = 0, want, i;
	unsigned int lineno = 1;
	char *buf = NULL, *nul;
	int status, made = 0;
	struct stat st;

	memset(box, 0, sizeof(*box));
	box->path = path;
	if (stat(path, &st)) {
		seterr(err, errlen, path, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		seterr(err, errlen, path, 0, "is a directory: name an mbox file");
		return -1;
	}
	buf = slurp(path, &len);
	if (!buf) {
		seterr(err, errlen, path, 0, "cannot read: %s", strerror(errno));
		return -1;
	}
	nul = memchr(buf, '\0', len);
	if (nul) {
		for (i = 0; buf + i < nul; i++)
			lineno += buf[i] == '\n';
		seterr(err, errlen, path, lineno,
		       "binary data (a NUL byte): not a text mbox");
		goto fail;
	}
	/* mailsplit skips leading white space, as we do for line numbers */
	for (skip = 0; skip < len && isspace((unsigned char)buf[skip]); skip++)
		lineno += buf[skip] == '\n';
	if (skip == len) {
		seterr(err, errlen, path, 1, "empty file: not an mbox");
		goto fail;
	}
	first = strcspn(buf + skip, "\n");
	if (!is_from_line(buf + skip, first + (buf[skip + first] == '\n'))) {
		seterr(err, errlen, path, lineno,
		       "not an mbox: the first line must be a 'From <sender> <date>' line, as git format-patch writes ('From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001')");
		goto fail;
	}

	tmp = astr("%s/x86-copy-series-mbox.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!tmp)
		goto oom;
	if (mkdtemp(tmp))
		made = 1;
	if (!made) {
		seterr(err, errlen, path, 0,
		       "cannot create a directory '%s' to split it into: %s",
		       tmp, strerror(errno));
		goto fail;
	}
	dir = astr("%s/split", tmp);
	opt = astr("-o%s", dir ? dir : "");
	if (!dir || !opt)
		goto oom;
	if (mkdir(dir, 0700)) {
		seterr(err, errlen, path, 0,
		       "cannot create the directory '%s' to split it into: %s",
		       dir, strerror(errno));
		goto fail;
	}
	{
		char *const argv[] = { "git", "mailsplit", opt, "--",
				       (char *)path, NULL };

		if (run_git(argv, "/dev/null", out, 2, &status)) {
			seterr(err, errlen, path, 0, "cannot run git mailsplit: %s",
			       strerror(errno));
			goto fail;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		line = first_line(&out[1]);
		if (!line)
			goto oom;
		seterr(err, errlen, path, 0, "git mailsplit into '%s' failed: %s", dir, line);
		goto fail;
	}
	box->nmsg = strtoul(out[0].p ? out[0].p : "0", NULL, 10);
	/* mailsplit does not check its fclose(): a full disk cuts a mail */
	for (i = 0; i < box->nmsg; i++) {
		free(piece);
		piece = astr("%s/%04zu", dir, i + 1);
		if (!piece)
			goto oom;
		if (stat(piece, &st)) {
			seterr(err, errlen, path, 0,
			       "git mailsplit said %zu mails, '%s' is missing: %s",
			       box->nmsg, piece, strerror(errno));
			goto fail;
		}
		total += st.st_size;
	}
	want = split_size(buf + skip, len - skip);
	if (total != want) {
		seterr(err, errlen, path, 0,
		       "git mailsplit wrote %zu of its %zu bytes into '%s': is the disk full?",
		       total, want, dir);
		goto fail;
	}
	box->msg = calloc(box->nmsg ? box->nmsg : 1, sizeof(*box->msg));
	if (!box->msg)
		goto oom;
	for (i = 0; i < box->nmsg; i++) {
		struct mbox_msg *m = &box->msg[i];
		size_t plen, j;
		char *p;

		free(piece);
		piece = astr("%s/%04zu", dir, i + 1);
		if (!piece)
			goto oom;
		p = slurp(piece, &plen);
		if (!p) {
			seterr(err, errlen, path, lineno,
			       "cannot read '%s' that git mailsplit wrote: %s",
			       piece, strerror(errno));
			goto fail;
		}
		m->line = lineno;
		for (j = 0; j < plen; j++)
			lineno += p[j] == '\n';
		if (parse_raw(m, p) || parse_mail(m, piece)) {
			free(p);
			goto oom;
		}
		free(p);
	}
	free(out[0].p);
	free(out[1].p);
	free(buf);
	remove_tmp(tmp);
	free(tmp);
	free(dir);
	free(opt);
	free(piece);
	return 0;
oom:
	seterr(err, errlen, path, lineno, "out of memory");
fail:
	free(out[0].p);
	free(out[1].p);
	free(buf);
	if (made)
		remove_tmp(tmp);
	free(tmp);
	free(dir);
	free(opt);
	free(piece);
	free(line);
	mbox_free(box);
	return -1;
}

const struct mbox_header *mbox_header_at(const struct mbox_msg *msg,
					 const char *name)
{
	size_t i;

	for (i = 0; i < msg->nhdr; i++)
		if (!strcasecmp(msg->hdr[i].name, name))
			return &msg->hdr[i];
	return NULL;
}

const char *mbox_header(const struct mbox_msg *msg, const char *name)
{
	const struct mbox_header *h = mbox_header_at(msg, name);

	return h ? h->value : NULL;
}

/* a unified diff in the patch part: what git apply needs */
int mbox_has_diff(const struct mbox_msg *msg)
{
	const char *b = msg->patch;

	if (!b)
		return 0;
	return !strncmp(b, "diff -", 6) || strstr(b, "\ndiff -") ||
	       (strstr(b, "\n--- ") && strstr(b, "\n+++ ")) ||
	       !strncmp(b, "Index: ", 7) || strstr(b, "\nIndex: ");
}

/*
 * mailinfo's cleanup_subject() and cleanup_space(): drop leading "Re:",
 * ':', blanks and "[...]" groups, then make each run of white space one
 * space.  Allocated, as long as it is; NULL: no memory.
 */
char *mbox_bare_subject(const char *s)
{
	size_t o = 0, len = strlen(s) + 1;
	char *out = malloc(len);
	int space = 0;

	if (!out)
		return NULL;

	for (;;) {
		if ((s[0] == 'r' || s[0] == 'R') && (s[1] == 'e' || s[1] == 'E') &&
		    s[2] == ':' && s[3]) {
			s += 3;
		} else if (*s == ' ' || *s == '\t' || *s == ':') {
			s++;
		} else if (*s == '[' && strchr(s, ']')) {
			s = strchr(s, ']') + 1;
		} else {
			break;
		}
	}
	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = 1;
			continue;
		}
		if (space && o)
			out[o++] = ' ';
		space = 0;
		out[o++] = *s;
	}
	out[o] = '\0';
	return out;
}

/* the value of a base64 digit, or -1 */
static int b64_digit(int c)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(digits, c) : NULL;

	return p ? (int)(p - digits) : -1;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The bytes of an encoded word's text, into b: Q ('_' a space, "=XX" a
 * byte) or B (base64, "=" padding at its end).  NULL, or why not.
 */
static const char *word_bytes(struct buf *b, int enc, const char *t, size_t n)
{
	unsigned long acc = 0;
	size_t i, bits = 0;
	char c;

	for (i = 0; i < n; i++) {
		if (enc == 'q' && t[i] == '=') {
			int hi = i + 2 < n ? hex_digit((unsigned char)t[i + 1]) : -1;
			int lo = hi >= 0 ? hex_digit((unsigned char)t[i + 2]) : -1;

			if (lo < 0)
				return "an encoded word whose quoted-printable does not decode";
			c = (char)(hi << 4 | lo);
			i += 2;
		} else if (enc == 'q') {
			c = t[i] == '_' ? ' ' : t[i];
		} else {
			int d = b64_digit((unsigned char)t[i]);

			/* "=" pads the end only, after a character's worth of digits */
			if (t[i] == '=' && strspn(t + i, "=") == n - i && bits < 6)
				break;
			if (d < 0)
				return "an encoded word whose base64 does not decode";
			acc = acc << 6 | d;
			bits += 6;
			if (bits < 8)
				continue;
			bits -= 8;
			c = (char)(acc >> bits & 0xff);
		}
		if (buf_add(b, &c, 1))
			return "out of memory";
	}
	if (enc == 'b' && bits >= 6)
		return "an encoded word whose base64 does not decode";
	return NULL;
}

/* text of charset cs as UTF-8, added to out; NULL, or why not (allocated) */
static char *charset_to_utf8(struct buf *out, const char *cs, const char *p, size_t n)
{
	char chunk[256], *in = (char *)p, *o;
	size_t left = n, room;
	iconv_t cd;

	if (!strcasecmp(cs, "utf-8") || !strcasecmp(cs, "us-ascii"))
		return buf_add(out, p, n) ? astr("out of memory") : NULL;
	cd = iconv_open("UTF-8", cs);
	if (cd == (iconv_t)-1)
		return astr("an encoded word of charset '%s', which iconv does not know", cs);
	while (left) {
		o = chunk;
		room = sizeof(chunk);
		if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 && errno != E2BIG) {
			iconv_close(cd);
			return astr("an encoded word that is not of its charset '%s'", cs);
		}
		if (buf_add(out, chunk, o - chunk)) {
			iconv_close(cd);
			return astr("out of memory");
		}
	}
	iconv_close(cd);
	return NULL;
}

/* "=?charset?Q?text?=" at s: its parts and its end, or 0 when it is none */
static int encoded_word(const char *s, char **cs, int *enc, const char **text, size_t *tn,
			const char **end)
{
	const char *c = s + 2, *q, *e;
	size_t n;

	if (s[0] != '=' || s[1] != '?')
		return 0;
	n = strcspn(c, "? \t\n");
	q = c + n;
	if (!n || q[0] != '?' || !strchr("QqBb", q[1]) || !q[1] || q[2] != '?')
		return 0;
	e = strstr(q + 3, "?=");
	if (!e || strcspn(q + 3, " \t\n") < (size_t)(e - (q + 3)))
		return 0;
	/* RFC 2231: "charset*language" */
	*cs = strndup(c, strcspn(c, "*?"));
	*enc = tolower((unsigned char)q[1]);
	*text = q + 3;
	*tn = e - (q + 3);
	*end = e + 2;
	return 1;
}

int mbox_decode_words(const char *s, char **out, char **why)
{
	struct buf o = { 0 }, w = { 0 };
	const char *p = s, *gap = NULL, *text, *end;
	size_t keep = 0, tn;
	char *cs;
	int enc;

	*out = NULL;
	*why = NULL;
	while (*p) {
		const char *bad;

		if (!encoded_word(p, &cs, &enc, &text, &tn, &end)) {
			if (buf_add(&o, p, 1))
				goto oom;
			if (!isspace((unsigned char)*p))
				gap = NULL;
			p++;
			continue;
		}
		if (!cs)
			goto oom;
		/* blanks between two encoded words are no part of the text */
		if (gap)
			o.len = keep;
		w.len = 0;
		bad = word_bytes(&w, enc, text, tn);
		if (bad)
			*why = astr("%s", bad);
		else
			*why = charset_to_utf8(&o, cs, w.p ? w.p : "", w.len);
		free(cs);
		if (*why)
			goto fail;
		keep = o.len;
		gap = end;
		p = end;
	}
	if (buf_add(&o, "", 0))
		goto oom;
	free(w.p);
	*out = o.p;
	return 0;
oom:
	*why = astr("out of memory");
fail:
	free(o.p);
	free(w.p);
	return -1;
}

void mbox_free(struct mbox *box)
{
	size_t i, j;

	for (i = 0; i < box->nmsg && box->msg; i++) {
		struct mbox_msg *m = &box->msg[i];

		for (j = 0; j < m->nhdr; j++) {
			free(m->hdr[j].name);
			free(m->hdr[j].value);
		}
		free(m->hdr);
		free(m->body);
		free(m->err);
		free(m->author);
		free(m->email);
		free(m->subject);
		free(m->date);
		free(m->message);
		free(m->patch);
	}
	free(box->msg);
	box->msg = NULL;
	box->nmsg = 0;
}

/*
 * A symlink in patches/ (tracked: a pulled commit can carry one) would
 * have a tool read a mail from outside it, or a writer of patches/ write
 * through it: every entry must be a regular file or a directory, the
 * rule of the shell tools' patches_plain (scripts/lib.sh).  dir itself
 * may be a link (a copy of patches/ the user names).
 */
int mbox_dir_plain(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char *path;
	int r = 0;

	if (!d) {
		snprintf(err, errlen, "%s: cannot read the directory: %s", dir, strerror(errno));
		return -1;
	}
	while (!r && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			snprintf(err, errlen, "%s: %s", dir, strerror(ENOMEM));
			r = -1;
			break;
		}
		if (lstat(path, &st)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode)) {
			r = mbox_dir_plain(path, err, errlen);
		} else if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "'%s' is %s: %s", path,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file",
				 "patches/ holds regular files only, none is read or written through a link; put the file itself there (git rm the link, git add the file)");
			r = -1;
		}
		free(path);
	}
	closedir(d);
	return r;
}
