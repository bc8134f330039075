// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg.c - parse /dev/kmsg records.  See kmsg.h.
 */
#include <ctype.h>
#include <string.h>

#include "kmsg.h"

/* The format of mm/mm_init.c: "%s initialised %lu pages in %ums\n" */
static const char memmap_prefix[] = "memmap_init_zone_device initialised";

/* Read an unsigned decimal at *p, not past end; 0 on success. */
static int parse_ull(const char **p, const char *end, unsigned long long *v)
{
	const char *s = *p;
	unsigned long long n = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	while (s < end && isdigit((unsigned char)*s)) {
		unsigned long long d = (unsigned long long)(*s - '0');

		if (n > (~0ULL - d) / 10)
			return -1;
		n = n * 10 + d;
		s++;
	}
	*p = s;
	*v = n;
	return 0;
}

int kmsg_parse(const char *buf, size_t len, struct kmsg_rec *rec)
{
	const char *end = buf + len, *p = buf, *semi, *nl;
	unsigned long long prio;

	semi = memchr(buf, ';', len);
	if (!semi)
		return -1;
	if (parse_ull(&p, semi, &prio) || p >= semi || *p++ != ',')
		return -1;
	if (parse_ull(&p, semi, &rec->seq) || p >= semi || *p++ != ',')
		return -1;
	if (parse_ull(&p, semi, &rec->usec) || p >= semi || *p != ',')
		return -1;
	if (prio > 0xffffff)
		return -1;
	rec->prio = (unsigned int)prio;
	rec->text = semi + 1;
	/* the text ends at the first newline; continuation lines follow */
	nl = memchr(rec->text, '\n', (size_t)(end - rec->text));
	rec->text_len = (size_t)((nl ? nl : end) - rec->text);
	return 0;
}

int kmsg_memmap(const struct kmsg_rec *rec, unsigned long *pages,
		unsigned long *ms)
{
	size_t n = sizeof(memmap_prefix) - 1;
	const char *p = rec->text, *end = rec->text + rec->text_len;
	unsigned long long v_pages, v_ms;

	if (rec->text_len < n || memcmp(p, memmap_prefix, n))
		return 0;
	p += n;
	if (p >= end || *p++ != ' ' || parse_ull(&p, end, &v_pages))
		return -1;
	if ((size_t)(end - p) < 10 || memcmp(p, " pages in ", 10))
		return -1;
	p += 10;
	if (parse_ull(&p, end, &v_ms))
		return -1;
	if (end - p != 2 || memcmp(p, "ms", 2))
		return -1;
	*pages = (unsigned long)v_pages;
	*ms = (unsigned long)v_ms;
	return 1;
}
