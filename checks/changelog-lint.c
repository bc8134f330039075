// SPDX-License-Identifier: GPL-2.0
/*
 * changelog-lint - check the changelogs of patch mails.
 *
 *   changelog-lint FILE.mbox...
 *
 * Every mail of every file that carries a diff is checked against the
 * rules of the table below (a mail without a diff, such as a cover letter,
 * is reported on stderr as skipped).  Each finding is one line on stdout:
 *
 *   FILE:LINE: RULE: message
 *
 * Mails are read as git am reads them (lib/mbox.c: git mailsplit, git
 * mailinfo -k for the subject and the author's address).  The changelog
 * is the body up to the "---" line.  Exit status: 0 clean, 1 findings, an
 * unreadable mbox or mail (named with its line on stderr) or stdout that
 * cannot be written, 2 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mbox.h"
#include "outfile.h"

#define PROG "changelog-lint"
#define MAX_COLS 75
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct patch {
	const char *path;
	const struct mbox_msg *msg;
	const char *subject;
	const char *from;
	char *log;		/* the changelog: body up to "---" */
	unsigned int log_line;	/* file line of its first line */
	int touches_asm;	/* arch/x86/lib/ or asm/string*.h */
	char asm_file[300];
};

static int nfindings;

static void finding(const struct patch *p, unsigned int line, const char *rule,
		    const char *fmt, const char *arg)
{
	printf("%s:%u: %s: ", p->path, line, rule);
	printf(fmt, arg);
	putchar('\n');
	nfindings++;
}

/* "[PATCH v2 3/7] area/sub: summary": the prefix form after the tags */
static void rule_subject(const struct patch *p)
{
	const char *s = p->subject;
	regex_t re;
	int bad;

	if (!s || !*s) {
		finding(p, p->msg->line, "subject", "no Subject: header%s", "");
		return;
	}
	while (*s == '[' && strchr(s, ']')) {
		s = strchr(s, ']') + 1;
		while (*s == ' ')
			s++;
	}
	if (regcomp(&re, "^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*(: [A-Za-z0-9_./-]+)*: [^ ].*[^ .]$",
		    REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, PROG ": subject: regcomp failed\n");
		exit(1);
	}
	bad = regexec(&re, s, 0, NULL, 0);
	regfree(&re);
	if (bad)
		finding(p, p->msg->line, "subject",
			"'%s' is not 'area: summary' or 'area/sub: summary' (no trailing period)",
			s);
}

/* the address of "Name <addr>" or of a bare address, lower case */
static void email_of(const char *v, char *out, size_t len)
{
	const char *lt = strrchr(v, '<');
	const char *gt = lt ? strchr(lt, '>') : NULL;
	size_t i, n;

	if (gt) {
		v = lt + 1;
		n = gt - v;
	} else {
		while (isspace((unsigned char)*v))
			v++;
		n = strcspn(v, " \t\r\n");
	}
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		out[i] = tolower((unsigned char)v[i]);
	out[n] = '\0';
}

/* next line of the changelog: its length, and advances *pp */
static size_t next_line(const char **pp, const char **line)
{
	const char *p = *pp, *nl = strchr(p, '\n');
	size_t len = nl ? (size_t)(nl - p) : strlen(p);

	*line = p;
	*pp = nl ? nl + 1 : p + len;
	return len;
}

/* The author (From:, or an in-body From: line) signs off. */
static void rule_signoff(const struct patch *p)
{
	char author[256], addr[256];
	const char *q = p->log, *line;
	unsigned int n = 0, nsob = 0;
	int signed_by_author = 0;
	size_t len;

	email_of(p->from ? p->from : "", author, sizeof(author));
	if (!strncmp(q, "From: ", 6)) {
		next_line(&q, &line);
		email_of(line + 6, author, sizeof(author));
	}
	for (q = p->log; *q; n++) {
		len = next_line(&q, &line);
		if (len > 15 && !strncasecmp(line, "Signed-off-by: ", 15)) {
			char *v = strndup(line + 15, len - 15);

			if (!v) {
				fprintf(stderr, PROG ": signoff: out of memory\n");
				exit(1);
			}
			email_of(v, addr, sizeof(addr));
			free(v);
			nsob++;
			if (!strcmp(addr, author))
				signed_by_author = 1;
		}
	}
	if (!nsob)
		finding(p, p->log_line, "signoff", "no Signed-off-by: line%s", "");
	else if (!signed_by_author)
		finding(p, p->log_line, "signoff",
			"the author <%s> has no Signed-off-by: line", author);
}

/*
 * A trailer that cannot be wrapped, as checkpatch exempts it: a tag ending
 * in "-by" (Signed-off-by: with a long name and address), Cc:, Link:,
 * Closes:
 */
static int is_trailer(const char *line, size_t len)
{
	static const char *const tags[] = { "Cc", "Link", "Closes" };
	size_t i, n = 0;

	while (n < len && (isalnum((unsigned char)line[n]) || line[n] == '-'))
		n++;
	if (!n || n + 1 >= len || line[n] != ':' || line[n + 1] != ' ')
		return 0;
	if (n > 3 && !memcmp(line + n - 3, "-by", 3))
		return 1;
	for (i = 0; i < ARRAY_SIZE(tags); i++)
		if (strlen(tags[i]) == n && !memcmp(line, tags[i], n))
			return 1;
	return 0;
}

/* <= 75 columns (tabs to 8); URLs, quoted lines, Fixes: and trailers exempt */
static void rule_line_length(const struct patch *p)
{
	const char *q = p->log, *line;
	unsigned int n = 0;
	size_t len, i, cols;
	char buf[32];

	while (*q) {
		len = next_line(&q, &line);
		n++;
		if (line[0] == '>' || !strncmp(line, "Fixes: ", 7) || is_trailer(line, len))
			continue;
		cols = 0;
		for (i = 0; i < len; i++) {
			if (line[i] == '\t')
				cols = (cols + 8) & ~(size_t)7;
			else if (((unsigned char)line[i] & 0xc0) != 0x80)
				cols++;	/* one column per UTF-8 character */
		}
		if (cols <= MAX_COLS)
			continue;
		/* a URL cannot be wrapped */
		if (memmem(line, len, "://", 3))
			continue;
		snprintf(buf, sizeof(buf), "%zu", cols);
		finding(p, p->log_line + n - 1, "line-length",
			"%s columns, more than 75", buf);
	}
}

/* hardware names: a CPU vendor, family or model must be named */
static const char *const hardware[] = {
	"CPU", "processor", "Intel", "AMD", "Xeon", "EPYC", "Ryzen", "Zen[0-9 ]",
	"Atom", "Core i[3579]", "[A-Z][a-z]+ ?(Lake|Bridge|well|Rapids|Forest)",
	"Skylake", "Icelake", "Hygon", "Zhaoxin", "Opteron", "Threadripper",
	"Graviton", "Ampere", "Neoverse",
};

/* a number with a unit of time, rate or ratio */
static const char *const number_words =
	"[0-9]+(\\.[0-9]+)? ?(ms|us|ns|s|%|cycles|GB/s|MB/s|GiB/s|MiB/s|KB/s)([^A-Za-z0-9/]|$)";

static int count_matches(const char *text, const char *pattern)
{
	regmatch_t m;
	regex_t re;
	int n = 0;

	if (regcomp(&re, pattern, REG_EXTENDED)) {
		fprintf(stderr, PROG ": asm-numbers: regcomp failed\n");
		exit(1);
	}
	for (; *text && !regexec(&re, text, 1, &m, n ? REG_NOTBOL : 0);) {
		n++;
		text += m.rm_eo > 0 ? m.rm_eo : 1;
	}
	regfree(&re);
	return n;
}

/*
 * The x86 maintainers' rule for asm optimizations: state the hardware and
 * the numbers before and after (seeds 001 and 002 of the series).
 */
static void rule_asm_numbers(const struct patch *p)
{
	char buf[64], pat[128];
	int hw, nums;
	size_t i;

	if (!p->touches_asm)
		return;
	hw = 0;
	for (i = 0; i < ARRAY_SIZE(hardware); i++) {
		snprintf(pat, sizeof(pat), "(^|[^A-Za-z])%s", hardware[i]);
		hw += count_matches(p->log, pat);
	}
	nums = count_matches(p->log, number_words);
	if (!hw)
		finding(p, p->log_line, "asm-numbers",
			"touches %s but names no hardware (CPU vendor or model) it was measured on",
			p->asm_file);
	if (nums < 2) {
		snprintf(buf, sizeof(buf), "%d", nums);
		finding(p, p->log_line, "asm-numbers",
			"touches an x86 copy routine but quotes %s number(s) with a unit (ms, ns, %%, GB/s...), fewer than a before and an after",
			buf);
	}
}

static const struct rule {
	const char *name;
	const char *what;
	void (*fn)(const struct patch *p);
} rules[] = {
	{ "subject", "subject prefix 'area: summary' or 'area/sub: summary'", rule_subject },
	{ "signoff", "the author (From:) has a Signed-off-by: line", rule_signoff },
	{ "line-length", "changelog lines <= 75 columns (URLs, quotes, trailers exempt)",
	  rule_line_length },
	{ "asm-numbers", "arch/x86/lib, asm/string*.h: hardware, before/after numbers",
	  rule_asm_numbers },
};

/* split the body into changelog and diff; find the files it touches */
static int prepare(struct patch *p)
{
	const char *body = p->msg->body ? p->msg->body : "", *q = body, *line;
	const char *end = NULL;
	size_t len;
	regex_t re;

	if (regcomp(&re, "^(\\+\\+\\+|---) [ab]/arch/x86/(lib/|include/asm/string[^/]*\\.h)",
		    REG_EXTENDED | REG_NOSUB))
		return -1;
	while (*q) {
		const char *start = q;

		len = next_line(&q, &line);
		if (!end && len == 3 && !strncmp(line, "---", 3))
			end = start;
		if (!end && !strncmp(line, "diff --git ", 11))
			end = start;
		if (end && !p->touches_asm && len > 6 && len < 300) {
			char tmp[300];

			memcpy(tmp, line, len);
			tmp[len] = '\0';
			if (!regexec(&re, tmp, 0, NULL, 0)) {
				p->touches_asm = 1;
				snprintf(p->asm_file, sizeof(p->asm_file), "%s", tmp + 6);
			}
		}
	}
	regfree(&re);
	p->log = strndup(body, end ? (size_t)(end - body) : strlen(body));
	p->log_line = p->msg->body_line;
	return p->log ? 0 : -1;
}

int main(int argc, char **argv)
{
	char err[4096];
	int i, unreadable = 0;
	size_t r;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: " PROG " FILE.mbox...\nrules:\n");
		for (r = 0; r < ARRAY_SIZE(rules); r++)
			fprintf(stderr, "  %-12s %s\n", rules[r].name, rules[r].what);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct mbox box;
		size_t m;

		if (mbox_read(argv[i], &box, err, sizeof(err))) {
			fprintf(stderr, PROG ": read: %s\n", err);
			return 1;
		}
		for (m = 0; m < box.nmsg; m++) {
			struct patch p = { .path = argv[i], .msg = &box.msg[m] };

			if (p.msg->err) {
				fprintf(stderr, PROG ": read: %s:%u: %s\n", argv[i],
					p.msg->line, p.msg->err);
				unreadable = 1;
				continue;
			}
			if (!mbox_has_diff(p.msg)) {
				fprintf(stderr, PROG ": %s:%u: %s\n", argv[i],
					p.msg->line, "no diff (a cover letter?): skipped");
				continue;
			}
			p.subject = p.msg->subject;
			p.from = p.msg->email;
			if (prepare(&p)) {
				fprintf(stderr, PROG ": %s: out of memory\n", argv[i]);
				mbox_free(&box);
				return 1;
			}
			for (r = 0; r < ARRAY_SIZE(rules); r++)
				rules[r].fn(&p);
			free(p.log);
		}
		mbox_free(&box);
	}
	if (out_close(PROG, stdout, "stdout"))
		return 1;
	return nfindings || unreadable ? 1 : 0;
}
