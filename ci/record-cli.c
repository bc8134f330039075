// SPDX-License-Identifier: GPL-2.0
/*
 * record-cli.c - ci-record: write one record (doc/records.md) from the
 * shell, through lib/record.c, for the steps that are not C programs
 * (the build step of ci/run.sh).
 *
 *   ci-record --suite S --case C --metric M --unit U [--commit ID]
 *             [--kernel V] [--accel A] [--error TEXT] [SAMPLE...]
 *
 * The CPU is the host's (CPUID); the line goes to stdout.  Exit 1 when
 * it cannot be written (a full disk), 2 on usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "record-write.h"

static void usage_exit(void)
{
	fprintf(stderr, "ci-record: usage: ci-record --suite S --case C --metric M --unit U [--commit ID] [--kernel V] [--accel A] [--error TEXT] [SAMPLE...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "suite", required_argument, NULL, 's' },
		{ "case", required_argument, NULL, 'c' },
		{ "metric", required_argument, NULL, 'm' },
		{ "unit", required_argument, NULL, 'u' },
		{ "commit", required_argument, NULL, 'i' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "accel", required_argument, NULL, 'a' },
		{ "error", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	const char *suite = NULL, *case_name = NULL, *metric = NULL, *unit = NULL;
	const char *error = NULL;
	struct record_ctx ctx = { .accel = "host" };
	json_object *rec;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			suite = optarg;
			break;
		case 'c':
			case_name = optarg;
			break;
		case 'm':
			metric = optarg;
			break;
		case 'u':
			unit = optarg;
			break;
		case 'i':
			ctx.commit = optarg;
			break;
		case 'k':
			ctx.kernel = optarg;
			break;
		case 'a':
			ctx.accel = optarg;
			break;
		case 'e':
			error = optarg;
			break;
		default:
			usage_exit();
		}
	}
	if (!suite || !case_name || !metric || !unit)
		usage_exit();
	record_cpu_host(&ctx.cpu);
	rec = record_new(&ctx, suite, case_name, metric, unit);
	for (; optind < argc; optind++) {
		char *end;
		double x;

		errno = 0;
		x = strtod(argv[optind], &end);
		if (errno || end == argv[optind] || *end || !isfinite(x)) {
			fprintf(stderr, "ci-record: usage: sample '%s' is not a number\n",
				argv[optind]);
			json_object_put(rec);
			exit(2);
		}
		record_add_sample(rec, x);
	}
	if (error)
		record_set(rec, "error", json_object_new_string(error));
	if (record_write(stdout, rec) || record_close(stdout)) {
		perror("ci-record: write: stdout");
		return 1;
	}
	return 0;
}
