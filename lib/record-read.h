/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record-read.h - the one reader of result records (doc/records.md), the
 * counterpart of record-write.h.  Every tool that reads records uses it:
 * ci-report, ci-merge, bench-vm-report.
 *
 * API, in call order:
 *   struct records rs = { 0 };
 *   records_read(&rs, path)        a .jsonl file, or a directory: every
 *                                  *.jsonl under it, in name order; 0, or
 *                                  -1 after the error on stderr
 *   rs.v[i].suite, .samples, ...   the fields, typed and read-only
 *   record_param(r, "size")        a number of params, or NAN
 *   record_preempted(r, i)         how often sample i was preempted (host
 *                                  benchmarks; 0 when not recorded)
 *   samples_add(&sm, r)            r's samples and their preempted counts
 *                                  appended to a struct samples (for
 *                                  stats_summary(), stats_clean());
 *                                  samples_free(&sm)
 *   records_free(&rs)
 *
 * Strict, because the numbers are the product: each line is one JSON
 * object and nothing else (two records on a line, or anything after one,
 * is an error); every field a reader uses has its type checked (a wrong
 * type is an error, never a crash or a 0); NaN and infinities are
 * refused; a record in the directory of another commit (a path component
 * that is a commit id, as out/ci/<commit>/ and out/bench-vm/<commit>/
 * are) is refused.  Errors name the file and line: "prog: records:
 * FILE:LINE: what", and what to do.  The same record read twice (all its
 * fields equal: a file given twice, or a copy of it) counts once, with a
 * warning naming both places.
 */
#ifndef RECORD_READ_H
#define RECORD_READ_H

#include <stddef.h>
#include <json-c/json.h>

struct record {
	const char *suite, *case_name, *metric, *unit;
	const char *commit, *kernel, *accel, *host, *time;
	const char *clock;		/* "icount" or "wall" (also when absent) */
	const char *cpu_name, *cpu_vendor;	/* cpu.model_name, cpu.vendor */
	const char *host_cpu_name;	/* host_cpu.model_name, or NULL */
	const char *error;		/* the text of an error record */
	const char *qemu_cpu;		/* QEMU's -cpu (params.qemu_cpu), or NULL */
	/* the commit whose run these results are (ci/run.sh), or NULL */
	const char *reused_from;
	double *samples;
	size_t n;
	json_object *params;		/* an object, or NULL */
	json_object *digest;		/* bench-vm page digests (strings), or NULL */
	const char *model;		/* bench-vm's model ("cache"), or NULL */
	const char *model_label;	/* what its figures are, printed with them */
	json_object *functions;		/* model: per sample, its top functions, or NULL */
	json_object *build;		/* the kernel build measured (checked), or NULL */
	int schema_v1;			/* written before builds were named */
	json_object *obj;		/* the whole record; owns the strings */
	const char *file;
	unsigned int line;
	size_t identity;		/* a hash of all its fields, for duplicates */
};

struct records {
	struct record *v;
	size_t n, cap;
	char **files;			/* the files read, for record.file */
	size_t nfiles;
	size_t *hash;			/* duplicate detection: index + 1, or 0 */
	size_t nhash;
	size_t duplicates;		/* records read twice, counted once */
};

int records_read(struct records *rs, const char *path);
void records_free(struct records *rs);
double record_param(const struct record *r, const char *key);
/* params.preempted[i] (checked when read: counts, one a sample), 0 when none */
long record_preempted(const struct record *r, size_t i);
/* params has key, whatever its value */
int record_param_has(const struct record *r, const char *key);
const char *record_param_str(const struct record *r, const char *key);

/*
 * The samples of some records in one array, each with how often it was
 * preempted beside it (0 where its record does not say): what a
 * statistic of several records is computed on.  marked: some record
 * says (params.preempted), so a clean median means something.
 */
struct samples {
	double *v;
	long *pre;
	size_t n;
	int marked;
};

void samples_add(struct samples *sm, const struct record *r);
void samples_free(struct samples *sm);

#endif /* RECORD_READ_H */
