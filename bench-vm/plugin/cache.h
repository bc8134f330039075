/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - one set-associative, write-back cache level with true LRU
 * replacement, as cachegrind models one: no prefetch, no timing.  Lines
 * are addressed by line number (address >> line shift).
 */
#ifndef BENCH_VM_CACHE_H
#define BENCH_VM_CACHE_H

#include <stdint.h>

struct cache {
	uint64_t size;		/* bytes */
	unsigned int ways;
	unsigned int sets;	/* a power of two */
	/*
	 * sets * ways entries, most recently used first in each set: 0 empty,
	 * else (line + 1) << 1 | dirty
	 */
	uint64_t *tags;
};

/*
 * Set up @c for @size bytes of @ways ways of @line_size bytes; 0, or -1
 * when the geometry is not size = ways * line_size * a power of two
 * (then *@why says so).
 */
int cache_init(struct cache *c, uint64_t size, unsigned int ways,
	       unsigned int line_size, const char **why);
void cache_reset(struct cache *c);
void cache_free(struct cache *c);
/*
 * Look @line up; on a hit make it the most recent.  On a miss insert it,
 * evicting the least recent; *@victim is then the evicted entry (0: none).
 * @dirty marks the line written.  Returns 1 on a hit.
 */
int cache_access(struct cache *c, uint64_t line, int dirty, uint64_t *victim);
/* Remove @line if present; returns its entry (0: it was not there). */
uint64_t cache_evict(struct cache *c, uint64_t line);
/* @line's entry if present (0: not there), the LRU order untouched */
uint64_t cache_peek(const struct cache *c, uint64_t line);
/* Mark @line dirty if present, without touching the LRU order; 1 if it was. */
int cache_mark_dirty(struct cache *c, uint64_t line);

static inline int cache_entry_dirty(uint64_t entry)
{
	return entry & 1;
}

static inline uint64_t cache_entry_line(uint64_t entry)
{
	return (entry >> 1) - 1;
}

#endif
