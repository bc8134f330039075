#!/bin/sh
# checks/codegen.sh code (and codegen-norm.awk) on objects built here from
# a small C file that has the shape of the measured path: a root calling
# a static helper, a function of another object and memcpy through a
# 64-byte struct copy.  Built twice with the same flags, the two "builds"
# compare equal; at -Os against -O2 the first differing instruction of
# the root is named with its index and offset, exit 1; a helper that one
# build inlines is named as in one build only; a root an object lacks is
# a finding; a missing object is exit 2 naming it, never a pass.
# Addresses and the numbers of .constprop clones are not differences.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
CODEGEN="sh $TOP/checks/codegen.sh"
need cmd:objdump

# build DIR FLAGS...: DIR/mm/mm_init.o, mm/page_alloc.o,
# arch/x86/lib/usercopy_64.o, arch/x86/lib/memcpy_64.o from the sources
# below, compiled with FLAGS
build() {
	d=$1
	shift
	mkdir -p "$d/mm" "$d/arch/x86/lib" &&
	cat >mm_init.c <<'EOF' &&
struct page { unsigned long w[8]; };
void set_pageblock_migratetype(struct page *p, int mt);
void *memcpy(void *d, const void *s, unsigned long n);
static void init_one(struct page *p, const struct page *t, unsigned long pfn)
{
	*p = *t;
	p->w[1] = pfn << 12;
	if (!(pfn & 511))
		set_pageblock_migratetype(p, 4);
}
#ifdef SPLIT
__attribute__((noinline, noclone))
#endif
static void copy_all(struct page *p, const struct page *t, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		init_one(p + i, t, i);
}
void memmap_init_zone_device(struct page *p, unsigned long n)
{
	struct page t = { { 1, 2, 3, 4, 5, 6, 7, 8 } };

	copy_all(p, &t, n);
	memcpy(p, &t, n);
}
EOF
	printf 'void set_pageblock_migratetype(unsigned long *p, int mt) { p[0] |= mt; }\n' >page_alloc.c &&
	printf 'void __memcpy_flushcache(char *d, const char *s, unsigned long n) { while (n--) *d++ = *s++; }\n' >usercopy.c &&
	printf '.text\n.globl __memcpy\n__memcpy:\n\tmovq %%rdi, %%rax\n\tmovq %%rdx, %%rcx\n\trep movsb\n\tret\n' >memcpy.S &&
	gcc -c "$@" -o "$d/mm/mm_init.o" mm_init.c &&
	gcc -c "$@" -o "$d/mm/page_alloc.o" page_alloc.c &&
	gcc -c "$@" -o "$d/arch/x86/lib/usercopy_64.o" usercopy.c &&
	gcc -c -o "$d/arch/x86/lib/memcpy_64.o" memcpy.S
}

test_expect_success 'two builds with the same flags are equal; callees outside are named' '
	build a -O2 -fno-pic && build b -O2 -fno-pic &&
	$CODEGEN code a b >out && cat out &&
	! grep -v "^#" out &&
	grep -q "^# not compared (outside the objects above): memcpy$" out
'

test_expect_success 'the path is followed: root, its helpers, the callee in another object' '
	build a -O2 -fno-pic -DSPLIT &&
	objdump -d -r -w --no-show-raw-insn a/mm/mm_init.o |
		awk -v roots=memmap_init_zone_device -f "$TOP/checks/codegen-norm.awk" >norm &&
	cut -f 1,2 norm | grep "^F" | sort -u >funcs && cat funcs &&
	printf "F\tcopy_all\nF\tmemmap_init_zone_device\n" >want && cmp want funcs &&
	grep -q "^X	copy_all	set_pageblock_migratetype$" norm &&
	! grep "	0x[0-9a-f]* <" norm &&
	grep -q "call -> copy_all" norm
'

test_expect_success '-Os against -O2: the first differing instruction, by index and offset' '
	build a -O2 -fno-pic && build b -Os -fno-pic &&
	expect_fail $CODEGEN code a b && cat out &&
	grep -E "^mm/mm_init.o: memmap_init_zone_device: instruction [0-9]+ \(\+0x[0-9a-f]+\) differs: Debian.s .+, the guest.s .+$" out &&
	grep -q "^arch/x86/lib/usercopy_64.o: __memcpy_flushcache: " out
'

test_expect_success 'a helper inlined by one build only is named' '
	build a -O2 -fno-pic -DSPLIT && build b -O2 -fno-pic &&
	expect_fail $CODEGEN code a b && cat out &&
	grep -q "^mm/mm_init.o: copy_all: in Debian.s build only (the guest.s inlines it or has none)$" out
'

test_expect_success 'a root the objects lack is a finding; a missing object is exit 2' '
	build a -O2 -fno-pic && build b -O2 -fno-pic &&
	objcopy --strip-symbol=memmap_init_zone_device b/mm/mm_init.o b/mm/mm_init.o 2>/dev/null ||
		objcopy -N memmap_init_zone_device b/mm/mm_init.o &&
	rc=0 && $CODEGEN code a b >out 2>err || rc=$? && cat out err && [ "$rc" != 0 ] &&
	rm b/arch/x86/lib/memcpy_64.o &&
	rc=0 && $CODEGEN code a a >/dev/null && $CODEGEN code a b >out 2>err || rc=$? && cat err &&
	[ "$rc" = 2 ] && grep -q "b/arch/x86/lib/memcpy_64.o is missing" err
'

test_expect_success 'usage: a mode and two builds' '
	rc=0 && $CODEGEN code a 2>err || rc=$? && [ "$rc" = 2 ] && grep -q usage err &&
	rc=0 && $CODEGEN nope a b 2>err || rc=$? && [ "$rc" = 2 ]
'

done_testing
