#!/bin/sh
# send.sh: send the series with git send-email; a dry run unless SEND=1.
#
# To and Cc per patch come from the pinned tree's get_maintainer.pl (the
# worktree's MAINTAINERS); the cover letter goes to everyone any patch
# goes to.  FROM=<you> sets the sender (default: git config user.name and
# user.email, lib.sh: series_ident): one address, or it is refused.  With
# neither, a dry run uses the placeholder 'x86-copy-series
# <x86-copy-series@example.org>' and SEND=1 is refused.  SEND is 1 or 0;
# anything else is refused.
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
case ${SEND:-} in
''|0|1) ;;
*) usage_die "SEND=1 sends, SEND=0 (or unset) is a dry run; not '$SEND'" ;;
esac
worktree_check
[ -e "$WORKTREE/scripts/get_maintainer.pl" ] ||
	die "get_maintainer: $WORKTREE/scripts/get_maintainer.pl is missing: run 'make kernel-tree' first"
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git-email: git send-email is not installed: run 'make deps' (package git-email)"
list=$("$SERIES_CHECK" "$PATCHES/series") || exit
from=$(series_ident)
[ "${SEND:-0}" = 0 ] || [ "$from" != "$SERIES_IDENT_DEFAULT" ] ||
	die "from: no sender: the placeholder '$from' is no one's address: set FROM='Name <you@example.org>' or git config user.name and user.email"
# one address: "Name <you@example.org>" or "you@example.org"
printf '%s\n' "$from" | grep -Eqx '([^<>@]*<[^<>@ ]+@[^<>@ ]+>|[^<>@ ]+@[^<>@ ]+)' ||
	usage_die "FROM='$from' is not one address: FROM='Name <you@example.org>'"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xcs-send.XXXXXX") ||
	die "tmp: cannot create a directory in ${TMPDIR:-/tmp}"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
files=""
: >"$tmp/to" && : >"$tmp/cc" || die "tmp: cannot write in $tmp"
# a patch whose recipients cannot be found is not sent to nobody
for f in $(printf '%s\n' "$list" | awk -F'\t' '$1 == "applied" { print $2 }'); do
	files="$files $PATCHES/$f"
	sh "$TOP/scripts/get-maintainer.sh" to "$PATCHES/$f" >>"$tmp/to" &&
		sh "$TOP/scripts/get-maintainer.sh" cc "$PATCHES/$f" >>"$tmp/cc" ||
		die "get_maintainer: no recipients for $f (see above, or is $tmp full?); nothing sent"
done
# The cover letter: the union of all patches' recipients.
cover=$(printf '%s\n' "$list" | awk -F'\t' '$1 == "cover" { print $2 }')
if [ -n "$cover" ]; then
	to=$(sort -u "$tmp/to" | paste -sd, - | sed 's/,/, /g')
	cc=$(sort -u "$tmp/cc" | paste -sd, - | sed 's/,/, /g')
	awk -v to="$to" -v cc="$cc" '!done && /^$/ { if (to != "") print "To: " to; if (cc != "") print "Cc: " cc; done = 1 } { print }' \
		"$PATCHES/$cover" >"$tmp/$cover" ||
		die "cover: could not write $tmp/$cover (disk full?); nothing sent"
	files="$tmp/$cover$files"
fi

if [ "${SEND:-0}" = 1 ]; then
	mode=""
	progress send "sending $(echo "$files" | wc -w) mails as $from"
else
	mode=--dry-run
	progress send "dry run (SEND=1 sends): $(echo "$files" | wc -w) mails as $from"
fi
# the user's own git configuration for send-email (sendemail.smtpServer,
# ...), which lib.sh hides from the toolkit's other git calls
# shellcheck disable=SC2086 # $mode: none or one option; $files: a path each
(unset GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL
git -C "$TOP" send-email $mode --confirm=never --no-chain-reply-to \
	--suppress-cc=self --from="$from" \
	--to-cmd="sh $TOP/scripts/get-maintainer.sh to" \
	--cc-cmd="sh $TOP/scripts/get-maintainer.sh cc" $files)
