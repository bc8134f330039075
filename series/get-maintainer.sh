#!/bin/sh
# get-maintainer.sh ROLE PATCH: the addresses for one patch from the
# pinned tree's scripts/get_maintainer.pl (git send-email --to-cmd and
# --cc-cmd).  ROLE "to": maintainers; "cc": reviewers and lists; "roles":
# every one of them, a line each with get_maintainer.pl's reason
# ("Name <addr> (maintainer:X86 ARCHITECTURE ...)"), for make send's
# dry run.
# get_maintainer.pl must run at the top of a kernel tree: the worktree.
# It reads the patch without its subject, changelog and notes:
# MAINTAINERS' K: keywords match the code a patch changes, not the
# words of its prose (6/7's changelog names PREEMPT_RT, 7/7's zstd:
# their maintainers were sent patches they have nothing to do with).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
[ $# = 2 ] || usage_die "get-maintainer.sh to|cc|roles PATCH"
case $1 in
to) opts="--norolestats --nomultiline --nol --nor" ;;
cc) opts="--norolestats --nomultiline --nom" ;;
roles) opts="--rolestats --multiline" ;;
*) usage_die "get-maintainer.sh to|cc|roles PATCH" ;;
esac
[ -f "$2" ] && [ -r "$2" ] || die "patch: '$2' is not a file that can be read"
p=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
cd "$WORKTREE" || die "worktree: cannot enter $WORKTREE: run 'make kernel-tree' first"
# no git history in an imported tree: use MAINTAINERS only
err=$(mktemp) && code=$(mktemp) || die "tmp: cannot create a file in ${TMPDIR:-/tmp}"
trap 'rm -f "$err" "$code"' EXIT
# the headers but Subject, then the diff from its first line on (the
# notes below "---" are prose too)
awk 'h == 0 && /^$/ { h = 1; print; next }
	h == 0 { if (tolower($0) ~ /^subject:/) { s = 1; next } if (s && /^[ \t]/) next; s = 0; print; next }
	h == 1 && /^(diff |Index: |--- a\/)/ { h = 2 }
	h == 2 { print }' "$p" >"$code" || die "tmp: cannot write $code (disk full?)"
# shellcheck disable=SC2086 # $opts: options, a word each
out=$(perl scripts/get_maintainer.pl --nogit --nogit-fallback $opts "$code" 2>"$err") ||
	die "get_maintainer.pl failed on $p: $(cat "$err")"
# a cover letter has no diff, so no one: print nothing, succeed
if [ "$1" = roles ]; then
	printf '%s\n' "$out" | grep . || true
else
	printf '%s\n' "$out" | tr ',' '\n' | sed 's/^ *//' | grep . || true
fi
