// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - turn what the guest agent sent on its virtio-serial port
 * (bench-vm/agent/protocol.h defines the lines) into result records.
 *
 *   bench-vm-collect [options] AGENT_OUTPUT >records.jsonl
 *   bench-vm-collect --status AGENT_OUTPUT
 *     what the agent has said so far, one line for run.sh's watchdog and
 *     progress: "hello=0|1 samples=N step=NAME" (this file is the one
 *     reader of the agent's lines)
 *     --commit ID       kernel commit under test
 *     --accel kvm|tcg   how QEMU ran the guest
 *     --clock icount|wall  the guest's clock: icount (TCG with -icount
 *                       shift=0,sleep=off: emulated instructions at 1 ns
 *                       each) or wall (real time; the default)
 *     --qemu-cpu STR    QEMU's -cpu argument (params.qemu_cpu)
 *     --qemu-version STR  the first line of QEMU's --version
 *                       (params.qemu_version): an icount figure belongs
 *                       to one QEMU build
 *     --ns-size BYTES   size of each emulated NVDIMM
 *     --rebinds N       rebinds asked of the agent
 *     --host-error STR  the host's own failure (watchdog, QEMU exit status)
 *     --qemu-log FILE   QEMU's messages: the warning that says why a
 *                       feature of --qemu-cpu is not in the guest
 *     --model FILE      what the model plugin wrote (bench-vm/plugin,
 *                       run.sh --model cache): its counts per window
 *     --output FILE     write the records to FILE, a new file, instead of
 *                       stdout: FILE exists afterwards only when every
 *                       record reached it
 *     --build FILE      the kernel build measured (build/build.sh's
 *                       build-id.json), named in every record: needed
 *
 * Records (doc/records.md), suite "bench-vm", one per case and metric:
 *   <driver>/first, <driver>/rebind: memmap_init_ms (the kernel's pr_debug),
 *     bind_us and unbind_us (the agent's CLOCK_MONOTONIC), pages (count);
 *   boot: agent_start_ms, first_bind_ms (guest CLOCK_BOOTTIME);
 *   every record has params.mitigations, the agent's vuln lines (the
 *     CPU mitigations the guest kernel applies), and "build" (--build);
 *   <driver>/pages: page_classes, with "digest", the lines of the struct
 *     page digest module (bench-vm/pages), which the report compares;
 *   hmm/load (agent hmm=1): pages, memmap_init_ms and load_us of the
 *     load of test_hmm.ko, with "pgmaps" (its chunks per pgmap type);
 *   check/odirect, check/mmap, check/mmap-mem: verified_bytes, the pattern
 *     written and read back on the fsdax block device (O_DIRECT) and the
 *     devdax mmaps (map=dev, map=mem);
 *   with --model, per <driver>/first and <driver>/rebind (each sample the
 *     window of its bind), per synthetic/<kind> (agent synthetic=N) and
 *     for hmm/load (the window of the module's load):
 *     one record per event of the model (plugin/events.def)
 *     and est_cycles, with "model": "cache", "model_params" and
 *     "model_label"; est_cycles' record has "functions": per sample, its
 *     window's top functions with their events;
 *   run: error, when the guest or the host failed or the run is incomplete,
 *     or when a +feature or -feature of --qemu-cpu is not as asked in the
 *     guest's /proc/cpuinfo (the figures would be of another CPU: QEMU
 *     7.2's TCG drops +fsrm with only a warning).
 * What arrived is always written, so a failed run keeps its partial samples;
 * a last line without its newline (output cut short) is not read.  Every
 * write and the close are checked: a full disk is an error naming the file.
 * Exit status: 0 for a complete run, 1 for a failed or incomplete one, or
 * when the records could not be written.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/protocol.h"
#include "record-fields.h"
#include "record-write.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PROG "bench-vm-collect"
#define MAX_FIELDS 32

/* dax_pmem_mem: dax_pmem on the map=mem namespace (agent.c, mem_ns=1) */
static const char *const drivers[] = { "nd_pmem", "dax_pmem", "dax_pmem_mem",
				       /* hmm=1 pages=1: test_hmm.ko's chunks (agent.c) */
				       "hmm_private", "hmm_coherent" };
static const char *const cases[] = { "first", "rebind" };
#define NR_DRIVERS ARRAY_SIZE(drivers)

/* Per-sample metrics: the key in the agent's line, the record's metric. */
static const struct metric {
	const char *key;
	const char *metric;
	const char *unit;
	int rebind_only;
} metrics[] = {
	{ "memmap_ms", "memmap_init_ms", "ms", 0 },
	{ "bind_us", "bind_us", "us", 0 },
	{ "unbind_us", "unbind_us", "us", 1 },
	{ "pages", "pages", "count", 0 },
};

#define NR_METRICS ARRAY_SIZE(metrics)

struct line {
	char *type;
	int n;
	char *key[MAX_FIELDS], *val[MAX_FIELDS];
};

static const char *field(const struct line *l, const char *key)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], key))
			return l->val[i];
	return NULL;
}

/*
 * A number field of an agent line, whole: a finite decimal and nothing
 * after it.  0 with *x set; -1 when the line has no such field; -2 when
 * its value is no such number (the caller names it and drops the line:
 * a figure is never read from part of a field, nor made up as 0).
 */
static int num_field(const struct line *l, const char *key, double *x)
{
	const char *v = field(l, key);
	char *end;

	if (!v)
		return -1;
	errno = 0;
	*x = strtod(v, &end);
	return end == v || *end || errno || !isfinite(*x) ? -2 : 0;
}

/*
 * A sample line's numbers: every metric and boot_us there and a number.
 * 0, or -1 after saying which field of FILE is missing or wrong.
 */
static int sample_numbers_ok(const struct line *l, const char *file)
{
	static const char *const more[] = { "boot_us" };
	size_t m;
	double x;

	for (m = 0; m < NR_METRICS + ARRAY_SIZE(more); m++) {
		const char *key = m < NR_METRICS ? metrics[m].key : more[m - NR_METRICS];
		int rc = num_field(l, key, &x);

		if (rc) {
			fprintf(stderr,
				PROG ": %s: sample of %s/%s: %s%s%s: the sample is dropped\n",
				file, field(l, "driver"), field(l, "case"), key,
				rc == -1 ? " is missing" : " is not a number: ",
				rc == -1 ? "" : field(l, key));
			return -1;
		}
	}
	return 0;
}

static void split(char *s, struct line *l)
{
	char *tok, *save = NULL;

	s[strcspn(s, "\n")] = '\0';
	l->type = strtok_r(s, "\t", &save);
	l->n = 0;
	while (l->n < MAX_FIELDS && (tok = strtok_r(NULL, "\t", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		l->key[l->n] = tok;
		l->val[l->n++] = eq + 1;
	}
}

static int has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = flags;

	while ((p = strstr(p, flag))) {
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static void parse_cpu(const struct line *l, struct record_cpu *cpu, char **flags)
{
	const char *v;

	memset(cpu, 0, sizeof(*cpu));
	v = field(l, "vendor");
	snprintf(cpu->vendor, sizeof(cpu->vendor), "%s", v ? v : "");
	v = field(l, "model_name");
	snprintf(cpu->model_name, sizeof(cpu->model_name), "%s", v ? v : "");
	v = field(l, "family");
	cpu->family = v ? (unsigned int)strtoul(v, NULL, 10) : 0;
	v = field(l, "model");
	cpu->model = v ? (unsigned int)strtoul(v, NULL, 10) : 0;
	v = field(l, "stepping");
	cpu->stepping = v ? (unsigned int)strtoul(v, NULL, 10) : 0;
	v = field(l, "flags");
	if (!v)
		v = "";
	cpu->erms = has_flag(v, "erms");
	cpu->fsrm = has_flag(v, "fsrm");
	cpu->clwb = has_flag(v, "clwb");
	cpu->clflushopt = has_flag(v, "clflushopt");
	cpu->avx512f = has_flag(v, "avx512f");
	free(*flags);
	*flags = strdup(v);
}

/* The model's events and est_cycles, as the plugin names them. */
static const struct {
	const char *name, *desc;
} model_metrics[] = {
#define MODEL_EVENT(name, desc) { #name, desc },
#include "plugin/events.def"
#undef MODEL_EVENT
	{ "est_cycles", "the model's weighted sum (doc/records.md)" }
};

#define NR_MODEL_METRICS ARRAY_SIZE(model_metrics)
/* a "func" line: seq, rank, name and every metric: split() keeps them all */
static_assert(NR_MODEL_METRICS + 3 <= MAX_FIELDS, "MAX_FIELDS: a func line has more fields");
#define MODEL_LABEL "model: write-allocate, streaming stores bypass; not hardware time"

/* What the plugin wrote: its parameters, then each window's counts. */
struct model_out {
	json_object *params;		/* the "model" line, numbers */
	size_t nr;			/* windows, numbered 1..nr */
	double (*win)[NR_MODEL_METRICS];
	char *have;			/* win[i] was written */
	json_object **funcs;		/* per window, an array of the top functions */
	int ended, write_ok;
	double bad_markers;
	char *error;			/* the first thing wrong with it */
};

/* model_error: the first thing wrong, FMT with one %s (ARG) */
static void model_error(struct model_out *mo, const char *fmt, const char *arg)
{
	char msg[512];

	if (mo->error)
		return;
	snprintf(msg, sizeof(msg), fmt, arg);
	mo->error = strdup(msg);
	if (!mo->error) {
		fprintf(stderr, PROG ": model: out of memory\n");
		exit(1);
	}
}

/* model_number: a value of the plugin's, all of its text a number */
static double model_number(struct model_out *mo, const char *val)
{
	char *end;
	double d;

	/* the plugin writes decimal counts: no sign, hex, inf or nan */
	errno = 0;
	d = strtod(val, &end);
	if (*val < '0' || *val > '9' || val[strspn(val, "0123456789.")] || *end || errno ||
	    !isfinite(d)) {
		model_error(mo, "model: a value of the plugin's is not a number: '%s'", val);
		return 0;
	}
	return d;
}

/* model_value: "name" is text, every other value of the plugin a number */
static json_object *model_value(struct model_out *mo, const char *key, const char *val)
{
	if (!strcmp(key, "name"))
		return json_object_new_string(val);
	return json_object_new_double(model_number(mo, val));
}

static int model_grow(struct model_out *mo, size_t seq)
{
	size_t i;

	if (seq <= mo->nr)
		return 0;
	mo->win = realloc(mo->win, (seq + 1) * sizeof(*mo->win));
	mo->have = realloc(mo->have, seq + 1);
	mo->funcs = realloc(mo->funcs, (seq + 1) * sizeof(*mo->funcs));
	if (!mo->win || !mo->have || !mo->funcs) {
		fprintf(stderr, PROG ": model: out of memory\n");
		exit(1);
	}
	for (i = mo->nr + 1; i <= seq; i++) {
		mo->have[i] = 0;
		mo->funcs[i] = NULL;
	}
	mo->nr = seq;
	return 0;
}

/* Read FILE; what is wrong with it goes to mo->error, never fatal. */
static void model_read(struct model_out *mo, const char *path)
{
	char *buf = NULL;
	size_t cap = 0, m;
	ssize_t len;
	struct line l;
	FILE *f = fopen(path, "r");
	int i;

	memset(mo, 0, sizeof(*mo));
	if (!f) {
		model_error(mo, "model: %s cannot be read (did QEMU load the plugin? see qemu.log)",
			    path);
		return;
	}
	while ((len = getline(&buf, &cap, f)) > 0) {
		const char *v;
		size_t seq;

		if (buf[len - 1] != '\n')
			break;
		split(buf, &l);
		if (!l.type)
			continue;
		if (!strcmp(l.type, "model")) {
			mo->params = json_object_new_object();
			for (i = 0; i < l.n; i++)
				json_object_object_add(mo->params, l.key[i],
						       model_value(mo, l.key[i], l.val[i]));
		} else if (!strcmp(l.type, "window") || !strcmp(l.type, "func")) {
			v = field(&l, "seq");
			seq = v ? strtoul(v, NULL, 10) : 0;
			if (!seq || seq > 1000000) {
				model_error(mo, "model: %s: a line without a window number", path);
				continue;
			}
			model_grow(mo, seq);
			if (!strcmp(l.type, "window")) {
				for (m = 0; m < NR_MODEL_METRICS; m++) {
					v = field(&l, model_metrics[m].name);
					if (!v)
						model_error(mo,
							    "model: a window without %s (plugin and collect of other versions?)",
							    model_metrics[m].name);
					mo->win[seq][m] = v ? model_number(mo, v) : 0;
				}
				mo->have[seq] = 1;
			} else {
				json_object *fn = json_object_new_object();

				for (i = 0; i < l.n; i++) {
					if (!strcmp(l.key[i], "seq"))
						continue;
					json_object_object_add(fn, l.key[i],
							       model_value(mo, l.key[i], l.val[i]));
				}
				if (!mo->funcs[seq])
					mo->funcs[seq] = json_object_new_array();
				json_object_array_add(mo->funcs[seq], fn);
			}
		} else if (!strcmp(l.type, "end")) {
			mo->ended = 1;
			mo->write_ok = !strcmp(field(&l, "write") ?: "", "ok");
			mo->bad_markers = model_number(mo, field(&l, "bad_markers") ?: "0");
		}
	}
	fclose(f);
	free(buf);
	if (!mo->params)
		model_error(mo, "model: %s has no model line (not the plugin's output?)", path);
	else if (!mo->ended)
		model_error(mo, "model: %s ends without its end line (QEMU killed before exit?)",
			    path);
	else if (!mo->write_ok)
		model_error(mo, "model: the plugin could not write all of %s (see qemu.log)", path);
	else if (mo->bad_markers)
		model_error(mo, "model: %s: windows opened inside a window or closed outside one",
			    path);
}

/* The window of @seq, or NULL (and the error said) when it is missing. */
static const double *model_window(struct model_out *mo, const char *seq_str)
{
	size_t seq = seq_str ? strtoul(seq_str, NULL, 10) : 0;

	if (seq && seq <= mo->nr && mo->have[seq])
		return mo->win[seq];
	model_error(mo, "model: no counts for window %s of the agent", seq_str ?: "(none)");
	return NULL;
}

/* A data check of the agent: a pattern written and read back. */
struct check {
	char what[16], device[32];
	double bytes;
};

/* Samples of one driver and case, per metric, in the order taken. */
struct series {
	double *v[NR_METRICS];
	char **window;	/* the model window of each sample */
	size_t n;
};

static void series_add(struct series *s, const struct line *l)
{
	size_t m;

	for (m = 0; m < NR_METRICS; m++) {
		const char *v = field(l, metrics[m].key);

		s->v[m] = realloc(s->v[m], (s->n + 1) * sizeof(double));
		if (!s->v[m]) {
			fprintf(stderr, PROG ": samples: out of memory\n");
			exit(1);
		}
		/* checked whole by sample_numbers_ok() */
		s->v[m][s->n] = strtod(v, NULL);
	}
	s->window = realloc(s->window, (s->n + 1) * sizeof(*s->window));
	if (!s->window) {
		fprintf(stderr, PROG ": samples: out of memory\n");
		exit(1);
	}
	s->window[s->n] = strdup(field(l, "window") ?: "");
	s->n++;
}

/* Where the records go; after the first failed write nothing more is. */
struct out {
	FILE *f;
	const char *name;
	int failed;
};

static void out_record(struct out *o, json_object *rec)
{
	if (o->failed) {
		json_object_put(rec);
		return;
	}
	if (record_write(o->f, rec)) {
		fprintf(stderr, PROG ": write: %s: %s\n", o->name, strerror(errno));
		o->failed = 1;
	}
}

/* A new file (O_EXCL: what fails is then ours to remove), or NULL. */
static FILE *out_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* One record per model metric of @case_name, samples from @seqs. */
static void model_records(struct out *o, const struct record_ctx *ctx,
			  struct model_out *mo, const char *case_name,
			  char **seqs, size_t n, json_object *params)
{
	size_t m, i;

	for (i = 0; i < n; i++)
		if (!model_window(mo, seqs[i]))
			return;
	for (m = 0; m < NR_MODEL_METRICS; m++) {
		int est = m == NR_MODEL_METRICS - 1;
		const char *unit = est ? "cycles" : "count";
		json_object *rec = record_new(ctx, "bench-vm", case_name,
					      model_metrics[m].name, unit);
		json_object *funcs = est ? json_object_new_array() : NULL;

		for (i = 0; i < n; i++) {
			size_t seq = strtoul(seqs[i], NULL, 10);

			record_add_sample(rec, mo->win[seq][m]);
			if (funcs)
				json_object_array_add(funcs, mo->funcs[seq] ?
						      json_object_get(mo->funcs[seq]) :
						      json_object_new_array());
		}
		record_set(rec, "model", json_object_new_string("cache"));
		record_set(rec, "model_params", json_object_get(mo->params));
		record_set(rec, "model_label", json_object_new_string(MODEL_LABEL));
		if (funcs)
			record_set(rec, "functions", funcs);
		record_set(rec, "params", json_object_get(params));
		out_record(o, rec);
	}
}

/*
 * cpu_check - every +feature and -feature word of QEMU's -cpu argument
 * as the guest's flags have it, else the error in @err (empty when all
 * hold); the reason from QEMU's log, the first warning naming the feature
 */
static void cpu_check(const char *qemu_cpu, const char *flags, const char *qemu_log,
		      char *err, size_t size)
{
	char *words = strdup(qemu_cpu), *w, *save = NULL;
	size_t len = 0;

	err[0] = '\0';
	if (!words)
		return;
	for (w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int want = w[0] == '+';
		char why[512] = "";

		if ((w[0] != '+' && w[0] != '-') || !w[1] || has_flag(flags, w + 1) == want)
			continue;
		if (qemu_log) {
			FILE *f = fopen(qemu_log, "r");
			char *line = NULL, *p;
			size_t cap = 0;

			while (f && getline(&line, &cap, f) > 0) {
				if (!strstr(line, "warning:") || !strstr(line, w + 1))
					continue;
				line[strcspn(line, "\n")] = '\0';
				p = strstr(line, ": ");
				snprintf(why, sizeof(why), " (%s)", p ? p + 2 : line);
				break;
			}
			free(line);
			if (f)
				fclose(f);
		}
		len += snprintf(err + len, len < size ? size - len : 0,
				"%scpu: -cpu %s asked for %s but the guest's /proc/cpuinfo %s %s%s",
				len ? "; " : "", qemu_cpu, w, want ? "lacks" : "has", w + 1, why);
	}
	free(words);
}

/*
 * load_build - the build identity of the kernel measured (build-id.json,
 * one JSON object, checked as the readers check it), or NULL after the
 * error
 */
static json_object *load_build(const char *path)
{
	char *text = NULL;
	size_t cap = 0;
	ssize_t len;
	json_object *b = NULL;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, PROG ": build: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (len <= 0 || record_json_parse(text, &b) || record_build_check(b, path, 1)) {
		fprintf(stderr, PROG ": build: %s: not a build identity (one JSON object: %s)\n",
			path, "build it again with build/build.sh");
		json_object_put(b);
		b = NULL;
	}
	free(text);
	return b;
}

/* print_status - the --status line of what the agent has said so far */
static int print_status(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *step = NULL;
	size_t cap = 0, samples = 0;
	ssize_t len;
	int hello = 0;
	struct line l;

	if (!f) {
		fprintf(stderr, PROG ": read: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((len = getline(&buf, &cap, f)) > 0 && buf[len - 1] == '\n') {
		split(buf, &l);
		if (!l.type)
			continue;
		if (!strcmp(l.type, AGENT_HELLO)) {
			hello = 1;
		} else if (!strcmp(l.type, AGENT_SAMPLE)) {
			samples++;
		} else if (!strcmp(l.type, AGENT_STEP) && field(&l, "name")) {
			free(step);
			step = strdup(field(&l, "name"));
		}
	}
	fclose(f);
	free(buf);
	printf("hello=%d samples=%zu step=%s\n", hello, samples, step ? step : "");
	free(step);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

static void print_usage(void)
{
	fprintf(stderr, "%s\n",
		"usage: bench-vm-collect [--commit ID] [--accel kvm|tcg] [--clock icount|wall] [--qemu-cpu STR] [--qemu-version STR] [--ns-size BYTES] [--rebinds N] [--host-error STR] [--qemu-log FILE] [--model FILE] [--output FILE] --build FILE AGENT_OUTPUT\n       bench-vm-collect --status AGENT_OUTPUT");
}

/* the options (print_usage names them) */
struct opts {
	const char *qemu_cpu, *host_error, *output, *qemu_version, *qemu_log, *build_path;
	const char *model_path, *agent_output;
	double ns_size, rebinds;
	int status_only;
};

/* parse_args - the options into o and ctx; -1 to go on, else the exit status */
static int parse_args(int argc, char **argv, struct opts *o, struct record_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "commit", required_argument, NULL, 'c' },
		{ "accel", required_argument, NULL, 'a' },
		{ "clock", required_argument, NULL, 'k' },
		{ "qemu-cpu", required_argument, NULL, 'm' },
		{ "ns-size", required_argument, NULL, 's' },
		{ "rebinds", required_argument, NULL, 'r' },
		{ "host-error", required_argument, NULL, 'e' },
		{ "model", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "qemu-version", required_argument, NULL, 'V' },
		{ "qemu-log", required_argument, NULL, 'L' },
		{ "status", no_argument, NULL, 'S' },
		{ "build", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	o->rebinds = -1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			ctx->commit = optarg;
			break;
		case 'a':
			ctx->accel = optarg;
			break;
		case 'k':
			if (strcmp(optarg, "icount") && strcmp(optarg, "wall")) {
				fprintf(stderr, PROG ": usage: --clock: '%s' is not %s\n",
					optarg, "icount or wall");
				return 2;
			}
			ctx->clock = optarg;
			break;
		case 'm':
			o->qemu_cpu = optarg;
			break;
		case 's':
			o->ns_size = strtod(optarg, NULL);
			break;
		case 'r':
			o->rebinds = strtod(optarg, NULL);
			break;
		case 'e':
			o->host_error = optarg;
			break;
		case 'M':
			o->model_path = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'L':
			o->qemu_log = optarg;
			break;
		case 'S':
			o->status_only = 1;
			break;
		case 'B':
			o->build_path = optarg;
			break;
		case 'V':
			if (!*optarg) {
				fprintf(stderr, PROG ": usage: --qemu-version: empty\n");
				return 2;
			}
			o->qemu_version = optarg;
			break;
		default:
			print_usage();
			return 2;
		}
	}
	if (optind != argc - 1) {
		print_usage();
		return 2;
	}
	o->agent_output = argv[optind];
	if (!o->status_only && !o->build_path) {
		fprintf(stderr, PROG ": usage: --build FILE: %s\n",
			"the kernel build measured (build/build.sh's build-id.json) is named in every record");
		return 2;
	}
	return -1;
}

/* What the agent said: its lines read (read_agent), for the records. */
struct agent {
	const char *path;	/* the agent's output, for the messages */
	struct record_ctx *ctx;	/* its cpu line fills the records' CPU */
	struct series ser[NR_DRIVERS][2];
	json_object *pages[NR_DRIVERS];
	json_object *vulns;
	struct check checks[4];
	size_t nr_checks;
	/* synthetic=N: kind, bytes and window of each copy */
	char *syn_kind[8], *syn_window[8];
	double syn_bytes[8];
	size_t nr_syn;
	/* hmm=1: the load of test_hmm.ko, once */
	double hmm_private, hmm_coherent, hmm_pages, hmm_ms, hmm_us;
	char *hmm_window;
	char *kernel, *flags, *last_step, *guest_error;
	double agent_start, first_bind;
	int done, cut, status;
};

/* the driver's index of a line's driver= (NR_DRIVERS: none of ours) */
static size_t driver_of(const struct line *l)
{
	const char *drv = field(l, "driver");
	size_t d;

	for (d = 0; d < NR_DRIVERS; d++)
		if (drv && !strcmp(drv, drivers[d]))
			break;
	return d;
}

static void agent_hello(struct agent *a, const struct line *l)
{
	const char *v = field(l, "kernel");
	int rc;

	free(a->kernel);
	a->kernel = v ? strdup(v) : NULL;
	rc = num_field(l, "boot_us", &a->agent_start);
	if (rc == -2) {
		fprintf(stderr, PROG ": %s: hello: boot_us is not a number: %s\n", a->path,
			field(l, "boot_us"));
		a->status = 1;
	}
	a->agent_start = rc ? -1 : a->agent_start / 1000;
}

static void agent_sample(struct agent *a, const struct line *l)
{
	const char *cs = field(l, "case");
	size_t d = driver_of(l);

	if (d == NR_DRIVERS || !cs) {
		fprintf(stderr, PROG ": %s: sample of unknown driver '%s'\n", a->path,
			field(l, "driver") ?: "");
		a->status = 1;
		return;
	}
	if (sample_numbers_ok(l, a->path)) {
		a->status = 1;
		return;
	}
	series_add(&a->ser[d][!strcmp(cs, "rebind")], l);
	if (a->first_bind < 0)
		a->first_bind = (strtod(field(l, "boot_us"), NULL) -
				 strtod(field(l, "bind_us"), NULL)) / 1000;
}

static void agent_check(struct agent *a, const struct line *l)
{
	struct check *ck = &a->checks[a->nr_checks];

	if (a->nr_checks == ARRAY_SIZE(a->checks))
		return;
	if (num_field(l, "bytes", &ck->bytes)) {
		fprintf(stderr, PROG ": %s: check of %s: bytes %s%s: %s\n", a->path,
			field(l, "device") ?: "?",
			field(l, "bytes") ? "is not a number: " : "is missing",
			field(l, "bytes") ?: "", "the check is dropped");
		a->status = 1;
		return;
	}
	a->nr_checks++;
	snprintf(ck->what, sizeof(ck->what), "%s", field(l, "what") ?: "?");
	snprintf(ck->device, sizeof(ck->device), "%s", field(l, "device") ?: "?");
}

static void agent_synthetic(struct agent *a, const struct line *l)
{
	size_t n = a->nr_syn;

	if (n == ARRAY_SIZE(a->syn_kind))
		return;
	if (num_field(l, "bytes", &a->syn_bytes[n])) {
		fprintf(stderr, PROG ": %s: synthetic %s: bytes %s%s: dropped\n", a->path,
			field(l, "kind") ?: "?",
			field(l, "bytes") ? "is not a number: " : "is missing",
			field(l, "bytes") ?: "");
		a->status = 1;
		return;
	}
	a->syn_kind[n] = strdup(field(l, "kind") ?: "?");
	a->syn_window[n] = strdup(field(l, "window") ?: "");
	a->nr_syn++;
}

static void agent_hmm(struct agent *a, const struct line *l)
{
	static const char *const keys[] = {
		"private", "coherent", "pages", "memmap_ms", "load_us"
	};
	double *v[] = { &a->hmm_private, &a->hmm_coherent, &a->hmm_pages, &a->hmm_ms,
			&a->hmm_us };
	size_t i;

	if (a->hmm_window) {
		fprintf(stderr, PROG ": %s: a second hmm line: dropped\n", a->path);
		a->status = 1;
		return;
	}
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (num_field(l, keys[i], v[i])) {
			fprintf(stderr, PROG ": %s: hmm: %s %s%s: dropped\n", a->path, keys[i],
				field(l, keys[i]) ? "is not a number: " : "is missing",
				field(l, keys[i]) ?: "");
			a->status = 1;
			return;
		}
	a->hmm_window = strdup(field(l, "window") ?: "");
}

static void agent_cpu(struct agent *a, const struct line *l)
{
	parse_cpu(l, &a->ctx->cpu, &a->flags);
}

static void agent_vuln(struct agent *a, const struct line *l)
{
	const char *name = field(l, "name"), *state = field(l, "state");

	if (!name || !*name || !state) {
		fprintf(stderr, PROG ": %s: vuln line without name= or state=\n", a->path);
		a->status = 1;
		return;
	}
	json_object_object_add(a->vulns, name, json_object_new_string(state));
}

static void agent_step(struct agent *a, const struct line *l)
{
	const char *v = field(l, "name");

	free(a->last_step);
	a->last_step = strdup(v ? v : "?");
}

static void agent_error(struct agent *a, const struct line *l)
{
	char msg[1200];

	snprintf(msg, sizeof(msg), "guest: %s: %s", field(l, "step") ?: "?",
		 field(l, "msg") ?: "?");
	free(a->guest_error);
	a->guest_error = strdup(msg);
}

static void agent_pages(struct agent *a, const struct line *l)
{
	size_t d = driver_of(l);

	if (d == NR_DRIVERS || !field(l, "line"))
		return;
	if (!a->pages[d])
		a->pages[d] = json_object_new_array();
	json_object_array_add(a->pages[d], json_object_new_string(field(l, "line")));
}

static void agent_done(struct agent *a, const struct line *l)
{
	(void)l;
	a->done = 1;
}

/* the agent's lines by their type (agent/protocol.h); others are skipped */
static const struct {
	const char *type;
	void (*read)(struct agent *a, const struct line *l);
} agent_lines[] = {
	{ AGENT_HELLO, agent_hello },
	{ AGENT_CPU, agent_cpu },
	{ AGENT_VULN, agent_vuln },
	{ AGENT_STEP, agent_step },
	{ AGENT_SAMPLE, agent_sample },
	{ AGENT_ERROR, agent_error },
	{ AGENT_CHECK, agent_check },
	{ AGENT_PAGES, agent_pages },
	{ AGENT_SYNTHETIC, agent_synthetic },
	{ AGENT_HMM, agent_hmm },
	{ AGENT_DONE, agent_done },
};

static void agent_line(struct agent *a, const struct line *l)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(agent_lines); i++)
		if (!strcmp(l->type, agent_lines[i].type)) {
			agent_lines[i].read(a, l);
			return;
		}
}

/* read_agent - every whole line of the agent's output F into a */
static void read_agent(FILE *f, struct agent *a)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	struct line l;

	while ((len = getline(&buf, &cap, f)) > 0) {
		/* the last line of output that was cut short: not a line */
		if (buf[len - 1] != '\n') {
			a->cut = 1;
			break;
		}
		split(buf, &l);
		if (!l.type)
			continue;
		agent_line(a, &l);
	}
	free(buf);
	a->ctx->kernel = a->kernel;
}

/* the run's params, shared by every record (doc/records.md) */
static json_object *run_params(const struct opts *o, struct agent *a)
{
	json_object *params = json_object_new_object();

	json_object_object_add(params, "ns_size", json_object_new_double(o->ns_size));
	json_object_object_add(params, "rebinds", json_object_new_double(o->rebinds));
	json_object_object_add(params, "qemu_cpu",
			       o->qemu_cpu ? json_object_new_string(o->qemu_cpu) : NULL);
	json_object_object_add(params, "guest_cpu_flags",
			       a->flags ? json_object_new_string(a->flags) : NULL);
	if (o->qemu_version)
		json_object_object_add(params, "qemu_version",
				       json_object_new_string(o->qemu_version));
	/* what the guest kernel applies, as it said (doc/records.md) */
	json_object_object_add(params, "mitigations", a->vulns);
	a->vulns = NULL;
	return params;
}

/* a record of one sample, with the run's params */
static void one_sample(struct out *out, const struct record_ctx *ctx, const char *case_name,
		       const char *metric, const char *unit, double x, json_object *params)
{
	json_object *rec = record_new(ctx, "bench-vm", case_name, metric, unit);

	record_add_sample(rec, x);
	record_set(rec, "params", json_object_get(params));
	out_record(out, rec);
}

/* the rebinds' samples: a record per driver, case and metric */
static void write_samples(struct out *out, const struct record_ctx *ctx, const struct agent *a,
			  json_object *params)
{
	size_t d, c, m, i;

	for (d = 0; d < NR_DRIVERS; d++) {
		for (c = 0; c < 2; c++) {
			char case_name[64];

			if (!a->ser[d][c].n)
				continue;
			snprintf(case_name, sizeof(case_name), "%s/%s", drivers[d], cases[c]);
			for (m = 0; m < NR_METRICS; m++) {
				json_object *rec;

				if (metrics[m].rebind_only && !c)
					continue;
				rec = record_new(ctx, "bench-vm", case_name, metrics[m].metric,
						 metrics[m].unit);
				for (i = 0; i < a->ser[d][c].n; i++)
					record_add_sample(rec, a->ser[d][c].v[m][i]);
				record_set(rec, "params", json_object_get(params));
				out_record(out, rec);
			}
		}
	}
}

/* the model's counts per window (--model): of the binds and the synthetic copies */
static int write_model(struct out *out, const struct record_ctx *ctx, struct agent *a,
		       struct model_out *mo, const char *path, json_object *params)
{
	size_t d, c;

	model_read(mo, path);
	for (d = 0; d < NR_DRIVERS && mo->params; d++) {
		for (c = 0; c < 2; c++) {
			char case_name[64];

			if (!a->ser[d][c].n)
				continue;
			snprintf(case_name, sizeof(case_name), "%s/%s", drivers[d], cases[c]);
			model_records(out, ctx, mo, case_name, a->ser[d][c].window, a->ser[d][c].n,
				      params);
		}
	}
	for (c = 0; c < a->nr_syn && mo->params; c++) {
		char case_name[64];
		json_object *p = NULL;

		/* the run's params (qemu_cpu, ns_size...), and the copy's size */
		if (json_object_deep_copy(params, &p, NULL)) {
			fprintf(stderr, PROG ": model: out of memory\n");
			return 1;
		}
		snprintf(case_name, sizeof(case_name), "synthetic/%.40s", a->syn_kind[c]);
		json_object_object_add(p, "bytes", json_object_new_double(a->syn_bytes[c]));
		model_records(out, ctx, mo, case_name, &a->syn_window[c], 1, p);
		json_object_put(p);
	}
	if (a->hmm_window && mo->params)
		model_records(out, ctx, mo, "hmm/load", &a->hmm_window, 1, params);
	return 0;
}

/* the load of test_hmm.ko (hmm=1): its figures, its chunks per pgmap type */
static void write_hmm(struct out *out, const struct record_ctx *ctx, const struct agent *a,
		      json_object *params)
{
	static const struct metric m[] = {
		{ "pages", "pages", "count", 0 },
		{ "memmap_ms", "memmap_init_ms", "ms", 0 },
		{ "load_us", "load_us", "us", 0 },
	};
	const double x[] = { a->hmm_pages, a->hmm_ms, a->hmm_us };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		json_object *rec = record_new(ctx, "bench-vm", "hmm/load", m[i].metric, m[i].unit);
		json_object *pg = json_object_new_object();
		int priv = (int)a->hmm_private, coh = (int)a->hmm_coherent;

		json_object_object_add(pg, "device_private", json_object_new_int(priv));
		json_object_object_add(pg, "device_coherent", json_object_new_int(coh));
		record_add_sample(rec, x[i]);
		record_set(rec, "pgmaps", pg);
		record_set(rec, "params", json_object_get(params));
		out_record(out, rec);
	}
}

/* the boot's times, the checks' bytes, the struct page digests, hmm=1's load */
static void write_others(struct out *out, const struct record_ctx *ctx, struct agent *a,
			 json_object *params)
{
	json_object *rec;
	size_t c, d, i, classes;

	if (a->hmm_window)
		write_hmm(out, ctx, a, params);

	if (a->agent_start >= 0)
		one_sample(out, ctx, "boot", "agent_start_ms", "ms", a->agent_start, params);
	if (a->first_bind >= 0)
		one_sample(out, ctx, "boot", "first_bind_ms", "ms", a->first_bind, params);
	for (c = 0; c < a->nr_checks; c++) {
		char case_name[sizeof(a->checks[c].what) + 8];

		snprintf(case_name, sizeof(case_name), "check/%.15s", a->checks[c].what);
		rec = record_new(ctx, "bench-vm", case_name, "verified_bytes", "count");
		record_add_sample(rec, a->checks[c].bytes);
		record_set(rec, "device", json_object_new_string(a->checks[c].device));
		record_set(rec, "params", json_object_get(params));
		out_record(out, rec);
	}
	for (d = 0; d < NR_DRIVERS; d++) {
		char case_name[64];

		if (!a->pages[d])
			continue;
		for (i = 0, classes = 0; i < json_object_array_length(a->pages[d]); i++) {
			json_object *line = json_object_array_get_idx(a->pages[d], i);

			classes += !strncmp(json_object_get_string(line), "class ", 6);
		}
		snprintf(case_name, sizeof(case_name), "%s/pages", drivers[d]);
		rec = record_new(ctx, "bench-vm", case_name, "page_classes", "count");
		record_add_sample(rec, (double)classes);
		/* the record owns the digest now */
		record_set(rec, "digest", a->pages[d]);
		a->pages[d] = NULL;
		record_set(rec, "params", json_object_get(params));
		out_record(out, rec);
	}
}

/*
 * The run's error record, where the host or the guest failed or the agent
 * stopped without a word; 1 when there is one.  host_error: --host-error
 * or the model's.
 */
static int write_error(struct out *out, const struct record_ctx *ctx, const struct opts *o,
		       const struct agent *a, const char *host_error, json_object *params)
{
	char cpu_error[1024] = "", host_msg[2048], stopped[256], msg[4096];
	json_object *rec;

	if (o->qemu_cpu && a->flags)
		cpu_check(o->qemu_cpu, a->flags, o->qemu_log, cpu_error, sizeof(cpu_error));
	if (cpu_error[0]) {
		snprintf(host_msg, sizeof(host_msg), "%s%s%s", host_error ? host_error : "",
			 host_error ? "; " : "", cpu_error);
		host_error = host_msg;
	}
	if (!host_error && !a->guest_error && !a->done) {
		snprintf(stopped, sizeof(stopped),
			 "guest: %s: the agent stopped without 'done' or an error%s",
			 a->last_step ? a->last_step : a->kernel ? "hello" : "boot",
			 a->cut ? " (its output ends in the middle of a line)" : "");
		host_error = stopped;
	}
	if (!host_error && !a->guest_error)
		return 0;
	snprintf(msg, sizeof(msg), "%s%s%s", a->guest_error ? a->guest_error : "",
		 a->guest_error && host_error ? "; " : "", host_error ? host_error : "");
	rec = record_new(ctx, "bench-vm", "run", "error", "count");
	record_set(rec, "error", json_object_new_string(msg));
	record_set(rec, "last_step", a->last_step ? json_object_new_string(a->last_step) : NULL);
	record_set(rec, "params", json_object_get(params));
	out_record(out, rec);
	fprintf(stderr, PROG ": %s\n", msg);
	return 1;
}

static void agent_free(struct agent *a)
{
	size_t d, c, m;

	for (d = 0; d < NR_DRIVERS; d++) {
		for (c = 0; c < 2; c++) {
			for (m = 0; m < NR_METRICS; m++)
				free(a->ser[d][c].v[m]);
			for (m = 0; m < a->ser[d][c].n; m++)
				free(a->ser[d][c].window[m]);
			free(a->ser[d][c].window);
		}
		json_object_put(a->pages[d]);
	}
	for (c = 0; c < a->nr_syn; c++) {
		free(a->syn_kind[c]);
		free(a->syn_window[c]);
	}
	free(a->hmm_window);
	free(a->kernel);
	free(a->flags);
	free(a->last_step);
	free(a->guest_error);
	json_object_put(a->vulns);
}

static void model_free(struct model_out *mo)
{
	size_t c;

	for (c = 1; c <= mo->nr; c++)
		json_object_put(mo->funcs[c]);
	json_object_put(mo->params);
	free(mo->win);
	free(mo->have);
	free(mo->funcs);
	free(mo->error);
}

int main(int argc, char **argv)
{
	struct record_ctx ctx = { .accel = NULL };
	struct opts o = { .qemu_cpu = NULL };
	struct agent a = { .agent_start = -1, .first_bind = -1 };
	struct model_out mo = { .params = NULL };
	struct out out = { .f = stdout, .name = "stdout" };
	const char *host_error;
	json_object *params;
	int status;
	FILE *f;

	status = parse_args(argc, argv, &o, &ctx);
	if (status >= 0)
		return status;
	if (o.status_only)
		return print_status(o.agent_output);
	ctx.build = load_build(o.build_path);
	if (!ctx.build)
		return 1;
	f = fopen(o.agent_output, "r");
	if (!f) {
		fprintf(stderr, PROG ": read: %s: %s\n", o.agent_output, strerror(errno));
		json_object_put(ctx.build);
		return 1;
	}
	if (o.output) {
		out.f = out_create(o.output);
		out.name = o.output;
		if (!out.f) {
			fprintf(stderr, PROG ": write: %s: %s\n", o.output, strerror(errno));
			fclose(f);
			json_object_put(ctx.build);
			return 1;
		}
	}
	a.path = o.agent_output;
	a.ctx = &ctx;
	a.vulns = json_object_new_object();
	read_agent(f, &a);
	fclose(f);
	status = a.status;

	params = run_params(&o, &a);
	write_samples(&out, &ctx, &a, params);
	if (o.model_path && write_model(&out, &ctx, &a, &mo, o.model_path, params))
		return 1;
	write_others(&out, &ctx, &a, params);
	host_error = o.host_error;
	if (mo.error && !host_error && !a.guest_error)
		host_error = mo.error;
	status |= write_error(&out, &ctx, &o, &a, host_error, params);
	if (record_close(out.f) && !out.failed) {
		fprintf(stderr, PROG ": write: %s: %s\n", out.name, strerror(errno));
		out.failed = 1;
	}
	if (out.failed) {
		/* a file cut in the middle of a line is never left behind */
		if (o.output && unlink(o.output))
			fprintf(stderr, PROG ": %s: cannot remove it: %s\n", o.output,
				strerror(errno));
		status = 1;
	}
	json_object_put(params);
	agent_free(&a);
	model_free(&mo);
	json_object_put(ctx.build);
	return status;
}
