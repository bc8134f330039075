#!/bin/sh
# report/merge.sh: make merge.  Joins the records of several hosts (files or
# directories: each host's out/ci or out/bench-vm, results/*) into one
# table by CPU (ci-merge): $OUT/merge/merge.{txt,md,json}, and every
# record read, once, in $OUT/merge/records.jsonl.  A change is against
# the series' base on the same CPU, whatever order the inputs come in.
#
#   merge.sh RECORDS...
# MERGE_COMMITS=FILE: the series, base first ("ID<TAB>SUBJECT" lines);
# default: the base and the series of this checkout (make apply).
# MERGE_OUT=DIR: the output directory.  The outputs are written aside and
# renamed into place by ci-merge: a failed merge leaves the last whole.
set -eu
PROG=merge
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

DEST=${MERGE_OUT:-$OUT/merge}
[ $# -gt 0 ] || usage_die "merge.sh RECORDS... (make merge RESULTS='host1/out/ci host2/records.jsonl')"
tool_built ci-merge
for r in "$@"; do
	[ -e "$r" ] || die "inputs: '$r' does not exist"
done
mkdir -p "$DEST"
# The series' order: MERGE_COMMITS; else this checkout's series; else the
# commits.txt that make ci leaves beside its results (the workflow's
# merge job has no kernel tree), which must then agree.
commits=${MERGE_COMMITS:-}
if [ -z "$commits" ] && kgit rev-parse -q --verify "$REF_NS/series" >/dev/null 2>&1; then
	commits=$DEST/commits.txt
	list=$(commit_list) || exit 1
	# shellcheck disable=SC2086 # commit ids, a word each
	write_file "$commits" commit_subjects $list || die "commits: cannot write $commits"
elif [ -z "$commits" ]; then
	found=$(for r in "$@"; do
		[ ! -d "$r" ] || find "$r" -name commits.txt -type f
	done | LC_ALL=C sort)
	while read -r f; do
		[ -n "$f" ] || continue
		if [ -z "$commits" ]; then
			commits=$f
		else
			cmp -s "$commits" "$f" || die "series: $commits and $f give two orders of the commits: give MERGE_COMMITS=FILE"
		fi
	done <<EOF
$found
EOF
	[ -n "$commits" ] || die "series: no order of the commits: run 'make apply', or give MERGE_COMMITS=FILE (ID<TAB>SUBJECT lines, base first)"
fi
# A set that says which commits it is of (its commits.txt) and names one
# the series does not hold is of another series (a rebase, make trailers:
# new ids): merged on this order, most of its records would be left out
# with a warning only.  Refused, with the order that takes it whole
# (MERGE_COMMITS given: the user's order, records outside it left out).
for r in "$@"; do
	[ -z "${MERGE_COMMITS:-}" ] && [ -d "$r" ] && [ -f "$r/commits.txt" ] || continue
	[ "$r/commits.txt" != "$commits" ] || continue
	miss=$(awk -F '\t' 'NR == FNR { have[$1] = 1; next } !($1 in have) { n++ } END { print n + 0 }' \
		"$commits" "$r/commits.txt") || die "series: cannot read $commits or $r/commits.txt"
	[ "$miss" = 0 ] ||
		die "series: $r is of $miss commit(s) that $commits does not list (another version of the series: rebased, or trailers folded in): MERGE_COMMITS=$r/commits.txt merges it in its own order"
done
progress merge "$# result set(s) -> $DEST"
"$BIN/ci-merge" --commits "$commits" --text "$DEST/merge.txt" --markdown "$DEST/merge.md" \
	--json "$DEST/merge.json" --records "$DEST/records.jsonl" "$@" ||
	die_rc $? "ci-merge failed (above): $DEST keeps the merge before"
cat "$DEST/merge.txt"
progress 'done' "$DEST/merge.md"
