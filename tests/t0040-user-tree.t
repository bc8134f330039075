#!/bin/sh
# KERNEL_TREE=<a user's linux clone>: the series is applied through a linked
# worktree and refs under $REF_NS only.  The user's branches, tags, HEAD and
# working tree (with its uncommitted change) are left exactly as they were,
# and the series gets the same commit ids as on the pinned tree.
. "$(dirname "$0")/lib.sh"
[ -x "$BIN/series-check" ] || bail "tools are not built: run 'make tools'"
plan 2
PIN=$(git -C "$TOP" ls-files -s kernel-tree | cut -d" " -f2)
U=$TEST_OUT/user-linux

# everything of the user's we promise not to touch
snapshot() {
	git -C "$U" for-each-ref --format="%(refname) %(objectname)" refs/heads refs/tags
	git -C "$U" symbolic-ref HEAD; git -C "$U" rev-parse HEAD
	git -C "$U" status --porcelain; git -C "$U" diff | sha256sum
	git -C "$U" stash list
}

test_expect_success 'setup: a user clone on their own branch, with an uncommitted change' '
	rm -rf "$U" && git clone -q --shared --no-checkout "$TOP/kernel-tree" "$U" &&
	git -C "$U" sparse-checkout set --no-cone /Makefile /README &&
	git -C "$U" checkout -q -b my-work "$PIN" &&
	git -C "$U" tag v6.12.117 "$PIN" &&
	echo "# my change" >>"$U/Makefile" &&
	git -C "$U" -c user.name=U -c user.email=u@example.org commit -qam "my work" &&
	echo "# not committed" >>"$U/README"
'

test_expect_success 'KERNEL_TREE: applies in a worktree; the user tree is untouched' '
	snapshot >before &&
	KERNEL_TREE=$U KERNEL_BASE=v6.12.117 WORKTREE=$SCRATCH/wt sh "$TOP/scripts/kernel-tree.sh" &&
	KERNEL_TREE=$U WORKTREE=$SCRATCH/wt sh "$TOP/scripts/apply.sh" &&
	snapshot >after && diff before after &&
	[ "$(git -C "$U" rev-parse "$REF_NS/series")" = "$(git -C "$TOP/kernel-tree" rev-parse "$REF_NS/series")" ] &&
	[ "$(git -C "$SCRATCH/wt" rev-parse HEAD)" = "$(git -C "$U" rev-parse "$REF_NS/series")" ] &&
	git -C "$U" worktree remove --force "$SCRATCH/wt"
'
done_testing
