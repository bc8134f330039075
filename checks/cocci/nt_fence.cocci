// SPDX-License-Identifier: GPL-2.0
/// Non-temporal stores (memcpy_nontemporal(), memcpy_flushcache(), MOVNTI)
/// are weakly ordered: a store fence (memcpy_nontemporal_fence(), wmb(),
/// pmem_wmb(), sfence) must come after them on every path before the
/// function returns or before the destination is read back.  A static
/// function may leave the fence to its callers: then each call of it must be
/// followed by a fence before the caller returns (one level deep).  The
/// copy primitives themselves (memcpy_flushcache(), movnti_*()...) are not
/// judged, their callers are.
//
// Confidence: Moderate
// Options: --no-includes --include-headers

virtual report

// a path from a non-temporal copy to the end of the function, without fence
// The copy primitives themselves are unfenced by contract: their callers
// are judged.
@unfenced exists@
identifier fn != {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		  movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
identifier nt = {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		 movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
position p;
@@

fn(...)
{
... when any
nt@p(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
}

// read back before a fence: d->x after nt(d, ...)
@readback exists@
identifier nt = {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache};
expression d;
identifier fld;
position p, q;
@@

nt@p(d, ...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
d->fld@q

@isstatic@
identifier unfenced.fn;
@@

static fn(...) { ... }

// a call of a static helper that leaves its copies unfenced, not followed by
// a fence in its caller
@caller exists@
identifier unfenced.fn;
identifier f2 != {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		  movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
position c;
@@

f2(...)
{
... when any
fn@c(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
}

@script:python depends on report && unfenced && !isstatic@
p << unfenced.p;
nt << unfenced.nt;
fn << unfenced.fn;
@@

coccilib.report.print_report(p[0],
	"error: %s() in %s() is not followed by a store fence (memcpy_nontemporal_fence(), wmb()) before it returns" % (nt, fn))

@script:python depends on report@
c << caller.c;
fn << unfenced.fn;
f2 << caller.f2;
@@

coccilib.report.print_report(c[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (fn, f2))

@script:python depends on report@
p << readback.p;
q << readback.q;
nt << readback.nt;
@@

coccilib.report.print_report(q[0],
	"error: destination of %s() on line %s read back before a store fence" % (nt, p[0].line))
