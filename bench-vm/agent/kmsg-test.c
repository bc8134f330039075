// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg-test.c - run the /dev/kmsg parser (kmsg.c) on fixture lines.
 *
 * Each line of stdin is one /dev/kmsg record; a literal "\n" in it stands
 * for a newline (continuation lines).  Each record gives one line out:
 *   memmap seq=S pages=N ms=M   the memmap_init_zone_device line
 *   other seq=S                 another message
 *   bad-record                  not a /dev/kmsg record
 *   bad-memmap seq=S            the memmap line, but not in its format
 */
#include <stdio.h>
#include <string.h>

#include "kmsg.h"

int main(void)
{
	char line[4096], rec_buf[4096];
	struct kmsg_rec rec;
	unsigned long pages, ms;
	size_t i, n;
	int r;

	while (fgets(line, sizeof(line), stdin)) {
		for (i = 0, n = 0; line[i] && line[i] != '\n'; i++) {
			if (line[i] == '\\' && line[i + 1] == 'n') {
				rec_buf[n++] = '\n';
				i++;
			} else {
				rec_buf[n++] = line[i];
			}
		}
		if (kmsg_parse(rec_buf, n, &rec)) {
			puts("bad-record");
			continue;
		}
		r = kmsg_memmap(&rec, &pages, &ms);
		if (r > 0)
			printf("memmap seq=%llu pages=%lu ms=%lu\n", rec.seq,
			       pages, ms);
		else if (r == 0)
			printf("other seq=%llu\n", rec.seq);
		else
			printf("bad-memmap seq=%llu\n", rec.seq);
	}
	return 0;
}
