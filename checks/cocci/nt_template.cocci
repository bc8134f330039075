// SPDX-License-Identifier: GPL-2.0
/// A struct page template is copied into the memmap only under a
/// use_template guard, the flag mm/mm_init.c takes from
/// zone_device_page_template_enabled(): the copies bypass set_page_count(),
/// so while the page_ref_set tracepoint is enabled every struct page must be
/// initialised in place.  The copy is either inside 'if (use_template ...)'
/// itself, or in a static helper whose every call is, or is in a static
/// helper that is (three levels of static helpers: the copy loop, its
/// dispatch by kind of copy, the loop over sections).  And a struct page
/// copied out of line through __memcpy_flushcache() misses the inline
/// fastpaths the series adds for it (64/80/96 bytes).
//
// Confidence: High
// Options: --no-includes --include-headers

virtual report

// a non-temporal copy of a struct page (from a pointer or an on-stack one)
// inside 'if (use_template ...)'
@direct@
position p;
symbol use_template;
struct page *T;
struct page S;
expression d;
statement S2;
@@

(
if (<+... use_template ...+>) {
  <...
(
  memcpy_nontemporal@p(d, T, ...);
|
  memcpy_nontemporal@p(d, &S, ...);
)
  ...>
} else S2
|
if (<+... use_template ...+>) {
  <...
(
  memcpy_nontemporal@p(d, T, ...);
|
  memcpy_nontemporal@p(d, &S, ...);
)
  ...>
}
)

// one in a static helper: its callers are judged instead
@inhelper@
identifier F;
position p;
struct page *T;
struct page S;
expression d;
@@

static F(...) {
  <+...
(
  memcpy_nontemporal@p(d, T, ...);
|
  memcpy_nontemporal@p(d, &S, ...);
)
  ...+>
}

@gcall@
identifier inhelper.F;
position c;
symbol use_template;
statement S2;
@@

(
if (<+... use_template ...+>) { <... F@c(...); ...> } else S2
|
if (<+... use_template ...+>) { <... F@c(...); ...> }
)

// an unguarded call of the helper in another static helper: that one's
// calls are judged instead, and so on, three levels up
@inhelper2@
identifier inhelper.F;
identifier G;
position c2 != gcall.c;
@@

static G(...) {
  <+... F@c2(...) ...+>
}

@ucall@
identifier inhelper.F;
position c != {gcall.c, inhelper2.c2};
@@

F@c(...)

@g2call@
identifier inhelper2.G;
position c;
symbol use_template;
statement S2;
@@

(
if (<+... use_template ...+>) { <... G@c(...); ...> } else S2
|
if (<+... use_template ...+>) { <... G@c(...); ...> }
)

@inhelper3@
identifier inhelper2.G;
identifier H;
position c3 != g2call.c;
@@

static H(...) {
  <+... G@c3(...) ...+>
}

@u2call@
identifier inhelper2.G;
position c != {g2call.c, inhelper3.c3};
@@

G@c(...)

@g3call@
identifier inhelper3.H;
position c;
symbol use_template;
statement S2;
@@

(
if (<+... use_template ...+>) { <... H@c(...); ...> } else S2
|
if (<+... use_template ...+>) { <... H@c(...); ...> }
)

@u3call@
identifier inhelper3.H;
position c != g3call.c;
@@

H@c(...)

@unguarded@
position p != {direct.p, inhelper.p};
struct page *T;
struct page S;
expression d;
@@

(
memcpy_nontemporal@p(d, T, ...)
|
memcpy_nontemporal@p(d, &S, ...)
)

@outofline@
struct page T;
struct page *P;
expression d, s;
position p;
@@

(
__memcpy_flushcache@p(d, s, sizeof(struct page))
|
__memcpy_flushcache@p(d, s, sizeof(T))
|
__memcpy_flushcache@p(d, s, sizeof(*P))
|
__memcpy_flushcache@p(d, &T, ...)
)

@script:python depends on report@
p << unguarded.p;
@@

coccilib.report.print_report(p[0],
	"error: memcpy_nontemporal() of a struct page template outside 'if (use_template ...)': while page_ref_set is traced, every struct page is initialised in place")

@script:python depends on report@
c << ucall.c;
F << inhelper.F;
@@

coccilib.report.print_report(c[0],
	"error: %s() copies a struct page template and is called outside 'if (use_template ...)': while page_ref_set is traced, every struct page is initialised in place" % F)

@script:python depends on report@
c << u2call.c;
G << inhelper2.G;
@@

coccilib.report.print_report(c[0],
	"error: %s() copies a struct page template and is called outside 'if (use_template ...)': while page_ref_set is traced, every struct page is initialised in place" % G)

@script:python depends on report@
c << u3call.c;
H << inhelper3.H;
@@

coccilib.report.print_report(c[0],
	"error: %s() copies a struct page template and is called outside 'if (use_template ...)': while page_ref_set is traced, every struct page is initialised in place" % H)

@script:python depends on report@
p << outofline.p;
@@

coccilib.report.print_report(p[0],
	"warning: a struct page copied out of line with __memcpy_flushcache(): use memcpy_flushcache() or memcpy_nontemporal() for the inline fastpath")
