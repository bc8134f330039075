/* SPDX-License-Identifier: GPL-2.0 */
/*
 * text.h - the text a report, a record or a mail header may hold: UTF-8
 * and no control characters.  Header only, so that every tool has it
 * whatever lib/ objects it links (the record reader, trailers-collect).
 *
 *   text_bad(s, n, &why)   the offset of the first byte of s[0..n) that is
 *                          not of such text, or n; why: what it is
 *
 * Not UTF-8: a byte that starts no character, a sequence cut short, an
 * overlong form, a surrogate (U+D800..U+DFFF), a code point beyond
 * U+10FFFF.  A control character: C0 (U+0000..U+001F: NUL, a tab, a line
 * end, an escape that a terminal reads as a command), DEL, C1
 * (U+0080..U+009F).  A text that may hold blanks makes its tabs spaces
 * before it asks.
 */
#ifndef TEXT_H
#define TEXT_H

#include <stddef.h>

static inline size_t text_bad(const char *s, size_t n, const char **why)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, len;
	unsigned long c, min;

	while (i < n) {
		c = u[i];
		if (c < 0x20 || c == 0x7f) {
			*why = "a control character";
			return i;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			c &= 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			c &= 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			c &= 0x07;
			min = 0x10000;
		} else {
			*why = "a byte that is not UTF-8";
			return i;
		}
		if (n - i < len) {
			*why = "a byte that is not UTF-8";
			return i;
		}
		for (k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80) {
				*why = "a byte that is not UTF-8";
				return i;
			}
			c = (c << 6) | (u[i + k] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
			*why = "a byte that is not UTF-8";
			return i;
		}
		if (c <= 0x9f) {
			*why = "a control character";
			return i;
		}
		i += len;
	}
	*why = NULL;
	return n;
}

#endif /* TEXT_H */
