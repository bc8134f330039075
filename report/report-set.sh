#!/bin/sh
# report/report-set.sh: make report RESULTS=<set>: the report of a committed
# result set, made as make report makes one of a run here (report/report-lib.sh),
# for a reviewer with this checkout alone: no kernel tree, no run.
#
#   report-set.sh SET
# SET: a directory with a <commit>.jsonl file of records per commit and
# commits.txt, the commits in the series' order ("ID<TAB>SUBJECT", base
# first), as results/*/* hold them.  The report goes to
# $OUT/report/<set>/ (the set's path below results/, / as -), or to
# REPORT_OUT=DIR, never into out/ci: report.txt, report.md, report.json
# (what make reply and make reproduce take as REPORT=) and plots/.
# The gate acknowledgements (GATE_ACK, default ci/gate-ack.txt) are this
# series'; a set of other commits is given none (GATE_ACK=/dev/null).
# Exit: 0; 1 an error or a regression over the gate; 2 usage.
set -eu
PROG=report
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=report-lib.sh
. "$TOP/report/report-lib.sh"

[ $# = 1 ] && [ -n "$1" ] || usage_die "make report RESULTS=<set> (a directory of <commit>.jsonl files and commits.txt, e.g. results/2026-12-05-series-v3-distro/vm-icount-100G)"
set=${1%/}
[ -d "$set" ] || die "RESULTS: '$set' is not a directory (a result set: <commit>.jsonl files and commits.txt, under results/)"
if [ ! -f "$set/commits.txt" ]; then
	inner=$(find "$set" -mindepth 2 -maxdepth 2 -name commits.txt -type f | LC_ALL=C sort | sed 's|/commits.txt$||' | tr '\n' ' ')
	[ -z "$inner" ] ||
		die "RESULTS: $set holds no commits.txt but sets of its own: ${inner% } (name one)"
	die "RESULTS: $set holds no commits.txt (the commits of its records, in the series' order): not a result set"
fi
report_check
tool_built ci-report
dest=$(set_report_dir "$set") || exit

# the records: every <commit>.jsonl of a commit the set lists
set --
while IFS="$(printf '\t')" read -r c _; do
	case $c in '' | *[!0-9a-f]*) die "RESULTS: $set/commits.txt: '$c' is not a commit id (lines 'ID<TAB>SUBJECT')" ;; esac
	[ ! -f "$set/$c.jsonl" ] || set -- "$@" "$set/$c.jsonl"
done <"$set/commits.txt"
[ $# -gt 0 ] || die "RESULTS: $set has no <commit>.jsonl of a commit its commits.txt lists: no records to report"
extra=$(find "$set" -maxdepth 1 -name '*.jsonl' -type f | while read -r f; do
	c=${f##*/} c=${c%.jsonl}
	grep -q "^$c	" "$set/commits.txt" || printf '%s ' "${f##*/}"
done)
[ -z "$extra" ] || warn "RESULTS: left out, their commits not in $set/commits.txt: ${extra% }"

mkdir -p "$dest" || die "output: cannot create $dest"
# (lib.sh: write_file: whole or not at all, never through a link there)
write_file "$dest/commits.txt" cat "$set/commits.txt" ||
	die "output: cannot write $dest/commits.txt (disk full?)"
# an acknowledgement names a commit of the series (ci-report refuses
# one outside it): one of a commit the set does not list is another
# series', and none is taken
outside=$(awk '!/^#/ && NF { print $1 }' "$GATE_ACK" | while read -r a; do
	grep -q "^$a" "$dest/commits.txt" || { echo "$a"; break; }
done)
if [ -n "$outside" ]; then
	warn "gate: $GATE_ACK acknowledges $(printf %.12s "$outside"), not a commit of this set: its acknowledgements are another series', none taken"
	GATE_ACK=/dev/null
fi
# whose records these are, for make reply
printf '%s\n' "$set" | write_file "$dest/set" ||
	die "output: cannot write $dest/set (disk full?)"
report_make "$dest" "$dest/commits.txt" "$dest/commits.txt" "$@"
if [ -z "$made" ]; then
	printf '%s: report: not made: ci-report exited %s (the error is above); %s\n' "$PROG" "$rrc" \
		"the report files in $dest, if any, are an earlier run's, left whole" >&2
	exit 1
fi
status=0
if [ "$rrc" != 0 ]; then
	printf '%s: report: ci-report exited %s: a regression over the gate (named above)\n' "$PROG" "$rrc" >&2
	status=1
fi
[ -n "$plots_ok" ] || status=1
progress 'done' "report of $set: $dest/report.md, $dest/report.json (exit $status)"
exit $status
