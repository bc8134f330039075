/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the kernel's linux/linkage.h: just enough for
 * arch/x86/lib/memcpy_64.S and copy_user_64.S to assemble unchanged.
 * RET is a plain ret: the bench measures the copy, not the return thunk
 * that a retbleed-mitigated kernel would add to every variant alike.
 */
#ifndef BENCH_SHIM_LINKAGE_H
#define BENCH_SHIM_LINKAGE_H

#define RET ret

#define SYM_FUNC_START(name)	\
	.globl name;		\
	.type name, @function;	\
	.p2align 4;		\
	name:

/* memcpy_orig stays local in the kernel: keep it so (no PLT, no export). */
#define SYM_FUNC_START_LOCAL(name)	\
	.type name, @function;		\
	.p2align 4;			\
	name:

#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)

#define SYM_FUNC_END(name) .size name, . - name

#define SYM_FUNC_ALIAS_MEMFUNC(alias, name)	\
	.globl alias;				\
	.type alias, @function;			\
	.set alias, name

#endif
