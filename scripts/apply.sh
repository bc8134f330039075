#!/bin/sh
# apply.sh: apply patches/ onto the base as the series, reproducibly.
#
# b4 am assembles the local mbox files (cover + applied patches, in the
# order of patches/series) into one am-ready mbox; git am applies it in the
# worktree, detached at the base, with a fixed committer identity and date,
# so the same patches always give the same commit ids.  Success moves
# refs/x86-copy-series/series; a conflict names the patch and the file,
# aborts the am, leaves the worktree at the base and the series ref as it
# was.
#
# Interruptions: INT, TERM and HUP during the am abort it and put the
# worktree back at the base (exit 128 + the signal).  A run killed outright
# leaves a marker (lib.sh: am_marker); the next run ends that am and
# restores the files of the patch it was applying before it looks for
# local changes, which it still refuses and never resets.
#
#   PATCHES=<dir>        apply another copy of patches/
#   SERIES_REF=<ref>     the ref to set, under refs/x86-copy-series/
#                        (default refs/x86-copy-series/series)
#   APPLY_BASE=<commit>  another base (default refs/x86-copy-series/base)
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
# range-diff applies an older version of patches/ to another ref and,
# maybe, another base
SERIES_REF=${SERIES_REF:-$REF_NS/series}
case $SERIES_REF in
"$REF_NS"/?*) ;;
*) usage_die "SERIES_REF='$SERIES_REF' must be a ref under $REF_NS/: the toolkit writes no other ref" ;;
esac
git check-ref-format "$SERIES_REF" ||
	usage_die "SERIES_REF='$SERIES_REF' is not a valid ref name (git check-ref-format)"
work=$OUT/apply/${SERIES_REF##*/}

# the worktree is this repository's, before anything moves or is written
worktree_check
if [ -n "${APPLY_BASE:-}" ]; then
	base=$(kgit rev-parse -q --verify "$APPLY_BASE^{commit}") ||
		die "base: '$APPLY_BASE' is not a commit in $(kernel_repo)"
else
	base=$(base_commit)
fi
[ -r "$PATCHES/series" ] ||
	die "patches: '$PATCHES/series' cannot be read: PATCHES names a directory like patches/"
am_clean_stale

progress apply "checking $PATCHES/series"
list=$("$SERIES_CHECK" "$PATCHES/series") || exit

rm -rf "$work"
mkdir -p "$work" || die "work: cannot create '$work'"
printf '%s\n' "$list" >"$work/series.tsv" ||
	die "work: cannot write '$work/series.tsv' (disk full?)"
printf '%s\n' "$list" | awk -F'\t' '$1 != "upstream" { print $2 }' |
while read -r f; do
	cat "$PATCHES/$f" && echo || exit 1
done >"$work/input.mbox" ||
	die "work: cannot write '$work/input.mbox' (disk full?); nothing applied"
napplied=$(printf '%s\n' "$list" | awk -F'\t' '$1 == "applied"' | wc -l)

# b4 reads user.name/email from git config and keeps a cache under
# XDG_CACHE_HOME: give it both, so it never looks at the user's.
progress apply "b4 am: assembling $napplied patches"
if ! XDG_CACHE_HOME=$OUT/.cache GIT_CONFIG_COUNT=2 \
	GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$PIN_IDENT_NAME" \
	GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$PIN_IDENT_EMAIL" \
	b4 --offline-mode -q -n --no-stdin am -m "$work/input.mbox" \
		-o "$work" -n series </dev/null >"$work/b4.log" 2>&1; then
	cat "$work/b4.log" >&2
	die "b4 am: could not assemble the series from $PATCHES (log above)"
fi
got=$(grep -c '^From ' "$work/series.mbx" || true)
[ "$got" = "$napplied" ] ||
	die "b4 am: assembled $got patches, patches/series lists $napplied applied (b4 log: $work/b4.log)"

[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
	die "worktree: $WORKTREE has local changes: commit or discard them first (git -C $WORKTREE status); nothing applied"

marker=$(am_marker)
gitdir=$(wgit rev-parse --absolute-git-dir)
updated=
# dash runs a trap before it undoes the redirections of the command it
# interrupted (git am's, to am.log): the message goes to our own stderr
exec 9>&2
# interrupted: end the am, put back the files of the patch it was in and
# the base; the tree was clean before, so every change is the am's
interrupted() {
	trap '' INT TERM HUP
	if [ -z "$updated" ]; then
		[ ! -f "$gitdir/rebase-apply/patch" ] || am_restore "$gitdir/rebase-apply/patch"
		wgit am --abort >/dev/null 2>&1 || wgit am --quit >/dev/null 2>&1 || true
		wgit checkout -q -f --detach "$base" 2>/dev/null || true
		printf '%s: interrupted: nothing applied; %s is back at the base and %s is unchanged\n' \
			"$PROG" "$WORKTREE" "$SERIES_REF" >&9
	fi
	rm -f "$marker"
	exit "$1"
}
printf 'apply of %s onto %s, pid %s\n' "$PATCHES" "$base" "$$" >"$marker" ||
	die "worktree: cannot write '$marker' (disk full?); nothing applied"
committer_env
trap 'interrupted 130' INT
trap 'interrupted 143' TERM
trap 'interrupted 129' HUP
wgit checkout -q --detach "$base"

# a file the series creates must not be there untracked: the am would
# fail on it, and a cleanup could not tell it from one the am created
created=$(awk '/^--- \/dev\/null/ { n = 1; next } n && /^\+\+\+ b\// { print substr($0, 7) } { n = 0 }' "$work/series.mbx" | sort -u)
for p in $created; do
	if [ -e "$WORKTREE/$p" ] || [ -L "$WORKTREE/$p" ]; then
		rm -f "$marker"
		die "worktree: '$p' is in $WORKTREE, untracked, where the series creates it: move it away; nothing applied"
	fi
done

progress apply "git am onto base $(printf %.12s "$base")"
if ! wgit am -q --no-3way "$work/series.mbx" >"$work/am.log" 2>&1; then
	applied=$(wgit rev-list --count "$base..HEAD")
	failed=$(printf '%s\n' "$list" | awk -F'\t' -v n=$((applied + 1)) \
		'$1 == "applied" && ++i == n { print $2 ": " $4 }')
	where=$(sed -n 's/^error: patch failed: \(.*\)$/\1/p; s/^error: \(.*\): does not exist in index$/\1 (missing)/p; s/^error: \(.*\): already exists in working directory$/\1 (exists)/p' \
		"$work/am.log" | head -n 3 | tr '\n' ' ')
	cat "$work/am.log" >&2
	wgit am --abort >/dev/null 2>&1 || true
	wgit checkout -q -f --detach "$base"
	rm -f "$marker"
	die "git am: $failed does not apply: ${where:-see the log above}; the worktree is back at the base and $SERIES_REF is unchanged"
fi

head=$(wgit rev-parse HEAD)
old=$(kgit rev-parse -q --verify "$SERIES_REF" || true)
kgit update-ref "$SERIES_REF" "$head"
updated=1
rm -f "$marker"
trap - INT TERM HUP
wgit log --reverse --format='%H %s' "$base..$head" >"$work/commits" ||
	die "work: cannot write '$work/commits' (disk full?); $SERIES_REF is $head"
if [ "$old" = "$head" ]; then
	progress apply "series head $head (unchanged)"
else
	progress apply "series head $head (was ${old:-unset})"
fi
