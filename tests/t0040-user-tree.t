#!/bin/sh
# KERNEL_TREE=<a user's linux clone>: the series is applied through a linked
# worktree and refs under $REF_NS only.  The user's branches, tags, HEAD and
# working tree (with its uncommitted change) are left exactly as they were,
# and the series gets the same commit ids as on the pinned tree.  A
# KERNEL_TREE that out/tree does not belong to, and a KERNEL_BASE without
# KERNEL_TREE or other than the recorded base, are refused before any ref
# is written or the worktree moves.
. "$(dirname "$0")/lib.sh"
need tool:series-check
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
	KERNEL_TREE=$U KERNEL_BASE=v6.12.117 WORKTREE=$SCRATCH/wt sh "$TOP/series/kernel-tree.sh" &&
	KERNEL_TREE=$U WORKTREE=$SCRATCH/wt sh "$TOP/series/apply.sh" &&
	snapshot >after && diff before after &&
	[ "$(git -C "$U" rev-parse "$REF_NS/series")" = "$(git -C "$TOP/kernel-tree" rev-parse "$REF_NS/series")" ] &&
	[ "$(git -C "$SCRATCH/wt" rev-parse HEAD)" = "$(git -C "$U" rev-parse "$REF_NS/series")" ] &&
	git -C "$U" worktree remove --force "$SCRATCH/wt"
'
# no ref of ours in repository $1, and out/tree where it was ($2)
untouched() {
	[ -z "$(git -C "$1" for-each-ref "$REF_NS")" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$2" ]
}

test_expect_success 'KERNEL_BASE without KERNEL_TREE is refused, not ignored' '
	head=$(git -C "$WORKTREE" rev-parse HEAD) &&
	for s in kernel-tree apply; do
		rc=0; KERNEL_BASE=v6.12.100 sh "$TOP/series/$s.sh" 2>err || rc=$?; cat err &&
		[ $rc = 2 ] && grep -q "KERNEL_BASE=.v6.12.100. is for your own linux clone: set KERNEL_TREE" err || exit 1
	done &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$head" ]
'

test_expect_success 'KERNEL_TREE another repository than out/tree'"'"'s: no ref written there, out/tree unmoved' '
	U2=$SCRATCH/other && git clone -q --shared --no-checkout "$TOP/kernel-tree" "$U2" &&
	git -C "$U2" tag v6.12.117 "$PIN" && head=$(git -C "$WORKTREE" rev-parse HEAD) &&
	KERNEL_TREE=$U2 KERNEL_BASE=v6.12.117 expect_fail sh "$TOP/series/kernel-tree.sh" &&
	grep_err "worktree: $WORKTREE belongs to the repository .*kernel-tree/.git, not to $U2" &&
	untouched "$U2" "$head" &&
	KERNEL_TREE=$U2 expect_fail sh "$TOP/series/apply.sh" && grep_err "belongs to the repository" &&
	untouched "$U2" "$head" &&
	git -C "$U2" update-ref "$REF_NS/base" "$PIN" &&
	KERNEL_TREE=$U2 expect_fail sh "$TOP/series/apply.sh" && grep_err "belongs to the repository" &&
	[ "$(git -C "$U2" for-each-ref --format="%(refname)" "$REF_NS")" = "$REF_NS/base" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$head" ]
'

test_expect_success 'KERNEL_BASE other than the recorded base is refused by apply' '
	KERNEL_TREE=$U KERNEL_BASE=v6.12.117 WORKTREE=$SCRATCH/wt sh "$TOP/series/kernel-tree.sh" &&
	other=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$U" commit-tree -p "$PIN" -m other "$PIN^{tree}") &&
	before=$(git -C "$U" rev-parse -q --verify "$REF_NS/series") &&
	KERNEL_TREE=$U KERNEL_BASE=$other WORKTREE=$SCRATCH/wt expect_fail sh "$TOP/series/apply.sh";
	rc=$?; git -C "$U" worktree remove --force "$SCRATCH/wt"; [ $rc = 0 ] &&
	grep_err "base: KERNEL_BASE=.$other. is $other, but $REF_NS/base is $PIN: run .make kernel-tree" &&
	[ "$(git -C "$U" rev-parse -q --verify "$REF_NS/series")" = "$before" ]
'

test_expect_success 'KERNEL_TREE that is no repository, or a directory inside one: a clear error; a bare one is a tree' '
	mkdir notrepo && KERNEL_TREE=$SCRATCH/notrepo expect_fail sh "$TOP/series/kernel-tree.sh" &&
	grep_err "repo: KERNEL_TREE=.*notrepo. is not a git repository" &&
	git init -q inrepo && mkdir inrepo/sub && KERNEL_TREE=$SCRATCH/inrepo/sub expect_fail sh "$TOP/series/apply.sh" &&
	grep_err "repo: KERNEL_TREE=.*inrepo/sub. is not a git repository \(it is a directory inside $SCRATCH/inrepo\)" &&
	git init -q --bare bare.git && KERNEL_TREE=$SCRATCH/bare.git/refs expect_fail sh "$TOP/series/apply.sh" &&
	grep_err "repo: KERNEL_TREE=.*bare.git/refs. is not a git repository \(it is a directory inside $SCRATCH/bare.git\)" &&
	{ KERNEL_TREE=$SCRATCH/bare.git expect_fail sh "$TOP/series/apply.sh"; ! grep_err "is not a git repository"; }
'
# Another user's clone: git refuses it (safe.directory); its own message
# reaches the user with the remedies, never a guess (no repository,
# another repository's worktree).  Root makes the clone another user's.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	test_expect_success 'KERNEL_TREE or the worktree another user owns: git'"'"'s own words and the remedies, nothing changed' '
		git init -q theirs && chown -R nobody theirs &&
		KERNEL_TREE=$SCRATCH/theirs expect_fail sh "$TOP/series/apply.sh" &&
		grep_err "git: $SCRATCH/theirs: git refuses it: fatal: detected dubious ownership in repository at .$SCRATCH/theirs." &&
		grep_err "it belongs to nobody, and this run is root: run as nobody, or, trusting its files" &&
		git init -q tree2 && chown -R nobody tree2 &&
		WORKTREE=$SCRATCH/tree2 expect_fail sh "$TOP/series/range-diff.sh" &&
		grep_err "git: $SCRATCH/tree2: git refuses it: fatal: detected dubious ownership" &&
		! grep_err "belongs to the repository"
	'
else
	test_skip "another user's clone" "needs root (to give a clone to nobody)"
fi
# Nothing is checked at source time: a script that never works on the
# kernel repository (a report, a guest run) runs whatever KERNEL_TREE,
# KERNEL_BASE and REF_NS say; one that does calls kernel_settings_check
test_expect_success 'scripts/lib.sh checks nothing when sourced; kernel_settings_check refuses, exit 2 or 1' '
	src=". \"$TOP/scripts/lib.sh\"" &&
	REF_NS=refs/heads KERNEL_TREE=$SCRATCH/none KERNEL_BASE=x sh -c "$src && echo sourced" "$TOP/scripts/x" >out &&
	grep -qx sourced out &&
	{ rc=0; REF_NS=refs/heads sh -c "$src && kernel_settings_check" "$TOP/scripts/x" 2>err || rc=$?; } &&
	[ $rc = 2 ] && grep -q "REF_NS=.refs/heads. must be" err &&
	{ rc=0; KERNEL_TREE=$SCRATCH/none sh -c "$src && kernel_settings_check" "$TOP/scripts/x" 2>err || rc=$?; } &&
	[ $rc = 1 ] && grep -q "KERNEL_TREE=.*none. is not a git repository" err &&
	sh -c "$src && kernel_settings_check && echo fine" "$TOP/scripts/x" >out && grep -qx fine out
'
done_testing
