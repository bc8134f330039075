/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile.h - make sure what a program wrote reached its file.
 *
 *   out_close(prog, f, name)  flush and close f (stdout too): 0, or -1
 *                             after "prog: write: name: why" on stderr
 *
 * A full disk often shows only here: stdio buffers the last writes, and
 * a program that exits without looking loses them without a word.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

#endif /* OUTFILE_H */
