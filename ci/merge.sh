#!/bin/sh
# ci/merge.sh: make merge.  Joins the records of several hosts (files or
# directories, e.g. each host's out/ci or out/bench-vm) into one table by
# CPU model: $OUT/ci/merge/merge.md and merge.json, and a copy of every
# input record in $OUT/ci/merge/records.jsonl.
#
#   merge.sh RECORDS...
set -eu
PROG=merge
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

REPORT=${CI_REPORT:-$BIN/ci-report}
DEST=${MERGE_OUT:-$OUT/ci/merge}
[ $# -gt 0 ] || usage_die "merge.sh RECORDS... (make merge RESULTS='host1/out/ci host2/records.jsonl')"
[ -x "$REPORT" ] || die "tools: $REPORT is not built: run 'make tools'"
for r in "$@"; do
	[ -e "$r" ] || die "inputs: '$r' does not exist"
done
mkdir -p "$DEST"
rm -f "$DEST/records.jsonl"
progress merge "$# result set(s) -> $DEST"
"$REPORT" --by-cpu --markdown "$DEST/merge.md" --json "$DEST/merge.json" "$@" >"$DEST/merge.txt"
# the joined records, for a later report (find, not the shell: any depth)
for r in "$@"; do
	if [ -d "$r" ]; then
		find "$r" -name '*.jsonl' -type f | LC_ALL=C sort | while read -r f; do
			case $f in "$DEST"/*) ;; *) cat "$f" ;; esac
		done
	else
		cat "$r"
	fi
done >"$DEST/records.jsonl.tmp"
mv "$DEST/records.jsonl.tmp" "$DEST/records.jsonl"
cat "$DEST/merge.txt"
progress 'done' "$DEST/merge.md"
