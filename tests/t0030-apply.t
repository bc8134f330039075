#!/bin/sh
# make apply: b4 am + git am of patches/ onto the base, reproducibly; a
# conflict names the patch and the file and leaves the tree at the base;
# bad input changes nothing.
. "$(dirname "$0")/lib.sh"
APPLY="sh $TOP/scripts/apply.sh"
[ -x "$BIN/series-check" ] || bail "tools are not built: run 'make tools'"
[ -f "$WORKTREE/.git" ] || bail "no worktree at $WORKTREE: t0005 sets it up"
plan 7
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")

series_ref() {
	git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series"
}

test_expect_success 'apply: every applied patch becomes one commit on the base, authors kept' '
	$APPLY && head=$(series_ref) &&
	n=$("$BIN/series-check" "$TOP/patches/series" | grep -c "^applied") &&
	[ "$(git -C "$WORKTREE" rev-list --count "$BASE..$head")" = "$n" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$head" ] &&
	git -C "$WORKTREE" log --format="%an <%ae>|%cn <%ce>|%cI|%s" "$BASE..$head" >log &&
	cat log &&
	grep -q "^Li Zhe <lizhe.67@bytedance.com>|.*|x86/string: extend memcpy_flushcache() fixed-size fastpaths$" log &&
	grep -q "^Usama Arif <usama.arif@linux.dev>|.*|x86/lib: Use REP MOVSB for large memcpy() on ERMS CPUs without FSRM$" log &&
	[ "$(cut -d"|" -f2 log | sort -u)" = "x86-copy-series import <x86-copy-series@example.org>" ] &&
	git -C "$WORKTREE" log -1 --format=%B "$head" | grep -q "^Link: https://lore.kernel.org/r/20261013100442.2658311-1-usama.arif@linux.dev$"
'

test_expect_success 'apply is idempotent: the same commit ids again' '
	before=$(series_ref) && $APPLY 2>err && cat err &&
	[ "$(series_ref)" = "$before" ] && grep -q "(unchanged)" err
'

# a copy of patches/ whose last applied patch no longer applies
broken_copy() {
	cp -r "$TOP/patches" p &&
	last=$(awk "!/^#/ && \$2 == \"applied\" { f = \$1 } END { print f }" p/series) &&
	sed -i "s/^ \(SYM_TYPED_FUNC_START(__memcpy)\)$/ \1 \/* changed *\//" "p/$last" &&
	! cmp -s "p/$last" "$TOP/patches/$last"
}

test_expect_success 'a patch that does not apply: named with its file, tree back at the base' '
	before=$(series_ref) && broken_copy &&
	PATCHES=$SCRATCH/p expect_fail $APPLY &&
	grep_err "apply: git am: $last: \[PATCH [0-9]+/[0-9]+\] x86/lib: Use REP MOVSB.* does not apply: arch/x86/lib/memcpy_64.S:[0-9]+" &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$BASE" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain --untracked-files=no)" ] &&
	[ ! -d "$(git -C "$WORKTREE" rev-parse --git-path rebase-apply)" ] &&
	[ "$(series_ref)" = "$before" ]
'

test_expect_success 'after a failed apply, the real series applies again' '
	before=$(series_ref) && $APPLY && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'a malformed mbox: clear error, nothing changed' '
	before=$(series_ref) && cp -r "$TOP/patches" p &&
	first=$(awk "!/^#/ && \$2 == \"applied\" { print \$1; exit }" p/series) &&
	sed -i "1s/^From /Frm /" "p/$first" &&
	PATCHES=$SCRATCH/p expect_fail $APPLY &&
	grep_err "$first:1: not an mbox" &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ] && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'a worktree with local changes is refused and its changes kept' '
	echo "/* mine */" >>"$WORKTREE/Makefile" &&
	expect_fail $APPLY; rc=$?;
	grep_err "has local changes" && tail -n 1 "$WORKTREE/Makefile" | grep -qF "/* mine */";
	ok=$?; git -C "$WORKTREE" checkout -q -- Makefile; [ $rc = 0 ] && [ $ok = 0 ]
'

test_expect_success 'the series head has the trees of patches/: git am of each mbox in turn agrees' '
	git -C "$WORKTREE" checkout -q --detach "$BASE" &&
	for f in $("$BIN/series-check" "$TOP/patches/series" | awk -F"\t" "\$1 == \"applied\" { print \$2 }"); do
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org git -C "$WORKTREE" am -q "$TOP/patches/$f" || exit 1
	done &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD^{tree})" = "$(git -C "$WORKTREE" rev-parse "$(series_ref)^{tree}")" ] &&
	git -C "$WORKTREE" checkout -q --detach "$(series_ref)"
'
done_testing
