// SPDX-License-Identifier: GPL-2.0
/// A struct page template copied with memcpy_nontemporal() must be under
/// the ZONE_DEVICE_PAGE_TEMPLATE guard: KASAN, KMSAN and DEBUG_PAGE_REF
/// builds must initialise each struct page in place (mm/mm_init.c).  And a
/// struct page copied out of line through __memcpy_flushcache() misses the
/// inline fastpaths the series adds for it (64/80/96 bytes).
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

@guarded@
position p;
expression d, s, n;
@@

if (ZONE_DEVICE_PAGE_TEMPLATE) {
<...
memcpy_nontemporal@p(d, s, n);
...>
} else { ... }

@guarded1@
position p;
expression d, s, n;
@@

if (ZONE_DEVICE_PAGE_TEMPLATE) {
<...
memcpy_nontemporal@p(d, s, n);
...>
}

@unguarded@
struct page T;
expression d;
position p != {guarded.p, guarded1.p};
@@

memcpy_nontemporal@p(d, &T, ...)

@outofline@
struct page T;
expression d, s;
position p;
@@

(
__memcpy_flushcache@p(d, s, sizeof(struct page))
|
__memcpy_flushcache@p(d, s, sizeof(T))
|
__memcpy_flushcache@p(d, &T, ...)
)

@script:python depends on report@
p << unguarded.p;
T << unguarded.T;
@@

coccilib.report.print_report(p[0],
	"error: memcpy_nontemporal() of the struct page template %s outside 'if (ZONE_DEVICE_PAGE_TEMPLATE)': KASAN/KMSAN/DEBUG_PAGE_REF builds need the in-place path" % T)

@script:python depends on report@
p << outofline.p;
@@

coccilib.report.print_report(p[0],
	"warning: a struct page copied out of line with __memcpy_flushcache(): use memcpy_flushcache() or memcpy_nontemporal() for the inline fastpath")
