#!/bin/sh
# reply.sh: make reply: a tester's plain-text reply to the cover letter,
# from the claims of make ci's report (ci-reproduce reply, ci/reply.c):
# per patch the claimed figure and the reproduced one with its clock
# label and spread, the author's setup beside this run's, the commands
# that give the figures again, and Tested-by: only when every measured
# claim reproduced at least in direction.
#
# REPORT (default $CI_OUT/report.json: out/ci, CI_QUICK=1 out/quick);
# COVER (default the cover letter of patches/series): the mail replied to,
# by its Message-Id; FROM=<you> (lib.sh: series_ident); REPLY_FILE (default
# $OUT/reply/reply.mbox) is written whole, then checked with git
# send-email --dry-run, which sends nothing.  Send it with
#   git send-email --to=... $OUT/reply/reply.mbox
# Exit: 0; 1 an error (nothing replaced); 2 usage.
set -eu
. "$(dirname "$0")/lib.sh"
PROG=reply

[ $# = 0 ] || usage_die "make reply [REPORT=...] [COVER=mbox] [FROM='Name <addr>'] [REPLY_FILE=file]"
if [ "${CI_QUICK:-}" = 1 ]; then CI_OUT=${CI_OUT:-$OUT/quick}; else CI_OUT=${CI_OUT:-$OUT/ci}; fi
REPORT=${REPORT:-$CI_OUT/report.json}
[ -f "$REPORT" ] || die "report: $REPORT is missing: run 'make' (or make ci) first, or set REPORT"
if [ -z "${COVER:-}" ]; then
	patches_plain "$TOP/patches"
	cover=$(awk '!/^#/ && $2 == "cover" { print $1; exit }' "$TOP/patches/series")
	[ -n "$cover" ] || die "cover: patches/series names no cover letter: set COVER=<mbox>"
	COVER=$TOP/patches/$cover
fi
[ -f "$COVER" ] || die "cover: $COVER is missing"
tool_built ci-reproduce
[ -x "$(git --exec-path)/git-send-email" ] ||
	die "git-email: git send-email is not installed: run 'make deps' (package git-email); it checks the reply"
# a reply answers this series: the report's first commit must be its base
# and its last its head (where this checkout has the series)
if sbase=$(kgit rev-parse -q --verify "$REF_NS/base^{commit}" 2>/dev/null) &&
	shead=$(kgit rev-parse -q --verify "$REF_NS/series^{commit}" 2>/dev/null); then
	ncols=$("$BIN/ci-reproduce" get "$REPORT" columns | wc -l) &&
		first=$("$BIN/ci-reproduce" get "$REPORT" columns.0.key) &&
		last=$("$BIN/ci-reproduce" get "$REPORT" "columns.$((ncols - 1)).key") ||
		die "report: $REPORT names no commits (columns[]): not make ci's report"
	[ "$first" = "$sbase" ] && [ "$last" = "$shead" ] ||
		die "report: $REPORT is of $(printf %.12s "$first")..$(printf %.12s "$last"), but the series here is $(printf %.12s "$sbase")..$(printf %.12s "$shead"): a reply answers the series it ran; run make ci on this one (or REPORT= its report)"
else
	warn "series: no $REF_NS/base and $REF_NS/series in $(kernel_repo): the report's commits are not checked against the series (make apply sets them)"
fi
from=$(series_ident)
[ "$from" != "$SERIES_IDENT_DEFAULT" ] ||
	warn "from: no FROM and no git user.name/user.email: the reply is from the placeholder '$from' (set FROM='Name <addr>' before sending it)"
REPLY_FILE=${REPLY_FILE:-$OUT/reply/reply.mbox}
mkdir -p "$(dirname "$REPLY_FILE")" || die "output: cannot create $(dirname "$REPLY_FILE")"
# written whole into a new file beside it (lib.sh: tmp_beside), renamed
# over it: a link at REPLY_FILE is replaced, never written through
tmp=
trap 'rm -f ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
tmp=$(tmp_beside "$REPLY_FILE") || die "output: cannot create a file in $(dirname "$REPLY_FILE")"
"$BIN/ci-reproduce" reply "$REPORT" "$COVER" "$from" \
	"$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)" >"$tmp" ||
	die "reply: ci-reproduce failed (above); $REPLY_FILE is left as it was"
long=$(awk 'body && length($0) > 75 { print NR ": " length($0) " columns" } /^$/ { body = 1 }' "$tmp" | head -n 3)
[ -z "$long" ] || die "reply: body lines over 75 columns (line $long): a bug of ci/reply.c"
# git send-email's own reading of it, sending nothing
# (its ident: FROM's, not a git configuration's, which lib.sh hides)
email=${from##*<}
dry=$(GIT_COMMITTER_NAME=${from% <*} GIT_COMMITTER_EMAIL=${email%>} GIT_AUTHOR_NAME=${from% <*} GIT_AUTHOR_EMAIL=${email%>} \
	git send-email --dry-run --confirm=never --suppress-cc=all --from="$from" \
	--smtp-server=/bin/false "$tmp" 2>&1) ||
	{ printf '%s\n' "$dry" >&2; die "reply: git send-email --dry-run refused it (above)"; }
mv -f -T "$tmp" "$REPLY_FILE" || die "output: cannot rename $tmp to $REPLY_FILE"
trap - EXIT
progress reply "$REPLY_FILE: Re: to $(grep -m1 '^In-Reply-To:' "$REPLY_FILE" | cut -d' ' -f2-), $(grep -c '^Tested-by:' "$REPLY_FILE") Tested-by; git send-email --dry-run accepted it"
printf '%s\n' "$REPLY_FILE"
