#!/bin/sh
# kernel-tree.sh: materialize and verify the pinned kernel, offline.
#
#   kernel-tree.sh            import (or verify) kernel-tree/, set the base
#                             ref, create the build worktree out/tree
#   KERNEL_TREE=~/linux KERNEL_BASE=v6.12.117 kernel-tree.sh
#                             use the user's clone instead: only a linked
#                             worktree and refs under refs/x86-copy-series/
#                             are created there; branches, tags, HEAD and
#                             the user's working tree are left alone.
#                             KERNEL_BASE without KERNEL_TREE is refused; an
#                             out/tree of another repository is refused
#                             before any ref is written
#   kernel-tree.sh --record   import and record the result as the new
#                             gitlink (a maintainer's re-pin)
#   kernel-tree.sh --import-only
#                             import (or verify) kernel-tree/ alone: no ref,
#                             no worktree (make test: the tests make their
#                             own under out/test)
#
# The import is deterministic: the tarball of $PIN_PACKAGE $PIN_VERSION,
# checked against its sha256, becomes one commit with fixed identity, date
# and message, so its id must equal the gitlink recorded for kernel-tree.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

TARBALL=${PIN_TARBALL_OVERRIDE:-$PIN_TARBALL}

# The commit id the superproject pins (the gitlink of kernel-tree).
pinned_commit() {
	git -C "$TOP" ls-files -s kernel-tree 2>/dev/null | awk '$1 == "160000" { print $2 }'
}

# pin_tarball: sets TARBALL to the pinned source.  The installed
# $PIN_PACKAGE's when it is the pinned version; else the package of that
# version downloaded (apt-get download, as repin gets one: never
# installed, the system's packages are left as they are) and unpacked
# into PIN_CACHE (default $OUT/pin/<version>), where a repin leaves the
# tarball it imported too.  check_tarball checks it against PIN_SHA256.
pin_tarball() {
	[ -z "${PIN_TARBALL_OVERRIDE:-}" ] || return 0
	pt_have=$(dpkg-query -W -f '${Version}' "$PIN_PACKAGE" 2>/dev/null || true)
	if [ "$pt_have" = "$PIN_VERSION" ] && [ -r "$PIN_TARBALL" ]; then
		TARBALL=$PIN_TARBALL
		return 0
	fi
	pt_cache=${PIN_CACHE:-$OUT/pin/$PIN_VERSION}
	TARBALL=$pt_cache/${PIN_TARBALL##*/}
	[ ! -f "$TARBALL" ] || return 0
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		die "download: apt-get and dpkg-deb are needed to fetch $PIN_PACKAGE=$PIN_VERSION (a Debian machine)"
	progress pin "$PIN_PACKAGE $PIN_VERSION is not installed${pt_have:+ (installed: $pt_have, left as it is)}: downloading it into $pt_cache, not installing it"
	mkdir -p "$OUT" || die "download: cannot create $OUT"
	pt_tmp=$(mktemp -d "$OUT/.pin.XXXXXX") || die "download: cannot create a directory in $OUT"
	trap 'rm -rf "$pt_tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	(cd "$pt_tmp" && apt-get download -q "$PIN_PACKAGE=$PIN_VERSION") >"$pt_tmp/apt.log" 2>&1 ||
		die "download: 'apt-get download $PIN_PACKAGE=$PIN_VERSION' failed ($(grep -m 1 '^E:' "$pt_tmp/apt.log" || tail -n 1 "$pt_tmp/apt.log")): is Debian's archive reachable, and does its package list know that version (apt-get update, as root)?"
	dpkg-deb -x "$pt_tmp"/*.deb "$pt_tmp/pkg" ||
		die "download: the $PIN_PACKAGE $PIN_VERSION package cannot be unpacked (dpkg-deb -x, above)"
	pt_tb=$(find "$pt_tmp/pkg" -name "${PIN_TARBALL##*/}" -type f | head -n 1)
	[ -n "$pt_tb" ] || die "download: the $PIN_PACKAGE $PIN_VERSION package holds no ${PIN_TARBALL##*/}"
	mkdir -p "$pt_cache" && mv -f "$pt_tb" "$TARBALL.tmp" && mv -f "$TARBALL.tmp" "$TARBALL" ||
		die "download: cannot move the tarball into $pt_cache (disk full?)"
	rm -rf "$pt_tmp"
	trap - EXIT INT TERM
}

check_tarball() {
	if [ "$TARBALL" = "$PIN_TARBALL" ] || [ -n "${PIN_TARBALL_OVERRIDE:-}" ]; then
		ct_fix="reinstall $PIN_PACKAGE=$PIN_VERSION"
	else
		ct_fix="remove it: it is downloaded again"
	fi
	[ -r "$TARBALL" ] || die "tarball: '$TARBALL' is missing or unreadable: $ct_fix"
	progress tarball "verifying sha256 of $TARBALL"
	sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$PIN_SHA256" ] ||
		die "tarball: sha256 of '$TARBALL' is $sum, expected $PIN_SHA256: not the pinned source; $ct_fix"
}

import_pinned() {
	repo=$TOP/kernel-tree
	git_dir_ok "$TOP" || true
	want=$(pinned_commit)
	[ -n "$want" ] || [ "$RECORD" = 1 ] ||
		die "pin: no gitlink for kernel-tree in $TOP: is this a checkout of x86-copy-series?"

	if [ -e "$repo/.git" ]; then
		git_dir_ok "$repo" || true
		have=$(git -C "$repo" rev-parse -q --verify "$want^{commit}" 2>/dev/null || true)
		[ "$have" = "$want" ] ||
			die "repo: $repo exists but lacks the pinned commit $want: move it away and rerun 'make kernel-tree'"
		[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] ||
			die "repo: $repo has local changes: kernel-tree is never edited by hand; commit or discard them (git -C kernel-tree status)"
		progress kernel-tree "pinned commit $want present"
	else
		if [ -d "$repo" ] && [ -n "$(ls -A "$repo")" ]; then
			die "repo: $repo is not empty and not a git repository: move it away and rerun"
		fi
		pin_tarball
		check_tarball
		mkdir -p "$OUT" || die "import: cannot create $OUT"
		# owned (.owner): an import killed outright leaves a whole git
		# repository here, which the next one removes
		runs_clean "$OUT" '.import.[0-9]*' "the unfinished import"
		stage_make "$OUT" .import "the unfinished import"
		# the repository in a directory of its own: the import adds
		# every file of its directory, and .owner is not the kernel's
		stage=$run_dir tmp=$run_dir/repo
		trap 'rm -rf "$stage"' EXIT INT TERM
		import_tarball "$tmp" "$TARBALL" "$PIN_VERSION" "$PIN_SHA256" "$PIN_DATE"
		have=$(git -C "$tmp" rev-parse HEAD)
		[ "$RECORD" = 1 ] && want=$have
		[ "$have" = "$want" ] ||
			die "import: the import gave commit $have, the pin is $want: different tarball or git object format; nothing was changed"
		git -C "$tmp" tag "$PIN_TAG" "$have"
		rmdir "$repo" 2>/dev/null || true
		mv "$tmp" "$repo"
		rm -rf "$stage"
		trap - EXIT INT TERM
		progress import "kernel-tree is $have, tagged $PIN_TAG"
	fi
	[ "$IMPORT_ONLY" = 0 ] || return 0
	worktree_is_ours
	git -C "$repo" update-ref "$REF_NS/base" "$want"
	if [ "$RECORD" = 1 ]; then
		git -C "$TOP" update-index --add --cacheinfo "160000,$want,kernel-tree"
		progress pin "recorded gitlink kernel-tree = $want (commit it)"
	fi
}

use_user_tree() {
	repo=$KERNEL_TREE
	git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 ||
		die "repo: KERNEL_TREE='$repo' is not a git repository"
	rev=${KERNEL_BASE:-v$PIN_KVER}
	base=$(git -C "$repo" rev-parse -q --verify "$rev^{commit}" 2>/dev/null) ||
		die "repo: '$rev' is not a commit in $repo: set KERNEL_BASE to the commit the series applies to"
	worktree_is_ours
	git -C "$repo" update-ref "$REF_NS/base" "$base"
	progress kernel-tree "using $repo, base $rev ($base)"
}

# Before a ref is written anywhere: an existing worktree must belong to
# the repository named now, or the base would be set in one repository
# and the series applied in another's worktree.
worktree_is_ours() {
	[ -e "$WORKTREE/.git" ] || return 0
	[ -e "$(kernel_repo)/.git" ] || [ -n "${KERNEL_TREE:-}" ] ||
		die "worktree: $WORKTREE exists, but $(kernel_repo) is not imported yet: remove the worktree first ('rm -rf $WORKTREE'); nothing changed"
	worktree_check
}

# The worktree where the series is applied and commits are built.
ensure_worktree() {
	base=$(base_commit)
	if [ -e "$WORKTREE/.git" ]; then
		worktree_check
		return 0
	fi
	progress worktree "checking out $base into $WORKTREE"
	kgit worktree prune
	mkdir -p "$(dirname "$WORKTREE")"
	kgit worktree add -q --detach "$WORKTREE" "$base" ||
		die "worktree: could not create $WORKTREE (see above)"
}

RECORD=0 IMPORT_ONLY=0
case "${1:-}" in
--record) RECORD=1 ;;	# maintainer: import and record a new pin
--import-only) IMPORT_ONLY=1 ;;
"") ;;
*) usage_die "kernel-tree.sh [--record | --import-only]" ;;
esac

if [ "$IMPORT_ONLY" = 1 ]; then
	import_pinned
	exit 0
fi
if [ -n "${KERNEL_TREE:-}" ]; then
	use_user_tree
else
	# before an import of a minute: the worktree must be the pin's
	worktree_is_ours
	import_pinned
fi
ensure_worktree
