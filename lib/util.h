/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - what every C tool of the toolkit needs: its name in messages,
 * errors in the house format, allocation that cannot fail silently.
 *
 * API, in call order:
 *   prog_set("ci-report")        once, first thing in main()
 *   die(fmt, ...)                "prog: <fmt>" on stderr, exit 1
 *   warn(fmt, ...)               "prog: warning: <fmt>" on stderr
 *   xrealloc, xcalloc, xstrdup, xasprintf   or die "memory: out of memory"
 *   streq(a, b)                  NULL reads as ""
 *
 * Messages follow "prog: step: what: why", with what to do; callers add
 * no newline.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>

#include "compiler.h"	/* __printf, __noreturn */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void prog_set(const char *name);
const char *prog_name(void);
__noreturn __printf(1, 2) void die(const char *fmt, ...);
__printf(1, 2) void warn(const char *fmt, ...);
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
__printf(1, 2) char *xasprintf(const char *fmt, ...);
int streq(const char *a, const char *b);

#endif /* UTIL_H */
