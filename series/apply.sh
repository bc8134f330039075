#!/bin/sh
# apply.sh: apply patches/ onto the base as the series, reproducibly.
#
# b4 am assembles the local mbox files (cover + applied patches, in the
# order of patches/series) into one am-ready mbox; git am applies it in the
# worktree, detached at the base, with a fixed committer identity and date,
# so the same patches always give the same commit ids.  Success moves
# refs/x86-copy-series/series; a conflict names the patch and the file,
# aborts the am, leaves the worktree at the base and the series ref as it
# was.  A mail b4 cannot assemble is named, with b4's reason in one line.
#
# One run at a time (lib-lock.sh: worktree_lock): a second apply, repin or
# range-diff while one runs is refused at once, naming the live run's
# pid, and changes nothing of it.  A git operation that the toolkit did
# not start, in progress in the worktree (a rebase, a merge, a
# cherry-pick, a revert, a bisect, a git am: a user's own work there), is
# refused the same way, named with the command that ends it (lib-git.sh:
# worktree_idle, am_clean_stale); repin and range-diff refuse it too.
#
# Interruptions: INT, TERM and HUP say "interrupted" and exit 128 + the
# signal; during the am they end it and put the worktree back at the base
# whatever state git was left in (lib-git.sh: am_undo).  A run killed outright
# leaves a marker (lib-git.sh: am_marker) naming it, pid and start time; the
# next run ends that am and restores the files of the patch it was
# applying before it looks for local changes, which it still refuses and
# never resets; a marker whose run is alive is never taken for a dead one.
#
#   PATCHES=<dir>        apply another copy of patches/
#   SERIES_REF=<ref>     the ref to set, under refs/x86-copy-series/
#                        (default refs/x86-copy-series/series)
#   APPLY_BASE=<commit>  another base (default refs/x86-copy-series/base)
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

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
# no file of patches/ is read through a link, before anything else
patches_plain

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
worktree_lock "apply of $PATCHES onto $(printf %.12s "$base")"

marker=$(am_marker)
old=$(kgit rev-parse -q --verify "$SERIES_REF" || true)
# where a signal finds the run: before the am (nothing to undo), in it,
# or after the ref moved
phase=prepare
# dash runs a trap before it undoes the redirections of the command it
# interrupted (git am's, to am.log): messages go to our own stderr
exec 9>&2
# interrupted SIGNAL_STATUS: say so, and undo the am.  The tree was clean
# before, so every change is the am's.  set -e is off here: a git that
# fails (index.lock behind) must not end the trap before its message.
interrupted() {
	trap '' INT TERM HUP
	set +e
	if [ "$phase" = am ] && [ "$(kgit rev-parse -q --verify "$SERIES_REF")" != "$old" ]; then
		phase=applied
	fi
	case $phase in
	prepare)
		printf '%s: interrupted: nothing applied; the am had not started and %s is unchanged\n' \
			"$PROG" "$SERIES_REF" >&9 ;;
	am)
		if why=$(am_undo "$base" 2>&1); then
			rm -f "$marker"
			printf '%s: interrupted: nothing applied; %s is back at the base and %s is unchanged\n' \
				"$PROG" "$WORKTREE" "$SERIES_REF" >&9
		else
			printf '%s: interrupted: nothing applied and %s is unchanged, but %s could not be put back at the base: %s; the next apply cleans it up\n' \
				"$PROG" "$SERIES_REF" "$WORKTREE" "$why" >&9
		fi ;;
	applied)
		rm -f "$marker"
		printf '%s: interrupted after the series was applied: %s is %s\n' \
			"$PROG" "$SERIES_REF" "$(kgit rev-parse -q --verify "$SERIES_REF")" >&9 ;;
	esac
	exit "$1"
}
trap 'interrupted 130' INT
trap 'interrupted 143' TERM
trap 'interrupted 129' HUP
am_clean_stale

# b4_am MBOX DIR: b4 am of MBOX into DIR/series.mbx, its output in
# DIR/b4.log.  b4 reads user.name/email from git config and keeps a cache
# under XDG_CACHE_HOME: give it both, so it never looks at the user's.
b4_am() {
	mkdir -p "$2" &&
	XDG_CACHE_HOME=$OUT/.cache GIT_CONFIG_COUNT=2 \
	GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$PIN_IDENT_NAME" \
	GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$PIN_IDENT_EMAIL" \
		b4 --offline-mode -q -n --no-stdin am -m "$1" -o "$2" -n series \
		</dev/null >"$2/b4.log" 2>&1
}

# b4_reason LOG: why b4 failed, in one line: the last line of a Python
# traceback (b4 0.12 dies so on a folded Subject:), else its first line
# that says something
b4_reason() {
	if grep -q '^Traceback ' "$1"; then
		awk 'NF { l = $0 } END { print l }' "$1"
	else
		awk '$0 !~ /^[- ]*$/ { print; exit }' "$1"
	fi
}

# b4_culprit: "path<TAB>subject<TAB>reason" of the mail b4 am cannot
# assemble: the cover letter and the applied patches go to b4 one more at
# a time, and the first set that fails names its last patch, or the cover
# letter when that patch assembles alone
b4_culprit() {
	bc_dir=$work/b4-parts
	rm -rf "$bc_dir" && mkdir -p "$bc_dir" || return 1
	printf '%s\n' "$list" | awk -F'\t' '$1 != "upstream"' |
	while IFS=$(printf '\t') read -r bc_st bc_f _ bc_subj; do
		{ cat "$PATCHES/$bc_f" && echo; } >>"$bc_dir/input.mbox" || exit 1
		if [ "$bc_st" = cover ]; then
			bc_cover=$bc_f bc_cover_subj=$bc_subj
			continue
		fi
		rm -rf "$bc_dir/out"
		if b4_am "$bc_dir/input.mbox" "$bc_dir/out"; then
			bc_seen=1
			continue
		fi
		bc_why=$(b4_reason "$bc_dir/out/b4.log")
		if [ -n "${bc_cover:-}" ] && [ -z "${bc_seen:-}" ] &&
		   b4_am "$PATCHES/$bc_f" "$bc_dir/alone"; then
			bc_f=$bc_cover bc_subj=$bc_cover_subj
		fi
		printf '%s\t%s\t%s\n' "$bc_f" "$bc_subj" "$bc_why"
		exit 0
	done
}

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

progress apply "b4 am: assembling $napplied patches"
if ! b4_am "$work/input.mbox" "$work"; then
	# which mail: the first that b4 cannot take with those before it
	culprit=$(b4_culprit) || culprit=
	reason=$(b4_reason "$work/b4.log")
	[ -n "$culprit" ] ||
		die "b4 am: could not assemble the series from $PATCHES, though it assembles every part of it alone: $reason (b4's output: $work/b4.log); nothing applied"
	die "b4 am: $(printf '%s' "$culprit" | cut -f1): $(printf '%s' "$culprit" | cut -f2): b4 cannot assemble it: $(printf '%s' "$culprit" | cut -f3) (b4's output: $work/b4.log); nothing applied"
fi
got=$(grep -c '^From ' "$work/series.mbx" || true)
[ "$got" = "$napplied" ] ||
	die "b4 am: assembled $got patches, patches/series lists $napplied applied (b4 log: $work/b4.log)"

[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
	die "worktree: $WORKTREE has local changes: commit or discard them first (git -C $WORKTREE status); nothing applied"

phase=am
am_marker_write "apply of $PATCHES onto $base" ||
	die "worktree: cannot write '$marker' (disk full?); nothing applied"
committer_env
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
if ! wam -q --no-3way "$work/series.mbx" >"$work/am.log" 2>&1; then
	applied=$(wgit rev-list --count "$base..HEAD")
	failed=$(printf '%s\n' "$list" | awk -F'\t' -v n=$((applied + 1)) \
		'$1 == "applied" && ++i == n { print $2 ": " $4 }')
	where=$(sed -n 's/^error: patch failed: \(.*\)$/\1/p; s/^error: \(.*\): does not exist in index$/\1 (missing)/p; s/^error: \(.*\): already exists in working directory$/\1 (exists)/p' \
		"$work/am.log" | head -n 3 | tr '\n' ' ')
	cat "$work/am.log" >&2
	why=$(am_undo "$base" 2>&1) ||
		die "git am: $failed does not apply: ${where:-see the log above}; $SERIES_REF is unchanged, but $WORKTREE could not be put back at the base: $why; the next apply cleans it up"
	rm -f "$marker"
	die "git am: $failed does not apply: ${where:-see the log above}; the worktree is back at the base and $SERIES_REF is unchanged"
fi

head=$(wgit rev-parse HEAD)
kgit update-ref "$SERIES_REF" "$head"
phase=applied
rm -f "$marker"
trap - INT TERM HUP
wgit log --reverse --format='%H %s' "$base..$head" >"$work/commits" ||
	die "work: cannot write '$work/commits' (disk full?); $SERIES_REF is $head"
if [ "$old" = "$head" ]; then
	progress apply "series head $head (unchanged)"
else
	progress apply "series head $head (was ${old:-unset})"
fi
