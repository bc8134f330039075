/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntstore.S - the machine's non-temporal store bandwidth, the physical
 * limit of the ZONE_DEVICE template copy: stores only, no loads, so the
 * figure is what the memory side accepts.
 *
 *   void bench_nt_movnti(void *dst, size_t len)    8-byte MOVNTI, as
 *       __memcpy_flushcache() and the inline fastpaths use
 *   void bench_nt_avx512(void *dst, size_t len)    64-byte VMOVNTDQ; call
 *       only when CPUID says AVX-512F
 * len is a multiple of 64 and dst 64-byte aligned.  Both end with SFENCE,
 * as the series fences before anything reads the pages.
 */
	.text
	.globl bench_nt_movnti
	.type bench_nt_movnti, @function
	.p2align 4
bench_nt_movnti:
	xorl %eax, %eax
	shrq $6, %rsi
	jz 2f
1:	movnti %rax, 0(%rdi)
	movnti %rax, 8(%rdi)
	movnti %rax, 16(%rdi)
	movnti %rax, 24(%rdi)
	movnti %rax, 32(%rdi)
	movnti %rax, 40(%rdi)
	movnti %rax, 48(%rdi)
	movnti %rax, 56(%rdi)
	addq $64, %rdi
	decq %rsi
	jnz 1b
2:	sfence
	ret
	.size bench_nt_movnti, . - bench_nt_movnti

	.globl bench_nt_avx512
	.type bench_nt_avx512, @function
	.p2align 4
bench_nt_avx512:
	vpxord %zmm0, %zmm0, %zmm0
	shrq $6, %rsi
	jz 2f
1:	vmovntdq %zmm0, (%rdi)
	addq $64, %rdi
	decq %rsi
	jnz 1b
2:	sfence
	vzeroupper
	ret
	.size bench_nt_avx512, . - bench_nt_avx512

	.section .note.GNU-stack, "", @progbits
