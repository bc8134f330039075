/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_copy_user(dst, src, len) -> bytes not copied: a C-callable
 * stand-in for copy_user_generic() of arch/x86/include/asm/uaccess_64.h
 * (6.12), which the kernel inlines at every raw_copy_{from,to}_user():
 *
 *	ALTERNATIVE("rep movsb", "call rep_movs_alternative",
 *		    ALT_NOT(X86_FEATURE_FSRM))
 *
 * with len in %rcx, as the kernel's asm constraints put it.  The branch
 * is chosen by the simulated feature set, like the tree's .S files
 * (bench/shim/asm/alternative.h).  stac()/clac() are left out: they are
 * the same two instructions for every variant and do not exist in user
 * space.
 */
#include <linux/linkage.h>
#include <asm/cpufeatures.h>
#include <asm/alternative.h>

	.text
SYM_FUNC_START(bench_copy_user)
	movq %rdx, %rcx
	ALTERNATIVE "call rep_movs_alternative", "rep movsb", X86_FEATURE_FSRM
	movq %rcx, %rax
	RET
SYM_FUNC_END(bench_copy_user)

/* The same call and return with no copy: the call overhead, reported. */
SYM_FUNC_START(bench_nop)
	movq %rdi, %rax
	RET
SYM_FUNC_END(bench_nop)
