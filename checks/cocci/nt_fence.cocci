// SPDX-License-Identifier: GPL-2.0
/// Non-temporal stores (memcpy_nontemporal(), memcpy_flushcache(), MOVNTI)
/// are weakly ordered: other CPUs and devices may see them after later
/// stores of the CPU that made them.  So a store fence
/// (memcpy_nontemporal_fence(), wmb(), pmem_wmb(), sfence) must come after
/// them on every path before the function returns: its caller publishes
/// what it wrote.  The CPU that stored reads its own stores back in
/// program order, so a read-back needs no fence.  Nothing is asked before
/// cond_resched() or schedule(): with full preemption the task can move at
/// any instruction, no streaming-store user in the kernel fences for that,
/// and on x86 the context switch orders the stores (it takes the runqueue
/// lock with a locked instruction).  A static function may leave the fence
/// to its callers, three levels deep (a helper's static caller, its static
/// caller, and that one's caller).  The copy primitives themselves
/// (memcpy_flushcache(), movnti_*()...) are not judged, their callers are.
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

@isstatic3@
identifier caller2.f3;
@@

static f3(...) { ... }

// the third level: a static caller of that one, called without a fence
// after it (memmap_init_zone_device_order0() in memmap_init_zone_device())
@caller3 exists@
identifier caller2.f3;
identifier f4 != {memcpy_nontemporal, memcpy_flushcache, __memcpy_flushcache,
		  movnti_4, movnti_8, movnti_16, movnti_32, movnti_64};
position c3;
@@

f4(...)
{
... when any
f3@c3(...);
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

@script:python depends on report && caller && !isstatic2@
c << caller.c;
fn << unfenced.fn;
f2 << caller.f2;
@@

coccilib.report.print_report(c[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (fn, f2))

@script:python depends on report && caller2 && !isstatic3@
c2 << caller2.c2;
f2 << caller.f2;
f3 << caller2.f3;
@@

coccilib.report.print_report(c2[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (f2, f3))

@script:python depends on report@
c3 << caller3.c3;
f3 << caller2.f3;
f4 << caller3.f4;
@@

coccilib.report.print_report(c3[0],
	"error: %s() leaves non-temporal stores unfenced and %s() returns without a store fence after calling it" % (f3, f4))
