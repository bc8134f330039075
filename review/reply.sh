#!/bin/sh
# reply.sh: make reply: a tester's plain-text reply to the cover letter,
# from the claims of make ci's report (ci-reproduce reply, review/reply.c):
# per patch the claimed figure and the reproduced one with its clock
# label and spread, the author's setup beside this run's, the commands
# that give the figures again, and Tested-by: only when every measured
# claim reproduced at least in direction.
#
# REPORT (default $CI_OUT/report.json: out/ci, CI_QUICK=1 out/quick; a
# directory: its report.json, as make report RESULTS=<set> leaves one);
# COVER (default the cover letter of patches/series): the mail replied to,
# by its Message-Id; FROM=<you> (lib.sh: series_ident); REPLY_FILE (default
# $OUT/reply/reply.mbox) is written whole, then checked with git
# send-email --dry-run, which sends nothing.  Send it with
#   git send-email --to=... $OUT/reply/reply.mbox
# Exit: 0; 1 an error (nothing replaced); 2 usage.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
PROG=reply

[ $# = 0 ] || usage_die "make reply [REPORT=...] [COVER=mbox] [FROM='Name <addr>'] [REPLY_FILE=file]"
if [ "${CI_QUICK:-}" = 1 ]; then CI_OUT=${CI_OUT:-$OUT/quick}; else CI_OUT=${CI_OUT:-$OUT/ci}; fi
REPORT=$(report_of "${REPORT:-$CI_OUT/report.json}") || exit
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
# whose records: a committed set's (make report RESULTS=<set> leaves its
# path beside the report), else a run's here
rdir=$(dirname "$REPORT")
if [ -f "$rdir/set" ]; then
	where="the committed records of $(cat "$rdir/set")"
else
	where="the records of a run of make ci here ($rdir)"
fi
# Cc: the cover's To and Cc (a posted cover's own) and, for the cover in
# patches/ (which gets them only when sent), everyone make send would
# send it to: each patch's get_maintainer.pl maintainers, reviewers and
# lists (series/get-maintainer.sh), once each
more_cc=
if ! grep -qi '^\(to\|cc\):' "$COVER"; then
	rcpt=$(mktemp) || die "tmp: cannot create a file in ${TMPDIR:-/tmp}"
	trap 'rm -f "$rcpt"' EXIT
	ok=1
	for f in $(awk '!/^#/ && $2 == "applied" { print $1 }' "$TOP/patches/series"); do
		sh "$TOP/series/get-maintainer.sh" to "$TOP/patches/$f" >>"$rcpt" 2>/dev/null &&
			sh "$TOP/series/get-maintainer.sh" cc "$TOP/patches/$f" >>"$rcpt" 2>/dev/null || { ok=; break; }
	done
	if [ -n "$ok" ]; then
		more_cc=$(sort -u "$rcpt" | paste -sd, - | sed 's/,/, /g')
	else
		warn "cc: the cover in patches/ has no To or Cc, and get_maintainer.pl could not name its recipients (no worktree? make kernel-tree): the reply goes To the author alone; add the lists (git send-email --cc=...)"
	fi
	rm -f "$rcpt"
	trap - EXIT
fi
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
	"$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)" "$where" "$more_cc" >"$tmp" ||
	die "reply: ci-reproduce failed (above); $REPLY_FILE is left as it was"
long=$(awk 'body && length($0) > 75 { print NR ": " length($0) " columns" } /^$/ { body = 1 }' "$tmp" | head -n 3)
[ -z "$long" ] || die "reply: body lines over 75 columns (line $long): a bug of review/reply.c"
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
