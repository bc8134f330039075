// SPDX-License-Identifier: GPL-2.0
/*
 * trailers-collect - find review trailers for the series in reply mails.
 *
 *   trailers-collect patches/series replies.mbox
 *
 * A reply belongs to the patch whose Message-Id its In-Reply-To (or the
 * last References entry) names; failing that, to the patch whose subject
 * it answers ("Re: [PATCH 3/7] foo" -> "foo").  A reply to the cover
 * letter gives its trailers to every applied patch.  Trailers are the
 * Reviewed-by, Tested-by and Acked-by lines of the reply that are not
 * quoted.  Prints "file<TAB>trailer" lines in the order found (a pair may
 * repeat: scripts/trailers.sh keeps the first); replies that
 * match no patch are reported on stderr and ignored.
 */
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox.h"

#define PROG "trailers-collect"

struct patch {
	char file[PATH_MAX];
	char msgid[512];
	char subject[512];	/* without "Re:" and "[...]" */
	int cover;
};

static const char *const kinds[] = { "Reviewed-by:", "Tested-by:",
				     "Acked-by:" };

/* "Re: [PATCH v2 3/7] foo" -> "foo" */
static void bare_subject(const char *s, char *out, size_t len)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!strncasecmp(s, "re:", 3)) {
			s += 3;
		} else if (*s == '[' && strchr(s, ']')) {
			s = strchr(s, ']') + 1;
		} else {
			break;
		}
	}
	snprintf(out, len, "%s", s);
}

/* the last <...> of a header value */
static void last_id(const char *v, char *out, size_t len)
{
	const char *open = v ? strrchr(v, '<') : NULL;
	const char *close = open ? strchr(open, '>') : NULL;

	out[0] = '\0';
	if (open && close)
		snprintf(out, len, "%.*s", (int)(close - open + 1), open);
}

static int load_series(const char *series, struct patch **out, size_t *n)
{
	char line[PATH_MAX + 64], dircopy[PATH_MAX], path[PATH_MAX * 2];
	char err[PATH_MAX + 256], status[16], file[PATH_MAX];
	struct patch *p = NULL;
	FILE *f = fopen(series, "r");
	char *dir;

	if (!f) {
		fprintf(stderr, PROG ": %s: cannot open\n", series);
		return -1;
	}
	snprintf(dircopy, sizeof(dircopy), "%s", series);
	dir = dirname(dircopy);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct mbox box;
		const char *v;

		if (sscanf(line, "%4095s %15s", file, status) != 2 ||
		    file[0] == '#' ||
		    (strcmp(status, "applied") && strcmp(status, "cover")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file);
		if (mbox_read(path, &box, err, sizeof(err)) || !box.nmsg) {
			fprintf(stderr, PROG ": %s\n", err);
			fclose(f);
			free(p);
			return -1;
		}
		p = realloc(p, (*n + 1) * sizeof(*p));
		if (!p) {
			fclose(f);
			return -1;
		}
		memset(&p[*n], 0, sizeof(p[*n]));
		snprintf(p[*n].file, sizeof(p[*n].file), "%s", file);
		v = mbox_header(&box.msg[0], "Message-Id");
		last_id(v, p[*n].msgid, sizeof(p[*n].msgid));
		v = mbox_header(&box.msg[0], "Subject");
		bare_subject(v ? v : "", p[*n].subject, sizeof(p[*n].subject));
		p[*n].cover = !strcmp(status, "cover");
		(*n)++;
		mbox_free(&box);
	}
	fclose(f);
	*out = p;
	return 0;
}

static const struct patch *target(const struct mbox_msg *m,
				  const struct patch *p, size_t n)
{
	char id[512], subj[512];
	const char *v;
	size_t i;

	last_id(mbox_header(m, "In-Reply-To"), id, sizeof(id));
	if (!id[0])
		last_id(mbox_header(m, "References"), id, sizeof(id));
	for (i = 0; id[0] && i < n; i++)
		if (!strcmp(p[i].msgid, id))
			return &p[i];
	v = mbox_header(m, "Subject");
	if (!v || strncasecmp(v, "re:", 3))
		return NULL;
	bare_subject(v, subj, sizeof(subj));
	for (i = 0; i < n; i++)
		if (!strcmp(p[i].subject, subj))
			return &p[i];
	return NULL;
}

static void emit(const struct patch *p, size_t n, const struct patch *t,
		 const char *trailer)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t->cover ? !p[i].cover : &p[i] == t)
			printf("%s\t%s\n", p[i].file, trailer);
}

int main(int argc, char **argv)
{
	char err[PATH_MAX + 256];
	struct patch *p;
	struct mbox box;
	size_t n, i, k;

	if (argc != 3) {
		fprintf(stderr, "usage: " PROG " patches/series replies.mbox\n");
		return 2;
	}
	if (load_series(argv[1], &p, &n))
		return 1;
	if (mbox_read(argv[2], &box, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		free(p);
		return 1;
	}
	for (i = 0; i < box.nmsg; i++) {
		const struct mbox_msg *m = &box.msg[i];
		const struct patch *t = target(m, p, n);
		char *body, *line, *save = NULL;

		if (!t) {
			const char *s = mbox_header(m, "Subject");

			fprintf(stderr,
				PROG ": %s:%u: reply '%s' matches no patch of the series: ignored\n",
				argv[2], m->line, s ? s : "(no subject)");
			continue;
		}
		body = strdup(m->body ? m->body : "");
		if (!body)
			break;
		for (line = strtok_r(body, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			while (*line == ' ' || *line == '\t')
				line++;
			for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
				if (!strncasecmp(line, kinds[k], strlen(kinds[k])) &&
				    strchr(line, '@') && strchr(line, '>'))
					emit(p, n, t, line);
		}
		free(body);
	}
	mbox_free(&box);
	free(p);
	return 0;
}
