// SPDX-License-Identifier: GPL-2.0
/*
 * out-kcidb.c - the report's records as KernelCI's common results schema,
 * KCIDB v5.3 (report/kcidb/, the schema and its source), for a CI
 * maintainer who lives in KernelCI's dashboard:
 *
 *   checkouts  one per column (commit): the tree as built.  With
 *              --kcidb-patchsets (report/kcidb.sh, which checked each
 *              commit's diff against its patch file with git patch-id),
 *              the base's commit and the hash of the series' patches up
 *              to that commit, as KCIDB defines patchset_hash; without
 *              it, the commit itself and an empty patchset.
 *   builds     one per commit and kernel image the records measured
 *              (bzimage_sha256 of the record's build); records of no
 *              kernel image (host runs, checks) share one "host" build
 *              per commit, which says so.
 *   tests      one per cell of the table (a metric of a case, on one
 *              setup, at one commit): its median as the number with the
 *              row's unit, every sample and statistic in misc, the setup
 *              (CPU, clock, QEMU build, kernel build) as its environment.
 *              Status: a cell the gate looks at PASS or FAIL (a
 *              regression no acknowledgment accepts), a pass/fail
 *              record's verdict, an error record ERROR, else DONE (a
 *              measurement).
 *   issues,    one per gate regression no acknowledgment accepts, and
 *   incidents  its incident on the test.
 *
 * KCIDB has no null: a number that does not exist is left out.  Ids are
 * the origin's, made of what the records hold (commit, image, the first
 * record's host and time), so the same records give the same file and a
 * new run new tests.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "util.h"

#define ORIGIN "x86_copy_series"

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static void add_str(json_object *o, const char *key, const char *s)
{
	if (s)
		add(o, key, json_object_new_string(s));
}

static void add_num(json_object *o, const char *key, double x)
{
	if (isfinite(x))
		add(o, key, json_object_new_double(x));
}

/* a JSON field of OBJ as a string, or NULL */
static const char *field_str(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int is_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return s[len] == '\0';
}

/* The checked patchsets (--kcidb-patchsets): per commit, its base and hash. */
struct patchset {
	char *commit, *base, *hash, *patch;
};

struct patchsets {
	struct patchset *v;
	size_t n;
};

/*
 * Each line "COMMIT<TAB>BASE<TAB>PATCHSET_SHA256<TAB>PATCH_FILE", as
 * report/kcidb.sh writes them; anything else is refused by line.
 */
static void patchsets_read(struct patchsets *ps, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *fld[4], *p;
	size_t cap = 0, k;
	unsigned int ln = 0;

	if (!f)
		die("kcidb: --kcidb-patchsets: cannot read %s", path);
	while (getline(&line, &cap, f) != -1) {
		ln++;
		line[strcspn(line, "\n")] = '\0';
		for (k = 0, p = line; k < 4; k++) {
			fld[k] = p;
			p = strchr(p, '\t');
			if (k < 3 && !p)
				break;
			if (p)
				*p++ = '\0';
		}
		if (k < 4 || p || !is_hex(fld[0], 40) || !is_hex(fld[1], 40) ||
		    !is_hex(fld[2], 64) || !*fld[3])
			die("kcidb: %s:%u: not COMMIT<TAB>BASE<TAB>SHA256<TAB>PATCH (%s)", path, ln,
			    "40, 40 and 64 lower-case hex digits, a file name");
		ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(*ps->v));
		ps->v[ps->n].commit = xstrdup(fld[0]);
		ps->v[ps->n].base = xstrdup(fld[1]);
		ps->v[ps->n].hash = xstrdup(fld[2]);
		ps->v[ps->n].patch = xstrdup(fld[3]);
		ps->n++;
	}
	if (ferror(f))
		die("kcidb: %s: read error", path);
	free(line);
	fclose(f);
}

static const struct patchset *patchset_of(const struct patchsets *ps, const char *commit)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (streq(ps->v[i].commit, commit))
			return &ps->v[i];
	return NULL;
}

static json_object *checkout(const struct report *r, size_t c, const struct patchsets *ps)
{
	const struct column *col = &r->t.cols[c];
	const struct patchset *p = patchset_of(ps, col->key);
	json_object *o = json_object_new_object(), *misc = json_object_new_object();
	char *s;

	s = xasprintf(ORIGIN ":%s", col->key);
	add_str(o, "id", s);
	free(s);
	add_str(o, "origin", ORIGIN);
	add(o, "valid", json_object_new_boolean(1));
	s = c ? xasprintf("%zu/%zu %s", c, r->t.ncols - 1, col->subject) :
		xasprintf("base: %s", col->subject);
	add_str(o, "comment", s);
	free(s);
	add_str(misc, "commit", col->key);
	if (p) {
		/* the base and the series' patches up to this commit, checked */
		add_str(o, "git_commit_hash", p->base);
		add_str(o, "patchset_hash", p->hash);
		add_str(misc, "last_patch", p->patch);
	} else if (is_hex(col->key, 40)) {
		add_str(o, "git_commit_hash", col->key);
		add_str(o, "patchset_hash", "");
	}
	add_str(misc, "hosts", col->hosts);
	if (*col->reused)
		add_str(misc, "reused", col->reused);
	add(o, "misc", misc);
	return o;
}

/* the commit of an error record: its own, else the base's */
static const char *error_commit(const struct report *r, const struct record *rec)
{
	return rec->commit ? rec->commit : r->t.cols[0].key;
}

/* the build a record measured: its image's id, or the commit's host build */
static char *build_id(const char *commit, const struct record *rec)
{
	const char *img = field_str(rec->build, "bzimage_sha256");

	if (img && is_hex(img, 64))
		return xasprintf(ORIGIN ":%s:%.16s", commit, img);
	return xasprintf(ORIGIN ":%s:host", commit);
}

/* the build REC measured at COMMIT into A, once (SEEN: the ids given) */
static void build_add(const char *commit, const struct record *rec, json_object *seen,
		      json_object *a)
{
	char *id = build_id(commit, rec), *name;
	json_object *o, *misc;

	if (json_object_object_get_ex(seen, id, NULL)) {
		free(id);
		return;
	}
	add(seen, id, NULL);
	o = json_object_new_object();
	misc = json_object_new_object();
	add_str(o, "id", id);
	free(id);
	add_str(o, "origin", ORIGIN);
	id = xasprintf(ORIGIN ":%s", commit);
	add_str(o, "checkout_id", id);
	free(id);
	add_str(o, "architecture", "x86_64");
	if (rec->build) {
		name = record_build_name(rec);
		add_str(o, "config_name", name);
		free(name);
		add_str(o, "compiler", field_str(rec->build, "cc"));
		add(misc, "build", json_object_get(rec->build));
		/* records of a run on its image: it built */
		add_str(o, "status", "PASS");
	} else {
		add_str(o, "comment",
			"no kernel image: the records of host runs and checks of this commit's source");
	}
	add(o, "misc", misc);
	json_object_array_add(a, o);
}

/* the builds of the report's records, in the order first met */
static json_object *builds(const struct report *r)
{
	const struct table *t = &r->t;
	json_object *a = json_object_new_array(), *seen = json_object_new_object();
	size_t w, c, k;

	for (w = 0; w < t->nrows; w++)
		for (c = 0; c < t->ncols; c++)
			for (k = 0; k < t->rows[w].cells[c].nrecs; k++)
				build_add(t->cols[c].key, t->rows[w].cells[c].recs[k], seen, a);
	for (k = 0; k < t->nerrors; k++)
		build_add(error_commit(r, t->errors[k]), t->errors[k], seen, a);
	json_object_put(seen);
	return a;
}

/* "suite.case.metric" as a KCIDB path: '/' a level, other signs '_' */
static char *test_path(const struct record *rec)
{
	char *s = xasprintf("%s.%s.%s", rec->suite, rec->case_name, rec->metric), *p;

	for (p = s; *p; p++)
		if (*p == '/')
			*p = '.';
		else if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			*p = '_';
	return s;
}

static json_object *samples(const struct cell *cl)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < cl->n; i++)
		json_object_array_add(a, json_object_new_double(cl->x[i]));
	return a;
}

static json_object *environment(const struct row *w, const struct record *rec)
{
	json_object *e = json_object_new_object(), *m = json_object_new_object(), *v;
	static const char *const params[] = { "qemu_version", "qemu_cpu", "ns_size", "rebinds" };
	size_t i;

	add_str(e, "comment", w->setup);
	add_str(m, "host", rec->host);
	add_str(m, "accel", rec->accel);
	add_str(m, "clock", rec->clock);
	add_str(m, "kernel", rec->kernel);
	if (json_object_object_get_ex(rec->obj, "cpu", &v))
		add(m, "cpu", json_object_get(v));
	if (json_object_object_get_ex(rec->obj, "host_cpu", &v))
		add(m, "host_cpu", json_object_get(v));
	for (i = 0; i < ARRAY_SIZE(params); i++)
		if (rec->params && json_object_object_get_ex(rec->params, params[i], &v))
			add(m, params[i], json_object_get(v));
	if (rec->model_label)
		add_str(m, "model", rec->model_label);
	add(e, "misc", m);
	return e;
}

/* a pass/fail record's verdict: every sample 1 */
static const char *pass_status(const struct cell *cl)
{
	size_t i;

	for (i = 0; i < cl->n; i++)
		if (cl->x[i] != 1)
			return "FAIL";
	return "PASS";
}

struct kcidb_out {
	json_object *tests, *issues, *incidents;
};

static void test_add(const struct report *r, const struct row *w, size_t c, size_t wi,
		     struct kcidb_out *k)
{
	const struct cell *cl = &w->cells[c];
	const struct record *rec = cl->first;
	const struct column *col = &r->t.cols[c];
	json_object *o = json_object_new_object(), *misc = json_object_new_object(), *num;
	char *path = test_path(rec), *id, *bid;
	const char *status = "DONE";
	struct gate g;
	struct cmp cm;

	id = xasprintf(ORIGIN ":%s:%s:%s:%s:%zu", col->key, path, rec->host ? rec->host : "",
		       rec->time ? rec->time : "", wi);
	add_str(o, "id", id);
	add_str(o, "origin", ORIGIN);
	bid = build_id(col->key, rec);
	add_str(o, "build_id", bid);
	free(bid);
	add_str(o, "path", path);
	add_str(o, "start_time", rec->time);
	add(o, "environment", environment(w, rec));

	if (streq(rec->unit, "pass")) {
		status = pass_status(cl);
	} else {
		num = json_object_new_object();
		add_num(num, "value", streq(rec->metric, "finding") ? (double)cl->n : cl->s.median);
		if (!streq(rec->unit, "count") && !streq(rec->metric, "finding"))
			add_str(num, "unit", rec->unit);
		add(o, "number", num);
	}
	add_str(misc, "statistic", streq(rec->metric, "finding") ? "findings" : "median");
	add(misc, "n", json_object_new_int64(cl->n));
	add_num(misc, "mean", cl->s.mean);
	add_num(misc, "sd", cl->s.sd);
	add_num(misc, "mean_ci95_lo", cl->s.mean_lo);
	add_num(misc, "mean_ci95_hi", cl->s.mean_hi);
	add(misc, "samples", samples(cl));
	add_str(misc, "unit", rec->unit);
	add_str(misc, "clock", cl->exact ? "icount" : "wall");
	if (c > 0 && w->cells[c - 1].n) {
		table_compare(&w->cells[c - 1], cl, &cm);
		add_num(misc, "vs_parent_pct", cm.pct);
		add_str(misc, "vs_parent_rule", rule_name(cm.rule));
		add_num(misc, "vs_parent_p", cm.p);
	}

	gate_decide(r, w, c, &g);
	if (g.gated) {
		status = g.regression && !g.ack ? "FAIL" : "PASS";
		add_str(misc, "gate_rule", rule_name(g.cm.rule));
		add_num(misc, "gate_threshold_pct", g.threshold);
		add_num(misc, "gate_worse_pct", g.worse);
		if (g.ack) {
			add_str(misc, "gate_accepted_by", r->ack_file);
			add(misc, "gate_accepted_line", json_object_new_int(g.ack->line));
			add_str(misc, "gate_accepted_reason", g.ack->reason);
		}
	}
	add_str(o, "status", status);
	add(o, "misc", misc);

	if (g.gated && g.regression && !g.ack) {
		json_object *is = json_object_new_object(), *cu = json_object_new_object();
		json_object *in = json_object_new_object();
		char *iid = xasprintf(ORIGIN ":gate:%s:%s:%zu", col->key, path, wi), *text;

		add_str(is, "id", iid);
		add(is, "version", json_object_new_int(1));
		add_str(is, "origin", ORIGIN);
		text = xasprintf("%.12s %s: %s %.1f%% %s (%s rule, threshold %g%%)", col->key,
				 col->subject, path, g.worse,
				 "worse than its parent with no acknowledgment",
				 rule_name(g.cm.rule), g.threshold);
		add_str(is, "comment", text);
		free(text);
		add(cu, "code", json_object_new_boolean(1));
		add(is, "culprit", cu);
		json_object_array_add(k->issues, is);
		text = xasprintf("%s:incident", iid);
		add_str(in, "id", text);
		free(text);
		add_str(in, "origin", ORIGIN);
		add_str(in, "issue_id", iid);
		add(in, "issue_version", json_object_new_int(1));
		add_str(in, "test_id", id);
		add(in, "present", json_object_new_boolean(1));
		json_object_array_add(k->incidents, in);
		free(iid);
	}
	json_object_array_add(k->tests, o);
	free(path);
	free(id);
}

/* an error record: a test that did not complete */
static void error_add(const struct report *r, const struct record *rec, size_t i,
		      json_object *tests)
{
	const char *commit = error_commit(r, rec);
	json_object *o = json_object_new_object(), *misc = json_object_new_object();
	char *path = test_path(rec), *id, *bid;

	id = xasprintf(ORIGIN ":%s:%s:%s:%s:error%zu", commit, path, rec->host ? rec->host : "",
		       rec->time ? rec->time : "", i);
	add_str(o, "id", id);
	free(id);
	add_str(o, "origin", ORIGIN);
	bid = build_id(commit, rec);
	add_str(o, "build_id", bid);
	free(bid);
	add_str(o, "path", path);
	free(path);
	add_str(o, "status", "ERROR");
	add_str(o, "start_time", rec->time);
	add_str(o, "log_excerpt", rec->error);
	add_str(misc, "file", rec->file);
	add(misc, "line", json_object_new_int(rec->line));
	add(o, "misc", misc);
	json_object_array_add(tests, o);
}

int kcidb_write(const struct report *r, FILE *f, const char *patchsets_path)
{
	const struct table *t = &r->t;
	struct patchsets ps = { 0 };
	json_object *o = json_object_new_object(), *v = json_object_new_object(), *a;
	struct kcidb_out k;
	size_t i, c;
	int ret;

	if (t->by_cpu)
		die("kcidb: a table by CPU (ci-merge) has no commits as columns: give ci-report's");
	if (!t->ncols)
		die("kcidb: no commits: nothing to describe");
	if (patchsets_path)
		patchsets_read(&ps, patchsets_path);
	for (i = 0; i < ps.n; i++) {
		for (c = 0; c < t->ncols && !streq(t->cols[c].key, ps.v[i].commit); c++)
			;
		if (c == t->ncols)
			die("kcidb: %s: commit %s is none of the report's", patchsets_path,
			    ps.v[i].commit);
	}
	add(v, "major", json_object_new_int(5));
	add(v, "minor", json_object_new_int(3));
	add(o, "version", v);
	a = json_object_new_array();
	for (c = 0; c < t->ncols; c++)
		json_object_array_add(a, checkout(r, c, &ps));
	add(o, "checkouts", a);
	add(o, "builds", builds(r));
	k.tests = json_object_new_array();
	k.issues = json_object_new_array();
	k.incidents = json_object_new_array();
	for (i = 0; i < t->nrows; i++)
		for (c = 0; c < t->ncols; c++)
			if (t->rows[i].cells[c].n)
				test_add(r, &t->rows[i], c, i, &k);
	for (i = 0; i < t->nerrors; i++)
		error_add(r, t->errors[i], i, k.tests);
	add(o, "tests", k.tests);
	add(o, "issues", k.issues);
	add(o, "incidents", k.incidents);
	ret = fprintf(f, "%s\n",
		      json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
	json_object_put(o);
	for (i = 0; i < ps.n; i++) {
		free(ps.v[i].commit);
		free(ps.v[i].base);
		free(ps.v[i].hash);
		free(ps.v[i].patch);
	}
	free(ps.v);
	return ret;
}
