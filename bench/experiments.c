// SPDX-License-Identifier: GPL-2.0
/*
 * experiments.c - one function per changelog experiment, each shaped like
 * the changelog it reproduces; the table at the end names them.
 *
 * Every experiment takes its samples in rounds, each round visiting every
 * variant once, so that slow drift in the machine's load (another job on
 * the other core) spreads over the variants instead of biasing one.  Every
 * raw sample goes into the records; the tables show the median and its
 * 95% confidence interval (stats.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bench.h"

#define KIB 1024UL
#define MIB (1024UL * 1024)

/* ns for k calls of a memcpy-like variant, timer cost taken out */
static double batch(const struct variant *v, char *d, const char *s,
		    size_t len, size_t k)
{
	double t0;
	size_t i;

	if (v->kind == V_COPY_USER) {
		copy_user_fn f = (copy_user_fn)v->fn;

		t0 = now_ns();
		for (i = 0; i < k; i++)
			f(d, s, len);
	} else {
		memcpy_fn f = (memcpy_fn)v->fn;

		t0 = now_ns();
		for (i = 0; i < k; i++)
			f(d, s, len);
	}
	return now_ns() - t0 - timer_overhead_ns;
}

static double pct_less(double base, double x)
{
	return 100.0 * (base - x) / base;
}

/* seeded xorshift: the same page order in every run */
static unsigned long rnd(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * a. seed 004: copy_user for 0..63 bytes.  "REP" is copy_user_generic()
 * with FSRM, an inline REP MOVSB for every length, as the 2017
 * copy_user_enhanced_fast_string() did before the patch; "non-REP" is the
 * same call without FSRM (ERMS only): rep_movs_alternative, which since the
 * patch (and 427fda2c8a49) never uses REP MOVS below 64 bytes.  Hot caches:
 * one source and one destination, reused.  gain = (REP - non-REP) / REP.
 */
static int exp_copy_user_short(struct bench *b)
{
	struct variant *vr = need("copy_user-erms1-fsrm1");
	struct variant *vn = need("copy_user-erms1-fsrm0");
	struct variant *vo = need("nop");
	struct variant *vs[3] = { vr, vn, vo };
	const size_t k = 2000;
	int n = samples_or(b, 31, 3), r, len, j;
	double *sm = calloc(3 * 64 * n, sizeof(*sm));
	char *buf = map_buffer(2 * 4096, 0);
	double gmin = 1e9, gmax = -1e9, g1 = 0, g63 = 0;
	char text[512];

	if (!sm || !buf)
		return -1;
	for (j = 0; j < 3; j++)
		batch(vs[j], buf + 4096, buf, 63, k);	/* warm-up */
	for (r = 0; r < n; r++)
		for (len = 0; len < 64; len++)
			for (j = 0; j < 3; j++)
				sm[(j * 64 + len) * n + r] =
					batch(vs[j], buf + 4096, buf, len, k) / k;
	print_header(b, "copy_user short strings, 0..63 bytes (seed 004), ns per call, hot caches");
	printf("   REP = %s\n   non-REP = %s\n", vr->desc, vn->desc);
	fprintf(stdout,
		"   %3s  %-24s %-24s %7s\n",
		"len", "REP ns [95% CI]", "non-REP ns [95% CI]", "gain");
	for (len = 0; len < 64; len++) {
		struct stats a, c;
		double g;
		char cn[96];

		for (j = 0; j < 3; j++) {
			json_object *p = params(vs[j]);

			pset(p, "len", len);
			pset(p, "calls_per_sample", k);
			snprintf(cn, sizeof(cn), "copy_user-short/%s/%d", vs[j]->name, len);
			if (emit(b, cn, "ns_per_call", "ns", &sm[(j * 64 + len) * n], n, p))
				return -1;
		}
		stats_summary(&sm[(0 * 64 + len) * n], n, &a);
		stats_summary(&sm[(1 * 64 + len) * n], n, &c);
		g = pct_less(a.median, c.median);
		printf("   %3d  %6.2f [%6.2f,%6.2f]   %6.2f [%6.2f,%6.2f]   %6.1f%%\n",
		       len, a.median, a.lo, a.hi, c.median, c.lo, c.hi, g);
		if (len >= 1) {
			gmin = g < gmin ? g : gmin;
			gmax = g > gmax ? g : gmax;
		}
		if (len == 1)
			g1 = g;
		if (len == 63)
			g63 = g;
	}
	{
		struct stats o;

		stats_summary(&sm[(2 * 64 + 0) * n], n, &o);
		printf("   call overhead (nop variant, included above): %.2f ns\n", o.median);
	}
	snprintf(text, sizeof(text),
		 "%.0f%% (1 B) .. %.0f%% (63 B); over 1..63 B from %.0f%% to %.0f%%, on %s (host)",
		 g1, g63, gmin, gmax, b->cpu_name);
	print_claim("copy-user-short/e5-2690v4", text);
	print_claim("copy-user-short/i7-4810mq", text);
	free(sm);
	unmap_buffer(buf, 2 * 4096);
	return 0;
}

/*
 * b. seed 001's table: 65536 calls of 4 KiB (256 MiB in all), timed as one
 * pass, in three cache states:
 *  - L2 -> hot page (zdss_flush): the source walks a 256 KiB ring, larger
 *    than L1 and well inside L2, warmed by an untimed pass; the
 *    destination is one page, hot in L1.
 *  - cold -> hot buffer (zdss_load): the source walks 65536 distinct pages
 *    in a shuffled order (folios are not contiguous), every line evicted
 *    with CLFLUSHOPT before the pass; the destination is one hot page.
 *  - hot -> cold page (page copy): one hot source page; the destination
 *    walks the 65536 flushed pages, shuffled.
 * The big region gets transparent huge pages, like the kernel's direct
 * map, so 4 KiB TLB misses do not dominate.
 */
enum { ST_L2_HOT, ST_COLD_HOT, ST_HOT_COLD, NR_STATES };

static const char *const state_names[NR_STATES] = {
	"L2-to-hot-page", "cold-to-hot-buffer", "hot-to-cold-page",
};

static const char *const state_claims[NR_STATES] = {
	"rep-movsb/l2-to-hot-page", "rep-movsb/cold-to-hot-buffer", "rep-movsb/hot-to-cold-page",
};

static int exp_memcpy_states(struct bench *b)
{
	const char *names[3] = { "memcpy-erms0-fsrm0", "memcpy-erms1-fsrm0", "memcpy-erms1-fsrm1" };
	struct variant *vs[3];
	size_t calls = b->quick ? 1024 : 65536, ring = 64, i;
	int n = samples_or(b, 15, 2), r, st, j;
	size_t big_len = calls * 4096;
	long *pre = calloc(NR_STATES * 3 * n, sizeof(*pre));
	char *big = map_buffer(big_len, 1);
	char *ringbuf = map_buffer(ring * 4096, 0);
	char *hot = map_buffer(2 * 4096, 0);
	size_t *order = malloc(calls * sizeof(*order));
	double *sm = calloc(NR_STATES * 3 * n, sizeof(*sm));
	unsigned long seed = 0x9e3779b97f4a7c15UL;

	if (!big || !ringbuf || !hot || !order || !sm || !pre)
		return -1;
	for (j = 0; j < 3; j++)
		vs[j] = need(names[j]);
	for (i = 0; i < calls; i++)
		order[i] = i;
	for (i = calls - 1; i > 0; i--) {
		size_t k = rnd(&seed) % (i + 1), t = order[i];

		order[i] = order[k];
		order[k] = t;
	}
	for (r = 0; r < n; r++) {
		for (st = 0; st < NR_STATES; st++) {
			for (j = 0; j < 3; j++) {
				memcpy_fn f = (memcpy_fn)vs[j]->fn;
				size_t x = (st * 3 + j) * n + r;
				struct lap lap;

				if (st == ST_L2_HOT) {
					for (i = 0; i < ring; i++)
						f(hot, ringbuf + i * 4096, 4096);
				} else {
					flush_range(big, big_len);
					f(hot, hot + 4096, 4096);
				}
				lap_start(&lap);
				switch (st) {
				case ST_L2_HOT:
					for (i = 0; i < calls; i++)
						f(hot, ringbuf + (i % ring) * 4096, 4096);
					break;
				case ST_COLD_HOT:
					for (i = 0; i < calls; i++)
						f(hot, big + order[i] * 4096, 4096);
					break;
				default:
					for (i = 0; i < calls; i++)
						f(big + order[i] * 4096, hot + 4096, 4096);
					break;
				}
				sm[x] = lap_stop(&lap, &pre[x]) / 1e6;
			}
		}
	}
	print_header(b, "large memcpy, 4 KiB x calls in one pass (seed 001), ms per pass");
	printf("   calls per pass: %zu (%zu MiB)%s\n", calls, calls * 4096 / MIB,
	       b->quick ? "  [--quick: not the changelog's 65536]" : "");
	printf("   orig = %s\n   threshold = %s\n   REP MOVSB = %s\n",
	       vs[0]->desc, vs[1]->desc, vs[2]->desc);
	printf("   medians over the samples no other task preempted (clean/all;\n");
	printf("   *: too few clean, median of all)\n");
	printf("   %-19s %-29s %-29s %-29s %7s %7s\n", "state", "orig ms [95% CI]",
	       "threshold ms [95% CI]", "REP MOVSB ms [95% CI]", "REP", "thresh");
	for (st = 0; st < NR_STATES; st++) {
		struct stats s[3];
		char cn[96], text[512];
		size_t used[3];
		int all[3];

		for (j = 0; j < 3; j++) {
			json_object *p = params(vs[j]);

			pstr(p, "state", state_names[st]);
			pset(p, "size", 4096);
			pset(p, "calls", calls);
			ppre(p, &pre[(st * 3 + j) * n], n);
			snprintf(cn, sizeof(cn),
				 "memcpy-state/%s/%s",
				 state_names[st], vs[j]->name);
			if (emit(b, cn, "ms_per_pass", "ms", &sm[(st * 3 + j) * n], n, p))
				return -1;
			all[j] = stats_clean(&sm[(st * 3 + j) * n],
					     &pre[(st * 3 + j) * n], n, &s[j], &used[j]) > 0;
		}
		printf("   %-19s", state_names[st]);
		for (j = 0; j < 3; j++)
			printf(" %6.2f [%6.2f,%6.2f] %2zu/%-2d%c", s[j].median, s[j].lo,
			       s[j].hi, used[j], n, all[j] ? '*' : ' ');
		printf(" %6.1f%% %6.1f%%\n", -pct_less(s[0].median, s[2].median),
		       -pct_less(s[0].median, s[1].median));
		snprintf(text, sizeof(text),
			 "%.1f / %.1f ms, %+.1f%% (threshold variant %.1f ms, %+.1f%%), %zu calls, on %s (host)",
			 s[0].median, s[2].median, -pct_less(s[0].median, s[2].median),
			 s[1].median, -pct_less(s[0].median, s[1].median), calls,
			 b->cpu_name);
		if (!b->quick)
			print_claim(state_claims[st], text);
	}
	free(sm);
	free(pre);
	free(order);
	unmap_buffer(big, big_len);
	unmap_buffer(ringbuf, ring * 4096);
	unmap_buffer(hot, 2 * 4096);
	return 0;
}

/*
 * b. size sweep, 16 B .. 64 KiB, hot caches (source and destination
 * reused, 64 KiB each: L1/L2): where REP MOVSB starts to beat the
 * unrolled memcpy_orig on this CPU, and whether 512 bytes is the place.
 */
static const size_t sweep_sizes[] = {
	16, 32, 64, 80, 96, 112, 128, 192, 256, 320, 384, 448, 512, 576, 640, 768,
	1024, 1536, 2048, 4096, 8192, 16384, 32768, 65536,
};

#define NR_SWEEP ARRAY_SIZE(sweep_sizes)

static int exp_memcpy_sweep(struct bench *b)
{
	const char *names[3] = { "memcpy-erms0-fsrm0", "memcpy-erms1-fsrm0", "memcpy-erms1-fsrm1" };
	struct variant *vs[3];
	int n = samples_or(b, 31, 2), r, j;
	size_t z, cross = 0;
	char *buf = map_buffer(2 * 65536 + 4096, 0);
	double *sm = calloc(NR_SWEEP * 3 * n, sizeof(*sm)), below = 0;
	double med[NR_SWEEP][3];
	char text[512];

	if (!buf || !sm)
		return -1;
	for (j = 0; j < 3; j++)
		vs[j] = need(names[j]);
	for (r = 0; r < n; r++)
		for (z = 0; z < NR_SWEEP; z++)
			for (j = 0; j < 3; j++) {
				size_t len = sweep_sizes[z];
				size_t k = len >= 8192 ? 8 : 65536 / len;

				batch(vs[j], buf + 65536, buf, len, 1);
				sm[(z * 3 + j) * n + r] =
					batch(vs[j], buf + 65536, buf, len, k) / k;
			}
	print_header(b, "memcpy size sweep, hot caches, ns per call");
	printf("   %6s  %-26s %-26s %-26s %8s\n", "size", "orig ns [95% CI]",
	       "threshold ns [95% CI]", "REP MOVSB ns [95% CI]", "REP/orig");
	for (z = 0; z < NR_SWEEP; z++) {
		struct stats s[3];
		char cn[96];

		for (j = 0; j < 3; j++) {
			json_object *p = params(vs[j]);
			size_t len = sweep_sizes[z];

			pset(p, "size", len);
			pset(p, "calls_per_sample", len >= 8192 ? 8 : 65536 / len);
			snprintf(cn, sizeof(cn), "memcpy-sweep/%s/%zu", vs[j]->name, len);
			if (emit(b, cn, "ns_per_call", "ns", &sm[(z * 3 + j) * n], n, p))
				return -1;
			stats_summary(&sm[(z * 3 + j) * n], n, &s[j]);
			med[z][j] = s[j].median;
		}
		fprintf(stdout,
			"   %6zu  %8.2f [%7.2f,%7.2f] %8.2f [%7.2f,%7.2f] %8.2f [%7.2f,%7.2f] %7.2f\n",
			sweep_sizes[z], s[0].median, s[0].lo, s[0].hi, s[1].median,
			s[1].lo, s[1].hi, s[2].median, s[2].lo, s[2].hi,
			s[2].median / s[0].median);
		if (sweep_sizes[z] < 512) {
			double d = 100.0 * (s[1].median - s[0].median) / s[0].median;

			below = d * d > below * below ? d : below;
		}
	}
	/* the crossover: the smallest size from which REP MOVSB always wins */
	for (z = NR_SWEEP; z-- > 0;) {
		if (med[z][2] >= med[z][0])
			break;
		cross = sweep_sizes[z];
	}
	if (cross)
		fprintf(stdout,
			"   crossover on this CPU: REP MOVSB beats orig from %zu bytes up (the patch switches at 512)\n",
			cross);
	else
		fprintf(stdout,
			"   crossover on this CPU: none in 16 B..64 KiB (REP MOVSB never beats orig at the largest size)\n");
	snprintf(text, sizeof(text),
		 "threshold variant vs orig below 512 B: largest median difference %+.1f%%, on %s (host)",
		 below, b->cpu_name);
	print_claim("rep-movsb/below-512", text);
	free(sm);
	unmap_buffer(buf, 2 * 65536 + 4096);
	return 0;
}

/*
 * b. alignment, 4 KiB hot: David Laight's review of seed 001.  Intel: only
 * a 64-byte aligned destination matters; AMD (up to Zen 5): REP MOVSB
 * slows down when the source's page offset is less than 128 bytes below
 * the destination's.
 */
static const struct {
	const char *name;
	size_t dst_off, src_off;
} align_cases[] = {
	{ "both-aligned", 0, 0 },
	{ "dst+1", 1, 0 },
	{ "dst+32", 32, 0 },
	{ "src+1", 0, 1 },
	{ "src-1-below-dst", 128, 127 },
	{ "src-64-below-dst", 128, 64 },
	{ "src-127-below-dst", 128, 1 },
	{ "src-128-below-dst", 256, 128 },
	{ "src-256-below-dst", 512, 256 },
	{ "src-64-above-dst", 64, 128 },
};

#define NR_ALIGN ARRAY_SIZE(align_cases)

static int exp_memcpy_align(struct bench *b)
{
	const char *names[2] = { "memcpy-erms0-fsrm0", "memcpy-erms1-fsrm1" };
	struct variant *vs[2];
	int n = samples_or(b, 31, 2), r, j;
	const size_t k = 256;
	size_t c;
	char *dst = map_buffer(3 * 4096, 0), *src = map_buffer(3 * 4096, 0);
	double *sm = calloc(NR_ALIGN * 2 * n, sizeof(*sm));

	if (!dst || !src || !sm)
		return -1;
	for (j = 0; j < 2; j++)
		vs[j] = need(names[j]);
	for (r = 0; r < n; r++)
		for (c = 0; c < NR_ALIGN; c++)
			for (j = 0; j < 2; j++) {
				char *d = dst + align_cases[c].dst_off;
				char *s = src + align_cases[c].src_off;

				batch(vs[j], d, s, 4096, 1);
				sm[(c * 2 + j) * n + r] = batch(vs[j], d, s, 4096, k) / k;
			}
	print_header(b, "memcpy 4 KiB alignment (seed 001 review), hot caches, ns per call");
	printf("   %-18s %7s %7s  %-26s %-26s %8s\n", "case", "dst off", "src off",
	       "orig ns [95% CI]", "REP MOVSB ns [95% CI]", "REP/orig");
	for (c = 0; c < NR_ALIGN; c++) {
		struct stats s[2];
		char cn[96];

		for (j = 0; j < 2; j++) {
			json_object *p = params(vs[j]);

			pset(p, "size", 4096);
			pset(p, "dst_page_offset", align_cases[c].dst_off);
			pset(p, "src_page_offset", align_cases[c].src_off);
			pset(p, "calls_per_sample", k);
			snprintf(cn, sizeof(cn),
				 "memcpy-align/%s/%s",
				 vs[j]->name, align_cases[c].name);
			if (emit(b, cn, "ns_per_call", "ns", &sm[(c * 2 + j) * n], n, p))
				return -1;
			stats_summary(&sm[(c * 2 + j) * n], n, &s[j]);
		}
		printf("   %-18s %7zu %7zu  %8.1f [%7.1f,%7.1f] %8.1f [%7.1f,%7.1f] %7.2f\n",
		       align_cases[c].name, align_cases[c].dst_off,
		       align_cases[c].src_off, s[0].median, s[0].lo, s[0].hi,
		       s[1].median, s[1].lo, s[1].hi, s[1].median / s[0].median);
	}
	free(sm);
	unmap_buffer(dst, 3 * 4096);
	unmap_buffer(src, 3 * 4096);
	return 0;
}

/*
 * c. memcpy_flushcache() with a constant size, inline (the tree's
 * memcpy_flushcache() at the call site) against out of line
 * (__memcpy_flushcache()), per size: 4/8/16 are seed 002's fastpaths,
 * 32..96 seed 000's.  Where the tree has no fastpath for a size, the
 * inline variant calls the same function and the two agree.  Each
 * sample: count copies of one hot template to consecutive 8-byte aligned
 * slots (stride: the size rounded up to 8) of a 1.5 MiB destination, then
 * SFENCE.  The 8-byte alignment keeps this about the call: a 4-byte copy
 * to an address that is 4 mod 8 takes __memcpy_flushcache()'s cached copy
 * and CLWB instead, a hundred times slower, which the inline MOVNTI never
 * does.
 */
static const size_t fc_sizes[] = { 4, 8, 16, 32, 48, 64, 80, 96 };

#define NR_FC ARRAY_SIZE(fc_sizes)

static double loop_pass(const struct bench *b, const struct variant *v,
			char *dst, const char *src, size_t count, size_t stride)
{
	double t0 = now_ns();

	((loop_fn)v->fn)(dst, src, count, stride);
	b->sfence();
	return now_ns() - t0 - timer_overhead_ns;
}

static int exp_flushcache_fixed(struct bench *b)
{
	struct variant *vs[NR_FC][2];
	int n = samples_or(b, 31, 2), r, j;
	size_t count = b->quick ? 256 : 16384, z;
	size_t len = count * 96;
	char *dst = map_buffer(len, 0), *tmpl = map_buffer(4096, 0);
	double *sm = calloc(NR_FC * 2 * n, sizeof(*sm));
	char text[512] = "", name[64];
	int pos = 0;

	if (!dst || !tmpl || !sm)
		return -1;
	for (z = 0; z < NR_FC; z++) {
		snprintf(name, sizeof(name), "fc-inline-%zu", fc_sizes[z]);
		vs[z][0] = need(name);
		snprintf(name, sizeof(name), "fc-outline-%zu", fc_sizes[z]);
		vs[z][1] = need(name);
	}
	for (r = 0; r < n; r++)
		for (z = 0; z < NR_FC; z++)
			for (j = 0; j < 2; j++) {
				size_t stride = (fc_sizes[z] + 7) & ~7UL;

				loop_pass(b, vs[z][j], dst, tmpl, count, stride);
				sm[(z * 2 + j) * n + r] =
					loop_pass(b, vs[z][j], dst, tmpl, count, stride) / count;
			}
	print_header(b, "memcpy_flushcache() constant sizes (seeds 002, 000), ns per copy");
	printf("   %zu copies per sample, consecutive 8-byte aligned slots, then SFENCE\n", count);
	printf("   %5s  %-26s %-26s %12s\n", "size", "inline ns [95% CI]",
	       "out of line ns [95% CI]", "out/in - 1");
	for (z = 0; z < NR_FC; z++) {
		struct stats s[2];
		char cn[96];
		double d;

		for (j = 0; j < 2; j++) {
			json_object *p = params(vs[z][j]);

			pset(p, "size", fc_sizes[z]);
			pset(p, "copies_per_sample", count);
			snprintf(cn, sizeof(cn), "flushcache/%s", vs[z][j]->name);
			if (emit(b, cn, "ns_per_copy", "ns", &sm[(z * 2 + j) * n], n, p))
				return -1;
			stats_summary(&sm[(z * 2 + j) * n], n, &s[j]);
		}
		d = 100.0 * (s[1].median / s[0].median - 1);
		printf("   %5zu  %7.2f [%7.2f,%7.2f]   %7.2f [%7.2f,%7.2f]   %+10.1f%%\n",
		       fc_sizes[z], s[0].median, s[0].lo, s[0].hi, s[1].median,
		       s[1].lo, s[1].hi, d);
		if (z < 3 && pos < (int)sizeof(text))
			pos += snprintf(text + pos, sizeof(text) - pos, "%s%zu B %+.1f%%",
					z ? ", " : "out of line vs inline per copy: ",
					fc_sizes[z], d);
	}
	if (pos < (int)sizeof(text))
		snprintf(text + pos, sizeof(text) - pos,
			 " (per-copy microbench, not the workload), on %s (host)",
			 b->cpu_name);
	print_claim("flushcache-movnti", text);
	free(sm);
	unmap_buffer(dst, len);
	unmap_buffer(tmpl, 4096);
	return 0;
}

/*
 * d. the ZONE_DEVICE template copy: pages struct pages (default 25M, 100
 * GiB of 4 KiB pages) of 64/80/96 bytes written from one hot template, by
 * cached memcpy(), by __memcpy_flushcache() and by the inline fastpath,
 * one SFENCE at the end as the series has it; against the non-temporal
 * store bandwidth of this machine measured on the same buffer in the
 * same run (stores only, the physical limit of any such copy).  tmpl-rep
 * is the copy as an -Os kernel compiles it (REP MOVSL a struct page:
 * tinyconfig's; an -O2 build, a distro's, has the MOVs of tmpl-memcpy).  The
 * destination is far larger than the caches; every pass starts with it
 * written back by the previous one.
 */
#define NR_HOW 4		/* template-copy's methods */

/*
 * A pass starts with its memmap and template out of every cache, as a
 * bind's memmap is (written once a bind, long before) and as the model's
 * window starts (model_open()): without it a pass inherited the one
 * before it, whose dirty lines were then its own write-backs at 64K
 * pages and the model's cold reads were hits.  Untimed, before
 * lap_start(); the records say so (params.start).
 */
static void memmap_cold(char *dst, size_t bytes, char *tmpl)
{
	flush_range(dst, bytes);
	flush_range(tmpl, 4096);
}

static int exp_template_copy(struct bench *b)
{
	static const size_t sizes[] = { 64, 80, 96 };
	static const char *const how[NR_HOW] = {
		"tmpl-memcpy", "fc-outline", "fc-inline", "tmpl-rep"
	};
	unsigned long pages = b->quick && b->pages > 100000 ? 100000 : b->pages;
	size_t len = pages * 96, z, m;
	int n = samples_or(b, 5, 2), r, j, nt_kinds = b->ctx.cpu.avx512f ? 2 : 1;
	char *dst = map_buffer(len, 1), *tmpl = map_buffer(4096, 0);
	double *sm = calloc(3 * NR_HOW * n, sizeof(*sm));
	double *nt = calloc(3 * 2 * n, sizeof(*nt));
	long *pre = calloc(3 * NR_HOW * n, sizeof(*pre));
	long *ntpre = calloc(3 * 2 * n, sizeof(*ntpre));
	size_t used;
	int all;
	struct variant *vs[3][NR_HOW];
	char name[64], text[512];
	double med[3][NR_HOW], ntmax[3];

	if (!dst || !tmpl || !sm || !nt || !pre || !ntpre || !pages)
		return -1;
	for (z = 0; z < 3; z++)
		for (m = 0; m < NR_HOW; m++) {
			snprintf(name, sizeof(name), "%s-%zu", how[m], sizes[z]);
			vs[z][m] = need(name);
		}
	for (r = 0; r < n; r++)
		for (z = 0; z < 3; z++) {
			size_t bytes = pages * sizes[z];

			for (j = 0; j < nt_kinds; j++) {
				size_t x = (z * 2 + j) * n + r;
				struct lap lap;

				lap_start(&lap);
				if (j)
					bench_nt_avx512(dst, bytes & ~63UL);
				else
					bench_nt_movnti(dst, bytes & ~63UL);
				nt[x] = (bytes & ~63UL) / lap_stop(&lap, &ntpre[x]);
			}
			for (m = 0; m < NR_HOW; m++) {
				size_t x = (z * NR_HOW + m) * n + r;
				struct lap lap;
				char cn[96];

				snprintf(cn, sizeof(cn), "template-copy/%s", vs[z][m]->name);
				memmap_cold(dst, bytes, tmpl);
				lap_start(&lap);
				window_open(b, cn, pages);
				((loop_fn)vs[z][m]->fn)(dst, tmpl, pages, sizes[z]);
				b->sfence();
				window_close();
				sm[x] = lap_stop(&lap, &pre[x]) / 1e6;
			}
		}
	print_header(b, "ZONE_DEVICE template copy (seed 000, series prerequisites)");
	printf("   %lu struct pages per pass (%.1f GiB of 4 KiB pages)%s\n", pages,
	       pages * 4096.0 / (1UL << 30),
	       pages == 25000000 ? "" : "  [not the changelog's 25M]");
	printf("   medians over the samples no other task preempted (clean/all;\n");
	printf("   *: too few clean, median of all)\n");
	fprintf(stdout,
		"   %4s  %-12s %-26s %5s %8s %9s\n",
		"size", "method", "ms [95% CI]", "clean", "GB/s", "of NT lim");
	for (z = 0; z < 3; z++) {
		double bytes = (double)pages * sizes[z];
		struct stats s;
		char cn[96];

		ntmax[z] = 0;
		for (j = 0; j < nt_kinds; j++) {
			json_object *p = params(NULL);

			pstr(p, "store", j ? "vmovntdq-zmm" : "movnti-8");
			pset(p, "bytes", (double)((size_t)bytes & ~63UL));
			ppre(p, &ntpre[(z * 2 + j) * n], n);
			snprintf(cn, sizeof(cn),
				 "nt-store-bandwidth/%s/%zu",
				 j ? "avx512" : "movnti",
				 sizes[z]);
			if (emit(b, cn, "bandwidth", "GB/s", &nt[(z * 2 + j) * n], n, p))
				return -1;
			all = stats_clean(&nt[(z * 2 + j) * n], &ntpre[(z * 2 + j) * n],
					  n, &s, &used) > 0;
			printf("   %4zu  %-12s %26s %2zu/%-2d%c %7.2f   (limit)\n", sizes[z],
			       j ? "NT vmovntdq" : "NT movnti", "", used, n,
			       all ? '*' : ' ', s.median);
			ntmax[z] = s.median > ntmax[z] ? s.median : ntmax[z];
		}
		for (m = 0; m < NR_HOW; m++) {
			json_object *p = params(vs[z][m]);

			pset(p, "size", sizes[z]);
			pset(p, "pages", pages);
			pstr(p, "start", "flushed");
			ppre(p, &pre[(z * NR_HOW + m) * n], n);
			snprintf(cn, sizeof(cn), "template-copy/%s", vs[z][m]->name);
			if (emit(b, cn, "ms_per_pass", "ms", &sm[(z * NR_HOW + m) * n], n, p))
				return -1;
			all = stats_clean(&sm[(z * NR_HOW + m) * n], &pre[(z * NR_HOW + m) * n],
					  n, &s, &used) > 0;
			med[z][m] = s.median;
			printf("   %4zu  %-12s %8.1f [%7.1f,%7.1f] %2zu/%-2d%c %7.2f %8.0f%%\n",
			       sizes[z], how[m], s.median, s.lo, s.hi, used, n,
			       all ? '*' : ' ',
			       bytes / (s.median * 1e6),
			       100.0 * bytes / (s.median * 1e6) / ntmax[z]);
		}
	}
	snprintf(text, sizeof(text),
		 "template copy alone, %lu x 64 B: out of line %.1f -> inline %.1f ms (%+.1f%%); 80 B %+.1f%%, 96 B %+.1f%%; on %s (host; the VM figure is the whole memmap init, not this copy alone)",
		 pages, med[0][1], med[0][2], -pct_less(med[0][1], med[0][2]),
		 -pct_less(med[1][1], med[1][2]), -pct_less(med[2][1], med[2][2]),
		 b->cpu_name);
	print_claim("fastpaths/nd_pmem", text);
	print_claim("fastpaths/dax_pmem",
		    "(same host experiment as above; dax_pmem adds compound tails, not modeled here)");
	free(sm);
	free(nt);
	free(pre);
	free(ntpre);
	unmap_buffer(dst, len);
	unmap_buffer(tmpl, 4096);
	return 0;
}

/*
 * e. the series' v1 and v2 ways of writing a memmap from templates, per
 * geometry, with the copies of the tree under test: one pass writes the
 * struct pages (64 B) of one namespace, in the order and with the copy
 * kind and fences each way has, and redoes the read-modify-writes of the
 * struct pages the kernel touches again (PG_head on a head,
 * prep_compound_head() on the first tail), which a streamed line makes
 * wait for memory.
 *   fsdax    map=dev, no compound pages: every page from the template;
 *   dax-dev  devdax map=dev: compound pages of 512 written struct pages;
 *   dax-mem  devdax map=mem: 128 written per compound page (the optimised
 *            vmemmap), a quarter of the pages for the same namespace.
 * Ways:
 *   plain    memcpy() for every page (patches 2-3, "template + memcpy");
 *   v1       memcpy_nontemporal() for every page, an SFENCE before the
 *            head's and the first tail's read-modify-write (v1's 5/7);
 *   pub      the published design (later versions of Li Zhe's series):
 *            memcpy() for compound heads, first tails and pageblock-aligned
 *            pages, memcpy_nontemporal() for the rest, an SFENCE every
 *            32768 pages (before cond_resched()) and at the end;
 *   v2       the same but pageblock-aligned pages of fsdax are streamed
 *            too (v2's 5/7): only the pages written again stay cached.
 * The NT copies are the tree's inline memcpy_flushcache(); fc-inline and
 * tmpl-memcpy are called per run of pages, so every way pays the same
 * number of indirect calls.
 */
enum { WAY_PLAIN, WAY_V1, WAY_PUB, WAY_V2, NR_WAYS };
static const char *const way_names[NR_WAYS] = { "plain", "v1", "pub", "v2" };

static const struct geometry {
	const char *name;
	size_t per_compound;	/* struct pages written per compound page; 1: none */
	unsigned int pages_div;	/* of b->pages, for the same namespace size */
} geometries[] = {
	{ "fsdax", 1, 1 },
	{ "dax-dev", 512, 1 },
	{ "dax-mem", 128, 4 },
};

/*
 * The read-modify-writes need no volatile: the buffer goes to the next
 * out-of-line copy or fence, which the compiler must assume reads it.
 */
#define PB_PAGES 512UL		/* pageblock_nr_pages, x86-64 */
#define SECTION_PAGES 32768UL	/* PAGES_PER_SECTION, x86-64 */

static void touch_head(unsigned long *w)
{
	w[0] |= 1UL << 6;	/* __SetPageHead() */
}

static void touch_first_tail(unsigned long *w)
{
	w[0] = (w[0] & ~0xffUL) | 9;	/* folio_set_order() */
	w[5] = ~0UL;			/* _large_mapcount and friends */
	w[6] = 1UL << 9;
}

static void memmap_pass(const struct bench *b, int way, const struct geometry *g,
			char *dst, const char *tmpl, size_t pages,
			loop_fn plain, loop_fn nt)
{
	size_t n = g->per_compound, i;
	loop_fn stream = way == WAY_PLAIN ? plain : nt;

	if (n == 1) {
		/* pub: the pageblock-aligned page through the cache */
		for (i = 0; i < pages; i += PB_PAGES) {
			size_t k = pages - i < PB_PAGES ? pages - i : PB_PAGES;

			(way == WAY_PUB ? plain : stream)(dst + i * 64, tmpl, 1, 64);
			stream(dst + (i + 1) * 64, tmpl, k - 1, 64);
			if (way >= WAY_PUB && !((i + PB_PAGES) % SECTION_PAGES))
				b->sfence();
		}
		b->sfence();
		return;
	}
	for (i = 0; i + n <= pages; i += n) {
		char *head = dst + i * 64;

		if (way >= WAY_PUB) {
			plain(head, tmpl, 2, 64);
			touch_head((unsigned long *)head);
			touch_first_tail((unsigned long *)(head + 64));
		} else {
			stream(head, tmpl, 1, 64);
			if (way == WAY_V1)
				b->sfence();
			touch_head((unsigned long *)head);
			stream(head + 64, tmpl, 1, 64);
			if (way == WAY_V1)
				b->sfence();
			touch_first_tail((unsigned long *)(head + 64));
		}
		stream(head + 128, tmpl, n - 2, 64);
		if (way >= WAY_PUB && !((i + n) % SECTION_PAGES))
			b->sfence();
	}
	b->sfence();
}

static int exp_template_ways(struct bench *b)
{
	struct variant *vp = need("tmpl-memcpy-64"), *vn = need("fc-inline-64");
	unsigned long pages = b->quick && b->pages > 100000 ? 100000 : b->pages;
	size_t len = pages * 64, g, w, ng = ARRAY_SIZE(geometries);
	int n = samples_or(b, 5, 2), r;
	char *dst = map_buffer(len, 1), *tmpl = map_buffer(4096, 0);
	double *sm = calloc(ng * NR_WAYS * n, sizeof(*sm));
	long *pre = calloc(ng * NR_WAYS * n, sizeof(*pre));
	double med[ARRAY_SIZE(geometries)][NR_WAYS];
	char text[512];

	if (!dst || !tmpl || !sm || !pre || !pages)
		return -1;
	for (r = 0; r < n; r++)
		for (g = 0; g < ng; g++)
			for (w = 0; w < NR_WAYS; w++) {
				size_t x = (g * NR_WAYS + w) * n + r;
				struct lap lap;
				char cn[96];

				snprintf(cn, sizeof(cn), "template-ways/%s/%s",
					 geometries[g].name, way_names[w]);
				memmap_cold(dst, pages / geometries[g].pages_div * 64, tmpl);
				lap_start(&lap);
				window_open(b, cn, pages / geometries[g].pages_div);
				memmap_pass(b, (int)w, &geometries[g], dst, tmpl,
					    pages / geometries[g].pages_div,
					    (loop_fn)vp->fn, (loop_fn)vn->fn);
				window_close();
				sm[x] = lap_stop(&lap, &pre[x]) / 1e6;
			}
	print_header(b, "memmap from templates, v1 and v2 ways (series 2-5), ms per namespace");
	printf("   %lu struct pages of 64 B per namespace (dax-mem: a quarter);\n", pages);
	printf("   plain = memcpy; v1 = all NT, 2 SFENCE per compound page; pub = heads,\n");
	printf("   first tails, pageblock-aligned pages memcpy, the rest NT, SFENCE per\n");
	printf("   section; v2 = pub but pageblock-aligned fsdax pages NT too\n");
	printf("   %-8s %-6s %-26s %5s %9s\n", "geometry", "way", "ms [95% CI]", "clean",
	       "vs plain");
	for (g = 0; g < ng; g++)
		for (w = 0; w < NR_WAYS; w++) {
			json_object *p = params(NULL);
			struct stats s;
			size_t used, x = (g * NR_WAYS + w) * n;
			char cn[96];
			int all;

			pstr(p, "way", way_names[w]);
			pstr(p, "geometry", geometries[g].name);
			pset(p, "per_compound", geometries[g].per_compound);
			pset(p, "pages", pages / geometries[g].pages_div);
			pstr(p, "start", "flushed");
			pstr(p, "plain", vp->symbol);
			pstr(p, "nt", vn->symbol);
			ppre(p, &pre[x], n);
			snprintf(cn, sizeof(cn), "template-ways/%s/%s", geometries[g].name,
				 way_names[w]);
			if (emit(b, cn, "ms_per_pass", "ms", &sm[x], n, p))
				return -1;
			all = stats_clean(&sm[x], &pre[x], n, &s, &used) > 0;
			med[g][w] = s.median;
			printf("   %-8s %-6s %8.1f [%7.1f,%7.1f] %2zu/%-2d%c %+8.1f%%\n",
			       geometries[g].name, way_names[w], s.median, s.lo, s.hi, used, n,
			       all ? '*' : ' ', -pct_less(med[g][0], s.median));
		}
	snprintf(text, sizeof(text),
		 "ms plain / v1 / pub / v2: fsdax %.1f / %.1f / %.1f / %.1f, dax-dev %.1f / %.1f / %.1f / %.1f, dax-mem %.1f / %.1f / %.1f / %.1f; on %s (host)",
		 med[0][0], med[0][1], med[0][2], med[0][3], med[1][0], med[1][1], med[1][2],
		 med[1][3], med[2][0], med[2][1], med[2][2], med[2][3], b->cpu_name);
	printf("   %s\n", text);
	free(sm);
	free(pre);
	unmap_buffer(dst, len);
	unmap_buffer(tmpl, 4096);
	return 0;
}

/*
 * 6. peer check: `perf bench mem memcpy` (tools/perf/bench, which also
 * assembles memcpy_64.S, its own copy) on the cases both measure: the
 * same buffers copied over and over, 4 KiB (hot) and 1 MiB.  The ratio
 * REP MOVSB / unrolled must agree within 10%; absolute figures differ
 * by perf's gettimeofday() timing and loop.  Runs are a few milliseconds
 * (80 or 100 MiB copied), so that on a shared machine most of them fit
 * between two preemptions.  perf runs from its arguments, no shell: its
 * path is the user's (bench/run.sh: command -v perf), any characters.
 */
static double perf_gbps(const char *perf, const char *fn, const char *size,
			unsigned long loops)
{
	char n[32], line[256];
	char *const argv[] = { (char *)perf, "bench", "mem", "memcpy", "-f", (char *)fn,
			       "-s", (char *)size, "-l", n, NULL };
	double v = -1;
	int fd[2], status;
	pid_t pid;
	FILE *p;

	snprintf(n, sizeof(n), "%lu", loops);
	fflush(NULL);
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!pid) {
		/* its output and its errors, as the shell's 2>&1 gave them */
		if (dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0)
			_exit(127);
		close(fd[0]);
		close(fd[1]);
		execvp(perf, argv);
		_exit(127);
	}
	close(fd[1]);
	p = fdopen(fd[0], "r");
	if (!p) {
		close(fd[0]);
	} else {
		while (fgets(line, sizeof(line), p))
			if (strstr(line, "GB/sec"))
				v = strtod(line, NULL);
		fclose(p);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || !p)
		return -1;
	return v;
}

static int exp_peer(struct bench *b)
{
	static const struct {
		const char *perf_size;
		size_t size;
		unsigned long loops, quick_loops;
		size_t dst_off, src_off;	/* mod 64, as perf gets them */
	} peer_cases[] = {
		{ "4KB", 4096, 20000, 2000, 32, 48 },
		{ "1MB", MIB, 100, 10, 16, 16 },
	};
	static const char *const perf_fn[2] = { "x86-64-unrolled", "x86-64-movsb" };
	const char *names[2] = { "memcpy-erms0-fsrm0", "memcpy-erms1-fsrm1" };
	int n = samples_or(b, 15, 1), r, j, bad = 0;
	size_t c;

	if (!b->perf) {
		printf("\n== peer check: skipped (no --perf PATH given)\n");
		return 0;
	}
	print_header(b, "peer check against perf bench mem memcpy, GB/s");
	printf("   medians of all runs on both sides, preempted or not (perf cannot\n");
	printf("   tell); clean: copy-bench runs no other task preempted\n");
	printf("   %-5s %-16s %9s | %-20s %9s %5s\n", "size", "perf -f", "GB/s",
	       "copy-bench variant", "GB/s", "clean");
	for (c = 0; c < 2; c++) {
		unsigned long loops = b->quick ? peer_cases[c].quick_loops : peer_cases[c].loops;
		size_t size = peer_cases[c].size;
		double *ps = calloc(2 * n, sizeof(*ps)), *os = calloc(2 * n, sizeof(*os));
		long *op = calloc(2 * n, sizeof(*op));
		/*
		 * perf allocates dst then src with zalloc() (calloc) and so gets
		 * malloc's placement, and the destination's alignment moves REP
		 * MOVSB by a quarter here (memcpy-align).  perf 6.1 on Debian 12
		 * gets dst % 64 = 32, src % 64 = 48 for 4 KiB (heap) and 16, 16
		 * for 1 MiB (mmap'd chunks), as a calloc() probe preloaded into
		 * it shows: the same offsets here, to measure the same copy.
		 */
		char *dmem = aligned_alloc(64, size + 64);
		char *smem = aligned_alloc(64, size + 64);
		char *dbuf = dmem + peer_cases[c].dst_off;
		char *sbuf = smem + peer_cases[c].src_off;
		double pm[2], om[2];
		size_t used[2];

		if (!ps || !os || !op || !dmem || !smem)
			return -1;
		/* as perf's memcpy_prefault(): real source pages */
		memset(sbuf, 0, size);
		for (r = 0; r < n; r++)
			for (j = 0; j < 2; j++) {
				struct variant *v = need(names[j]);
				struct lap lap;
				size_t i;

				ps[j * n + r] = perf_gbps(b->perf, perf_fn[j],
							  peer_cases[c].perf_size, loops);
				if (ps[j * n + r] < 0) {
					fprintf(stderr,
						"copy-bench: peer: '%s bench mem memcpy -f %s -s %s -l %lu' failed or printed no GB/sec\n",
						b->perf, perf_fn[j],
						peer_cases[c].perf_size, loops);
					return -1;
				}
				/* perf's loop: one call to prefault, then loops calls */
				((memcpy_fn)v->fn)(dbuf, sbuf, size);
				lap_start(&lap);
				for (i = 0; i < loops; i++)
					((memcpy_fn)v->fn)(dbuf, sbuf, size);
				os[j * n + r] = (double)size * loops /
					lap_stop(&lap, &op[j * n + r]);
			}
		for (j = 0; j < 2; j++) {
			json_object *p = params(NULL);
			struct stats s;
			char cn[96];

			pstr(p, "command", "perf bench mem memcpy");
			pstr(p, "function", perf_fn[j]);
			pset(p, "size", size);
			pset(p, "loops", loops);
			snprintf(cn, sizeof(cn), "peer/perf/%s/%zu", perf_fn[j], size);
			if (emit(b, cn, "bandwidth", "GB/s", &ps[j * n], n, p))
				return -1;
			/*
			 * perf's context switches cover its whole process
			 * (exec, setup), not its timed loop: no clean subset
			 */
			stats_summary(&ps[j * n], n, &s);
			pm[j] = s.median;
			p = params(need(names[j]));
			pset(p, "size", size);
			pset(p, "loops", loops);
			pset(p, "dst_offset_mod_64", (unsigned long)dbuf % 64);
			pset(p, "src_offset_mod_64", (unsigned long)sbuf % 64);
			ppre(p, &op[j * n], n);
			snprintf(cn, sizeof(cn), "peer/copy-bench/%s/%zu", names[j], size);
			if (emit(b, cn, "bandwidth", "GB/s", &os[j * n], n, p))
				return -1;
			stats_summary(&os[j * n], n, &s);
			for (r = 0, used[j] = 0; r < n; r++)
				used[j] += !op[j * n + r];
			om[j] = s.median;
		}
		for (j = 0; j < 2; j++)
			fprintf(stdout,
				"   %-5s %-16s %9.2f | %-20s %9.2f %2zu/%-2d\n",
				peer_cases[c].perf_size, perf_fn[j], pm[j],
				names[j], om[j], used[j], n);
		{
			double rp = pm[1] / pm[0], ro = om[1] / om[0], d = 100 * (ro / rp - 1);

			fprintf(stdout,
				"   %-5s copy-bench buffers placed as perf's: dst %% 64 = %lu, src %% 64 = %lu\n",
				peer_cases[c].perf_size, (unsigned long)dbuf % 64,
				(unsigned long)sbuf % 64);
			fprintf(stdout,
				"   %-5s movsb/unrolled: perf %.3f, copy-bench %.3f: %+.1f%% apart, %s\n",
				peer_cases[c].perf_size, rp, ro, d,
				fabs(d) < 10 ? "agree (within 10%)" : "DISAGREE (over 10%)");
			bad |= !(fabs(d) < 10);
		}
		free(ps);
		free(os);
		free(op);
		free(dmem);
		free(smem);
	}
	/* a disagreement is a finding to report, not a failed run */
	(void)bad;
	return 0;
}

const struct experiment experiments[] = {
	{ "copy-user-short", exp_copy_user_short,
	  "seed 004: copy_user 0..63 B, REP MOVSB vs rep_movs_alternative", 0 },
	{ "memcpy-states", exp_memcpy_states,
	  "seed 001: 4 KiB x 65536 in three cache states, orig / threshold / REP MOVSB", 0 },
	{ "memcpy-sweep", exp_memcpy_sweep,
	  "seed 001: 16 B..64 KiB sweep, the crossover on this CPU", 0 },
	{ "memcpy-align", exp_memcpy_align,
	  "seed 001 review: destination alignment, source page offset below destination", 0 },
	{ "flushcache-fixed", exp_flushcache_fixed,
	  "seeds 002, 000: memcpy_flushcache 4..96 B inline vs out of line", 0 },
	{ "template-copy", exp_template_copy,
	  "seed 000: 25M struct pages from a template vs NT store bandwidth", 1 },
	{ "template-ways", exp_template_ways,
	  "series 2-5: memmap from templates, plain / v1 / v2 fences and copies", 1 },
	{ "cost-classes", exp_cost_classes,
	  "the cost table's kernels: one class of the guest model each (cost-fit)", 0 },
	{ "peer", exp_peer, "perf bench mem memcpy on the same cases (needs --perf)", 0 },
};

const size_t nr_experiments = ARRAY_SIZE(experiments);
