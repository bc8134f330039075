#!/bin/sh
# copy-bench --selftest (bench/selftest.c) catches every way a copy can be
# wrong, for every kind of variant (memcpy, copy_user, flushcache, the
# fixed-size loops): a store one byte past the end or before the start,
# or far out in the guard bytes; a byte left out; a wrong return value.
# The variants here are a stand-in variants.so made from
# bench/variants.def (a correct byte loop each, broken on demand by
# FAKE_BREAK=symbol:mode,...), so no kernel tree is needed; t0400 runs the
# selftest on the tree's real routines.
# test-parallel: its scratch directories and out/test/bench-selftest-guards
. "$(dirname "$0")/lib.sh"
BENCH=$BIN/copy-bench
need tool:copy-bench

D=$TEST_OUT/bench-selftest-guards
mkdir -p "$D" || bail "cannot create $D"
{
	cat <<'C'
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * FAKE_BREAK=sym:mode,...  modes: over (also store the byte after the
 * end), under (the byte before), farover (the 127th after the end),
 * farunder (the 128th before), short (skip the last byte), ret (return
 * dst + 1, or 1 byte not copied)
 */
static int broken(const char *sym, const char *mode)
{
	const char *b = getenv("FAKE_BREAK");
	char want[128];
	size_t n;

	if (!b)
		return 0;
	n = strlen(sym) + 1 + strlen(mode);
	if (n >= sizeof(want))
		return 0;
	strcpy(want, sym);
	strcat(want, ":");
	strcat(want, mode);
	for (; *b; b += strcspn(b, ","), b += *b == ',')
		if (!strncmp(b, want, n) && (b[n] == ',' || !b[n]))
			return 1;
	return 0;
}

static void copy(const char *sym, void *dst, const void *src, size_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		if (i + 1 < len || !broken(sym, "short"))
			((volatile unsigned char *)d)[i] = s[i];
	if (broken(sym, "over"))
		d[len] = s[len];
	if (broken(sym, "under"))
		d[-1] = s[-1];
	if (broken(sym, "farover"))
		d[len + 126] = s[len + 126] ^ 1;
	if (broken(sym, "farunder"))
		d[-128] = s[-128] ^ 1;
}

void bench_sfence(void)
{
}
C
	awk -F'"' '/^VARIANT\(/ {
		kind = $3; sub(/^, */, "", kind); sub(/,.*/, "", kind)
		sym = $4
		if (kind == "V_MEMCPY")
			printf "void *%s(void *d, const void *s, size_t len)\n{\n\tcopy(\"%s\", d, s, len);\n\treturn broken(\"%s\", \"ret\") ? (char *)d + 1 : d;\n}\n\n", sym, sym, sym
		else if (kind == "V_COPY_USER")
			printf "unsigned long %s(void *d, const void *s, size_t len)\n{\n\tcopy(\"%s\", d, s, len);\n\treturn broken(\"%s\", \"ret\");\n}\n\n", sym, sym, sym
		else if (kind == "V_FC")
			printf "void %s(void *d, const void *s, size_t len)\n{\n\tcopy(\"%s\", d, s, len);\n}\n\n", sym, sym
		else {
			size = $3; sub(/^, *V_LOOP, */, "", size); sub(/,.*/, "", size)
			printf "void %s(void *d, const void *s, size_t count, size_t stride)\n{\n\tfor (size_t i = 0; i < count; i++)\n\t\tcopy(\"%s\", (char *)d + i * stride, s, %d);\n}\n\n", sym, sym, size
		}
	}' "$TOP/bench/variants.def"
} >"$D/fake.c" &&
	gcc -O1 -g -fPIC -shared -Wall -Werror -o "$D/variants.so" "$D/fake.c" >"$D/cc.log" 2>&1 ||
	bail "cannot build the stand-in variants.so: $(cat "$D/cc.log")"
NV=$(grep -c "^VARIANT(" "$TOP/bench/variants.def")

# the breaks, one variant each: symbol:mode variant-name what-the-FAIL-says
BREAKS='m00___memcpy:over memcpy-erms0-fsrm0 past
m10___memcpy:under memcpy-erms1-fsrm0 before
m01___memcpy:farunder memcpy-erms0-fsrm1 farbefore
m11___memcpy:ret memcpy-erms1-fsrm1 pointer
c00_bench_copy_user:over copy_user-erms0-fsrm0 past
c10_bench_copy_user:under copy_user-erms1-fsrm0 before
c01_bench_copy_user:farover copy_user-erms0-fsrm1 farpast
c11_bench_copy_user:ret copy_user-erms1-fsrm1 left
__memcpy_flushcache:over __memcpy_flushcache past
bench_fc_inline_4:under fc-inline-4 before
bench_fc_inline_64:over fc-inline-64 past
bench_fc_outline_16:farover fc-outline-16 farpast
bench_fc_outline_96:short fc-outline-96 last
bench_tmpl_memcpy_80:over tmpl-memcpy-80 past
bench_tmpl_memcpy_96:under tmpl-memcpy-96 before'

test_expect_success 'the stand-in variants pass the selftest unbroken (every variant tested)' '
	"$BENCH" --variants "$D/variants.so" --selftest --seed 7 --cases 200 >out &&
	tail -n 3 out && grep -q "^ok: 0 variant(s) failed" out &&
	! grep -q "^skip " out &&
	[ "$(grep -c "^ok " out)" = $((NV - 1)) ]
'

# check_fail NAME WHAT: out has the FAIL line of variant NAME, saying WHAT
check_fail() {
	line=$(grep "^FAIL $1: " out) || { echo "no FAIL line for $1"; return 1; }
	echo "$line"
	len=$(printf "%s\n" "$line" | sed -n "s/^FAIL [^:]*: len \\([0-9]*\\) .*/\\1/p")
	case $2 in
	past) want="byte $len from dst" ;;
	before) want="byte -1 from dst" ;;
	farpast) want="byte $((len + 126)) from dst" ;;
	farbefore) want="byte -128 from dst" ;;
	last) want="byte $((len - 1)) from dst" ;;
	pointer) want="returned a pointer other than dst" ;;
	left) want="1 bytes reported not copied" ;;
	esac
	case $line in *": $want"*) ;; *) echo "$1: not \"$want\""; return 1 ;; esac
}

test_expect_success 'a store past the end, before the start, far in the guards, a byte short, a wrong return: each caught' '
	FAKE_BREAK=$(printf "%s\n" "$BREAKS" | cut -d" " -f1 | paste -sd,) &&
	echo "FAKE_BREAK=$FAKE_BREAK" &&
	rc=0 && FAKE_BREAK=$FAKE_BREAK "$BENCH" --variants "$D/variants.so" --selftest --seed 7 --cases 200 >out || rc=$? &&
	[ $rc = 1 ] &&
	n=$(printf "%s\n" "$BREAKS" | wc -l) &&
	grep -q "^FAIL: $n variant(s) failed" out &&
	[ "$(grep -c "^FAIL " out)" = "$n" ] &&
	printf "%s\n" "$BREAKS" | {
		while read -r sym name what; do
			check_fail "$name" "$what" || exit 1
		done
	}
'

# Every variant broken at once (each stops at its first failing case, so
# this is quick): a store past the end (odd seeds) or before the start
# (even ones) fails the very first case, aligned, of every variant.  With
# random guard bytes alone a seed can hide it: at seed 89 the byte after
# an aligned empty copy holds its source byte already (22: the byte
# before), so bench/selftest.c makes every guard byte differ from it.
test_expect_success 'a one-byte overrun fails the first case of every variant, whatever the seed' '
	syms=$(sed -n "s/^VARIANT(\"[^\"]*\", *V_[A-Z_]*, *[0-9]*, *\"\([^\"]*\)\".*/\1/p" "$TOP/bench/variants.def") &&
	[ "$(printf "%s\n" "$syms" | wc -l)" = "$NV" ] &&
	for seed in 89 22 1 2; do
		case $seed in 89 | 1) mode=over ;; *) mode=under ;; esac &&
		rc=0 && FAKE_BREAK=$(printf "%s:$mode\n" $syms | paste -sd,) \
			"$BENCH" --variants "$D/variants.so" --selftest --seed $seed --cases 0 >out || rc=$? &&
		[ $rc = 1 ] && grep -q "^FAIL: $((NV - 1)) variant(s) failed" out &&
		while IFS=, read -r name kind size; do
			[ "$name" = nop ] && continue
			[ "$kind" = V_LOOP ] || size=0
			if [ $mode = over ]; then byte=$size; else byte=-1; fi
			grep -q "^FAIL $name: len $size src+0 dst+0: byte $byte from dst" out ||
				{ echo "seed $seed: $name: no first-case FAIL at byte $byte:"; grep "^FAIL $name:" out; exit 1; }
		done <<-EOF || exit 1
		$(sed -n "s/^VARIANT(\"\([^\"]*\)\", *\(V_[A-Z_]*\), *\([0-9]*\),.*/\1,\2,\3/p" "$TOP/bench/variants.def")
		EOF
	done
'
done_testing
