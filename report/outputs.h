/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outputs.h - a report's files are written aside and renamed into place
 * together at the end, so that a run that fails (bad records, a full
 * disk) leaves the previous report whole, never old and new files mixed.
 *
 * API, in call order:
 *   struct outputs o = { 0 };
 *   f = outputs_file(&o, "out/ci/report.md")   writes .report.md.XXXXXX
 *   outputs_close(&o, f)                        checked; dies on an error
 *   dir = outputs_dir(&o, "out/ci/plots")       a fresh plots.tmp-PID/
 *   outputs_commit(&o)                          every file renamed in
 *
 * Until outputs_commit(), an exit (die()) removes what was written aside.
 * A file aside is new (lib/outfile.h's out_open()): no link at a name
 * is written through, and the rename replaces a link at the output.
 */
#ifndef CI_OUTPUTS_H
#define CI_OUTPUTS_H

#include <stdio.h>

struct output {
	char *path, *tmp;
	FILE *f;
	int is_dir;
};

struct outputs {
	struct output v[8];
	size_t n;
};

FILE *outputs_file(struct outputs *o, const char *path);
void outputs_close(struct outputs *o, FILE *f);
const char *outputs_dir(struct outputs *o, const char *path);
void outputs_commit(struct outputs *o);

#endif /* CI_OUTPUTS_H */
