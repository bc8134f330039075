// SPDX-License-Identifier: GPL-2.0
/*
 * record-read.c - read result records, strictly: files and directories,
 * one record a line, the commit of a directory, records read twice.  The
 * fields of one record are record-fields.c's.  See record-read.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record-fields.h"
#include "record-read.h"
#include "util.h"

/* where the first record of a file that was read before was read first */
#define DUP_TEXT 512

/* the commit id a path names (out/ci/<commit>/...), in BUF, or NULL */
static const char *dir_commit(const char *path, char *buf, size_t len)
{
	const char *p = path, *found = NULL;
	size_t n, flen = 0;

	while (*p) {
		n = strcspn(p, "/");
		/* a component, not the file name: the last one has no '/' */
		if (p[n] == '/' && n >= 40 && strspn(p, "0123456789abcdef") >= 40 &&
		    (n == 40 || p[40] == '+')) {
			found = p;
			flen = n;
		}
		p += n;
		p += strspn(p, "/");
	}
	if (!found || flen + 1 > len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)flen, found);
	return buf;
}

/* FNV-1a of the record's text: the same text is the same record */
static size_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

static const char *text_of(const struct record *r)
{
	return json_object_to_json_string_ext(r->obj, JSON_C_TO_STRING_PLAIN);
}

/* same_text: the same record, compared by hash first (texts are costly) */
static int same_text(const struct record *a, const struct record *b)
{
	char *t;
	int same;

	if (a->identity != b->identity)
		return 0;
	t = xstrdup(text_of(a));
	same = !strcmp(t, text_of(b));
	free(t);
	return same;
}

static void hash_grow(struct records *rs)
{
	size_t i, nh = rs->nhash ? 2 * rs->nhash : 1024;

	free(rs->hash);
	rs->hash = xcalloc(nh, sizeof(*rs->hash));
	rs->nhash = nh;
	for (i = 0; i < rs->n; i++) {
		size_t h = rs->v[i].identity % nh;

		while (rs->hash[h])
			h = (h + 1) % nh;
		rs->hash[h] = i + 1;
	}
}

/* the record read before with the same text, or NULL (then it is added) */
static const struct record *seen(struct records *rs, struct record *r)
{
	size_t h;

	r->identity = text_hash(text_of(r));
	if (2 * (rs->n + 1) > rs->nhash)
		hash_grow(rs);
	for (h = r->identity % rs->nhash; rs->hash[h]; h = (h + 1) % rs->nhash)
		if (same_text(&rs->v[rs->hash[h] - 1], r))
			return &rs->v[rs->hash[h] - 1];
	rs->hash[h] = rs->n + 1;
	return NULL;
}

static int add(struct records *rs, json_object *o, const char *file, unsigned int line,
	       unsigned int *ndup, char *first_dup)
{
	const struct record *dup;
	struct record *r;
	char buf[128];
	const char *dc;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 256;
		rs->v = xrealloc(rs->v, rs->cap * sizeof(*rs->v));
	}
	r = &rs->v[rs->n];
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->line = line;
	if (record_parse(r, o))
		return -1;
	dc = dir_commit(file, buf, sizeof(buf));
	if (dc && !streq(r->commit, dc)) {
		free(r->samples);
		return record_fail(file, line, "a record of commit '%s' in the directory of %s: %s",
			    r->commit ? r->commit : "(none)", dc,
			    "copied or written to the wrong place; move it to its commit's directory or remove it");
	}
	dup = seen(rs, r);
	if (dup) {
		/* said once per file, by read_file(): the first one here */
		if (!(*ndup)++)
			snprintf(first_dup, DUP_TEXT, "line %u is %s:%u", line, dup->file,
				 dup->line);
		free(r->samples);
		rs->duplicates++;
		return 1;
	}
	rs->n++;
	return 0;
}

static int read_file(struct records *rs, const char *path)
{
	json_tokener *tok = json_tokener_new();
	FILE *f = fopen(path, "r");
	char *buf = NULL, *file, first_dup[DUP_TEXT];
	unsigned int line = 0, ndup = 0;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	if (!f || !tok) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", prog_name(), path,
			strerror(errno));
		if (f)
			fclose(f);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	rs->files = xrealloc(rs->files, (rs->nfiles + 1) * sizeof(*rs->files));
	file = xstrdup(path);
	rs->files[rs->nfiles++] = file;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		json_object *o;
		int r;

		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (!len || strspn(buf, " \t") == (size_t)len)
			continue;
		if (strlen(buf) != (size_t)len) {
			ret = record_fail(file, line, "a NUL byte in the line: not a record");
			break;
		}
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, buf, len);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(o);
			ret = record_fail(file, line, "%s at column %zu: %s",
					  json_tokener_get_error(tok) == json_tokener_continue ?
					  "not JSON (cut short)" : "not JSON",
					  json_tokener_get_parse_end(tok) + 1,
					  "a line holds one record and nothing else");
			break;
		}
		if (json_tokener_get_parse_end(tok) < (size_t)len &&
		    strspn(buf + json_tokener_get_parse_end(tok), " \t") !=
		    (size_t)len - json_tokener_get_parse_end(tok)) {
			json_object_put(o);
			ret = record_fail(file, line, "more after the record at column %zu: %s",
					  json_tokener_get_parse_end(tok) + 1,
					  "a line holds one record and nothing else");
			break;
		}
		r = add(rs, o, file, line, &ndup, first_dup);
		if (r) {
			json_object_put(o);
			if (r < 0) {
				ret = -1;
				break;
			}
		}
	}
	if (!ret && ferror(f))
		ret = record_fail(file, line, "read error: %s", strerror(errno));
	if (!ret && ndup)
		warn("records: %s: %u record(s) read before (%s; given twice, or a copy): %s",
		     file, ndup, first_dup, "counted once");
	free(buf);
	fclose(f);
	json_tokener_free(tok);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_dir(struct records *rs, const char *path)
{
	struct dirent **ents;
	int i, n, ret = 0;

	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: records: %s: cannot read the directory: %s\n",
			prog_name(), path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		struct stat st;
		char *sub;

		if (name[0] != '.' && !ret) {
			sub = xasprintf("%s/%s", path, name);
			if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				ret = read_dir(rs, sub);
			else if (len > 6 && !strcmp(name + len - 6, ".jsonl"))
				ret = read_file(rs, sub);
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int records_read(struct records *rs, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "%s: records: %s: cannot open: %s\n", prog_name(), path,
			strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? read_dir(rs, path) : read_file(rs, path);
}

void records_free(struct records *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		free(rs->v[i].samples);
		json_object_put(rs->v[i].obj);
	}
	for (i = 0; i < rs->nfiles; i++)
		free(rs->files[i]);
	free(rs->files);
	free(rs->v);
	free(rs->hash);
	memset(rs, 0, sizeof(*rs));
}
