// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - errors and allocation for the C tools.  See util.h.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* set once by main(), read by every message: the one piece of state */
static const char *prog = "x86-copy-series";

void prog_set(const char *name)
{
	prog = name;
}

const char *prog_name(void)
{
	return prog;
}

/* "prog: <what><fmt>\n" on stderr: the one shape of die() and warn() */
static void vmsg(const char *what, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", prog, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(1);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("memory: out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("memory: out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		die("memory: out of memory");
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		die("memory: out of memory");
	return s;
}

int streq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}
