#!/bin/sh
# build/build.sh and make build (its view of the pipeline): the series
# head builds (tinyconfig + build/kernel.config, ccache,
# O=<dir>/build/<commit>); a second run rebuilds nothing; a commit that
# adds a warning has it reported as new; one that does not compile is
# reported as failing and fails the view; a commit of a tree already
# built (a changelog edit) gets that build, hard-linked, not a rebuild;
# make build COMMITS=... builds those alone, with the pipeline's stamps; a
# child builds from its parent's build directory, to the same kernel.
# test-quick: no: builds the series head kernel
. "$(dirname "$0")/lib.sh"
BUILD="sh $TOP/build/build.sh"
need worktree
need series
HEAD=$SERIES_HEAD
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")

test_expect_success 'the series head builds a bzImage with the fragment in its .config, its records beside it; one commit only' '
	$BUILD "$HEAD" && o=$OUT/build/$HEAD && [ -s "$o/arch/x86/boot/bzImage" ] &&
	[ "$(cat "$o/result")" = ok ] &&
	grep -qx "CONFIG_ZONE_DEVICE=y" "$o/.config" && grep -qx "CONFIG_64BIT=y" "$o/.config" &&
	grep -q "\"metric\":\"ok\".*\"samples\":\[1\(\.0\)\?\]" "$o/records.jsonl" &&
	{ rc=0; $BUILD "$BASE" "$HEAD" 2>err || rc=$?; } && [ $rc = 2 ] &&
	grep -q "one commit (make build COMMITS=.\.\.\.. for several)" err
'

test_expect_success 'a second run with nothing changed rebuilds nothing' '
	o=$OUT/build/$HEAD && before=$(stat -c %Y.%s "$o/arch/x86/boot/bzImage" "$o/vmlinux") &&
	$BUILD "$HEAD" 2>err && cat err && grep -q "up to date" err &&
	[ "$(stat -c %Y.%s "$o/arch/x86/boot/bzImage" "$o/vmlinux")" = "$before" ]
'

test_expect_success 'a new warning is reported against the parent; a broken commit fails the run' '
	warn=$(commit_with "$BASE" mm/mm_init.c "s/^void __init mm_core_init(void)$/static int xcs_unused_fn(void) { return 0; }\n&/" "test: add a warning") &&
	broken=$(commit_with "$warn" mm/mm_init.c "s/^void __init mm_core_init(void)$/this does not compile;\n&/" "test: break the build") &&
	CI_OUT=$SCRATCH/ci BUILD_TARGETS=mm/mm_init.o CI_COMMITS="$BASE $warn $broken" \
		expect_fail sh "$TOP/ci/run.sh" --view build &&
	grep_err "$(printf %.12s "$warn") adds 1 warning" && grep_err "xcs_unused_fn" &&
	grep_err "$(printf %.12s "$broken") FAILED" &&
	grep_err "steps failed: $(printf %.12s "$broken"):build$" &&
	grep -q "^$(printf %.12s "$warn") ok .* 1  test: add a warning$" out &&
	grep -q "^$(printf %.12s "$broken") fail " out &&
	[ "$(cat "$OUT/build/$broken/result")" = fail ] && [ "$(cat "$OUT/build/$warn/result")" = ok ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ]
'
test_expect_success 'a fragment option that does not take effect fails the build, named' '
	same=$(commit_with "$BASE" Makefile "s/^NAME = .*/&/" "test: the base once more") &&
	{ cat "$TOP/build/kernel.config" && echo CONFIG_XCS_NO_SUCH_OPTION=y; } >frag &&
	FRAGMENT=$SCRATCH/frag BUILD_TARGETS=init/version.o expect_fail $BUILD "$same" &&
	grep_err "config: .CONFIG_XCS_NO_SUCH_OPTION=y. from $SCRATCH/frag did not take effect" &&
	[ "$(cat "$OUT/build/$same/result")" = fail ]
'
# reused_from names the commit first built: the head itself, or the commit
# of an earlier series version with the same tree whose build the head's
# was linked from (an out/test kept across versions)
test_expect_success 'a new commit id of a tree already built: linked, not rebuilt; its own files its own; its records say reused_from' '
	o=$OUT/build/$HEAD &&
	reword=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.org git -C "$WORKTREE" commit-tree "$HEAD^{tree}" -p "$HEAD^" \
		-m "test: the head, its changelog edited") &&
	r=$OUT/build/$reword && rm -rf "$r" "$SCRATCH/res" &&
	before=$(stat -c %Y.%s "$o/arch/x86/boot/bzImage" "$o/stamp" "$o/result") &&
	$BUILD --results "$SCRATCH/res" "$reword" 2>err && cat err &&
	grep -q "$(printf %.12s "$reword"): the tree of $(printf %.12s "$HEAD"), built: its build, linked, not rebuilt" err &&
	! grep -q "building" err &&
	[ "$(stat -c %i "$r/arch/x86/boot/bzImage")" = "$(stat -c %i "$o/arch/x86/boot/bzImage")" ] &&
	for f in stamp result seconds warnings.txt build.log new-warnings.txt; do
		[ "$(stat -c %i "$r/$f")" != "$(stat -c %i "$o/$f")" ] || { echo "$f is shared"; return 1; }
	done &&
	[ "$(stat -c %Y.%s "$o/arch/x86/boot/bzImage" "$o/stamp" "$o/result")" = "$before" ] &&
	first=$(cat "$o/reused-from" 2>/dev/null || echo "$HEAD") &&
	[ "$(cat "$r/reused-from")" = "$first" ] &&
	[ "$(grep -c "\"commit\":\"$reword\".*\"reused_from\":\"$first\"" "$SCRATCH/res/records.jsonl")" = 4 ] &&
	[ "$(grep -c . "$SCRATCH/res/records.jsonl")" = 4 ] &&
	grep "\"metric\":\"seconds\"" "$SCRATCH/res/records.jsonl" | grep -q "\"samples\":\[$(cat "$o/seconds")\(\.0\)\?\]" &&
	$BUILD "$reword" 2>err2 && grep -q "up to date" err2 &&
	rm -rf "$r"
'
# The walk: a commit builds from its parent's build directory, remaking
# what its change reaches; the kernel is the one a build from nothing
# makes, and so is the list of warnings.  The kernel from nothing is the
# head's of test 1 when it was one (a new out/test, as CI's: no
# walked-from): the child is walked to, then the head walked back to and
# compared with it, a warning dropped on the way; else (an out/test kept
# from an earlier run) the child is built again from nothing at the same
# paths, ccache serving it (~3 min more on 2 cores).
test_expect_success 'a child builds from its parent: one object compiled, the same bzImage and warnings as from nothing' '
	child=$(commit_with "$HEAD" mm/mm_init.c "s/^void __init mm_core_init(void)$/static int xcs_walk_unused(void) { return 0; }\n&/" "test: one line more in mm_init.c") &&
	c=$OUT/build/$child h=$OUT/build/$HEAD && rm -rf "$c" &&
	# no build of its tree from an earlier run, which would be linked
	for s in $(grep -lx "tree $(git -C "$WORKTREE" rev-parse "$child^{tree}")" "$OUT"/build/*/stamp); do
		rm -rf "${s%/stamp}"
	done &&
	# the head built last in its walk directory: test 1 left it there in
	# a new out/test; else (a build up to date walks nothing) built again
	walk_of_head() {
		for d in "$OUT"/kbuild/*/; do
			[ "$(cat "$d.commit" 2>/dev/null)" != "$HEAD" ] || { echo "${d%/}"; return; }
		done
	}
	w=$(walk_of_head) && { [ -n "$w" ] || { rm -rf "$h" && $BUILD "$HEAD" 2>/dev/null && w=$(walk_of_head); }; } &&
	[ -n "$w" ] &&
	$BUILD "$child" 2>err && cat err &&
	grep -q "$(printf %.12s "$child") building in $w, from the build of $(printf %.12s "$HEAD") there" err &&
	[ "$(cat "$c/walked-from")" = "$HEAD" ] && [ "$(cat "$w/.commit")" = "$child" ] &&
	grep -x "mm/mm_init.o" "$c/compiled.txt" &&
	[ "$(grep -c "\.o$" "$c/compiled.txt")" -le 8 ] &&
	grep -q "xcs_walk_unused" "$c/new-warnings.txt" && grep -q "xcs_walk_unused" "$c/warnings.txt" &&
	[ "$(stat -c %i "$c/vmlinux")" != "$(stat -c %i "$h/vmlinux")" ] &&
	[ "$(stat -c %i "$c/vmlinux")" != "$(stat -c %i "$w/vmlinux")" ] &&
	if [ ! -e "$h/walked-from" ] && [ ! -e "$h/reused-from" ]; then
		# back to the head: its build from nothing set aside (put
		# back whatever happens), the head walked to from the child
		ref=$SCRATCH/head-from-nothing && mv "$h" "$ref" &&
		{ $BUILD "$HEAD" 2>err2; rc=$?; } &&
		{ [ $rc = 0 ] || { rm -rf "$h" && mv "$ref" "$h"; }; } && cat err2 && [ $rc = 0 ] &&
		grep -q "$(printf %.12s "$HEAD") building in $w, from the build of $(printf %.12s "$child") there" err2 &&
		[ "$(cat "$h/walked-from")" = "$child" ] && grep -x "mm/mm_init.o" "$h/compiled.txt" &&
		[ "$(grep -c "\.o$" "$h/compiled.txt")" -le 8 ] && ! grep -q "xcs_walk_unused" "$h/warnings.txt" &&
		cmp "$ref/arch/x86/boot/bzImage" "$h/arch/x86/boot/bzImage" &&
		cmp "$ref/warnings.txt" "$h/warnings.txt" && cmp "$ref/build-id.json" "$h/build-id.json"
	else
		cp "$c/arch/x86/boot/bzImage" "$c/warnings.txt" "$c/build-id.json" . &&
		{
			# from nothing, at the same paths (ccache serves it): the
			# walk directory out of the way, always put back
			rm -rf "$c" && mv "$w" "$w.aside" &&
			$BUILD "$child" 2>err2; rc=$?
			rm -rf "$w" && mv "$w.aside" "$w" && cat err2 && [ $rc = 0 ]
		} &&
		grep -q "$(printf %.12s "$child") building from nothing in $w" err2 &&
		cmp bzImage "$c/arch/x86/boot/bzImage" && cmp warnings.txt "$c/warnings.txt" &&
		cmp build-id.json "$c/build-id.json"
	fi &&
	rm -rf "$c"
'

test_expect_success 'make build COMMITS=<rev>: that commit alone, not the series; a second view finds its stamp' '
	h=$(printf %.12s "$HEAD") &&
	CI_OUT=$SCRATCH/ci make -C "$TOP" --no-print-directory -s build OUT="$OUT" BIN="$BIN" COMMITS="$HEAD" >out 2>err ||
		{ cat out err; return 1; }
	cat out err && grep -q "1/1 $h: build: start" err && grep -q "build: $h up to date" err &&
	! grep -q " 2/" err && [ "$(grep -c "^$h ok " out)" = 1 ] &&
	[ -f "$SCRATCH/ci/$HEAD/build.stamp" ] && [ ! -e "$SCRATCH/ci/summary.txt" ] &&
	CI_OUT=$SCRATCH/ci make -C "$TOP" --no-print-directory -s build OUT="$OUT" BIN="$BIN" COMMITS=head >out 2>err &&
	grep -q "plan: 0 of 1 steps to run" err && grep -q "1/1 $h: build: up to date" err
'
done_testing
