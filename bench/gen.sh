#!/bin/sh
# bench/gen.sh SPEC OUTDIR: build the tree's copy routines of one commit
# into OUTDIR/variants.so, for copy-bench to load.
#
# SPEC is a kernel revision (any rev of the kernel repository), a revision
# with diffs on top (REV+file.diff[+file.diff...], e.g. the seed patches
# before the series is applied), or dir:PATH, a directory holding the
# arch/x86/... files (the tests use it on modified copies).
#
# What is built (the variant table is bench/variants.def):
#   arch/x86/lib/memcpy_64.S and copy_user_64.S, assembled unchanged through
#     bench/shim once per simulated feature set {ERMS, FSRM} = 00 01 10 11,
#     the ALTERNATIVE branches chosen by -DBENCH_ERMS/-DBENCH_FSRM; the
#     symbols of set EF get the prefix mEF_ (memcpy) or cEF_ (copy_user),
#     so the four builds link into one object;
#   memcpy_flushcache() (arch/x86/include/asm/string_64.h) and
#     __memcpy_flushcache() + clean_cache_range() (arch/x86/lib/usercopy_64.c),
#     their text extracted verbatim and compiled with bench/kernel/*.c.
# The extracted C text must have a reviewed sha256 in bench/regions.sha256
# (drift check): the shim's stand-ins (clwb, boot_cpu_data, ...) were
# written for that text, so new text is refused until someone has looked.
set -eu
# shellcheck disable=SC2034 # read by scripts/lib.sh
PROG=bench-gen
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

[ $# = 2 ] || usage_die "gen.sh SPEC OUTDIR (SPEC: REV, REV+a.diff[+b.diff], dir:PATH)"
SPEC=$1
DEST=$2
CC=${CC:-gcc}
FILES='arch/x86/lib/memcpy_64.S arch/x86/lib/copy_user_64.S arch/x86/include/asm/string_64.h arch/x86/lib/usercopy_64.c'
SHIM=$TOP/bench/shim
KDIR=$TOP/bench/kernel

rm -rf "$DEST"
mkdir -p "$DEST/src"

# 1. the sources of the commit under test
case $SPEC in
dir:*)
	SRCDIR=${SPEC#dir:}
	for f in $FILES Makefile; do
		[ -f "$SRCDIR/$f" ] || [ "$f" = Makefile ] ||
			die "sources: '$SRCDIR/$f' is missing: dir:PATH must hold the kernel's arch/x86 files"
		[ -f "$SRCDIR/$f" ] || continue
		mkdir -p "$DEST/src/$(dirname "$f")"
		cp "$SRCDIR/$f" "$DEST/src/$f"
	done
	COMMIT=$SPEC
	;;
*)
	REV=${SPEC%%+*}
	COMMIT=$(kgit rev-parse --verify -q "$REV^{commit}") ||
		die "sources: '$REV' is not a commit in $(kernel_repo): give a commit id or ref (e.g. $REF_NS/base)"
	for f in $FILES Makefile; do
		mkdir -p "$DEST/src/$(dirname "$f")"
		kgit show "$COMMIT:$f" >"$DEST/src/$f" ||
			die "sources: cannot read '$f' at $COMMIT"
	done
	rest=${SPEC#"$REV"}
	while [ -n "$rest" ]; do
		rest=${rest#+}
		d=${rest%%+*}
		rest=${rest#"$d"}
		[ -f "$d" ] || die "sources: diff '$d' not found"
		patch -s -p1 -d "$DEST/src" --no-backup-if-mismatch -r - <"$d" >"$DEST/patch.log" 2>&1 ||
			die "sources: '$d' does not apply to $COMMIT: $(head -n 3 "$DEST/patch.log" | tr '\n' ' ')"
		COMMIT=$COMMIT+$(basename "$d" .diff)
	done
	;;
esac
S=$DEST/src

# The kernel version of the tree, for the records.
if [ -f "$S/Makefile" ]; then
	awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
	     END {if (v != "") print v "." p "." s}' "$S/Makefile" >"$DEST/kernel"
else
	: >"$DEST/kernel"
fi
printf '%s\n' "$COMMIT" >"$DEST/commit"

# 2. the C text, extracted verbatim.
# region FILE FIRST LAST: from the first line matching FIRST to the first
# line "}" at column 0 after the first line matching LAST.
region() {
	awk -v first="$2" -v last="$3" '
		!on && $0 ~ first { on = 1 }
		on { print }
		on && !seen && $0 ~ last { seen = 1 }
		on && seen && /^}/ { found = 1; exit }
		END { exit !found }' "$1"
}
region "$S/arch/x86/include/asm/string_64.h" \
	'^void __memcpy_flushcache\(void \*dst, const void \*src, size_t cnt\);' \
	'^static __always_inline void memcpy_flushcache\(' >"$DEST/string_64-region.h" ||
	die "extract: no memcpy_flushcache() after the __memcpy_flushcache() declaration in arch/x86/include/asm/string_64.h: the bench's extraction needs updating"
region "$S/arch/x86/lib/usercopy_64.c" '^static void clean_cache_range\(' \
	'^static void clean_cache_range\(' >"$DEST/usercopy-region.c" ||
	die "extract: no clean_cache_range() in arch/x86/lib/usercopy_64.c: the bench's extraction needs updating"
echo >>"$DEST/usercopy-region.c"
region "$S/arch/x86/lib/usercopy_64.c" '^void __memcpy_flushcache\(' \
	'^void __memcpy_flushcache\(' >>"$DEST/usercopy-region.c" ||
	die "extract: no __memcpy_flushcache() in arch/x86/lib/usercopy_64.c: the bench's extraction needs updating"

# 3. drift check: every extracted region must have been reviewed.
for r in string_64-region.h usercopy-region.c; do
	sum=$(sha256sum <"$DEST/$r" | cut -d' ' -f1)
	grep -q "^$sum  $r " "$TOP/bench/regions.sha256" ||
		die "drift: the tree's $r text (sha256 $sum, $DEST/$r) is not one bench/shim was reviewed against: check that bench/kernel/shim-kernel.h still models what it calls, then add '$sum  $r <commit or patch>' to bench/regions.sha256"
done

# 4. assemble the .S files once per feature set, rename, link.
ASFLAGS="-c -x assembler-with-cpp -D__ASSEMBLY__ -I$SHIM"
KCFLAGS="-O2 -fPIC -std=gnu11 -Wall -fno-strict-aliasing -mno-red-zone -mno-sse -mno-mmx -mno-avx -fno-omit-frame-pointer -I$KDIR -I$DEST"
run() {
	[ "${V:-}" = 1 ] && printf '%s\n' "$*" >&2
	"$@" >"$DEST/cmd.log" 2>&1 || {
		cat "$DEST/cmd.log" >&2
		die "build: '$*' failed (log above)"
	}
}
OBJS=
for erms in 0 1; do
	for fsrm in 0 1; do
		f=$erms$fsrm
		D="-DBENCH_ERMS=$erms -DBENCH_FSRM=$fsrm"
		# shellcheck disable=SC2086 # compiler flags, a word each
		run "$CC" $ASFLAGS $D -o "$DEST/memcpy-$f.o" "$S/arch/x86/lib/memcpy_64.S"
		run objcopy --prefix-symbols="m${f}_" "$DEST/memcpy-$f.o"
		# shellcheck disable=SC2086 # compiler flags, a word each
		run "$CC" $ASFLAGS $D -o "$DEST/cu-$f.o" "$S/arch/x86/lib/copy_user_64.S"
		# shellcheck disable=SC2086 # compiler flags, a word each
		run "$CC" $ASFLAGS $D -o "$DEST/call-$f.o" "$KDIR/copy_user_call.S"
		run ld -r -o "$DEST/copy_user-$f.o" "$DEST/cu-$f.o" "$DEST/call-$f.o"
		run objcopy --prefix-symbols="c${f}_" "$DEST/copy_user-$f.o"
		OBJS="$OBJS $DEST/memcpy-$f.o $DEST/copy_user-$f.o"
	done
done
# shellcheck disable=SC2086 # compiler flags, a word each
run "$CC" $KCFLAGS -c -o "$DEST/loops.o" "$KDIR/loops.c"
# shellcheck disable=SC2086 # compiler flags, a word each
run "$CC" $KCFLAGS -c -o "$DEST/usercopy.o" "$KDIR/usercopy.c"
# -Bsymbolic: calls between the tree's functions (jmp memcpy_orig, call
# rep_movs_alternative) bind directly, without a PLT, as in the kernel.
# shellcheck disable=SC2086 # compiler flags, a word each
run "$CC" -shared -Wl,-Bsymbolic -Wl,-z,noexecstack -o "$DEST/variants.so" \
	$OBJS "$DEST/loops.o" "$DEST/usercopy.o"
rm -f "$DEST/cmd.log"
