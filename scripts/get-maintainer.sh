#!/bin/sh
# get-maintainer.sh ROLE PATCH: the addresses for one patch from the
# pinned tree's scripts/get_maintainer.pl (git send-email --to-cmd and
# --cc-cmd).  ROLE "to": maintainers; "cc": reviewers and lists.
# get_maintainer.pl must run at the top of a kernel tree: the worktree.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# = 2 ] || usage_die "get-maintainer.sh to|cc PATCH"
case $1 in
to) opts="--nol --nor" ;;
cc) opts="--nom" ;;
*) usage_die "get-maintainer.sh to|cc PATCH" ;;
esac
[ -f "$2" ] && [ -r "$2" ] || die "patch: '$2' is not a file that can be read"
p=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
cd "$WORKTREE" || die "worktree: cannot enter $WORKTREE: run 'make kernel-tree' first"
# no git history in an imported tree: use MAINTAINERS only
err=$(mktemp) || die "tmp: cannot create a file in ${TMPDIR:-/tmp}"
trap 'rm -f "$err"' EXIT
# shellcheck disable=SC2086 # $opts: options, a word each
out=$(perl scripts/get_maintainer.pl --norolestats --nogit --nogit-fallback \
	--nomultiline $opts "$p" 2>"$err") ||
	die "get_maintainer.pl failed on $p: $(cat "$err")"
# a cover letter has no diff, so no one: print nothing, succeed
printf '%s\n' "$out" | tr ',' '\n' | sed 's/^ *//' | grep . || true
