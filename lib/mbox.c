// SPDX-License-Identifier: GPL-2.0
/*
 * mbox.c - read patch mails from an mbox file.  See mbox.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox.h"

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

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		seterr(err, errlen, path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nbuf;

			cap = cap ? cap * 2 : 65536;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				seterr(err, errlen, path, 0, "out of memory");
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		seterr(err, errlen, path, 0, "read error: %s", strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	if (memchr(buf, '\0', len)) {
		seterr(err, errlen, path, 0, "binary data (NUL byte): not an mbox");
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Append a header line, or continue the previous one (RFC 5322 folding). */
static int add_header(struct mbox_msg *m, char *line)
{
	char *colon, *v, *nv;
	struct mbox_header *nh;

	if ((*line == ' ' || *line == '\t') && m->nhdr) {
		struct mbox_header *h = &m->hdr[m->nhdr - 1];
		size_t a = strlen(h->value);

		while (*line == ' ' || *line == '\t')
			line++;
		nv = realloc(h->value, a + strlen(line) + 2);
		if (!nv)
			return -1;
		nv[a] = ' ';
		strcpy(nv + a + 1, line);
		h->value = nv;
		return 0;
	}
	colon = strchr(line, ':');
	if (!colon || colon == line || strpbrk(line, " \t") < colon)
		return 1;
	nh = realloc(m->hdr, (m->nhdr + 1) * sizeof(*nh));
	if (!nh)
		return -1;
	m->hdr = nh;
	*colon = '\0';
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	nh[m->nhdr].name = strdup(line);
	nh[m->nhdr].value = strdup(v);
	if (!nh[m->nhdr].name || !nh[m->nhdr].value)
		return -1;
	m->nhdr++;
	return 0;
}

int mbox_read(const char *path, struct mbox *box, char *err, size_t errlen)
{
	char *buf, *p, *next;
	unsigned int lineno = 0;
	struct mbox_msg *cur = NULL;
	int in_headers = 0, prev_blank = 1;
	char *body_start = NULL;

	memset(box, 0, sizeof(*box));
	box->path = path;
	buf = slurp(path, err, errlen);
	if (!buf)
		return -1;
	if (!*buf) {
		seterr(err, errlen, path, 1, "empty file: not an mbox");
		goto fail;
	}
	if (strncmp(buf, "From ", 5)) {
		seterr(err, errlen, path, 1,
		       "not an mbox: the first line must start with 'From ' (save the mail with 'git format-patch' or 'b4 mbox')");
		goto fail;
	}

	for (p = buf; *p; p = next) {
		size_t len;

		lineno++;
		next = strchr(p, '\n');
		len = next ? (size_t)(next - p) : strlen(p);
		next = next ? next + 1 : p + len;

		if (prev_blank && !in_headers && !strncmp(p, "From ", 5)) {
			struct mbox_msg *nm;

			if (cur && body_start) {
				/* the blank line before "From " ends the body */
				cur->body = strndup(body_start, p - body_start);
				if (!cur->body)
					goto oom;
			}
			nm = realloc(box->msg, (box->nmsg + 1) * sizeof(*nm));
			if (!nm)
				goto oom;
			box->msg = nm;
			cur = &box->msg[box->nmsg++];
			memset(cur, 0, sizeof(*cur));
			cur->line = lineno;
			in_headers = 1;
			body_start = NULL;
			prev_blank = 0;
			continue;
		}
		if (in_headers) {
			char *line;
			int r;

			if (len == 0 || (len == 1 && p[0] == '\r')) {
				if (!cur->nhdr) {
					seterr(err, errlen, path, lineno,
					       "mail without headers after the 'From ' line of line %u",
					       cur->line);
					goto fail;
				}
				in_headers = 0;
				body_start = next;
				cur->body_line = lineno + 1;
				prev_blank = 1;
				continue;
			}
			line = strndup(p, len);
			if (!line)
				goto oom;
			if (len && line[len - 1] == '\r')
				line[len - 1] = '\0';
			r = add_header(cur, line);
			free(line);
			if (r < 0)
				goto oom;
			if (r > 0) {
				seterr(err, errlen, path, lineno,
				       "malformed header line (no 'Name: value'); headers must end with an empty line");
				goto fail;
			}
			continue;
		}
		prev_blank = (len == 0);
	}
	if (in_headers) {
		seterr(err, errlen, path, lineno,
		       "mail starting at line %u ends inside its headers (no body)",
		       cur->line);
		goto fail;
	}
	if (cur && body_start) {
		cur->body = strdup(body_start);
		if (!cur->body)
			goto oom;
	}
	free(buf);
	return 0;
oom:
	seterr(err, errlen, path, lineno, "out of memory");
fail:
	free(buf);
	mbox_free(box);
	return -1;
}

const char *mbox_header(const struct mbox_msg *msg, const char *name)
{
	size_t i;

	for (i = 0; i < msg->nhdr; i++)
		if (!strcasecmp(msg->hdr[i].name, name))
			return msg->hdr[i].value;
	return NULL;
}

int mbox_has_diff(const struct mbox_msg *msg)
{
	const char *b = msg->body;

	if (!b)
		return 0;
	return !strncmp(b, "diff --git ", 11) || strstr(b, "\ndiff --git ") ||
	       strstr(b, "\n--- a/") || strstr(b, "\nIndex: ");
}

void mbox_free(struct mbox *box)
{
	size_t i, j;

	for (i = 0; i < box->nmsg; i++) {
		struct mbox_msg *m = &box->msg[i];

		for (j = 0; j < m->nhdr; j++) {
			free(m->hdr[j].name);
			free(m->hdr[j].value);
		}
		free(m->hdr);
		free(m->body);
	}
	free(box->msg);
	box->msg = NULL;
	box->nmsg = 0;
}
