// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the LRU cache level of cache.h.  Each set is kept most
 * recent first, so a hit on the most recent line (the common case of a
 * copy loop) costs one compare.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"

int cache_init(struct cache *c, uint64_t size, unsigned int ways,
	       unsigned int line_size, const char **why)
{
	uint64_t sets;

	memset(c, 0, sizeof(*c));
	if (!ways || !line_size || size % ((uint64_t)ways * line_size)) {
		*why = "the size is not a multiple of ways * line size";
		return -1;
	}
	sets = size / ((uint64_t)ways * line_size);
	if (!sets || (sets & (sets - 1)) || sets > (1u << 24)) {
		*why = "the number of sets, size / (ways * line), is not a power of two up to 2^24";
		return -1;
	}
	c->size = size;
	c->ways = ways;
	c->sets = (unsigned int)sets;
	c->tags = calloc(sets * ways, sizeof(*c->tags));
	if (!c->tags) {
		*why = "out of memory";
		return -1;
	}
	return 0;
}

void cache_reset(struct cache *c)
{
	memset(c->tags, 0, (size_t)c->sets * c->ways * sizeof(*c->tags));
}

void cache_free(struct cache *c)
{
	free(c->tags);
	c->tags = NULL;
}

static uint64_t *set_of(struct cache *c, uint64_t line)
{
	return c->tags + (size_t)(line & (c->sets - 1)) * c->ways;
}

int cache_access(struct cache *c, uint64_t line, int dirty, uint64_t *victim)
{
	uint64_t *set = set_of(c, line), key = (line + 1) << 1, e;
	unsigned int i;

	*victim = 0;
	if ((set[0] & ~1ull) == key) {
		set[0] |= !!dirty;
		return 1;
	}
	for (i = 1; i < c->ways; i++)
		if ((set[i] & ~1ull) == key)
			break;
	if (i < c->ways) {
		e = set[i] | !!dirty;
		memmove(set + 1, set, i * sizeof(*set));
		set[0] = e;
		return 1;
	}
	*victim = set[c->ways - 1];
	memmove(set + 1, set, (c->ways - 1) * sizeof(*set));
	set[0] = key | !!dirty;
	return 0;
}

uint64_t cache_evict(struct cache *c, uint64_t line)
{
	uint64_t *set = set_of(c, line), key = (line + 1) << 1, e;
	unsigned int i;

	for (i = 0; i < c->ways; i++)
		if ((set[i] & ~1ull) == key)
			break;
	if (i == c->ways)
		return 0;
	e = set[i];
	memmove(set + i, set + i + 1, (c->ways - 1 - i) * sizeof(*set));
	set[c->ways - 1] = 0;
	return e;
}

int cache_mark_dirty(struct cache *c, uint64_t line)
{
	uint64_t *set = set_of(c, line), key = (line + 1) << 1;
	unsigned int i;

	for (i = 0; i < c->ways; i++)
		if ((set[i] & ~1ull) == key) {
			set[i] |= 1;
			return 1;
		}
	return 0;
}

uint64_t cache_peek(const struct cache *c, uint64_t line)
{
	const uint64_t *set = c->tags + (size_t)(line & (c->sets - 1)) * c->ways;
	uint64_t key = (line + 1) << 1;
	unsigned int i;

	for (i = 0; i < c->ways; i++)
		if ((set[i] & ~1ull) == key)
			return set[i];
	return 0;
}
