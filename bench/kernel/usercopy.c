// SPDX-License-Identifier: GPL-2.0
/*
 * usercopy.c - __memcpy_flushcache() and clean_cache_range() exactly as
 * the commit under test has them in arch/x86/lib/usercopy_64.c (extracted
 * by bench/gen.sh up to each closing brace, so EXPORT_SYMBOL_GPL() stays
 * out).  A translation unit of its own, as in the kernel, so the compiler
 * cannot inline it into the callers in loops.c.
 */
#include "shim-kernel.h"

#include "usercopy-region.c"
