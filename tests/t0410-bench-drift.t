#!/bin/sh
# bench/gen.sh compiles the tree's memcpy_flushcache() and
# __memcpy_flushcache() text through a shim; the drift check refuses text
# the shim was not reviewed against (bench/regions.sha256), and gen.sh's
# other errors name what failed.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
GEN=$TOP/bench/gen.sh
need kernel
BASE=$PIN_BASE

# copy_src: the four files gen.sh reads, from the base, into ./src
copy_src() {
	mkdir -p src/arch/x86/lib src/arch/x86/include/asm &&
	for f in arch/x86/lib/memcpy_64.S arch/x86/lib/copy_user_64.S arch/x86/include/asm/string_64.h arch/x86/lib/usercopy_64.c; do
		git -C "$TOP/kernel-tree" show "$BASE:$f" >"src/$f" || return 1
	done
}

test_expect_success 'unchanged tree text passes the drift check' '
	copy_src && sh "$GEN" "dir:$SCRATCH/src" g && test -f g/variants.so
'

test_expect_success 'a changed memcpy_flushcache() in string_64.h fails the drift check' '
	copy_src &&
	sed -i "s/case 8:/case 8: \/* changed *\//" src/arch/x86/include/asm/string_64.h &&
	expect_fail sh "$GEN" "dir:$SCRATCH/src" g &&
	grep_err "^bench-gen: drift: the tree.s string_64-region.h text \(sha256 [0-9a-f]{64}" &&
	grep_err "add .* to bench/regions.sha256" && test ! -f g/variants.so
'

test_expect_success 'a changed __memcpy_flushcache() in usercopy_64.c fails the drift check' '
	copy_src &&
	sed -i "s/while (size >= 32) {/while (size >= 64) {/" src/arch/x86/lib/usercopy_64.c &&
	expect_fail sh "$GEN" "dir:$SCRATCH/src" g &&
	grep_err "^bench-gen: drift: the tree.s usercopy-region.c text"
'

test_expect_success 'a change outside the extracted functions passes' '
	copy_src &&
	printf "/* unrelated */\n" >>src/arch/x86/include/asm/string_64.h &&
	sed -i "1a /* unrelated */" src/arch/x86/lib/usercopy_64.c &&
	sh "$GEN" "dir:$SCRATCH/src" g
'

test_expect_success 'seed 000 text (reviewed) passes; the diff applies to the base' '
	sh "$GEN" "$BASE+$TOP/bench/seed-diffs/000-flushcache-fastpaths.diff" g &&
	grep -q "movnti_64(dst, src)" g/string_64-region.h
'

test_expect_success 'a tree without __memcpy_flushcache() is an extract error' '
	copy_src && sed -i "s/^void __memcpy_flushcache(/void renamed_flushcache(/" src/arch/x86/lib/usercopy_64.c &&
	expect_fail sh "$GEN" "dir:$SCRATCH/src" g &&
	grep_err "^bench-gen: extract: no __memcpy_flushcache\(\) in arch/x86/lib/usercopy_64.c"
'

test_expect_success 'an unknown revision and a diff that does not apply are named' '
	expect_fail sh "$GEN" no-such-rev g && grep_err "^bench-gen: sources: .no-such-rev. is not a commit" &&
	printf -- "--- a/arch/x86/lib/memcpy_64.S\n+++ b/arch/x86/lib/memcpy_64.S\n@@ -1,1 +1,1 @@\n-no such line\n+x\n" >bad.diff &&
	expect_fail sh "$GEN" "$BASE+$SCRATCH/bad.diff" g &&
	grep_err "^bench-gen: sources: .*bad.diff. does not apply to $BASE"
'

test_expect_success 'an assembly error stops the build, with the command' '
	copy_src && sed -i "s/X86_FEATURE_FSRM/X86_FEATURE_NOSUCH/" src/arch/x86/lib/memcpy_64.S &&
	expect_fail sh "$GEN" "dir:$SCRATCH/src" g &&
	grep_err "^bench-gen: build: .*memcpy_64.S. failed"
'
done_testing
