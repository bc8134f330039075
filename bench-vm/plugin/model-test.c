// SPDX-License-Identifier: GPL-2.0
/*
 * model-test.c - the model of bench-vm-model.so without QEMU, as TAP:
 * the instruction classes of known encodings, LRU order, and the copies
 * of the agent's synthetic mode fed as the plugin would feed them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "symbols.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int test_no, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++test_no, what);
	failed |= !cond;
}

static const struct {
	const char *what;
	unsigned char len, bytes[8];
	enum insn_class cls;
} encodings[] = {
	{ "movnti %rax,(%rdi)", 4, { 0x48, 0x0f, 0xc3, 0x07 }, INSN_NT },
	{ "movnti %eax,(%rdi)", 3, { 0x0f, 0xc3, 0x07 }, INSN_NT },
	{ "movntdq %xmm0,(%rdi)", 4, { 0x66, 0x0f, 0xe7, 0x07 }, INSN_NT },
	{ "movntps %xmm0,(%rdi)", 3, { 0x0f, 0x2b, 0x07 }, INSN_NT },
	{ "movdir64b (%rsi),%rdi", 5, { 0x66, 0x0f, 0x38, 0xf8, 0x3e }, INSN_NT },
	{ "rep movsb", 2, { 0xf3, 0xa4 }, INSN_REP_MOVS },
	{ "rep movsq", 3, { 0xf3, 0x48, 0xa5 }, INSN_REP_MOVS },
	{ "rep stosb", 2, { 0xf3, 0xaa }, INSN_REP_STOS },
	{ "rep stosq", 3, { 0xf3, 0x48, 0xab }, INSN_REP_STOS },
	{ "movsb (no rep)", 1, { 0xa4 }, INSN_PLAIN },
	{ "sfence", 3, { 0x0f, 0xae, 0xf8 }, INSN_SFENCE },
	{ "mfence", 3, { 0x0f, 0xae, 0xf0 }, INSN_MFENCE },
	{ "lfence", 3, { 0x0f, 0xae, 0xe8 }, INSN_PLAIN },
	{ "clflush (%rdi)", 3, { 0x0f, 0xae, 0x3f }, INSN_PLAIN },
	{ "clwb (%rdi)", 4, { 0x66, 0x0f, 0xae, 0x37 }, INSN_PLAIN },
	{ "mov %rax,(%rdi)", 3, { 0x48, 0x89, 0x07 }, INSN_PLAIN },
	{ "enqcmd (%rsi),%rdi", 5, { 0xf2, 0x0f, 0x38, 0xf8, 0x3e }, INSN_PLAIN },
	{ "nopl 0x4d564201(%rax)", 7, { 0x0f, 0x1f, 0x80, 0x01, 0x42, 0x56, 0x4d }, INSN_MARKER },
	{ "nopl 0x4d564203(%rax)", 7, { 0x0f, 0x1f, 0x80, 0x03, 0x42, 0x56, 0x4d }, INSN_PLAIN },
};

static void test_decode(void)
{
	unsigned int op;
	size_t i;
	char what[80];

	for (i = 0; i < ARRAY_SIZE(encodings); i++) {
		snprintf(what, sizeof(what), "decode: %s", encodings[i].what);
		ok(insn_classify(encodings[i].bytes, encodings[i].len, &op) == encodings[i].cls,
		   what);
	}
}

static void test_lru(void)
{
	struct cache c;
	const char *why;
	uint64_t v;
	int r = 1;

	/* one set of 2 ways: lines 0, 1, 0 again, then 2 evicts 1 (LRU) */
	ok(!cache_init(&c, 128, 2, 64, &why), "cache: 128 bytes, 2 ways");
	r &= !cache_access(&c, 0, 0, &v) && !cache_access(&c, 1, 1, &v);
	r &= cache_access(&c, 0, 0, &v);
	r &= !cache_access(&c, 2, 0, &v) && cache_entry_line(v) == 1 && cache_entry_dirty(v);
	r &= cache_access(&c, 0, 0, &v) && !cache_access(&c, 1, 0, &v);
	ok(r, "cache: LRU evicts the least recent line, dirty kept");
	r = cache_entry_dirty(cache_evict(&c, 1)) == 0 && !cache_evict(&c, 1);
	ok(r, "cache: evict removes a line once");
	cache_free(&c);
	ok(cache_init(&c, 96 << 10, 8, 64, &why), "cache: 96K of 8 ways refused (192 sets)");
}

static const char *noname(size_t f, void *arg)
{
	(void)arg;
	return f ? "kernel" : "user";
}

enum copy { COPY_MOV, COPY_MOVNTI, COPY_REP_MOVSB };

/* A copy of @bytes from 1M to 64M as the plugin sees it, in one window. */
static void copy_window(struct model *m, enum copy kind, uint64_t bytes,
			uint64_t tot[NR_EVENTS + 1])
{
	uint64_t src = 1 << 20, dst = 64 << 20, i;
	FILE *f = fopen("/dev/null", "w");

	model_open(m);
	if (kind == COPY_REP_MOVSB) {
		for (i = 0; i < bytes; i++) {
			model_access(m, 0, 0, INSN_REP_MOVS, src + i, 1, 0);
			model_access(m, 0, 0, INSN_REP_MOVS, dst + i, 1, 1);
			m->insns[0]++;
		}
	} else {
		for (i = 0; i < bytes; i += 8) {
			model_access(m, 0, 0, INSN_PLAIN, src + i, 8, 0);
			if (kind == COPY_MOVNTI)
				model_exec(m, 0, INSN_NT);
			model_access(m, 0, 0, kind == COPY_MOVNTI ? INSN_NT : INSN_PLAIN,
				     dst + i, 8, 1);
			m->insns[0] += 6;
		}
		if (kind == COPY_MOVNTI)
			model_exec(m, 0, INSN_SFENCE);
	}
	model_totals(m, tot);
	if (model_close(m, f, noname, NULL) < 0)
		ok(0, "model: close writes its lines");
	fclose(f);
}

/*
 * Consecutive lines go to consecutive sets: a buffer of the cache's size
 * fits whole (4 sets of 2 ways hold lines 0..7), and a line a set count
 * apart shares a set (0, 4, 8: the third evicts the first).
 */
static void test_sets(void)
{
	struct cache c;
	const char *why;
	uint64_t v, i;
	int r = 1;

	ok(!cache_init(&c, 512, 2, 64, &why), "cache: 512 bytes, 4 sets of 2 ways");
	for (i = 0; i < 8; i++)
		r &= !cache_access(&c, i, 0, &v);
	for (i = 0; i < 8; i++)
		r &= cache_access(&c, i, 0, &v);
	ok(r, "cache: lines 0..7 spread over the 4 sets: all 8 stay");
	cache_reset(&c);
	r = !cache_access(&c, 0, 0, &v) && !cache_access(&c, 4, 0, &v) &&
	    !cache_access(&c, 8, 0, &v) && cache_entry_line(v) == 0 && cache_access(&c, 4, 0, &v);
	ok(r, "cache: lines 0, 4, 8 share a set: 8 evicts 0, 4 stays");
	cache_free(&c);
}

/*
 * A dirty line the L1d evicts goes to the LLC, which holds it: no write
 * to memory while the LLC keeps it (inclusive LLC, write-back).  An L1d
 * of one set of 2 ways: a store to line 0, then loads of lines 1 and 2
 * push it out of the L1d; the LLC (1M) still has it.
 */
static void test_writeback_levels(void)
{
	struct model_params p = model_defaults;
	uint64_t tot[NR_EVENTS + 1];
	const char *why;
	struct model m;
	FILE *f;

	p.l1d_size = 128;
	p.l1d_ways = 2;
	p.llc_size = 1 << 20;
	if (model_init(&m, &p, 1, 1, &why)) {
		ok(0, why);
		return;
	}
	f = fopen("/dev/null", "w");
	model_open(&m);
	model_access(&m, 0, 0, INSN_PLAIN, 0, 8, 1);
	model_access(&m, 0, 0, INSN_PLAIN, 64, 8, 0);
	model_access(&m, 0, 0, INSN_PLAIN, 128, 8, 0);
	model_totals(&m, tot);
	ok(tot[EV_l1d_load_misses] == 2 && tot[EV_l1d_store_misses] == 1 &&
	   tot[EV_llc_writebacks] == 0,
	   "levels: a dirty line out of the L1d but in the LLC is no write-back to memory");
	/* and read again: from the LLC, not from memory */
	model_access(&m, 0, 0, INSN_PLAIN, 0, 8, 0);
	model_totals(&m, tot);
	ok(tot[EV_l1d_load_misses] == 3 && tot[EV_llc_load_misses] == 2,
	   "levels: the line comes back from the LLC: an L1d miss, no LLC miss");
	if (model_close(&m, f, noname, NULL) < 0)
		ok(0, "model: close writes its lines");
	fclose(f);
	model_free(&m);
}

/* the window line's owed_writebacks, as model_close() writes it */
static long close_owed(struct model *m)
{
	char line[2048], *v;
	FILE *f = tmpfile();
	long owed = -1;

	if (!f || model_close(m, f, noname, NULL) < 0)
		return -1;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		v = strstr(line, "\towed_writebacks=");
		if (!strncmp(line, "window\t", 7) && v)
			owed = strtol(v + 17, NULL, 10);
	}
	fclose(f);
	return owed;
}

/*
 * Owed write-backs: the dirty lines of any level at the close, a line
 * dirty in the L1d and the LLC once.  An L1d of 2 sets of 2 ways (even
 * lines in one, odd in the other): line 0 stored, pushed out by lines 2
 * and 4 into the LLC (dirty there), stored again (dirty in both); line 3
 * stored (dirty in the L1d, clean in the LLC); line 5 stored, then
 * streamed over (written back then, not owed).
 */
static void test_owed(void)
{
	struct model_params p = model_defaults;
	const char *why;
	struct model m;

	p.l1d_size = 256;
	p.l1d_ways = 2;
	p.llc_size = 1 << 20;
	if (model_init(&m, &p, 1, 1, &why)) {
		ok(0, why);
		return;
	}
	model_open(&m);
	model_access(&m, 0, 0, INSN_PLAIN, 0, 8, 1);
	model_access(&m, 0, 0, INSN_PLAIN, 2 * 64, 8, 0);
	model_access(&m, 0, 0, INSN_PLAIN, 4 * 64, 8, 0);
	model_access(&m, 0, 0, INSN_PLAIN, 0, 8, 1);
	model_access(&m, 0, 0, INSN_PLAIN, 3 * 64, 8, 1);
	model_access(&m, 0, 0, INSN_PLAIN, 5 * 64, 8, 1);
	model_access(&m, 0, 0, INSN_NT, 5 * 64, 8, 1);
	ok(close_owed(&m) == 2,
	   "owed: lines 0 (L1d and LLC) and 3 (L1d) owed once each; 5 written back when streamed");
	model_open(&m);
	ok(close_owed(&m) == 0, "owed: a window that stores nothing owes nothing");
	model_free(&m);
}

/*
 * REP starts: a REP MOVSB of 128 bytes whose source jumps after 64
 * (the destination contiguous) is two REPs; then one more REP, on from
 * where both ended, is none new.
 */
static void test_rep_starts(void)
{
	uint64_t tot[NR_EVENTS + 1], src = 1 << 20, dst = 64 << 20, i;
	const char *why;
	struct model m;
	FILE *f;

	if (model_init(&m, &model_defaults, 1, 1, &why)) {
		ok(0, why);
		return;
	}
	f = fopen("/dev/null", "w");
	model_open(&m);
	for (i = 0; i < 128; i++) {
		model_access(&m, 0, 0, INSN_REP_MOVS, (i < 64 ? src : 2 * src - 64) + i, 1, 0);
		model_access(&m, 0, 0, INSN_REP_MOVS, dst + i, 1, 1);
	}
	model_totals(&m, tot);
	ok(tot[EV_rep_starts] == 2 && tot[EV_rep_iters] == 128,
	   "rep: a source that jumps mid-copy starts a second REP");
	for (i = 128; i < 192; i++) {
		model_access(&m, 0, 0, INSN_REP_MOVS, 2 * src - 64 + i, 1, 0);
		model_access(&m, 0, 0, INSN_REP_MOVS, dst + i, 1, 1);
	}
	model_totals(&m, tot);
	ok(tot[EV_rep_starts] == 2, "rep: a REP on from where the last ended is no new start");
	if (model_close(&m, f, noname, NULL) < 0)
		ok(0, "model: close writes its lines");
	fclose(f);
	model_free(&m);
}

/* top=2 of three functions that did work: two func lines in the window */
static void test_top(void)
{
	struct model_params p = model_defaults;
	char line[512];
	const char *why;
	struct model m;
	size_t fn, nfunc = 0;
	FILE *f = tmpfile();

	p.top = 2;
	if (!f || model_init(&m, &p, 1, 4, &why)) {
		ok(0, f ? why : "tmpfile");
		return;
	}
	model_open(&m);
	for (fn = 1; fn <= 3; fn++)
		model_access(&m, 0, fn, INSN_PLAIN, fn << 20, 8, 1);
	if (model_close(&m, f, noname, NULL) < 0)
		ok(0, "model: close writes its lines");
	rewind(f);
	while (fgets(line, sizeof(line), f))
		nfunc += !strncmp(line, "func\t", 5);
	ok(nfunc == 2, "top: a window names its top 2 functions, no more");
	fclose(f);
	model_free(&m);
}

static void test_copies(void)
{
	uint64_t mov[NR_EVENTS + 1], nt[NR_EVENTS + 1], rep[NR_EVENTS + 1];
	uint64_t again[NR_EVENTS + 1];
	const uint64_t bytes = 1 << 20;
	const char *why;
	struct model m;

	if (model_init(&m, &model_defaults, 1, 2, &why)) {
		ok(0, why);
		return;
	}
	copy_window(&m, COPY_MOV, bytes, mov);
	copy_window(&m, COPY_MOVNTI, bytes, nt);
	copy_window(&m, COPY_REP_MOVSB, bytes, rep);
	ok(mov[EV_nt_stores] == 0 && rep[EV_nt_stores] == 0 && nt[EV_nt_stores] == bytes / 8,
	   "copies: streaming stores = bytes / 8 for MOVNTI, 0 otherwise");
	ok(rep[EV_rep_bytes] == bytes && mov[EV_rep_bytes] == 0 && nt[EV_rep_bytes] == 0,
	   "copies: REP MOVS bytes = the buffer for REP MOVSB only");
	ok(mov[EV_llc_store_misses] == bytes / 64 && rep[EV_llc_store_misses] == bytes / 64,
	   "copies: write-allocate: every destination line misses the LLC once");
	ok(nt[EV_llc_store_misses] * 100 < mov[EV_llc_store_misses] &&
	   nt[EV_l1d_store_misses] == 0,
	   "copies: streaming stores bypass the caches");
	ok(mov[EV_llc_load_misses] == bytes / 64 && nt[EV_llc_load_misses] == bytes / 64,
	   "copies: the source is read once, from a cold cache, in both");
	ok(nt[EV_sfences] == 1 && mov[EV_sfences] == 0, "copies: the MOVNTI copy's SFENCE");
	copy_window(&m, COPY_MOV, bytes, again);
	ok(!memcmp(mov, again, sizeof(mov)),
	   "copies: a window starts cold: the same copy, the same counts");
	ok(mov[NR_EVENTS] == model_est_cycles(&m.p, mov) &&
	   mov[NR_EVENTS] > nt[NR_EVENTS],
	   "copies: est_cycles: the cached copy costs more than the streaming one");
	ok(m.seq == 4 && !m.bad_markers, "windows: 4 opened and closed");
	model_close(&m, stdout, noname, NULL);
	ok(m.bad_markers == 1, "windows: a close outside a window is counted, not written");
	model_free(&m);
}

static void test_symbols(void)
{
	const char *path = "model-test.map", *why;
	struct symbols s;
	FILE *f = fopen(path, "w");

	fputs("ffffffff81000000 T _text\nffffffff81000100 t memcpy_orig\n"
	      "ffffffff81000200 D some_data\nffffffff81000300 T __memcpy_flushcache\n"
	      "ffffffff81000400 T _etext\n", f);
	fclose(f);
	ok(!symbols_load(&s, path, &why), "symbols: System.map read");
	ok(!strcmp(symbols_name(&s, symbols_find(&s, 0xffffffff81000123ull)), "memcpy_orig") &&
	   !strcmp(symbols_name(&s, symbols_find(&s, 0xffffffff81000377ull)),
		   "__memcpy_flushcache") &&
	   !strcmp(symbols_name(&s, symbols_find(&s, 0x401000)), "[user]") &&
	   symbols_find(&s, 0xffffffff81000400ull) == SYM_UNKNOWN(&s),
	   "symbols: an address names its function, user space and beyond _etext apart");
	symbols_free(&s);
	f = fopen(path, "w");
	fputs("ffffffff81000100 T b\nffffffff81000000 T a\n", f);
	fclose(f);
	ok(symbols_load(&s, path, &why) && strstr(why, "sorted"),
	   "symbols: an unsorted map is refused");
	remove(path);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_decode();
	test_lru();
	test_sets();
	test_copies();
	test_writeback_levels();
	test_owed();
	test_rep_starts();
	test_top();
	test_symbols();
	printf("1..%d\n", test_no);
	return failed;
}
