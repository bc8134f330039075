// SPDX-License-Identifier: GPL-2.0
/*
 * record-reuse.c - record-reuse: one step's records of one commit, made
 * the records of another commit whose step inputs are the same content
 * (ci/run.sh: results keyed by content; a changelog edit gives a commit a
 * new id and the same tree, kernel and guest).
 *
 *   record-reuse --from OLD --commit NEW --to OUT IN
 *
 * Every line of IN is read as the reader reads a record (lib/record-
 * fields.c: a bad one is refused by file and line), must be a record of
 * OLD, and is written to OUT (a new file renamed over it: a link there is
 * replaced, never written through; lib/outfile.h) with its commit
 * NEW and reused_from the commit first measured: OLD, or the reused_from
 * it already has.  Nothing else of the record changes: the samples are
 * the same samples.  Exit 0; 1 when a record is refused or OUT cannot be
 * written whole (OUT removed); 2 on usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "record-fields.h"
#include "record-write.h"
#include "util.h"

#define PROG "record-reuse"
#define USAGE "usage: record-reuse --from OLD --commit NEW --to OUT IN"

static __noreturn void usage_exit(const char *why)
{
	fprintf(stderr, PROG ": %s%s" USAGE "\n", why ? why : "", why ? "\n" PROG ": " : "");
	exit(2);
}

/* a full commit id: 40 hex digits, as every commit field of ci/run.sh */
static int commit_id(const char *s)
{
	return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* one line of IN, checked and rewritten into OUT: 0, or -1 said */
static int reuse_line(const char *in, unsigned int line, const char *text, const char *from,
		      const char *to, FILE *out, const char *path)
{
	struct record r = { .file = in, .line = line };
	json_object *o;
	const char *first;

	if (record_json_parse(text, &o))
		return record_fail(in, line, "not one JSON value");
	if (record_parse(&r, o)) {
		json_object_put(o);
		return -1;
	}
	/* the samples are written as they are, from the object */
	free(r.samples);
	if (!r.commit || strcmp(r.commit, from)) {
		record_fail(in, line, "a record of commit %s, not of --from %s",
			    r.commit ? r.commit : "(none)", from);
		json_object_put(o);
		return -1;
	}
	first = r.reused_from ? r.reused_from : from;
	json_object_object_add(o, "reused_from", json_object_new_string(first));
	json_object_object_add(o, "commit", json_object_new_string(to));
	if (record_write(out, o)) {
		fprintf(stderr, PROG ": write: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "commit", required_argument, NULL, 'c' },
		{ "to", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *from = NULL, *commit = NULL, *to = NULL, *in;
	char *text = NULL, *tmp;
	size_t cap = 0;
	ssize_t len;
	unsigned int line = 0;
	int opt, bad = 0;
	FILE *fin, *out;
	struct stat st;

	prog_set(PROG);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			from = optarg;
			break;
		case 'c':
			commit = optarg;
			break;
		case 't':
			to = optarg;
			break;
		default:
			usage_exit(NULL);
		}
	}
	if (!from || !commit || !to || optind != argc - 1)
		usage_exit(NULL);
	if (!commit_id(from) || !commit_id(commit))
		usage_exit("--from and --commit are full commit ids (40 hex digits)");
	if (!strcmp(from, commit))
		usage_exit("--from and --commit are the same commit: nothing to reuse");
	in = argv[optind];
	fin = fopen(in, "r");
	if (!fin)
		die("records: %s: %s", in, strerror(errno));
	out = out_open(PROG, to, &tmp);
	if (!out) {
		fclose(fin);
		return 1;
	}
	while (!bad && (len = getline(&text, &cap, fin)) != -1) {
		line++;
		if (len && text[len - 1] == '\n')
			text[--len] = '\0';
		bad = reuse_line(in, line, text, from, commit, out, to);
	}
	if (!bad && ferror(fin)) {
		fprintf(stderr, PROG ": records: %s: %s\n", in, strerror(errno));
		bad = -1;
	}
	if (!bad && !line) {
		fprintf(stderr, PROG ": records: %s: no record: nothing to reuse\n", in);
		bad = -1;
	}
	free(text);
	fclose(fin);
	if (bad)
		out_abandon(out, tmp);
	else if (out_commit(PROG, out, tmp, to))
		bad = -1;
	/* never a part of the records: the OUT before is removed too */
	if (bad) {
		if (!lstat(to, &st) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			unlink(to);
		return 1;
	}
	return 0;
}
