#!/bin/sh
# trailers.sh: fold review trailers from reply mails into the series.
#
#   REPLIES=<mbox> trailers.sh
#   NO_APPLY=1                   only patches/, no 'apply' afterwards
#   TRAILERS_SLOPPY=1            fold trailers that are not their
#                                sender's too (b4 am -S)
#
# tools/trailers-collect reads the mbox as git does (git mailsplit, git
# mailinfo), matches each reply to its patch by its thread (In-Reply-To,
# References; a reply to the cover letter counts for every patch), or by
# the subject it answers when it has no thread, and lists its
# Reviewed/Tested/Acked/Reported/Suggested-by lines as git
# interpret-trailers reads them (folded lines joined), each written a
# valid address (RFC 2047 names decoded, a name with a comma quoted); a
# reply whose patch is not certain is reported and skipped, a trailer it
# cannot write valid is named by the mbox's line and nothing changes.  A
# trailer whose address is not its reply's sender's is listed and left
# out, as b4 am leaves out a from/email mismatch, unless
# TRAILERS_SLOPPY=1.  The trailers are added with git
# interpret-trailers (before the '---' line, each once) to copies of the
# patches; only when every copy is written do they replace the files in
# patches/, so a failure changes nothing.  Then 'apply' rebuilds the
# commits.
#
# Provenance: every trailer folded is also a line of
# patches/trailers.provenance, "FILE<TAB>TRAILER<TAB>MESSAGE-ID": the reply
# it came from, renamed in with the patches.  A trailer the maintainer
# rejects is a line of patches/trailers.rejected,
#   <message-id> Reviewed-by: Name <addr> | why
# (or '*' for the trailer from any reply): it is not folded again, and
# the run says so.  A line of another form, or a trailer rejected twice,
# is an error, named by line; nothing changes.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
COLLECT=${TRAILERS_COLLECT:-$BIN/trailers-collect}
[ -n "${REPLIES:-}" ] || usage_die "REPLIES=<mbox of reply mails> make trailers"
[ -f "$REPLIES" ] && [ -r "$REPLIES" ] ||
	die "replies: '$REPLIES' is not a file that can be read: REPLIES names an mbox of reply mails (b4 mbox <message-id>, or your mail program's export)"
case ${NO_APPLY:-} in
''|1) ;;
*) usage_die "NO_APPLY=1 (or unset), not '$NO_APPLY'" ;;
esac
sloppy=
case ${TRAILERS_SLOPPY:-} in
'' | 0) ;;
1) sloppy=--sloppy ;;
*) usage_die "TRAILERS_SLOPPY=1 (fold trailers that are not their sender's too, as b4 am -S) or unset, not '$TRAILERS_SLOPPY'" ;;
esac

patches_plain
REJECTED=$PATCHES/trailers.rejected
PROVENANCE=$PATCHES/trailers.provenance
tab=$(printf '\t')
# the rejected trailers, "ID<TAB>TRAILER<TAB>LINE<TAB>WHY", checked whole first
rejected=
if [ -e "$REJECTED" ]; then
	rejected=$(awk -v f="${REJECTED#"$TOP"/}" '
		/^[ \t]*(#|$)/ { next }
		{
			if (!match($0, /^(<[^<> \t]+>|\*)[ \t]+(Reviewed-by|Tested-by|Acked-by|Reported-by|Suggested-by): [^|]*[^ \t|][ \t]+\|[ \t]*[^ \t]/)) {
				printf "%s:%d: not \"<message-id> Reviewed-by: Name <addr> | why\" (or * for any reply; Tested, Acked, Reported, Suggested-by too): %s\n", f, NR, $0 > "/dev/stderr"
				bad = 1; next
			}
			id = $1; rest = substr($0, length($1) + 1); sub(/^[ \t]+/, "", rest)
			bar = index(rest, "|"); t = substr(rest, 1, bar - 1); why = substr(rest, bar + 1)
			sub(/[ \t]+$/, "", t); sub(/^[ \t]+/, "", why)
			if ((id SUBSEP t) in at) {
				printf "%s:%d: %s from %s is rejected twice (line %d): one line each\n", f, NR, t, id, at[id, t] > "/dev/stderr"
				bad = 1; next
			}
			at[id, t] = NR
			printf "%s\t%s\t%d\t%s\n", id, t, NR, why
		}
		END { exit bad }' "$REJECTED") ||
		die "rejected: $REJECTED has lines it cannot take (above); nothing changed"
fi

# (a trailer it cannot write valid is refused there, by the mbox's line)
# shellcheck disable=SC2086 # $sloppy: one option or none
found=$("$COLLECT" --ids $sloppy "$PATCHES/series" "$REPLIES") ||
	die "collect: the trailers of $REPLIES cannot be folded (above); nothing changed"
# a trailer once per patch, from the first reply that gives it
found=$(printf '%s\n' "$found" | awk -F'\t' 'NF && !seen[$1 FS $2]++')
if [ -z "$found" ]; then
	progress trailers "no Reviewed/Tested/Acked/Reported/Suggested-by for this series in $REPLIES to fold"
	exit 0
fi

# $tmp/list: the patches changed; $tmp/new: "NEW<TAB>FILE" a line, the
# new files beside those of patches/ (lib.sh: tmp_beside), renamed over
# them at the end, and removed if the run ends before
stage_make "${TMPDIR:-/tmp}" xcs-trailers "the scratch directory of a trailers run"
tmp=$run_dir
trap 'cut -f1 "$tmp/new" 2>/dev/null | while IFS= read -r n; do rm -f "$n"; done; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$tmp/p" && : >"$tmp/list" && : >"$tmp/new" || die "tmp: cannot write in '$tmp'"
[ ! -e "$PROVENANCE" ] || cp "$PROVENANCE" "$tmp/provenance" ||
	die "tmp: cannot copy $PROVENANCE (disk full?)"
[ -e "$tmp/provenance" ] ||
	printf '# make trailers: each trailer folded into patches/, the reply it came from\n# file\ttrailer\tMessage-Id\n' >"$tmp/provenance" ||
	die "tmp: cannot write in $tmp (disk full?)"
# mime_utf8 FILE: a mail whose text is not ASCII says it is UTF-8 as git
# format-patch says it (MIME-Version, Content-Type, 8bit), so that git
# send-email does not stop to ask for an encoding (a name like Jörg's in a
# trailer); a mail that says another charset is refused
mime_utf8() {
	LC_ALL=C grep -q '[^[:print:][:space:]]' "$1" || return 0
	awk '
		!hdr && /^$/ { hdr = 1 }
		!hdr && tolower($0) ~ /^content-type:/ {
			if (tolower($0) !~ /charset="?utf-8"?/) { bad = $0 }
			have = 1
		}
		END {
			if (bad != "") { print "mime: " FILENAME ": " bad ": not UTF-8, and a trailer is" > "/dev/stderr"; exit 2 }
			exit have ? 0 : 1
		}' "$1" && return 0
	[ $? = 1 ] || return 1
	awk '!done && /^$/ {
			print "MIME-Version: 1.0"
			print "Content-Type: text/plain; charset=UTF-8"
			print "Content-Transfer-Encoding: 8bit"
			done = 1
		}
		{ print }' "$1" >"$1.mime" && mv -f "$1.mime" "$1"
}
printf '%s\n' "$found" | while IFS=$tab read -r f t id; do
	why=$(printf '%s\n' "$rejected" | awk -F'\t' -v id="$id" -v t="$t" \
		'($1 == id || $1 == "*") && $2 == t { printf "%s:%s: %s", f, $3, $4; exit }' f="${REJECTED#"$TOP"/}")
	if [ -n "$why" ]; then
		progress trailers "$f: '$t' from $id: rejected ($why), not folded"
		continue
	fi
	if grep -qxF "$t" "$PATCHES/$f"; then
		progress trailers "$f: already has '$t'"
		continue
	fi
	if [ ! -e "$tmp/p/$f" ]; then
		mkdir -p "$(dirname "$tmp/p/$f")" && cp "$PATCHES/$f" "$tmp/p/$f" ||
			die "tmp: cannot copy $PATCHES/$f to $tmp (disk full?)"
		echo "$f" >>"$tmp/list" || die "tmp: cannot write '$tmp/list' (disk full?)"
	fi
	git interpret-trailers --in-place --if-exists addIfDifferent \
		--trailer "$t" "$tmp/p/$f" ||
		die "interpret-trailers: could not add '$t' to a copy of $PATCHES/$f; patches/ is unchanged"
	mime_utf8 "$tmp/p/$f" ||
		die "mime: cannot say that $PATCHES/$f is UTF-8 (above); patches/ is unchanged"
	printf '%s\t%s\t%s\n' "$f" "$t" "$id" >>"$tmp/provenance" ||
		die "tmp: cannot write $tmp/provenance (disk full?); patches/ is unchanged"
	progress trailers "$f: + $t (from $id)"
done
# every changed file is written next to its original first, then renamed
# over it: a full disk fails before any file of patches/ changes
[ -s "$tmp/list" ] || { progress trailers "nothing new to fold"; exit 0; }
# new_beside FROM FILE: FROM copied into a new file beside FILE, listed
# in $tmp/new (a name of patches/ is never written: a link there would
# be written through)
new_beside() {
	nb=$(tmp_beside "$2") && printf '%s\t%s\n' "$nb" "$2" >>"$tmp/new" && cp "$1" "$nb" || {
		[ -z "${nb:-}" ] || rm -f "$nb"
		die "write: cannot write a new '$2' beside it (disk full?); patches/ is unchanged"
	}
}
for f in $(cat "$tmp/list"); do
	new_beside "$tmp/p/$f" "$PATCHES/$f"
done
new_beside "$tmp/provenance" "$PROVENANCE"
# the renames are not cut by a signal, which would leave some patches
# with their trailers and others without: one that comes now is acted on
# once they are done; mv -T renames a new file over a name, a link at
# the name replaced, never written through
trailers_rename() {
	while IFS=$tab read -r n f; do
		mv -f -T "$n" "$f" || return 1
	done <"$tmp/new"
	: >"$tmp/new"
}
signals_held trailers_rename ||
	die "write: renaming the new patches into '$PATCHES' failed (above)"
if [ -n "$late" ]; then
	printf '%s: interrupted once the trailers were being renamed into %s: every patch has its trailers; run make apply\n' "$PROG" "$PATCHES" >&2
	exit "$late"
fi
[ -n "${NO_APPLY:-}" ] || sh "$TOP/series/apply.sh"
