// SPDX-License-Identifier: GPL-2.0
/*
 * symbols.c - System.map reader of symbols.h.  User space is every
 * address below the kernel half (bit 63 clear); the agent is the only
 * program of the guest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

static int add(struct symbols *s, size_t *cap, uint64_t addr, const char *name)
{
	if (s->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		uint64_t *a = realloc(s->addr, ncap * sizeof(*a));
		char **n;

		if (!a)
			return -1;
		s->addr = a;
		n = realloc(s->name, ncap * sizeof(*n));
		if (!n)
			return -1;
		s->name = n;
		*cap = ncap;
	}
	s->name[s->n] = strdup(name);
	if (!s->name[s->n])
		return -1;
	s->addr[s->n++] = addr;
	return 0;
}

int symbols_load(struct symbols *s, const char *path, const char **why)
{
	char line[512], type, name[400];
	unsigned long long addr;
	size_t cap = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		*why = "cannot open it";
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3) {
			*why = "a line is not 'address type name'";
			errno = EINVAL;
			goto fail;
		}
		if (!strcmp(name, "_etext")) {
			s->text_end = addr;
			continue;
		}
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (s->n && addr < s->addr[s->n - 1]) {
			*why = "its text symbols are not sorted by address";
			errno = EINVAL;
			goto fail;
		}
		if (add(s, &cap, addr, name)) {
			*why = "out of memory";
			goto fail;
		}
	}
	if (ferror(f)) {
		*why = "read error";
		goto fail;
	}
	fclose(f);
	if (!s->n) {
		*why = "no text symbols in it";
		errno = EINVAL;
		symbols_free(s);
		return -1;
	}
	if (!s->text_end || s->text_end <= s->addr[s->n - 1])
		s->text_end = s->addr[s->n - 1] + 1;
	return 0;
fail:
	fclose(f);
	symbols_free(s);
	return -1;
}

size_t symbols_find(const struct symbols *s, uint64_t vaddr)
{
	size_t lo = 0, hi = s->n;

	if (!(vaddr >> 63))
		return SYM_USER(s);
	if (!s->n || vaddr < s->addr[0] || vaddr >= s->text_end)
		return SYM_UNKNOWN(s);
	/* the last symbol at or below vaddr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->addr[mid] <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const char *symbols_name(const struct symbols *s, size_t idx)
{
	if (idx < s->n)
		return s->name[idx];
	if (idx == SYM_USER(s))
		return "[user]";
	return s->n ? "[kernel, not in System.map]" : "[kernel]";
}

void symbols_free(struct symbols *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->addr);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
