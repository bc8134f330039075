/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim-kernel.h - what the tree's memcpy_flushcache() text (from
 * arch/x86/include/asm/string_64.h) and __memcpy_flushcache() text (from
 * arch/x86/lib/usercopy_64.c) need to compile in user space.  bench/gen.sh
 * extracts that text verbatim from the commit under test; only the
 * kernel helpers below are stand-ins.
 */
#ifndef BENCH_SHIM_KERNEL_H
#define BENCH_SHIM_KERNEL_H

#include <stddef.h>
/* glibc's sys/cdefs.h defines __always_inline as the kernel does */
#include <sys/cdefs.h>

/* as asm-generic/int-ll64.h has them */
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define ALIGN(x, a) ({ __typeof__(x) __mask = (__typeof__(x))(a) - 1;	\
		       ((x) + __mask) & ~__mask; })
#define min_t(type, x, y) ({ type __x = (x); type __y = (y);		\
			     __x < __y ? __x : __y; })

/* x86_clflush_size is read from CPUID leaf 1 at load time (loops.c). */
struct bench_cpuinfo_x86 {
	u16 x86_clflush_size;
};

extern struct bench_cpuinfo_x86 boot_cpu_data;

/*
 * The kernel's clwb() is an alternative: CLFLUSH, CLFLUSHOPT or CLWB by
 * CPU feature.  The bench requires CLWB (copy-bench checks CPUID before
 * it runs a flushcache case) and uses the CLWB branch.
 */
#define clwb(p) bench_clwb(p)
static inline void bench_clwb(void *p)
{
	asm volatile("clwb %0" : "+m" (*(char *)p));
}

/*
 * The cached head/tail of __memcpy_flushcache() calls memcpy(): the C
 * library's here, the kernel's __memcpy in the kernel.  Only unaligned
 * heads and sub-4-byte tails take that path.
 */
void *memcpy(void *dst, const void *src, size_t n);

void __memcpy_flushcache(void *dst, const void *src, size_t cnt);

#endif /* BENCH_SHIM_KERNEL_H */
