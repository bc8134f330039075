// SPDX-License-Identifier: GPL-2.0
/// Non-temporal stores (memcpy_nontemporal(), memcpy_flushcache(), MOVNTI)
/// are weakly ordered: other CPUs and devices may see them after later
/// stores of the CPU that made them.  So a store fence
/// (memcpy_nontemporal_fence(), wmb(), pmem_wmb(), sfence) must come after
/// them on every path before the function returns (its caller publishes
/// what it wrote), and before cond_resched() or schedule(): the task may
/// move to another CPU, whose fence would not order them.  The CPU that
/// stored reads its own stores back in program order, so a read-back needs
/// no fence.  A static function may leave the fence to its callers, two
/// levels deep (a helper's caller, and that caller's caller when it is
/// static too).  The copy primitives themselves (memcpy_flushcache(),
/// movnti_*()...) are not judged, their callers are.
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

// a path from a non-temporal copy to cond_resched() or schedule(), without
// fence
@resched exists@
identifier nt = {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		 movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
identifier rs = {cond_resched, schedule};
position p, q;
@@

nt@p(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
rs@q();

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

// the same helper called before cond_resched() or schedule(), without fence
@caller_resched exists@
identifier unfenced.fn;
identifier rs = {cond_resched, schedule};
position c, q;
@@

fn@c(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
rs@q();

@isstatic2@
identifier caller.f2;
@@

static f2(...) { ... }

// the second level: a static caller of a helper, called without a fence
// after it (memmap_init_compound() in memmap_init_zone_device())
@caller2 exists@
identifier caller.f2;
identifier f3 != {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		  movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
position c2;
@@

f3(...)
{
... when any
f2@c2(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
}

@caller2_resched exists@
identifier caller.f2;
identifier rs = {cond_resched, schedule};
position c2, q;
@@

f2@c2(...);
... when != memcpy_nontemporal_fence();
    when != wmb();
    when != pmem_wmb();
    when != sfence();
rs@q();

@script:python depends on report && unfenced && !isstatic@
p << unfenced.p;
nt << unfenced.nt;
fn << unfenced.fn;
@@

coccilib.report.print_report(p[0],
	"error: %s() in %s() is not followed by a store fence (memcpy_nontemporal_fence(), wmb()) before it returns" % (nt, fn))

@script:python depends on report@
p << resched.p;
q << resched.q;
nt << resched.nt;
rs << resched.rs;
@@

coccilib.report.print_report(q[0],
	"error: %s() with the non-temporal stores of %s() on line %s in flight: fence first, a fence on another CPU does not order them" % (rs, nt, p[0].line))

@script:python depends on report && caller && !isstatic2@
c << caller.c;
fn << unfenced.fn;
f2 << caller.f2;
@@

coccilib.report.print_report(c[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (fn, f2))

@script:python depends on report@
c << caller_resched.c;
q << caller_resched.q;
fn << unfenced.fn;
rs << caller_resched.rs;
@@

coccilib.report.print_report(q[0],
	"error: %s() with the non-temporal stores of %s() on line %s in flight: fence first, a fence on another CPU does not order them" % (rs, fn, c[0].line))

@script:python depends on report@
c2 << caller2.c2;
f2 << caller.f2;
f3 << caller2.f3;
@@

coccilib.report.print_report(c2[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (f2, f3))

@script:python depends on report@
c2 << caller2_resched.c2;
q << caller2_resched.q;
f2 << caller.f2;
rs << caller2_resched.rs;
@@

coccilib.report.print_report(q[0],
	"error: %s() with the non-temporal stores of %s() on line %s in flight: fence first, a fence on another CPU does not order them" % (rs, f2, c2[0].line))
