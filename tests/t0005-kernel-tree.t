#!/bin/sh
# The pinned kernel: importing Debian's tarball gives exactly the commit
# the gitlink records (the import is deterministic), tagged, with the base
# ref set, and a worktree for apply/build.  On a fresh clone this is the
# real ~1 minute import; afterwards it is the fast verify path.
. "$(dirname "$0")/lib.sh"
WT=$WORKTREE

test_expect_success 'make kernel-tree: import or verify; the commit equals the gitlink' '
	sh "$TOP/series/kernel-tree.sh" &&
	pin=$(git -C "$TOP" ls-files -s kernel-tree | cut -d" " -f2) &&
	[ "$(git -C "$TOP/kernel-tree" rev-parse "$REF_NS/base")" = "$pin" ] &&
	[ "$(git -C "$TOP/kernel-tree" rev-parse "debian/6.12.117-1_deb12u1^{commit}")" = "$pin" ] &&
	[ "$(git -C "$TOP/kernel-tree" rev-parse HEAD)" = "$pin" ]
'

test_expect_success 'the imported tree is the tarball: clean, Makefile says 6.12.117' '
	[ -z "$(git -C "$TOP/kernel-tree" status --porcelain --untracked-files=no)" ] &&
	grep -qx "SUBLEVEL = 117" "$TOP/kernel-tree/Makefile" &&
	[ -f "$TOP/kernel-tree/.gitignore" ] && git -C "$TOP/kernel-tree" ls-files --error-unmatch .gitignore
'

test_expect_success 'the worktree is a linked worktree of kernel-tree, clean' '
	[ -f "$WT/.git" ] &&
	[ "$(cd "$WT" && cd "$(git rev-parse --git-common-dir)" && pwd -P)" = "$(cd "$TOP/kernel-tree/.git" && pwd -P)" ] &&
	[ -z "$(git -C "$WT" status --porcelain --untracked-files=no)" ]
'

test_expect_success 'kernel-tree.sh --import-only (make test'"'"'s): the import verified; no ref, no worktree' '
	OUT=$SCRATCH/out WORKTREE=$SCRATCH/out/tree REF_NS=refs/x86-copy-series-io \
		sh "$TOP/series/kernel-tree.sh" --import-only 2>err &&
	cat err && grep -q "^\[ *[0-9]*s\] kernel-tree: pinned commit $(git -C "$TOP" ls-files -s kernel-tree | cut -d" " -f2) present" err &&
	[ ! -e out ] && [ -z "$(git -C "$TOP/kernel-tree" for-each-ref refs/x86-copy-series-io)" ]
'
done_testing
