// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - each bind claim against the limits of the work it times:
 * the struct pages a bind writes (64 B each), the rate the claimed and
 * the reproduced times imply, that rate as a fraction of a CPU's
 * measured ceilings (--ceilings: make costs' records: the streaming-store
 * bandwidth and the write-allocate rate) and of Optane's published ones,
 * and the quantum of the kernel's timer.  A claim is a bind claim when
 * lib/claims.def gives its WORK.  A host claim with a PASS in claims.def
 * gets the same: the bytes of a pass, the rates, the fractions of the
 * streaming stores measured in the same run on the same CPU and of make
 * costs' ceilings where they are of that CPU.  See report.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "report.h"
#include "stats.h"
#include "util.h"

/* sizeof(struct page) on x86-64 (no KMSAN, no last_cpupid in page->flags) */
#define STRUCT_PAGE_BYTES 64.0
#define PAGE_BYTES 4096.0

struct work {
	const char *id;
	double ns_bytes;
	const char *map;
	int hardware;
};

static const struct work works[] = {
#define WORK(id, ns_bytes, map, hardware) { id, ns_bytes, map, hardware },
#include "claims.def"
#undef WORK
};

struct pass {
	const char *id;
	double bytes;
	const char *kind;
};

static const struct pass passes[] = {
#define PASS(id, bytes, kind) { id, bytes, kind },
#include "claims.def"
#undef PASS
};

/*
 * Izraelevitz et al., "Basic Performance Measurements of the Intel Optane
 * DC Persistent Memory Module", arXiv:1903.05714 (2019): sequential write
 * bandwidth of one DIMM and of six interleaved.
 */
static const struct published_limit {
	const char *name;
	double gbs;
} published_limits[] = {
	{ "1 Optane DIMM", 2.3 },
	{ "6 Optane DIMMs interleaved", 13.9 },
};

#define npublished_limits ARRAY_SIZE(published_limits)
static const char published_source[] =
	"Izraelevitz et al., arXiv:1903.05714, sequential writes";

static const struct work *work_of(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(works); i++)
		if (streq(works[i].id, id))
			return &works[i];
	return NULL;
}

static const struct pass *pass_of(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(passes); i++)
		if (streq(passes[i].id, id))
			return &passes[i];
	return NULL;
}

/* GB/s that writing bytes in ms implies */
static double rate(double bytes, double ms)
{
	return ms > 0 ? bytes / (ms * 1e6) : NAN;
}

/*
 * The median of every sample of the records of case and metric, in unit,
 * all of one CPU (a file of two CPUs' records has no one ceiling).
 */
static double pooled_median(const struct records *rs, const char *path, const char *case_name,
			    const char *metric, const char *unit, const struct record **first)
{
	double *x = NULL, m;
	size_t i, j, n = 0;
	struct stats s;
	char *cpu = NULL, *rcpu;

	*first = NULL;
	for (i = 0; i < rs->n; i++) {
		const struct record *r = &rs->v[i];

		if (!streq(r->case_name, case_name) || !streq(r->metric, metric))
			continue;
		if (!*first) {
			*first = r;
			cpu = record_cpu_ident(r);
		}
		rcpu = record_cpu_ident(r);
		if (!streq(r->unit, unit))
			die("ceilings: %s:%u: %s %s in %s, not %s", path, r->line, case_name,
			    metric, r->unit, unit);
		if (!streq(rcpu, cpu))
			die("ceilings: %s:%u: %s of %s after %s: one CPU's make costs records",
			    path, r->line, case_name, rcpu, cpu);
		free(rcpu);
		x = xrealloc(x, (n + r->n) * sizeof(*x));
		for (j = 0; j < r->n; j++)
			x[n++] = r->samples[j];
	}
	m = NAN;
	if (n && !stats_summary(x, n, &s))
		m = s.median;
	free(x);
	free(cpu);
	return m;
}

void limits_ceilings(struct report *r, const char *path)
{
	struct records rs = { 0 };
	const struct record *nt, *wa;
	struct json_object *v;
	double ns;

	if (records_read(&rs, path))
		exit(1);
	r->ceil_nt = pooled_median(&rs, path, "nt-store-bandwidth/movnti/64", "bandwidth", "GB/s",
				   &nt);
	ns = pooled_median(&rs, path, "cost/store-mem", "ns_per_call", "ns", &wa);
	if (!nt || !wa)
		die("ceilings: %s: no %s record (make costs writes them: its records.jsonl)", path,
		    !nt ? "nt-store-bandwidth/movnti/64 bandwidth" : "cost/store-mem ns_per_call");
	if (!wa->params || !json_object_object_get_ex(wa->params, "buffer_bytes", &v) ||
	    json_object_get_double(v) <= 0 || !(ns > 0) || !(r->ceil_nt > 0))
		die("ceilings: %s: %s", path,
		    "no positive streaming bandwidth, store-mem time and params.buffer_bytes");
	r->ceil_wa = json_object_get_double(v) / ns;	/* bytes per ns: GB/s */
	r->ceil_cpu_name = record_cpu_ident(nt);
	r->ceil_cpu = xasprintf("%s, %s", r->ceil_cpu_name, path);
	records_free(&rs);
}

/* the median of the cell's records of metric "pages" beside row w at column c */
static double pages_at(const struct table *t, const struct row *w, size_t c)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *p = &t->rows[i];

		if (streq(p->rec->suite, w->rec->suite) &&
		    streq(p->rec->case_name, w->rec->case_name) &&
		    streq(p->rec->metric, "pages") && streq(p->setup, w->setup) &&
		    p->cells[c].n)
			return p->cells[c].s.median;
	}
	return NAN;
}

/*
 * The bytes a pass of the record writes, from its params: (size, else a
 * 64 B struct page) x (pages, else calls); NAN when they do not say
 */
static double pass_bytes(const struct record *rec)
{
	double size = record_param(rec, "size"), n = record_param(rec, "pages");

	if (isnan(n))
		n = record_param(rec, "calls");
	else if (isnan(size))
		size = STRUCT_PAGE_BYTES;
	return size > 0 && n > 0 ? size * n : NAN;
}

/* the median of the same run's streaming stores (8 MOVNTI a line) at column c */
static double run_streaming(const struct table *t, size_t c)
{
	size_t i;

	for (i = 0; i < t->nrows; i++) {
		const struct row *p = &t->rows[i];

		if (streq(p->rec->suite, "bench") &&
		    streq(p->rec->case_name, "nt-store-bandwidth/movnti/64") &&
		    streq(p->rec->metric, "bandwidth") && streq(p->rec->unit, "GB/s") &&
		    p->cells[c].n)
			return p->cells[c].s.median;
	}
	return NAN;
}

static void pass_eval(const struct report *r, struct claim_result *res, const struct pass *ps,
		      const struct row *to, size_t to_col, struct limits *l)
{
	const struct record *first = to ? to->cells[to_col].first : NULL;

	l->kind = ps->kind;
	l->hardware = 1;
	l->hz = NAN;
	l->cbytes = ps->bytes;
	l->rbytes = first ? pass_bytes(first) : NAN;
	l->run_nt = to ? run_streaming(&r->t, to_col) : NAN;
	l->rcpu = first ? record_cpu_ident(first) : NULL;
	l->accel = first ? first->accel : NULL;
	l->claimed_from = rate(l->cbytes, res->cfrom);
	l->claimed_to = rate(l->cbytes, res->cto);
	l->reproduced_from = rate(l->rbytes, res->rfrom);
	l->reproduced_to = rate(l->rbytes, res->rto);
}

void limits_eval(const struct report *r, struct claim_result *res, const struct row *to,
		 size_t to_col)
{
	const struct work *wk = work_of(res->id);
	const struct pass *ps = pass_of(res->id);
	const struct record *first = to ? to->cells[to_col].first : NULL;
	struct json_object *v;
	struct limits *l;
	double rec_ns = NAN;

	if (!wk && !ps)
		return;
	l = xcalloc(1, sizeof(*l));
	if (ps) {
		pass_eval(r, res, ps, to, to_col, l);
		res->limits = l;
		return;
	}
	l->ns_bytes = wk->ns_bytes;
	l->map = wk->map;
	l->hardware = wk->hardware;
	l->hz = NAN;
	if (first && first->build && json_object_object_get_ex(first->build, "hz", &v))
		l->hz = json_object_get_double(v);
	if (first && first->params && json_object_object_get_ex(first->params, "ns_size", &v))
		rec_ns = json_object_get_double(v);
	l->accel = first ? first->accel : NULL;
	l->rcpu = first ? record_cpu_ident(first) : NULL;

	/* the reproduced bind's work: the records' count, else their namespace's pages */
	l->rpages = to ? pages_at(&r->t, to, to_col) : NAN;
	l->rpages_how = "the records' count";
	if (isnan(l->rpages) && rec_ns > 0) {
		l->rpages = rec_ns / PAGE_BYTES;
		l->rpages_how = "the records' namespace / 4 KiB";
	}
	/* the claimed bind's: the records' count where they bound the same size */
	if (!isnan(l->rpages) && rec_ns == wk->ns_bytes) {
		l->cpages = l->rpages;
		l->cpages_how = l->rpages_how;
	} else {
		l->cpages = wk->ns_bytes / PAGE_BYTES;
		l->cpages_how = "the namespace / 4 KiB";
	}
	l->claimed_from = rate(l->cpages * STRUCT_PAGE_BYTES, res->cfrom);
	l->claimed_to = rate(l->cpages * STRUCT_PAGE_BYTES, res->cto);
	l->reproduced_from = rate(l->rpages * STRUCT_PAGE_BYTES, res->rfrom);
	l->reproduced_to = rate(l->rpages * STRUCT_PAGE_BYTES, res->rto);
	res->limits = l;
}

/* a WORK of no claim is claims.def's mistake: said, never skipped */
void limits_check(int (*known)(const char *id))
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(works); i++)
		if (!known(works[i].id) || pass_of(works[i].id))
			die("claims.def: WORK(\"%s\"): %s", works[i].id,
			    pass_of(works[i].id) ? "a PASS too" : "no CLAIM of that id");
	for (i = 0; i < ARRAY_SIZE(passes); i++)
		if (!known(passes[i].id) ||
		    (!streq(passes[i].kind, "memory") && !streq(passes[i].kind, "cache")))
			die("claims.def: PASS(\"%s\"): %s", passes[i].id,
			    known(passes[i].id) ? "its kind is not memory or cache" :
			    "no CLAIM of that id");
}

/* "6.1 GB/s" or "-"; "(x% of NAME)" pieces */
static struct text gbs(double x)
{
	struct text t;

	snprintf(t.s, sizeof(t.s), isnan(x) ? "-" : "%.2f GB/s", x);
	return t;
}

/* x against the measured ceilings (when given) and, with measured 0, the published ones alone */
static void fractions_of(const struct report *r, FILE *f, double x, const char *map, int measured)
{
	size_t i;

	if (isnan(x))
		return;
	if (measured && !isnan(r->ceil_nt))
		fprintf(f,
			"; %.0f%% of the measured streaming-store ceiling, %.0f%% of the write-allocate one",
			100 * x / r->ceil_nt, 100 * x / r->ceil_wa);
	if (streq(map, "dev"))
		for (i = 0; i < npublished_limits; i++)
			fprintf(f, "; %.0f%% of %s", 100 * x / published_limits[i].gbs,
				published_limits[i].name);
}

static void fractions(const struct report *r, FILE *f, double x, const char *map)
{
	fractions_of(r, f, x, map, 1);
}

/*
 * fractions() of a reproduced rate: the measured ceilings only where
 * they are of the CPU the records ran on
 */
static void same_cpu_fractions(const struct report *r, FILE *f, double x, const char *map,
			       const char *cpu)
{
	if (isnan(r->ceil_nt) || (cpu && streq(cpu, r->ceil_cpu_name))) {
		fractions(r, f, x, map);
		return;
	}
	fprintf(f, "; the measured ceilings are of another CPU (%s), not of %s: %s",
		r->ceil_cpu_name, cpu ? cpu : "an unnamed one", "not set against them");
	fractions_of(r, f, x, map, 0);
}

/* a host claim's limits: pass_eval()'s */
static void pass_line(const struct report *r, const struct claim_result *c, FILE *f)
{
	const struct limits *l = c->limits;
	int memory = streq(l->kind, "memory");

	/*
	 * The claimed times are of a host the claim does not name: set
	 * against no ceiling (the reproduced ones are, on their own CPU)
	 */
	fprintf(f, "%s (host, %s): claimed %.3g GB a pass (its workload as it states it), %s -> %s",
		c->id,
		memory ? "struct pages written to memory" : "4 KiB copies between cache states",
		l->cbytes / 1e9, gbs(l->claimed_from).s, gbs(l->claimed_to).s);
	if (!memory)
		fputs(" (copies in the caches: no memory ceiling bounds them)", f);
	if (isnan(l->reproduced_to)) {
		fprintf(f, "; reproduced: %s\n",
			isnan(c->rto) ? "no figures" :
			"no bytes known (no size and pages or calls in the records' params)");
		return;
	}
	fprintf(f, "; reproduced %.3g GB a pass (the records' params), %s -> %s on %s",
		l->rbytes / 1e9, gbs(l->reproduced_from).s, gbs(l->reproduced_to).s,
		l->rcpu ? l->rcpu : "an unnamed CPU");
	if (!memory) {
		fputs("\n", f);
		return;
	}
	if (!isnan(l->run_nt))
		fprintf(f, ", %.0f%% of the streaming stores %s (%.2f GB/s, 8 MOVNTI a line)",
			100 * l->reproduced_to / l->run_nt, "measured in the same run", l->run_nt);
	else
		fputs(", no streaming stores measured in the same run", f);
	same_cpu_fractions(r, f, l->reproduced_to, "mem", l->rcpu);
	fputs("\n", f);
}

/* one claim's limits as one paragraph of text (the text and Markdown reports) */
void limits_line(const struct report *r, const struct claim_result *c, FILE *f)
{
	const struct limits *l = c->limits;

	if (l->kind) {
		pass_line(r, c, f);
		return;
	}

	fprintf(f,
		"%s (memmap in %s): claimed %s struct pages x 64 B = %.3g GB a bind (%s), %s -> %s",
		c->id, streq(l->map, "dev") ? "the namespace, map=dev" : "DRAM, map=mem",
		num_int(l->cpages).s, l->cpages * STRUCT_PAGE_BYTES / 1e9, l->cpages_how,
		gbs(l->claimed_from).s, gbs(l->claimed_to).s);
	if (l->hardware)
		fractions(r, f, l->claimed_to, l->map);
	else
		fprintf(f, " (an emulator's clock: no hardware limit bounds it)");
	if (!isnan(c->cto))
		fprintf(f,
			"; its kernel's HZ not stated: a quantum of 1 ms (HZ 1000) to 4 ms (HZ 250), %.1f-%.1f%% of its %s ms",
			100 / c->cto, 400 / c->cto, num(c->cto).s);
	if (isnan(l->reproduced_to)) {
		fprintf(f, "; reproduced: %s\n",
			isnan(c->rto) ? "no figures" :
			"no work known (no pages record, no ns_size)");
		return;
	}
	fprintf(f, "; reproduced %s struct pages = %.3g GB a bind (%s), %s -> %s",
		num_int(l->rpages).s, l->rpages * STRUCT_PAGE_BYTES / 1e9, l->rpages_how,
		gbs(l->reproduced_from).s, gbs(l->reproduced_to).s);
	if (l->accel && streq(l->accel, "kvm"))
		same_cpu_fractions(r, f, l->reproduced_to, l->map, l->rcpu);
	else
		fprintf(f, " (%s: not a hardware rate)",
			c->clock && streq(c->clock, "icount") ? "tcg-icount, virtual time" : "TCG");
	if (!isnan(l->hz))
		fprintf(f,
			"; the timer's quantum 1000/HZ = %s ms (HZ %s, the records' build), %.2f%% of %s ms",
			num(1000 / l->hz).s, num_int(l->hz).s, 100 * (1000 / l->hz) / c->rto,
			num(c->rto).s);
	else
		fprintf(f, "; the timer's quantum 1000/HZ ms (HZ not in the records)");
	fputs("\n", f);
}

#define INTRO \
	"Each bind claim against the work it times: a bind writes its struct pages, 64 B " \
	"each; the rate its times imply; that rate as a fraction of a measured CPU's " \
	"ceilings and of published ones where the memmap is on the namespace (map=dev) and " \
	"the time is of hardware; the quantum of the timer the kernel prints the time with " \
	"(jiffies: 1000/HZ ms).  Each host claim the same way, by the bytes a pass writes: " \
	"its reproduced rate against the streaming stores measured in the same run and " \
	"against the measured ceilings where they are of the same CPU."
#define CEILINGS_GIVEN \
	"Measured ceilings (make costs' records of %s): streaming stores %.2f GB/s (8 " \
	"MOVNTI a line, the median of its samples), write-allocate stores %.2f GB/s " \
	"(cost/store-mem: its buffer over the median time)."
#define CEILINGS_NONE \
	"No measured ceilings: no make costs records were given (CEILINGS=FILE; make " \
	"report takes the newest make costs here); the fractions of them are left out."

/* limits_line() as an allocated string, without its newline */
static char *limits_text(const struct report *r, const struct claim_result *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		die("out of memory");
	limits_line(r, c, m);
	if (fclose(m))
		die("out of memory");
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	return buf;
}

/* the section of the text and Markdown reports: the limits, then a line a claim */
void limits_write(const struct report *r, FILE *f, int md)
{
	size_t i, n = 0;
	char *t;

	for (i = 0; i < r->nclaims; i++)
		n += !!r->claims[i].limits;
	if (!n)
		return;
	fputs(md ? "## Limits of the claims\n\n" : "Limits of the claims:\n  ", f);
	text_wrap(f, INTRO, md ? "" : "  ");
	if (md)
		fputs("\n", f);
	if (!isnan(r->ceil_nt))
		t = xasprintf(CEILINGS_GIVEN, r->ceil_cpu, r->ceil_nt, r->ceil_wa);
	else
		t = xstrdup(CEILINGS_NONE);
	if (md) {
		md_escape(f, t);	/* a path is the user's text */
		fputs("\n", f);
	} else {
		fputs("  ", f);
		text_wrap(f, t, "  ");
	}
	free(t);
	t = xasprintf("Published: %.1f GB/s %s, %.1f GB/s %s (%s).", published_limits[0].gbs,
		      published_limits[0].name, published_limits[1].gbs, published_limits[1].name,
		      published_source);
	fputs(md ? "\n" : "  ", f);
	text_wrap(f, t, md ? "" : "  ");
	free(t);
	if (md)
		fputs("\n", f);
	for (i = 0; i < r->nclaims; i++) {
		const struct claim_result *c = &r->claims[i];
		char *buf;

		if (!c->limits) {
			/* every claim has a line: why none applies */
			const char *why = "lib/claims.def gives it no WORK or PASS";

			if (!c->suite)
				why = "the claim has no figure a record measures";
			else if (streq(c->metric, "ns_per_call"))
				why = "ns a call of one short copy: a latency, not a rate";
			buf = xasprintf("%s: no limit applies: %s", c->id, why);
		} else {
			buf = limits_text(r, c);
		}
		list_item(f, buf, md, "  ");
		free(buf);
	}
	if (md)
		fputs("\n", f);
}

static void jadd_num(struct json_object *o, const char *k, double x)
{
	json_object_object_add(o, k, isnan(x) ? NULL : json_object_new_double(x));
}

struct json_object *limits_json(const struct report *r, const struct claim_result *c)
{
	const struct limits *l = c->limits;
	struct json_object *o, *fr, *pub;
	size_t i;

	if (!l)
		return NULL;
	o = json_object_new_object();
	if (l->kind) {
		/* a host claim's pass */
		json_object_object_add(o, "kind", json_object_new_string(l->kind));
		jadd_num(o, "claimed_bytes_per_pass", l->cbytes);
		jadd_num(o, "reproduced_bytes_per_pass", l->rbytes);
		jadd_num(o, "claimed_gbs_from", l->claimed_from);
		jadd_num(o, "claimed_gbs_to", l->claimed_to);
		jadd_num(o, "reproduced_gbs_from", l->reproduced_from);
		jadd_num(o, "reproduced_gbs_to", l->reproduced_to);
		json_object_object_add(o, "reproduced_cpu",
				       l->rcpu ? json_object_new_string(l->rcpu) : NULL);
		jadd_num(o, "same_run_streaming_gbs", l->run_nt);
		goto text;
	}
	jadd_num(o, "ns_bytes", l->ns_bytes);
	json_object_object_add(o, "map", json_object_new_string(l->map));
	json_object_object_add(o, "claimed_on_hardware", json_object_new_boolean(l->hardware));
	jadd_num(o, "claimed_struct_pages", l->cpages);
	json_object_object_add(o, "claimed_struct_pages_from",
			       json_object_new_string(l->cpages_how));
	jadd_num(o, "reproduced_struct_pages", l->rpages);
	json_object_object_add(o, "reproduced_struct_pages_from",
			       isnan(l->rpages) ? NULL : json_object_new_string(l->rpages_how));
	jadd_num(o, "struct_page_bytes", STRUCT_PAGE_BYTES);
	jadd_num(o, "claimed_gbs_from", l->claimed_from);
	jadd_num(o, "claimed_gbs_to", l->claimed_to);
	jadd_num(o, "reproduced_gbs_from", l->reproduced_from);
	jadd_num(o, "reproduced_gbs_to", l->reproduced_to);
	jadd_num(o, "hz", l->hz);
	jadd_num(o, "quantum_ms", 1000 / l->hz);
	/* the claimed (to) rate against the ceilings: hardware only */
	fr = json_object_new_object();
	if (l->hardware && !isnan(l->claimed_to)) {
		jadd_num(fr, "streaming", isnan(r->ceil_nt) ? NAN : l->claimed_to / r->ceil_nt);
		jadd_num(fr, "write_allocate",
			 isnan(r->ceil_wa) ? NAN : l->claimed_to / r->ceil_wa);
		pub = json_object_new_object();
		for (i = 0; i < npublished_limits && streq(l->map, "dev"); i++)
			jadd_num(pub, published_limits[i].name,
				 l->claimed_to / published_limits[i].gbs);
		json_object_object_add(fr, "published", pub);
	}
	json_object_object_add(o, "claimed_to_fraction_of", fr);
text:
	/* the report's own sentence, for make reply */
	{
		char *buf = limits_text(r, c);

		json_object_object_add(o, "text", json_object_new_string(buf));
		free(buf);
	}
	return o;
}
