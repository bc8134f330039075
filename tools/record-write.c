// SPDX-License-Identifier: GPL-2.0
/*
 * record-write.c - record-write: the one record CLI, for the producers
 * that are shell (build, checks): one record (doc/records.md) through
 * lib/record-write.c, the writer every C producer uses.
 *
 *   record-write --suite S --case C --metric M --unit U [--commit ID]
 *                [--kernel V] [--accel A] [--clock wall|icount]
 *                [--error TEXT] [--field KEY=TEXT]... [--json KEY=JSON]...
 *                [--to FILE] [SAMPLE...]
 *
 * --field adds a string field, --json a field of any JSON value (true,
 * 3, {"a": 1}), all of its text ("1 2" is no value); --to appends the
 * line to FILE (created when missing; a symlink there is refused, not
 * written through), else it goes to stdout.  The CPU
 * is the host's (CPUID), accel "host" unless given.  Names (suite, case,
 * metric, unit, a field's KEY) and the values of --commit, --kernel,
 * --accel and --error are never empty.  A sample is a finite JSON number
 * ("0x10" and "inf" are not), else a usage error; a JSON value with NaN
 * or an infinity is refused by the writer.  Exit 1
 * when the record cannot be written (a full disk: the file is named), 2
 * on usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "record-write.h"

#define PROG "record-write"
/* record_write()'s EINVAL: what no reader would take */
#define EINVAL_WHY "a name or field is empty, or a bench-vm record names no build (--json build=...): no record"

static void usage_exit(const char *why, const char *what)
{
	if (why)
		fprintf(stderr, PROG ": usage: %s '%s'\n", why, what);
	fprintf(stderr,
		"%s: usage: record-write --suite S --case C --metric M --unit U [--commit ID] [--kernel V] [--accel A] [--clock wall|icount] [--error TEXT] [--field KEY=TEXT]... [--json KEY=JSON]... [--to FILE] [SAMPLE...]\n",
		PROG);
	exit(2);
}

/* a name or value given empty: a record of it could never be read */
static void nonempty(const char *opt, const char *value)
{
	if (value && !*value) {
		fprintf(stderr, PROG ": usage: %s '': %s\n", opt,
			"empty; a name is never empty (leave out what is not known)");
		usage_exit(NULL, NULL);
	}
}

struct field {
	const char *key, *value;
	int json;
};

/* "KEY=VALUE" of --field or --json, as a field of the record */
static void set_field(json_object *rec, const struct field *f)
{
	json_object *v;

	if (!f->json) {
		record_set(rec, f->key, json_object_new_string(f->value));
		return;
	}
	if (record_json_parse(f->value, &v)) {
		json_object_put(rec);
		usage_exit("--json: not one JSON value, all of the text:", f->value);
	}
	record_set(rec, f->key, v);
}

static struct field parse_field(char *kv, int json)
{
	char *eq = strchr(kv, '=');
	struct field f = { .json = json };

	if (!eq || eq == kv)
		usage_exit(json ? "--json wants KEY=JSON, not" : "--field wants KEY=TEXT, not", kv);
	*eq = '\0';
	f.key = kv;
	f.value = eq + 1;
	return f;
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
		{ "clock", required_argument, NULL, 'C' },
		{ "error", required_argument, NULL, 'e' },
		{ "field", required_argument, NULL, 'f' },
		{ "json", required_argument, NULL, 'j' },
		{ "to", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *suite = NULL, *case_name = NULL, *metric = NULL, *unit = NULL;
	const char *error = NULL, *to = NULL;
	struct record_ctx ctx = { .accel = "host" };
	struct field *fields = NULL;
	size_t nfields = 0, i;
	json_object *rec;
	FILE *out;
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
		case 'C':
			if (strcmp(optarg, "wall") && strcmp(optarg, "icount"))
				usage_exit("--clock is wall or icount, not", optarg);
			ctx.clock = optarg;
			break;
		case 'e':
			error = optarg;
			break;
		case 'f':
		case 'j':
			fields = realloc(fields, (nfields + 1) * sizeof(*fields));
			if (!fields) {
				perror(PROG ": memory");
				return 1;
			}
			fields[nfields++] = parse_field(optarg, opt == 'j');
			break;
		case 't':
			to = optarg;
			break;
		default:
			usage_exit(NULL, NULL);
		}
	}
	if (!suite || !case_name || !metric || !unit)
		usage_exit(NULL, NULL);
	nonempty("--suite", suite);
	nonempty("--case", case_name);
	nonempty("--metric", metric);
	nonempty("--unit", unit);
	nonempty("--commit", ctx.commit);
	nonempty("--kernel", ctx.kernel);
	nonempty("--accel", ctx.accel);
	nonempty("--error", error);
	record_cpu_host(&ctx.cpu);
	rec = record_new(&ctx, suite, case_name, metric, unit);
	for (; optind < argc; optind++) {
		json_object *v;
		double x = NAN;

		if (!record_json_parse(argv[optind], &v) &&
		    (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double)))
			x = json_object_get_double(v);
		if (!isfinite(x)) {
			json_object_put(v);
			json_object_put(rec);
			free(fields);
			usage_exit("a sample is a finite number (12, 2.5, 1e3), not", argv[optind]);
		}
		json_object_put(v);
		record_add_sample(rec, x);
	}
	if (error)
		record_set(rec, "error", json_object_new_string(error));
	for (i = 0; i < nfields; i++)
		set_field(rec, &fields[i]);
	free(fields);
	/* --to is added to by many calls (a step's records): a link refused */
	out = to ? out_append(PROG, to) : stdout;
	if (!out) {
		json_object_put(rec);
		return 1;
	}
	if (record_write(out, rec) || record_close(out)) {
		fprintf(stderr, PROG ": write: %s: %s\n", to ? to : "stdout",
			errno == EDOM	  ? "a number is NaN or infinite: no record" :
			errno == EINVAL ? EINVAL_WHY :
					  strerror(errno));
		return 1;
	}
	return 0;
}
