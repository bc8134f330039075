/* SPDX-License-Identifier: GPL-2.0 */
/*
 * size.h - a size as the agent's options and the model's arguments take
 * it: decimal digits, then an optional K, M or G; no sign, no hex, and
 * nothing that wraps when shifted.  0, or -1 when s is no such size.
 * Shared by the guest agent and the plugin (both include it).
 */
#ifndef BENCH_VM_SIZE_H
#define BENCH_VM_SIZE_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int parse_size(const char *s, unsigned long long *v)
{
	const char *units = "KMG", *u;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	u = *end ? strchr(units, *end) : NULL;
	if (u) {
		int shift = 10 * (u - units + 1);

		if (*v > ~0ULL >> shift)
			return -1;
		*v <<= shift;
		end++;
	}
	return *end ? -1 : 0;
}

#endif /* BENCH_VM_SIZE_H */
