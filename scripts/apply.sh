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
#   PATCHES=<dir>        apply another copy of patches/
#   SERIES_REF=<ref>     the ref to set (default refs/x86-copy-series/series)
#   APPLY_BASE=<commit>  another base (default refs/x86-copy-series/base)
set -eu
. "$(dirname "$0")/lib.sh"

PATCHES=${PATCHES:-$TOP/patches}
SERIES_CHECK=${SERIES_CHECK:-$BIN/series-check}
# range-diff applies an older version of patches/ to another ref and,
# maybe, another base
SERIES_REF=${SERIES_REF:-$REF_NS/series}
work=$OUT/apply/${SERIES_REF##*/}

[ -e "$WORKTREE/.git" ] || die "worktree: $WORKTREE is missing: run 'make kernel-tree' first"
if [ -n "${APPLY_BASE:-}" ]; then
	base=$(kgit rev-parse -q --verify "$APPLY_BASE^{commit}") ||
		die "base: '$APPLY_BASE' is not a commit in $(kernel_repo)"
else
	base=$(base_commit)
fi

progress apply "checking $PATCHES/series"
list=$("$SERIES_CHECK" "$PATCHES/series") || exit 1

rm -rf "$work"
mkdir -p "$work"
printf '%s\n' "$list" >"$work/series.tsv"
printf '%s\n' "$list" | awk -F'\t' '$1 != "upstream" { print $2 }' |
while read -r f; do
	cat "$PATCHES/$f"
	echo
done >"$work/input.mbox"
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
wgit am --abort >/dev/null 2>&1 || true
wgit checkout -q --detach "$base"

progress apply "git am onto base $(printf %.12s "$base")"
committer_env
if ! wgit am -q --no-3way "$work/series.mbx" >"$work/am.log" 2>&1; then
	applied=$(wgit rev-list --count "$base..HEAD")
	failed=$(printf '%s\n' "$list" | awk -F'\t' -v n=$((applied + 1)) \
		'$1 == "applied" && ++i == n { print $2 ": " $4 }')
	where=$(sed -n 's/^error: patch failed: \(.*\)$/\1/p; s/^error: \(.*\): does not exist in index$/\1 (missing)/p; s/^error: \(.*\): already exists in working directory$/\1 (exists)/p' \
		"$work/am.log" | head -n 3 | tr '\n' ' ')
	cat "$work/am.log" >&2
	wgit am --abort >/dev/null 2>&1 || true
	wgit checkout -q -f --detach "$base"
	die "git am: $failed does not apply: ${where:-see the log above}; the worktree is back at the base and $SERIES_REF is unchanged"
fi

head=$(wgit rev-parse HEAD)
old=$(kgit rev-parse -q --verify "$SERIES_REF" || true)
kgit update-ref "$SERIES_REF" "$head"
wgit log --reverse --format='%H %s' "$base..$head" >"$work/commits"
if [ "$old" = "$head" ]; then
	progress apply "series head $head (unchanged)"
else
	progress apply "series head $head (was ${old:-unset})"
fi
