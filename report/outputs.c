// SPDX-License-Identifier: GPL-2.0
/*
 * outputs.c - write aside, rename in at the end.  See outputs.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "outputs.h"
#include "util.h"

/* what an exit before outputs_commit() removes; the one static of it */
static struct outputs *pending;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	size_t i;

	if (!pending)
		return;
	for (i = 0; i < pending->n; i++) {
		if (pending->v[i].f)
			fclose(pending->v[i].f);
		if (pending->v[i].is_dir)
			remove_tree(pending->v[i].tmp);
		else if (pending->v[i].tmp)
			unlink(pending->v[i].tmp);
	}
}

static struct output *add(struct outputs *o, const char *path, int is_dir)
{
	struct output *out;
	struct stat st;

	if (o->n == ARRAY_SIZE(o->v))
		die("output: %s: too many outputs", path);
	/*
	 * The rename at the end replaces what is there: a device, a FIFO or
	 * a socket (--json /dev/full, /dev/stdout's terminal, a pipe) would
	 * be replaced by a file, and a file by a directory.  Refused before
	 * any output file is written.
	 */
	if (!stat(path, &st) &&
	    (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
		die("output: %s: exists and is not a %s: not replaced (name a new path)",
		    path, is_dir ? "directory" : "regular file");
	if (!pending) {
		pending = o;
		atexit(cleanup);
	}
	out = &o->v[o->n++];
	out->path = xstrdup(path);
	/* a file's: a new name that outputs_file() makes (lib/outfile.h) */
	out->tmp = is_dir ? xasprintf("%s.tmp-%ld", path, (long)getpid()) : NULL;
	out->is_dir = is_dir;
	out->f = NULL;
	return out;
}

FILE *outputs_file(struct outputs *o, const char *path)
{
	struct output *out = add(o, path, 0);

	/*
	 * a new file beside the output (O_EXCL, a name nothing had): a link
	 * put at the output's name or at a name of its own is never written
	 * through, and the rename replaces a link at the output itself
	 */
	out->f = out_open(prog_name(), path, &out->tmp);
	if (!out->f)
		exit(1);
	return out->f;
}

void outputs_close(struct outputs *o, FILE *f)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		if (o->v[i].f != f)
			continue;
		o->v[i].f = NULL;
		if (ferror(f) | fclose(f))
			die("output: %s: write failed: %s; the previous %s is left as it was",
			    o->v[i].tmp, strerror(errno), o->v[i].path);
		return;
	}
}

const char *outputs_dir(struct outputs *o, const char *path)
{
	struct output *out = add(o, path, 1);

	remove_tree(out->tmp);
	if (mkdir(out->tmp, 0777))
		die("output: %s: cannot create: %s", out->tmp, strerror(errno));
	return out->tmp;
}

void outputs_commit(struct outputs *o)
{
	struct stat st;
	size_t i;
	char *old;

	for (i = 0; i < o->n; i++) {
		struct output *out = &o->v[i];

		old = NULL;
		if (out->f)
			outputs_close(o, out->f);
		if (out->is_dir && !lstat(out->path, &st)) {
			/* a directory does not replace another: move it out first */
			old = xasprintf("%s.old-%ld", out->path, (long)getpid());
			if (rename(out->path, old))
				die("output: %s: cannot move the old one aside: %s", out->path,
				    strerror(errno));
		}
		if (rename(out->tmp, out->path))
			die("output: %s: cannot rename %s into place: %s", out->path, out->tmp,
			    strerror(errno));
		if (old)
			remove_tree(old);
		free(old);
	}
	for (i = 0; i < o->n; i++) {
		free(o->v[i].path);
		free(o->v[i].tmp);
	}
	o->n = 0;
	pending = NULL;
}
