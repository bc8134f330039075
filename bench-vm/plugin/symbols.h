/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.h - the kernel's text symbols from its System.map, to name the
 * function of a guest instruction address.
 */
#ifndef BENCH_VM_SYMBOLS_H
#define BENCH_VM_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbols {
	size_t n;		/* text symbols, by address */
	uint64_t *addr;
	char **name;
	uint64_t text_end;	/* _etext, or the last symbol's address + 1 */
};

/* Functions beyond the symbols: user space, and kernel text not in the map. */
#define SYM_USER(s) ((s)->n)
#define SYM_UNKNOWN(s) ((s)->n + 1)
#define SYM_COUNT(s) ((s)->n + 2)

/*
 * Read @path (System.map: "address type name" lines); text symbols (t, T,
 * w, W) only.  0, or -1 with *@why and errno set.  @path NULL: no symbols,
 * every kernel address is "[kernel]".
 */
int symbols_load(struct symbols *s, const char *path, const char **why);
/* The function index of @vaddr: a symbol, SYM_USER or SYM_UNKNOWN. */
size_t symbols_find(const struct symbols *s, uint64_t vaddr);
const char *symbols_name(const struct symbols *s, size_t idx);
void symbols_free(struct symbols *s);

#endif
