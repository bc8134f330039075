// SPDX-License-Identifier: GPL-2.0
/*
 * loops.c - the per-commit copy loops that must be compiled together with
 * the tree's inline memcpy_flushcache(): a constant size only takes the
 * inline fastpath when the call site sees the constant, so each size gets
 * its own loop.  Built by bench/gen.sh with kernel-like code generation
 * flags (no SSE, no red zone, no strict aliasing) into variants.so.
 *
 * For each size N, with d = dst + i * stride for i in [0, count):
 *   bench_fc_inline_N(dst, src, count, stride)    memcpy_flushcache(d, src, N)
 *   bench_fc_outline_N(dst, src, count, stride)   __memcpy_flushcache(d, src, N)
 *   bench_tmpl_memcpy_N(dst, src, count, stride)  memcpy(d, src, N), cached
 *   bench_tmpl_rep_N(dst, src, count, stride)     REP MOVSL of N bytes, cached:
 *                     the kernel's struct page assignment as gcc compiles it
 *                     in memmap_init_zone_device() (the bench-vm model's
 *                     records: a REP MOVS start per struct page)
 * stride N is one template copied to consecutive struct pages, as the
 * ZONE_DEVICE template path does.  No fence: the caller fences once after
 * the loop, as the series does.
 */
#include "shim-kernel.h"

#include "string_64-region.h"

#include <cpuid.h>

struct bench_cpuinfo_x86 boot_cpu_data;

/* The kernel fills x86_clflush_size from CPUID leaf 1, EBX[15:8] * 8. */
__attribute__((constructor)) static void bench_cpuinfo_init(void)
{
	unsigned int a, b, c, d;

	boot_cpu_data.x86_clflush_size = 64;
	if (__get_cpuid(1, &a, &b, &c, &d) && ((b >> 8) & 0xff))
		boot_cpu_data.x86_clflush_size = ((b >> 8) & 0xff) * 8;
}

/* N appears once: an enum constant, which the inline fastpath sees as one */
#define BENCH_LOOPS(N)							\
enum { bench_size_##N = (N) };						\
void bench_fc_inline_##N(void *dst, const void *src, size_t count,	\
			 size_t stride)					\
{									\
	for (size_t i = 0; i < count; i++)				\
		memcpy_flushcache(dst + i * stride, src, bench_size_##N); \
}									\
void bench_fc_outline_##N(void *dst, const void *src, size_t count,	\
			  size_t stride)				\
{									\
	for (size_t i = 0; i < count; i++)				\
		__memcpy_flushcache(dst + i * stride, src, bench_size_##N); \
}									\
void bench_tmpl_memcpy_##N(void *dst, const void *src, size_t count,	\
			   size_t stride)				\
{									\
	for (size_t i = 0; i < count; i++)				\
		__builtin_memcpy(dst + i * stride, src, bench_size_##N); \
}									\
void bench_tmpl_rep_##N(void *dst, const void *src, size_t count,	\
			size_t stride)					\
{									\
	for (size_t i = 0; i < count; i++) {				\
		void *d = dst + i * stride;				\
		const void *s = src;					\
		size_t n = bench_size_##N / 4;				\
									\
		asm volatile("rep movsl" : "+D"(d), "+S"(s), "+c"(n)	\
			     : : "memory");				\
	}								\
}

BENCH_LOOPS(4)
BENCH_LOOPS(8)
BENCH_LOOPS(16)
BENCH_LOOPS(32)
BENCH_LOOPS(48)
BENCH_LOOPS(64)
BENCH_LOOPS(80)
BENCH_LOOPS(96)

void bench_sfence(void)
{
	asm volatile("sfence" ::: "memory");
}
