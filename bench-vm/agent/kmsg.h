/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsg.h - parse /dev/kmsg records for memmap_init_zone_device()'s
 * pr_debug ("memmap_init_zone_device initialised N pages in Xms").
 *
 * A /dev/kmsg record is "prio,seq,usec,flags[,...];text\n" followed by
 * optional " KEY=VALUE\n" continuation lines (Documentation/ABI/testing/
 * dev-kmsg).  One read() returns one record.
 *
 * API:
 *   r = kmsg_parse(buf, len, &rec)     split a record; 0 or -1 (malformed)
 *   r = kmsg_memmap(&rec, &pages, &ms) 1: the memmap line, 0: another line,
 *                                      -1: the memmap line but unparsable
 */
#ifndef BENCH_VM_KMSG_H
#define BENCH_VM_KMSG_H

#include <stddef.h>

struct kmsg_rec {
	unsigned int prio;		/* syslog facility << 3 | level */
	unsigned long long seq;		/* sequence number: gaps mean loss */
	unsigned long long usec;	/* kernel timestamp */
	const char *text;		/* message, not NUL-terminated */
	size_t text_len;
};

int kmsg_parse(const char *buf, size_t len, struct kmsg_rec *rec);
int kmsg_memmap(const struct kmsg_rec *rec, unsigned long *pages,
		unsigned long *ms);

#endif /* BENCH_VM_KMSG_H */
