#!/bin/sh
# send.sh: send the series with git send-email; a dry run unless SEND=1.
#
# To and Cc per patch come from the pinned tree's get_maintainer.pl (the
# worktree's MAINTAINERS); the cover letter goes to everyone any patch
# goes to.  FROM=<you> sets the sender (default: git config user.email).
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
[ -e "$WORKTREE/scripts/get_maintainer.pl" ] ||
	die "get_maintainer: $WORKTREE/scripts/get_maintainer.pl is missing: run 'make kernel-tree' first"
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git-email: git send-email is not installed: run 'make deps' (package git-email)"
list=$("$SERIES_CHECK" "$PATCHES/series") || exit 1
from=${FROM:-$(git -C "$TOP" config user.email || true)}
[ -n "$from" ] || die "from: no sender: set FROM='Name <you@example.org>'"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xcs-send.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
files=""
for f in $(printf '%s\n' "$list" | awk -F'\t' '$1 == "applied" { print $2 }'); do
	files="$files $PATCHES/$f"
	sh "$TOP/scripts/get-maintainer.sh" to "$PATCHES/$f" >>"$tmp/to" || true
	sh "$TOP/scripts/get-maintainer.sh" cc "$PATCHES/$f" >>"$tmp/cc" || true
done
# The cover letter: the union of all patches' recipients.
cover=$(printf '%s\n' "$list" | awk -F'\t' '$1 == "cover" { print $2 }')
if [ -n "$cover" ]; then
	to=$(sort -u "$tmp/to" | paste -sd, - | sed 's/,/, /g')
	cc=$(sort -u "$tmp/cc" | paste -sd, - | sed 's/,/, /g')
	awk -v to="$to" -v cc="$cc" '!done && /^$/ { if (to != "") print "To: " to; if (cc != "") print "Cc: " cc; done = 1 } { print }' \
		"$PATCHES/$cover" >"$tmp/$cover"
	files="$tmp/$cover$files"
fi

if [ "${SEND:-0}" = 1 ]; then
	mode=""
	progress send "sending $(echo $files | wc -w) mails as $from"
else
	mode=--dry-run
	progress send "dry run (SEND=1 sends): $(echo $files | wc -w) mails as $from"
fi
git -C "$TOP" send-email $mode --confirm=never --no-chain-reply-to \
	--suppress-cc=self --from="$from" \
	--to-cmd="sh $TOP/scripts/get-maintainer.sh to" \
	--cc-cmd="sh $TOP/scripts/get-maintainer.sh cc" $files
