#!/bin/sh
# trailers.sh: fold review trailers from reply mails into the series.
#
#   REPLIES=<mbox> trailers.sh
#
# tools/trailers-collect matches each reply to its patch (by In-Reply-To,
# References, or the subject it answers; a reply to the cover letter counts
# for every patch) and lists its Reviewed-by/Tested-by/Acked-by lines.  They
# are added to the patch's mbox in patches/ with git interpret-trailers
# (before the '---' line, each once), then 'apply' rebuilds the commits.
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
COLLECT=${TRAILERS_COLLECT:-$BIN/trailers-collect}
[ -n "${REPLIES:-}" ] || usage_die "REPLIES=<mbox of reply mails> make trailers"
[ -r "$REPLIES" ] || die "replies: '$REPLIES' cannot be read"

found=$("$COLLECT" "$PATCHES/series" "$REPLIES") || exit 1
found=$(printf '%s\n' "$found" | awk 'NF && !seen[$0]++')
if [ -z "$found" ]; then
	progress trailers "no Reviewed-by/Tested-by/Acked-by for this series in $REPLIES"
	exit 0
fi
tab=$(printf '\t')
printf '%s\n' "$found" | while IFS=$tab read -r f t; do
	if grep -qxF "$t" "$PATCHES/$f"; then
		progress trailers "$f: already has '$t'"
		continue
	fi
	git interpret-trailers --in-place --if-exists addIfDifferent \
		--trailer "$t" "$PATCHES/$f" ||
		die "interpret-trailers: could not add '$t' to $PATCHES/$f"
	progress trailers "$f: + $t"
done
[ -n "${NO_APPLY:-}" ] || sh "$TOP/scripts/apply.sh"
