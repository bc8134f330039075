/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile.h - the C tools' one way to write a file: no write follows a
 * link, and what a program wrote reached its file.
 *
 *   f = out_open(prog, path, &tmp)  path's whole new text goes to f: a new
 *                                   file beside it (mkstemp of
 *                                   "dir/.name.XXXXXX": O_EXCL, a name
 *                                   nothing had); NULL after the error
 *   out_commit(prog, f, tmp, path)  out_close(f), then tmp renamed over
 *                                   path: 0, or -1 after the error, tmp
 *                                   removed and path as it was
 *   out_abandon(f, tmp)             an error of the caller's: f closed,
 *                                   tmp removed, path as it was
 *   f = out_append(prog, path)      path (created if need be) opened to
 *                                   add to its end, a symlink refused
 *   out_close(prog, f, name)        flush and close f (stdout too): 0, or
 *                                   -1 after "prog: write: name: why"
 *
 * Errors go to stderr as "prog: write: path: why"; tmp is freed by
 * out_commit() and out_abandon().
 *
 * Links: a file of a fixed name (an output beside earlier results, a
 * cache entry) may be a symlink someone put there, to a file outside the
 * results.  rename(2) replaces a link at path, never writes through it,
 * so out_open() and out_commit() write whole files so, and a failure (a
 * full disk) leaves path as it was.  A device or a FIFO at path
 * (/dev/full, a pipe) is written in place (tmp is NULL then): a rename
 * would put a file in its place.  out_append() is for the files that are
 * genuinely added to, by several runs or while a program runs (records,
 * a log): O_NOFOLLOW refuses a link there instead.
 *
 * A full disk often shows only in out_close(): stdio buffers the last
 * writes, and a program that exits without looking loses them without
 * a word.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int out_close(const char *prog, FILE *f, const char *name)
{
	int bad = ferror(f), e = errno;

	if (fflush(f)) {
		bad = 1;
		e = errno;
	}
	if (fclose(f) && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad)
		fprintf(stderr, "%s: write: %s: %s\n", prog, name,
			e ? strerror(e) : "write error");
	return bad ? -1 : 0;
}

/* "prog: write: path: why" for an open that failed with e */
static inline void out_open_error(const char *prog, const char *path, int e)
{
	if (e == ELOOP)
		fprintf(stderr, "%s: write: %s: a symbolic link: not written through (remove it)\n",
			prog, path);
	else
		fprintf(stderr, "%s: write: %s: %s\n", prog, path, strerror(e));
}

static inline FILE *out_open(const char *prog, const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0, fd, e = 0;
	size_t len = strlen(path) + 9;
	struct stat st;
	mode_t mask;
	FILE *f;

	*tmp = NULL;
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		out_open_error(prog, path, EISDIR);
		return NULL;
	}
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	} else {
		*tmp = malloc(len);
		if (!*tmp) {
			out_open_error(prog, path, ENOMEM);
			return NULL;
		}
		snprintf(*tmp, len, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen);
		fd = mkstemp(*tmp);
		/* mkstemp's file is the owner's alone: the mode fopen() gives */
		mask = umask(0);
		umask(mask);
		if (fd >= 0 && (fchmod(fd, 0666 & ~mask) || fcntl(fd, F_SETFD, FD_CLOEXEC))) {
			e = errno;
			close(fd);
			unlink(*tmp);
			fd = -1;
		}
	}
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		e = e ? e : errno;
		if (fd >= 0) {
			close(fd);
			if (*tmp)
				unlink(*tmp);
		}
		out_open_error(prog, path, e);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

static inline void out_abandon(FILE *f, char *tmp)
{
	if (f)
		fclose(f);
	if (tmp)
		unlink(tmp);
	free(tmp);
}

static inline int out_commit(const char *prog, FILE *f, char *tmp, const char *path)
{
	int rc = out_close(prog, f, path);

	if (!rc && tmp && rename(tmp, path)) {
		fprintf(stderr, "%s: write: %s: cannot rename %s over it: %s\n", prog, path, tmp,
			strerror(errno));
		rc = -1;
	}
	if (rc && tmp)
		unlink(tmp);
	free(tmp);
	return rc;
}

static inline FILE *out_append(const char *prog, const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "a");

	if (!f) {
		out_open_error(prog, path, errno);
		if (fd >= 0)
			close(fd);
	}
	return f;
}

#endif /* OUTFILE_H */
