/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compiler.h - the two attributes of the kernel's compiler.h the tools
 * use, spelt as the kernel spells them, so that every C tool builds from
 * a checkout without the kernel tree (make merge on a CI runner that only
 * downloads results).
 */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

#ifndef __printf
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn __attribute__((__noreturn__))
#endif

#endif /* LIB_COMPILER_H */
