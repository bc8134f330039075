#!/bin/sh
# trailers.sh: fold review trailers from reply mails into the series.
#
#   REPLIES=<mbox> trailers.sh
#   NO_APPLY=1                   only patches/, no 'apply' afterwards
#
# tools/trailers-collect reads the mbox as git does (git mailsplit, git
# mailinfo), matches each reply to its patch by its thread (In-Reply-To,
# References; a reply to the cover letter counts for every patch), or by
# the subject it answers when it has no thread, and lists its
# Reviewed-by/Tested-by/Acked-by lines; a reply whose patch is not certain
# is reported and skipped.  The trailers are added with git
# interpret-trailers (before the '---' line, each once) to copies of the
# patches; only when every copy is written do they replace the files in
# patches/, so a failure changes nothing.  Then 'apply' rebuilds the
# commits.
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
COLLECT=${TRAILERS_COLLECT:-$BIN/trailers-collect}
[ -n "${REPLIES:-}" ] || usage_die "REPLIES=<mbox of reply mails> make trailers"
[ -f "$REPLIES" ] && [ -r "$REPLIES" ] ||
	die "replies: '$REPLIES' is not a file that can be read: REPLIES names an mbox of reply mails (b4 mbox <message-id>, or your mail program's export)"
case ${NO_APPLY:-} in
''|1) ;;
*) usage_die "NO_APPLY=1 (or unset), not '$NO_APPLY'" ;;
esac

found=$("$COLLECT" "$PATCHES/series" "$REPLIES") || exit
found=$(printf '%s\n' "$found" | awk 'NF && !seen[$0]++')
if [ -z "$found" ]; then
	progress trailers "no Reviewed-by/Tested-by/Acked-by for this series in $REPLIES"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xcs-trailers.XXXXXX") ||
	die "tmp: cannot create a directory in ${TMPDIR:-/tmp}"
trap 'rm -rf "$tmp"; for f in $(cat "$tmp.list" 2>/dev/null); do rm -f "$PATCHES/$f.trailers-new"; done; rm -f "$tmp.list"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$tmp.list" || die "tmp: cannot write '$tmp.list'"
tab=$(printf '\t')
printf '%s\n' "$found" | while IFS=$tab read -r f t; do
	if grep -qxF "$t" "$PATCHES/$f"; then
		progress trailers "$f: already has '$t'"
		continue
	fi
	if [ ! -e "$tmp/$f" ]; then
		mkdir -p "$(dirname "$tmp/$f")" && cp "$PATCHES/$f" "$tmp/$f" ||
			die "tmp: cannot copy $PATCHES/$f to $tmp (disk full?)"
		echo "$f" >>"$tmp.list" || die "tmp: cannot write '$tmp.list' (disk full?)"
	fi
	git interpret-trailers --in-place --if-exists addIfDifferent \
		--trailer "$t" "$tmp/$f" ||
		die "interpret-trailers: could not add '$t' to a copy of $PATCHES/$f; patches/ is unchanged"
	progress trailers "$f: + $t"
done
# every changed file is written next to its original first, then renamed
# over it: a full disk fails before any file of patches/ changes
for f in $(cat "$tmp.list"); do
	cp "$tmp/$f" "$PATCHES/$f.trailers-new" ||
		die "write: cannot write '$PATCHES/$f.trailers-new' (disk full?); patches/ is unchanged"
done
# the renames are not cut by a signal, which would leave some patches
# with their trailers and others without: one that comes now is acted on
# once they are done
trailers_rename() {
	for f in $(cat "$tmp.list"); do
		mv -f "$PATCHES/$f.trailers-new" "$PATCHES/$f"
	done
}
signals_held trailers_rename ||
	die "write: renaming the new patches into '$PATCHES' failed (above)"
if [ -n "$late" ]; then
	printf '%s: interrupted once the trailers were being renamed into %s: every patch has its trailers; run make apply\n' "$PROG" "$PATCHES" >&2
	exit "$late"
fi
[ -n "${NO_APPLY:-}" ] || sh "$TOP/scripts/apply.sh"
