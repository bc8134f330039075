// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c - every variant copies exactly like memcpy(): for sizes
 * 0..4096 and source/destination misalignments 0..63, the destination
 * holds the source bytes, nothing outside it changed (guard bytes on both
 * sides, every byte of the area compared; no byte before the copy equals
 * the source byte that a copy would store there), and the return value
 * is the kernel's (dst for memcpy, 0 bytes left for copy_user).  Cases:
 * every size with both pointers aligned and with one seeded random
 * misalignment pair; every misalignment pair for the edge sizes around
 * each branch of the tree's code; then seeded random (size,
 * misalignment) triples.  Fixed-size loop variants take their one size
 * with every misalignment pair and random ones.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAXLEN 4096
#define GUARD 128
#define AREA (GUARD + 64 + MAXLEN + GUARD)

static const size_t edges[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128,
	511, 512, 513, 4095, 4096,
};

static unsigned char src[AREA], dst[AREA], want[AREA], pattern[AREA];
/* guarded[d]: the pattern made safe for a source displacement d - 63 */
static unsigned char guarded[127][AREA];
static unsigned char guarded_done[127];

static unsigned long xs(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * The destination before a copy from src+soff to dst+doff: the pattern,
 * except that no byte equals the source byte that a copy would store
 * there (the one at the same displacement), so that a store past either
 * end, or one left out, is caught at its first case, whatever the seed.
 * That depends on soff - doff alone: made once per displacement (a
 * variant has ~100,000 cases, each a pass over the area).
 */
static void fill_guards(size_t soff, size_t doff)
{
	size_t k = soff + 63 - doff, i, j;

	if (!guarded_done[k]) {
		memcpy(guarded[k], pattern, AREA);
		for (i = 0; i < AREA; i++) {
			j = i + soff - doff;
			if (i + soff >= doff && j < AREA && guarded[k][i] == src[j])
				guarded[k][i] ^= 0xff;
		}
		guarded_done[k] = 1;
	}
	memcpy(want, guarded[k], AREA);
	memcpy(dst, want, AREA);
}

/* 0: the copy was exact; else prints what differs and returns -1 */
static int check(const struct variant *v, size_t len, size_t soff, size_t doff)
{
	unsigned char *d = dst + GUARD + doff, *s = src + GUARD + soff;
	size_t i;

	fill_guards(soff, doff);
	memcpy(want + GUARD + doff, s, len);
	switch (v->kind) {
	case V_MEMCPY:
		if (((memcpy_fn)v->fn)(d, s, len) != d) {
			fprintf(stdout,
				"FAIL %s: len %zu src+%zu dst+%zu: returned a pointer other than dst\n",
				v->name, len, soff, doff);
			return -1;
		}
		break;
	case V_COPY_USER: {
		unsigned long left = ((copy_user_fn)v->fn)(d, s, len);

		if (left) {
			printf("FAIL %s: len %zu src+%zu dst+%zu: %lu bytes reported not copied\n",
			       v->name, len, soff, doff, left);
			return -1;
		}
		break;
	}
	case V_FC:
		((fc_fn)v->fn)(d, s, len);
		break;
	case V_LOOP:
		((loop_fn)v->fn)(d, s, 1, v->size);
		break;
	}
	asm volatile("sfence" ::: "memory");
	if (!memcmp(dst, want, AREA))
		return 0;
	for (i = 0; i < AREA; i++)
		if (dst[i] != want[i]) {
			fprintf(stdout,
				"FAIL %s: len %zu src+%zu dst+%zu: byte %ld from dst is 0x%02x, want 0x%02x\n",
				v->name, len, soff, doff,
				(long)i - (long)(GUARD + doff), dst[i], want[i]);
			return -1;
		}
	return 0;
}

static int test_variant(const struct variant *v, unsigned long seed,
			unsigned long random_cases)
{
	unsigned long s = seed * 2654435761UL + 1, cases = 0, r;
	size_t len, a, b, e;

	if (v->kind == V_LOOP) {
		for (a = 0; a < 64; a++)
			for (b = 0; b < 64; b++, cases++)
				if (check(v, v->size, a, b))
					return -1;
		for (r = 0; r < random_cases / 16; r++, cases++)
			if (check(v, v->size, xs(&s) % 64, xs(&s) % 64))
				return -1;
		printf("ok %s: %lu cases, size %zu\n", v->name, cases, v->size);
		return 0;
	}
	if (!strcmp(v->name, "nop"))
		return 0;
	for (len = 0; len <= MAXLEN; len++, cases += 2)
		if (check(v, len, 0, 0) || check(v, len, xs(&s) % 64, xs(&s) % 64))
			return -1;
	for (e = 0; e < ARRAY_SIZE(edges); e++)
		for (a = 0; a < 64; a++)
			for (b = 0; b < 64; b++, cases++)
				if (check(v, edges[e], a, b))
					return -1;
	for (r = 0; r < random_cases; r++, cases++) {
		len = xs(&s) % (MAXLEN + 1);
		a = xs(&s) % 64;
		b = xs(&s) % 64;
		if (check(v, len, a, b))
			return -1;
	}
	printf("ok %s: %lu cases\n", v->name, cases);
	return 0;
}

int selftest(unsigned long seed, unsigned long random_cases)
{
	unsigned long s = seed + 0x9e3779b97f4a7c15UL;
	struct record_cpu cpu;
	int failed = 0;
	size_t i;

	record_cpu_host(&cpu);
	for (i = 0; i < AREA; i++) {
		src[i] = xs(&s);
		pattern[i] = xs(&s);
	}
	memset(guarded_done, 0, sizeof(guarded_done));
	printf("seed %lu, %lu random cases per variant\n", seed, random_cases);
	for (i = 0; i < nr_variants; i++) {
		const struct variant *v = &variants[i];

		if (!cpu.clwb && (v->kind == V_FC || !strncmp(v->name, "fc-", 3))) {
			fprintf(stdout,
				"skip %s: this CPU has no CLWB, which the tree's clwb() stand-in uses\n",
				v->name);
			continue;
		}
		if (test_variant(v, seed, random_cases))
			failed++;
	}
	printf("%s: %d variant(s) failed\n", failed ? "FAIL" : "ok", failed);
	return failed;
}
