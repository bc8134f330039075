/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record-write.h - the one writer of the result record every producer
 * writes (JSON Lines); record-read.h reads them back.
 *
 * A record says what was measured (suite, case, metric, unit, the raw
 * samples), on what (commit, kernel, CPU, accel kvm|tcg|host, host name)
 * and when.  The report reads only records; raw samples are always kept.
 * Timings also say which clock took them (wall, or a guest's icount).
 * The schema is documented in doc/records.md.
 *
 * API, in call order:
 *   record_cpu_host(&cpu)           fill a CPU description from CPUID
 *   rec = record_new(&ctx, suite, case, metric, unit)
 *   record_add_sample(rec, value)   as many times as there are samples
 *   record_set(rec, "key", json)    optional extra fields (params, notes)
 *   record_json_parse(text, &v)     TEXT as one JSON value, all of it
 *                                   (strict: "1 2", "0x10" or "NaN" are
 *                                   not one): 0, or -1
 *   record_write(stdout_or_file, rec)  one line, flushed; frees rec;
 *                                   -1 with errno when it did not reach
 *                                   the file (a full disk), EDOM when
 *                                   a number of it is NaN or infinite,
 *                                   or EINVAL when a name (suite, case,
 *                                   metric, unit) or commit, accel or
 *                                   clock is empty (never written:
 *                                   record-read.h refuses both too)
 *   record_close(stdout_or_file)    flush and close: -1 with errno when
 *                                   anything written was lost; a producer
 *                                   names the file and exits non-zero
 */
#ifndef RECORD_WRITE_H
#define RECORD_WRITE_H

#include <stdio.h>
#include <json-c/json.h>

/*
 * The schema of every record written.  2: a bench-vm record names the
 * kernel build it measured ("build", doc/records.md); readers take 1
 * too, whose bench-vm records are of the tinyconfig -Os build that was
 * the only one before.
 */
#define RECORD_SCHEMA "x86-copy-series/record/2"
#define RECORD_SCHEMA_V1 "x86-copy-series/record/1"

struct record_cpu {
	char vendor[16];	/* "GenuineIntel", "AuthenticAMD", ... */
	unsigned int family, model, stepping;
	char model_name[64];	/* CPUID brand string */
	int erms, fsrm, clwb, clflushopt, avx512f;
};

/* What every record of one run shares. */
struct record_ctx {
	const char *commit;	/* kernel commit id under test, or NULL */
	const char *kernel;	/* kernel version string, or NULL */
	const char *accel;	/* "kvm", "tcg" or "host" */
	struct record_cpu cpu;	/* the CPU the samples ran on */
	/*
	 * "icount": a guest under TCG with -icount shift=0,sleep=off, whose
	 * clock counts emulated instructions at 1 ns each; "wall" (also
	 * when NULL): real time, the host's or a guest's.
	 */
	const char *clock;
	/* the kernel build measured (build-id.json, doc/records.md), or NULL */
	json_object *build;
};

int record_cpu_host(struct record_cpu *cpu);
json_object *record_cpu_json(const struct record_cpu *cpu);
json_object *record_new(const struct record_ctx *ctx, const char *suite,
			const char *case_name, const char *metric,
			const char *unit);
void record_add_sample(json_object *rec, double value);
void record_set(json_object *rec, const char *key, json_object *value);
int record_json_parse(const char *text, json_object **v);
/*
 * The params that name something (a string, never empty): the writer
 * refuses a record with one empty, and so does every reader
 * (lib/record-fields.c), from this one list.
 */
extern const char *const record_name_params[];

int record_write(FILE *f, json_object *rec);
int record_close(FILE *f);

#endif /* RECORD_WRITE_H */
