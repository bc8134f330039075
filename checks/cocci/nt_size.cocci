// SPDX-License-Identifier: GPL-2.0
/// A memcpy_flushcache() or memcpy_nontemporal() with a constant size that
/// no inline MOVNTI fastpath of x86's memcpy_flushcache() covers (4, 8, 16,
/// 32, 48, 64, 80, 96 bytes after the series) goes out of line to
/// __memcpy_flushcache(): state the size, add a case, or use a covered one.
/// Only integer literals are judged; a sizeof() depends on the config.
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@r@
expression d, s;
constant C;
position p;
identifier f = {memcpy_flushcache, memcpy_nontemporal};
@@

f@p(d, s, C)

@script:python depends on report@
p << r.p;
C << r.C;
f << r.f;
@@

FASTPATHS = (4, 8, 16, 32, 48, 64, 80, 96)
try:
	n = int(C.rstrip("uUlL"), 0)
except ValueError:
	n = None
if n is not None and n not in FASTPATHS:
	coccilib.report.print_report(p[0],
		"warning: %s() of constant size %d has no fixed-size fastpath (%s): out of line" %
		(f, n, ", ".join(str(x) for x in FASTPATHS)))
