// SPDX-License-Identifier: GPL-2.0
/*
 * kunit-records.c - kunit-records: kunit.py's results (its --json,
 * KernelCI format) as records (doc/records.md), one per test case, for
 * checks/kunit.sh.
 *
 *   kunit-records --commit ID --cpu-variant NAME --qemu-cpu CPU
 *                 --to RECORDS.jsonl [--failures FILE] KUNIT.json
 *
 * A record: suite "checks", case "kunit/<suite>[/<sub>...]/<test>",
 * metric "kunit", unit "pass", sample 1 (passed or skipped) or 0, and
 * status (kunit.py's PASS, FAIL, SKIP...), cpu_variant, qemu_cpu.
 * --failures appends "CASE cpu_variant=NAME" for every failed case.  Prints
 * "PASSED FAILED" counts.  Exit 1 when the JSON is not kunit.py's (no
 * test case in it, a field of the wrong type) or a write fails, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "record-write.h"

#define PROG "kunit-records"

struct run {
	struct record_ctx ctx;
	const char *variant, *qemu_cpu, *file;
	FILE *out, *failures;
	unsigned int passed, failed;
};

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* KEY of O as an array, or NULL when absent; -1 (in *bad) another type */
static json_object *array(json_object *o, const char *key, int *bad)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	if (!json_object_is_type(v, json_type_array)) {
		*bad = 1;
		return NULL;
	}
	return v;
}

static int one_case(struct run *run, json_object *t, const char *path)
{
	const char *name = str(t, "name"), *status = str(t, "status");
	int ok;
	char *case_name;
	json_object *rec;

	if (!name || !status) {
		fprintf(stderr, PROG ": %s: a test case of %s without a name or status\n",
			run->file, path);
		return -1;
	}
	ok = !strcmp(status, "PASS") || !strcmp(status, "SKIP");
	if (asprintf(&case_name, "kunit/%s/%s", path, name) < 0)
		return -1;
	rec = record_new(&run->ctx, "checks", case_name, "kunit", "pass");
	record_add_sample(rec, ok);
	record_set(rec, "status", json_object_new_string(status));
	record_set(rec, "cpu_variant", json_object_new_string(run->variant));
	record_set(rec, "qemu_cpu", json_object_new_string(run->qemu_cpu));
	if (record_write(run->out, rec)) {
		fprintf(stderr, PROG ": write: records: %s\n", strerror(errno));
		free(case_name);
		return -1;
	}
	if (!ok && run->failures &&
	    fprintf(run->failures, "%s cpu_variant=%s\n", case_name, run->variant) < 0) {
		free(case_name);
		return -1;
	}
	free(case_name);
	if (ok)
		run->passed++;
	else
		run->failed++;
	return 0;
}

/* every test case of group G (path PATH) and of its sub-groups */
static int walk(struct run *run, json_object *g, const char *path)
{
	json_object *cases, *subs;
	int bad = 0, r = 0;
	size_t i;

	cases = array(g, "test_cases", &bad);
	subs = array(g, "sub_groups", &bad);
	if (bad) {
		fprintf(stderr, PROG ": %s: test_cases or sub_groups of '%s' is not an array\n",
			run->file, *path ? path : "(top)");
		return -1;
	}
	for (i = 0; cases && !r && i < json_object_array_length(cases); i++)
		r = one_case(run, json_object_array_get_idx(cases, i), path);
	for (i = 0; subs && !r && i < json_object_array_length(subs); i++) {
		json_object *s = json_object_array_get_idx(subs, i);
		const char *name = str(s, "name");
		char *sub;

		if (!name) {
			fprintf(stderr, PROG ": %s: a sub-group without a name\n", run->file);
			return -1;
		}
		if (asprintf(&sub, "%s%s%s", path, *path ? "/" : "", name) < 0)
			return -1;
		r = walk(run, s, sub);
		free(sub);
	}
	return r;
}

static void usage_exit(void)
{
	fprintf(stderr,
		"%s: usage: kunit-records --commit ID --cpu-variant NAME --qemu-cpu CPU --to RECORDS.jsonl [--failures FILE] KUNIT.json\n",
		PROG);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commit", required_argument, NULL, 'c' },
		{ "cpu-variant", required_argument, NULL, 'v' },
		{ "qemu-cpu", required_argument, NULL, 'q' },
		{ "to", required_argument, NULL, 't' },
		{ "failures", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct run run = { .ctx = { .accel = "host" } };
	const char *to = NULL, *failures = NULL;
	json_object *top;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			run.ctx.commit = optarg;
			break;
		case 'v':
			run.variant = optarg;
			break;
		case 'q':
			run.qemu_cpu = optarg;
			break;
		case 't':
			to = optarg;
			break;
		case 'f':
			failures = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (optind != argc - 1 || !run.ctx.commit || !run.variant || !run.qemu_cpu || !to)
		usage_exit();
	run.file = argv[optind];
	top = json_object_from_file(run.file);
	if (!top || !json_object_is_type(top, json_type_object)) {
		fprintf(stderr, PROG ": %s: not kunit.py's JSON: %s\n", run.file,
			json_util_get_last_err() ? json_util_get_last_err() : "not an object");
		json_object_put(top);
		return 1;
	}
	record_cpu_host(&run.ctx.cpu);
	/* both are added to by each suite's run (checks/kunit.sh): no link */
	run.out = out_append(PROG, to);
	run.failures = run.out && failures ? out_append(PROG, failures) : NULL;
	if (!run.out || (failures && !run.failures)) {
		if (run.out)
			fclose(run.out);
		json_object_put(top);
		return 1;
	}
	r = walk(&run, top, "");
	json_object_put(top);
	if (record_close(run.out)) {
		fprintf(stderr, PROG ": write: %s: %s\n", to, strerror(errno));
		r = -1;
	}
	if (run.failures && record_close(run.failures)) {
		fprintf(stderr, PROG ": write: %s: %s\n", failures, strerror(errno));
		r = -1;
	}
	if (!r && !run.passed && !run.failed) {
		fprintf(stderr, PROG ": %s: no test case in it\n", run.file);
		r = -1;
	}
	if (r)
		return 1;
	printf("%u %u\n", run.passed, run.failed);
	return fflush(stdout) ? 1 : 0;
}
