// SPDX-License-Identifier: GPL-2.0
/*
 * reproduce.c - ci-reproduce: one claim of the report, as materials a
 * reviewer runs to get its figures again (review/reproduce.sh, make
 * reproduce ID=...; the reproducer's own script is
 * review/reproduce-claim.sh).
 *
 *   ci-reproduce claim REPORT ID
 *       the claim ID of REPORT (ci-report --json), as "key value" lines:
 *       suite, metric, from COMMIT CASE, to COMMIT CASE; an error naming
 *       why not (an unknown id, with the ids there are; a claim no record
 *       measures; a commit that is not in the report)
 *   ci-reproduce metadata REPORT ID CI_OUT [KEY=VALUE...]
 *       metadata.json on stdout: the claim as the report has it, each
 *       side's commit, case and expected samples (its bench-vm records in
 *       CI_OUT/<commit>/bench-vm), the run's settings (the step's inputs
 *       there, the records' accel, clock, QEMU and -cpu), and each
 *       KEY=VALUE (the materials the shell found: tree, sha256s) under
 *       "materials"
 *   ci-reproduce get METADATA PATH
 *       the value at PATH ("sides.0.commit"): a string or number on one
 *       line, an array one element a line; a missing PATH is an error
 *   ci-reproduce verify METADATA RUNDIR
 *       each side's samples in RUNDIR/<commit>/records.jsonl against the
 *       expected ones: exact under icount (every sample equal), the
 *       direction of the change otherwise; prints what it found
 *
 *   ci-reproduce reply REPORT COVER FROM TOOLKIT_COMMIT WHERE CC
 *       the reply to the cover letter (reply.c)
 *
 * Records are read by the one reader (lib/record-read.c), strict.
 * Exit: 0; 1 an error, or verify found figures that differ; 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "record-read.h"
#include "reviewer.h"
#include "util.h"

#define SCHEMA "x86-copy-series/reproduce/1"
#define USAGE \
	"usage: ci-reproduce claim REPORT ID | metadata REPORT ID CI_OUT [KEY=VALUE...] |\n" \
	"       get METADATA PATH | verify METADATA RUNDIR | reply REPORT COVER FROM TOOLKIT WHERE CC"

static __noreturn void usage_exit(const char *why)
{
	if (why)
		fprintf(stderr, "ci-reproduce: %s\n", why);
	fprintf(stderr, USAGE "\n");
	exit(2);
}

/* the report's claim ID, or an error naming the ids there are */
static json_object *report_claim(const char *report, const char *id, json_object **root)
{
	json_object *r = report_load(report), *claims = json_object_object_get(r, "claims"), *c;
	size_t i, n;
	char *ids = NULL;

	n = json_object_array_length(claims);
	for (i = 0; i < n; i++) {
		c = json_object_array_get_idx(claims, i);
		if (streq(str_of(c, "id"), id)) {
			*root = r;
			return c;
		}
	}
	for (i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s", ids ? ids : "", ids ? ", " : "",
				    str_of(json_object_array_get_idx(claims, i), "id"));

		free(ids);
		ids = t;
	}
	fprintf(stderr, "ci-reproduce: claim: '%s' is not a claim of %s; its claims are: %s\n", id,
		report, ids ? ids : "none");
	exit(2);
}

/*
 * A commit id as the records have it, 40 hex digits: it names the
 * directories of the materials (kernels/<commit>, run/<commit>), so that
 * nothing else may ("../../x" would name another directory).
 */
static int is_commit_id(const char *s)
{
	size_t i;

	for (i = 0; s && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')); i++)
		;
	return s && i == 40 && !s[i];
}

/* the claim's side ("from", "to"): its commit and case, or an error */
static void claim_side(json_object *c, const char *role, const char **commit,
		       const char **case_name)
{
	json_object *s;

	if (!json_object_object_get_ex(c, role, &s) || !json_object_is_type(s, json_type_object))
		die("claim: %s: no '%s' side in the report (a report of an older ci-report: %s)",
		    str_of(c, "id"), role, "run make report");
	*commit = str_of(s, "commit");
	*case_name = str_of(s, "case");
	if (!*commit)
		die("claim: %s: its %s commit is not in the report (%s): run make ci over the %s",
		    str_of(c, "id"), role, str_of(c, "verdict"), "commits it names");
	if (!is_commit_id(*commit))
		die("claim: %s: its %s commit '%s' is not a commit id (40 hex digits): %s",
		    str_of(c, "id"), role, *commit, "not a report of make ci");
}

/* the claim, checked to be one a guest run reproduces */
static json_object *claim_checked(const char *report, const char *id, json_object **root)
{
	json_object *c = report_claim(report, id, root);
	const char *suite = str_of(c, "suite"), *x, *y;

	if (!suite)
		die("claim: %s: no record measures it (%s): there is nothing to reproduce", id,
		    str_of(c, "verdict"));
	if (strcmp(suite, "bench-vm"))
		die("claim: %s: a %s claim (host timings of this machine's CPU, never exact): %s",
		    id, suite, "make bench COMMITS=... reruns them; the reproducer is for guests");
	claim_side(c, "from", &x, &y);
	claim_side(c, "to", &x, &y);
	if (json_object_get_boolean(json_object_object_get(c, "stale")))
		warn("claim: %s is stale (%s): its records are reproduced all the same", id,
		     str_of(c, "verdict"));
	return c;
}

static int cmd_claim(const char *report, const char *id)
{
	json_object *root, *c = claim_checked(report, id, &root);
	const char *fc, *fk, *tc, *tk;

	claim_side(c, "from", &fc, &fk);
	claim_side(c, "to", &tc, &tk);
	printf("suite %s\nmetric %s\nfrom %s %s\nto %s %s\n", str_of(c, "suite"),
	       str_of(c, "metric"), fc, fk, tc, tk);
	json_object_put(root);
	return 0;
}

/* ---- metadata ---- */

static const struct record *find_record(const struct records *rs, const char *case_name,
					const char *metric)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (streq(rs->v[i].suite, "bench-vm") && streq(rs->v[i].case_name, case_name) &&
		    streq(rs->v[i].metric, metric))
			return &rs->v[i];
	return NULL;
}

/* the step's settings: the "key value" lines of its inputs before the files */
static json_object *read_settings(const char *path)
{
	static const char *const keys[] = {
		"ns_size", "rebinds", "cpu", "mem_ns", "guest_mem_mb", "kernel_args",
		"pages", "agent_opts", "model",
	};
	json_object *o = json_object_new_object(), *v;
	char *line = NULL;
	size_t cap = 0, i, k;
	ssize_t len;
	FILE *f = fopen(path, "r");

	if (!f)
		die("inputs: %s: %s: make ci's bench-vm step writes it", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = 0;
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			k = strlen(keys[i]);
			if (strncmp(line, keys[i], k) || (line[k] != ' ' && line[k]))
				continue;
			v = json_object_new_string(line[k] ? line + k + 1 : "");
			json_object_object_add(o, keys[i], v);
		}
	}
	free(line);
	if (ferror(f))
		die("inputs: %s: cannot read it", path);
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!json_object_object_get_ex(o, keys[i], NULL))
			die("inputs: %s has no '%s' line: not of this toolkit's bench-vm %s",
			    path, keys[i], "step (rerun make ci)");
	return o;
}

static json_object *samples_json(const struct record *r)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < r->n; i++)
		json_object_array_add(a, json_object_new_double(r->samples[i]));
	return a;
}

static double mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : NAN;
}

/* every record of the case, its samples by metric: what an exact rerun must match */
static json_object *case_metrics(const struct records *rs, const char *case_name)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (streq(rs->v[i].suite, "bench-vm") && streq(rs->v[i].case_name, case_name) &&
		    !rs->v[i].error)
			json_object_object_add(o, rs->v[i].metric, samples_json(&rs->v[i]));
	return o;
}

/* what ran a side's record, KEY of RUN: the other side's, or an error */
static void run_field(json_object *run, const char *key, const char *val,
		      const struct record *r)
{
	const char *want = str_of(run, key);

	if (!val)
		die("records: %s:%u: %s %s has no %s: a record of an older bench-vm (%s)",
		    r->file, r->line, r->case_name, r->metric, key, "rerun make ci");
	if (want && strcmp(want, val))
		die("records: the two sides ran under another %s ('%s', '%s'): %s", key, want,
		    val, "not one setup; rerun make ci");
	json_object_object_add(run, key, json_object_new_string(val));
}

/* one side: commit, case, the record's samples and what ran them */
static json_object *side_json(const char *ci_out, const char *role, const char *commit,
			      const char *case_name, const char *metric, json_object *run)
{
	char *dir = xasprintf("%s/%s/bench-vm/records.jsonl", ci_out, commit);
	struct records rs = { 0 };
	const struct record *r;
	json_object *s = json_object_new_object();
	const char *v;

	if (records_read(&rs, dir))
		die("records: %s: cannot read them (above): rerun make ci", dir);
	r = find_record(&rs, case_name, metric);
	if (!r)
		die("records: %s has no bench-vm %s %s record: rerun make ci", dir, case_name,
		    metric);
	if (r->error || !r->n)
		die("records: %s: %s %s has no samples", dir, case_name, metric);
	json_object_object_add(s, "role", json_object_new_string(role));
	json_object_object_add(s, "commit", json_object_new_string(commit));
	json_object_object_add(s, "case", json_object_new_string(case_name));
	json_object_object_add(s, "metric", json_object_new_string(metric));
	json_object_object_add(s, "unit", json_object_new_string(r->unit));
	json_object_object_add(s, "samples", samples_json(r));
	json_object_object_add(s, "case_metrics", case_metrics(&rs, case_name));
	json_object_object_add(s, "mean", json_object_new_double(mean(r->samples, r->n)));
	json_object_object_add(s, "records", json_object_new_string(dir));
	if (r->reused_from)
		json_object_object_add(s, "reused_from", json_object_new_string(r->reused_from));
	json_object_object_add(s, "kernel", r->kernel ? json_object_new_string(r->kernel) : NULL);
	json_object_object_add(s, "time", json_object_new_string(r->time ? r->time : ""));
	json_object_object_add(s, "host", json_object_new_string(r->host ? r->host : ""));
	json_object_object_add(s, "host_cpu", json_object_new_string(r->host_cpu_name ?
					       r->host_cpu_name : ""));
	/* what ran it: equal on both sides, or the figures are not comparable */
	run_field(run, "accel", r->accel, r);
	run_field(run, "clock", r->clock, r);
	run_field(run, "qemu_cpu", r->qemu_cpu, r);
	run_field(run, "qemu_version", record_param_str(r, "qemu_version"), r);
	v = record_param_str(r, "guest_cpu_flags");
	run_field(run, "guest_cpu_flags", v ? v : "", r);
	if (r->model)
		run_field(run, "model_records", r->model, r);
	records_free(&rs);
	free(dir);
	return s;
}

static void settings_merge(json_object *run, json_object *set, const char *path)
{
	json_object_object_foreach(set, k, v) {
		json_object *have;

		if (json_object_object_get_ex(run, k, &have) &&
		    strcmp(json_object_get_string(have), json_object_get_string(v)))
			die("inputs: %s: %s '%s', the other side's '%s': %s", path, k,
			    json_object_get_string(v), json_object_get_string(have),
			    "the two sides ran with other settings; rerun make ci");
		json_object_object_add(run, k, json_object_get(v));
	}
}

static int cmd_metadata(const char *report, const char *id, const char *ci_out, int nkv,
			char **kv)
{
	json_object *root, *c = claim_checked(report, id, &root);
	json_object *m = json_object_new_object(), *sides = json_object_new_array();
	json_object *run = json_object_new_object(), *mat = json_object_new_object(), *claim;
	const char *commit[2], *case_name[2], *roles[2] = { "from", "to" };
	const char *metric = str_of(c, "metric");
	double a, b;
	int i;

	for (i = 0; i < 2; i++) {
		char *in;
		json_object *set;

		claim_side(c, roles[i], &commit[i], &case_name[i]);
		in = xasprintf("%s/%s/bench-vm/inputs", ci_out, commit[i]);
		set = read_settings(in);
		settings_merge(run, set, in);
		json_object_put(set);
		free(in);
		json_object_array_add(sides, side_json(ci_out, roles[i], commit[i], case_name[i],
						       metric, run));
	}
	if (streq(str_of(run, "pages"), "1"))
		die("inputs: the runs digested struct pages (PAGES=1): %s",
		    "the reproducer runs without; reproduce a make ci run (PAGES=0)");
	for (i = 0; i < nkv; i++) {
		char *eq = strchr(kv[i], '=');

		if (!eq || eq == kv[i])
			usage_exit("metadata: a material is KEY=VALUE");
		*eq = 0;
		json_object_object_add(mat, kv[i], json_object_new_string(eq + 1));
	}
	claim = json_object_new_object();
	json_object_object_foreach(c, k, v)
		json_object_object_add(claim, k, json_object_get(v));
	a = json_object_get_double(json_object_object_get(json_object_array_get_idx(sides, 0),
							  "mean"));
	b = json_object_get_double(json_object_object_get(json_object_array_get_idx(sides, 1),
							  "mean"));
	json_object_object_add(m, "schema", json_object_new_string(SCHEMA));
	json_object_object_add(m, "claim", claim);
	json_object_object_add(m, "report", json_object_new_string(report));
	json_object_object_add(m, "run", run);
	json_object_object_add(m, "sides", sides);
	json_object_object_add(m, "expected_pct", a ? json_object_new_double(100 * (b - a) / a) :
			       NULL);
	json_object_object_add(m, "exact", json_object_new_boolean(streq(str_of(run, "clock"),
									 "icount")));
	json_object_object_add(m, "materials", mat);
	fputs(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE), stdout);
	putchar('\n');
	if (fflush(stdout) || ferror(stdout))
		die("metadata: cannot write it: %s", strerror(errno));
	json_object_put(m);
	json_object_put(root);
	return 0;
}

/* ---- get ---- */

static int cmd_get(const char *path, const char *key)
{
	json_object *root = read_json(path, "metadata"), *o = root;
	char *k = xstrdup(key), *save = NULL, *p;
	size_t i;

	for (p = strtok_r(k, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		char *end;
		long idx;

		if (json_object_is_type(o, json_type_array)) {
			errno = 0;
			idx = strtol(p, &end, 10);
			if (*end || errno || idx < 0 || (size_t)idx >= json_object_array_length(o))
				die("get: %s: no '%s' in %s", key, p, path);
			o = json_object_array_get_idx(o, idx);
		} else if (!json_object_is_type(o, json_type_object) ||
			   !json_object_object_get_ex(o, p, &o)) {
			die("get: %s: no '%s' in %s", key, p, path);
		}
	}
	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o); i++)
			printf("%s\n", json_object_get_string(json_object_array_get_idx(o, i)));
	} else if (o) {
		printf("%s\n", json_object_get_string(o));
	}
	free(k);
	json_object_put(root);
	return fflush(stdout) ? 1 : 0;
}

/* ---- verify ---- */

/* the case's other metrics of side S against the rerun's: 1 when one differs */
static int case_check(const struct records *rs, json_object *s, const char *case_name)
{
	json_object *want = json_object_object_get(s, "case_metrics");
	size_t n = 0, j;
	int bad = 0;

	json_object_object_foreach(want, metric, exp) {
		const struct record *r = find_record(rs, case_name, metric);
		size_t len = json_object_array_length(exp);

		n++;
		if (!r) {
			printf("     %s %s: no such record in the rerun\n", case_name, metric);
			bad = 1;
			continue;
		}
		for (j = 0; j < len && j < r->n; j++)
			if (r->samples[j] !=
			    json_object_get_double(json_object_array_get_idx(exp, j)))
				break;
		if (r->n != len || j < len) {
			printf("     %s %s: other samples than the record\n", case_name, metric);
			bad = 1;
		}
	}
	if (!bad)
		printf("     and every sample of its %zu metrics of %s equal\n", n, case_name);
	return bad;
}

static int cmd_verify(const char *path, const char *rundir)
{
	json_object *root = read_json(path, "metadata"), *sides;
	int exact = json_object_get_boolean(json_object_object_get(root, "exact"));
	double got[2], want[2];
	int bad = 0, i;

	if (!streq(str_of(root, "schema"), SCHEMA))
		die("metadata: %s is not of " SCHEMA, path);
	sides = json_object_object_get(root, "sides");
	if (!sides || json_object_array_length(sides) != 2)
		die("metadata: %s: sides[] is not two sides", path);
	for (i = 0; i < 2; i++) {
		json_object *s = json_object_array_get_idx(sides, i);
		json_object *exp = json_object_object_get(s, "samples");
		const char *commit = str_of(s, "commit"), *case_name = str_of(s, "case");
		const char *metric = str_of(s, "metric");
		char *file;
		struct records rs = { 0 };
		const struct record *r;
		size_t j, n = json_object_array_length(exp), first = n;

		if (!is_commit_id(commit))
			die("metadata: %s: sides.%d.commit '%s' is not a commit id (40 hex digits)",
			    path, i, commit ? commit : "(none)");
		file = xasprintf("%s/%s/records.jsonl", rundir, commit);
		if (records_read(&rs, file))
			die("verify: %s: cannot read the run's records (above)", file);
		r = find_record(&rs, case_name, metric);
		if (!r || r->error || !r->n)
			die("verify: %s: no %s %s samples: the run failed (its log is beside)",
			    file, case_name, metric);
		for (j = 0; j < n && j < r->n; j++)
			if (first == n && r->samples[j] !=
			    json_object_get_double(json_object_array_get_idx(exp, j)))
				first = j;
		got[i] = mean(r->samples, r->n);
		want[i] = json_object_get_double(json_object_object_get(s, "mean"));
		printf("%-4s %.12s %s %s: %zu samples", str_of(s, "role"), commit, case_name,
		       metric, r->n);
		if (r->n == n && first == n) {
			printf(", every one the record's (mean %g %s)\n", got[i],
			       str_of(s, "unit"));
		} else {
			if (first < n)
				printf(", the record's %zu; sample %zu differs", n, first + 1);
			else
				printf(", the record's %zu, equal as far as both go", n);
			printf(" (mean %g, the record's %g)\n", got[i], want[i]);
			bad |= exact;
		}
		if (exact)
			bad |= case_check(&rs, s, case_name);
		records_free(&rs);
		free(file);
	}
	printf("change: %g -> %g (%+.1f%%), the record's %g -> %g (%+.1f%%) [%s-%s]\n", got[0],
	       got[1], 100 * (got[1] - got[0]) / got[0], want[0], want[1],
	       100 * (want[1] - want[0]) / want[0],
	       str_of(json_object_object_get(root, "run"), "accel"),
	       str_of(json_object_object_get(root, "run"), "clock"));
	if (!exact && signbit(got[1] - got[0]) != signbit(want[1] - want[0]))
		bad = 1;
	printf("%s\n", bad ? (exact ? "not reproduced: the samples differ from the record's" :
			      "not reproduced: the change goes the other way") :
	       (exact ? "reproduced: every sample equal (exact: tcg-icount)" :
		"reproduced in direction (wall clock: the figures are this host's)"));
	json_object_put(root);
	return bad;
}

int main(int argc, char **argv)
{
	prog_set("ci-reproduce");
	if (argc < 2)
		usage_exit(NULL);
	if (!strcmp(argv[1], "claim") && argc == 4)
		return cmd_claim(argv[2], argv[3]);
	if (!strcmp(argv[1], "metadata") && argc >= 5)
		return cmd_metadata(argv[2], argv[3], argv[4], argc - 5, argv + 5);
	if (!strcmp(argv[1], "get") && argc == 4)
		return cmd_get(argv[2], argv[3]);
	if (!strcmp(argv[1], "verify") && argc == 4)
		return cmd_verify(argv[2], argv[3]);
	if (!strcmp(argv[1], "reply") && argc == 8)
		return cmd_reply(argv[2], argv[3], argv[4], argv[5], argv[6], argv[7]);
	usage_exit(xasprintf("'%s': not a command, or not its arguments", argv[1]));
}
