#!/bin/sh
# range-diff.sh: the series against its previous version, with git
# range-diff.
#
#   PREV=<toolkit rev or tag>  the version to compare with; default: the
#                              patches/ of HEAD when patches/ has local
#                              changes, else the parent of the last commit
#                              that changed patches/
#   PREV=v<N>                  version N by name: the toolkit commit make
#                              send SEND=1 sent it from ($OUT/sent/vN),
#                              else the newest commit whose patches/ cover
#                              letter is version N ("[PATCH vN 0/n]";
#                              v1: "[PATCH 0/n]")
#
# The previous patches/ is applied on the base its cover letter names
# (base-commit:) to refs/x86-copy-series/prev; the current series must be
# applied ('make apply').  An unknown PREV, or one without patches/series,
# is refused before anything is written.  It holds the worktree's lock
# (lib-lock.sh: worktree_lock) from the apply of the previous version until
# the worktree is back at the series head.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

prev_word=${PREV:-its previous version} prev_name=
# version_rev N: the toolkit commit of version N of the series (above)
version_rev() {
	if [ -f "$OUT/sent/v$1" ]; then
		vr_c=$(sed -n 's/^toolkit \([0-9a-f]\{40\}\)$/\1/p' "$OUT/sent/v$1")
		git -C "$TOP" rev-parse -q --verify "${vr_c:-none}^{commit}" ||
			die "prev: $OUT/sent/v$1 names no commit of $TOP (toolkit <id>): remove it to find v$1 by its cover letter"
		return 0
	fi
	vr_tmp=$(mktemp) || die "tmp: cannot create a file in ${TMPDIR:-/tmp}"
	for vr_c in $(git -C "$TOP" log --format=%H -- patches); do
		vr_cover=$(git -C "$TOP" show "$vr_c:patches/series" 2>/dev/null |
			awk '!/^#/ && $2 == "cover" { print $1; exit }')
		[ -n "$vr_cover" ] && git -C "$TOP" show "$vr_c:patches/$vr_cover" >"$vr_tmp" 2>/dev/null || continue
		if [ "$(cover_version "$vr_tmp")" = "$1" ]; then
			rm -f "$vr_tmp"
			echo "$vr_c"
			return 0
		fi
	done
	rm -f "$vr_tmp"
	die "prev: no commit of $TOP has version $1 of the series in patches/ (its cover letter's [PATCH v$1 ...]), and make send did not send it from here ($OUT/sent/v$1)"
}
case ${PREV:-} in
v[1-9] | v[1-9]*[0-9])
	case ${PREV#v} in
	*[!0-9]*) ;;
	*) prev_name="$PREV, the toolkit commit $(version_rev "${PREV#v}")" || exit
		PREV=${prev_name##* } ;;
	esac
	;;
esac
if [ -z "${PREV:-}" ]; then
	if [ -n "$(git -C "$TOP" status --porcelain -- patches)" ]; then
		PREV=HEAD
	else
		last=$(git -C "$TOP" log -n 1 --format=%H -- patches)
		[ -n "$last" ] || die "prev: patches/ has no history: name a version with PREV=<rev>"
		PREV=$last^
	fi
fi
prev_rev=$(git -C "$TOP" rev-parse -q --verify "$PREV^{commit}") ||
	die "prev: '$PREV' is not a commit of $TOP"

git -C "$TOP" cat-file -e "$prev_rev:patches/series" 2>/dev/null ||
	die "prev: $PREV ($prev_rev) has no patches/series: name a version with PREV=<rev>"
# its patches/ holds files only (lib.sh: patches_plain), before anything
# is read: a link (mode 120000 in git's tree) is named as git has it
prev_link=$(git -C "$TOP" ls-tree -r "$prev_rev" -- patches |
	awk -F'\t' '{ split($1, m, " ") } m[1] != "100644" && m[1] != "100755" {
		print (m[1] == "120000" ? "a symbolic link" : "not a regular file") "\t" $2; exit }')
[ -z "$prev_link" ] ||
	die "prev: patches: '${prev_link#*	}' of $PREV ($(printf %.12s "$prev_rev")) is ${prev_link%%	*}: patches/ holds regular files only, none is read through a link; nothing changed"
worktree_check
worktree_lock "range-diff of the series against $prev_word"
# before its trap, which checks the series head out again
worktree_idle
head=$(kgit rev-parse -q --verify "$REF_NS/series") ||
	die "series: $REF_NS/series is not set: run 'make apply' first"
base=$(base_commit)

stage_make "${TMPDIR:-/tmp}" xcs-range-diff "the scratch directory of a range-diff"
tmp=$run_dir
trap 'rm -rf "$tmp"; wgit checkout -q --detach "$head" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
git -C "$TOP" archive "$prev_rev" patches | tar -x -C "$tmp" ||
	die "prev: cannot extract the patches/ of $PREV into $tmp (disk full?)"
prev_base=$(sed -n 's/^base-commit: \([0-9a-f]\{40\}\)$/\1/p' "$tmp/patches/0000-cover-letter.mbox" 2>/dev/null | head -n 1)
[ -n "$prev_base" ] || prev_base=$base
kgit rev-parse -q --verify "$prev_base^{commit}" >/dev/null ||
	die "prev: its base $prev_base is not in $(kernel_repo): import that kernel first (make repin)"

progress range-diff "applying patches/ of ${prev_name:-$PREV} ($(printf %.12s "$prev_rev")) on $(printf %.12s "$prev_base")"
PATCHES=$tmp/patches SERIES_REF=$REF_NS/prev APPLY_BASE=$prev_base \
	sh "$TOP/series/apply.sh" || die "prev: the previous version does not apply (see above)"
kgit --no-pager range-diff --no-color "$prev_base..$REF_NS/prev" "$base..$head"
