#!/bin/sh
# report/html.sh: make html: a run's report as one self-contained HTML
# page (report/html-main.c says what is on it, in which order).
#
#   html.sh [SET]
# Without SET: the records of the run here (out/ci; CI_QUICK=1: out/quick),
# through make report's way (ci/run.sh --report-only); with SET, a
# committed result set's (report/report-set.sh).  The report is made
# again first, so the page is of the records as they are now; the page
# goes to HTML_OUT (default report.html beside report.md), whole or not
# at all.
#   MERGE=DIR        make merge's output directory: its per-CPU table too
#   RANGE_DIFF=FILE  a make range-diff's output, as it is; RANGE_DIFF=none:
#                    none.  Unset: make range-diff (PREV= as it takes it)
#                    when the series applied here is the report's (its
#                    last commit is refs/x86-copy-series/series), else the
#                    page says why there is none.
# Exit: 0; 1 an error (no page written), a range-diff that failed (the
# page says so) or what the report itself exits 1 for (a regression over
# the gate: on the page); 2 usage.
set -eu
PROG=html
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
# shellcheck source=report-lib.sh
. "$TOP/report/report-lib.sh"

# sh_quote WORD: WORD for a POSIX shell, single-quoted where it needs it
sh_quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./=+:,@%-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

[ $# -le 1 ] || usage_die "make html [RESULTS=<set>] [HTML_OUT=FILE] [MERGE=DIR] [RANGE_DIFF=FILE|none] (one set: a directory of <commit>.jsonl files and commits.txt)"
set=${1:-}
tool_built ci-html

if [ -n "$set" ]; then
	set=${set%/}
	[ -f "$set/commits.txt" ] || die "RESULTS: $set holds no commits.txt: not a result set (make report RESULTS= says more)"
	dest=$(set_report_dir "$set") || exit
	cmd="make html RESULTS=$(sh_quote "$set")"
else
	# (ci/run.sh's own rule)
	if [ -n "${CI_QUICK:-}" ]; then dest=${CI_OUT:-$OUT/quick}; else dest=${CI_OUT:-$OUT/ci}; fi
	[ -f "$dest/commits.txt" ] || die "records: $dest/commits.txt is missing: no run here to show (run 'make' or 'make ci' first, or give RESULTS=<set>)"
	cmd="make html${CI_QUICK:+ CI_QUICK=1}"
fi
page=${HTML_OUT:-$dest/report.html}
case $page in */) die "HTML_OUT: '$page' names a directory: name the file" ;; esac
merge=
if [ -n "${MERGE:-}" ]; then
	merge=${MERGE%/}/merge.md
	[ -f "$merge" ] || die "MERGE: $merge is missing: give the directory make merge wrote (default out/merge)"
fi
case ${RANGE_DIFF:-} in
'' | none) ;;
*) [ -f "$RANGE_DIFF" ] && [ -r "$RANGE_DIFF" ] ||
	die "RANGE_DIFF: '$RANGE_DIFF' is not a readable file (make range-diff's output, or none)" ;;
esac

stage_make "${TMPDIR:-/tmp}" xcs-html "the range-diff of make html"
trap 'rm -rf "$run_dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the report, made again; its exit 1 for a regression is the page's too
before=$(inode_of "$dest/report.txt")
rc=0
if [ -n "$set" ]; then
	sh "$TOP/report/report-set.sh" "$set" || rc=$?
else
	sh "$TOP/ci/run.sh" --report-only || rc=$?
fi
[ "$(inode_of "$dest/report.txt")" != "$before" ] ||
	die "no page: the report was not made (it exited $rc, the error is above)"

# the range-diff: given, made here for the series the report is of, or
# said to be missing and why
rd_status=0
last=$(awk -F '\t' 'NF { c = $1 } END { print c }' "$dest/commits.txt")
if [ "${RANGE_DIFF:-}" = none ]; then
	set -- --range-diff-note "None: RANGE_DIFF=none was given."
elif [ -n "${RANGE_DIFF:-}" ]; then
	set -- --range-diff "$RANGE_DIFF" --range-diff-note "As given (RANGE_DIFF=$RANGE_DIFF):"
elif ! head=$(kgit rev-parse -q --verify "$REF_NS/series" 2>/dev/null); then
	set -- --range-diff-note "Not made: the series is not applied in a kernel tree here ('make apply'; make range-diff needs it).  Give one with RANGE_DIFF=FILE."
elif [ "$head" != "$last" ]; then
	set -- --range-diff-note "Not made: the series applied here ($(printf %.12s "$head")) is not the one these records are of (last commit $(printf %.12s "$last")).  Give one with RANGE_DIFF=FILE."
else
	# the previous version: PREV as given, else the one before the
	# cover letter's (make range-diff's own default is the toolkit's
	# previous patches/, which may be the same version)
	if [ -z "${PREV:-}" ]; then
		tool_built series-check
		cover=$("$BIN/series-check" "${PATCHES:-$TOP/patches}/series" | awk -F '\t' '$1 == "cover" { print $2; exit }') ||
			die "patches: ${PATCHES:-patches}/series does not read (series-check, above)"
		v=$(cover_version "${PATCHES:-$TOP/patches}/${cover:-none}" 2>/dev/null) || v=
		case $v in [2-9] | [1-9][0-9]*) PREV=v$((v - 1)) && export PREV ;; esac
	fi
	progress html "make range-diff${PREV:+ PREV=$PREV}"
	if sh "$TOP/series/range-diff.sh" >"$run_dir/range-diff" 2>"$run_dir/range-diff.err"; then
		set -- --range-diff "$run_dir/range-diff" --range-diff-note \
			"git range-diff of the series applied here against ${PREV:-its previous patches/} (make range-diff${PREV:+ PREV=$PREV}):"
	else
		rd_status=$?
		cat "$run_dir/range-diff.err" >&2
		set -- --range-diff-note "make range-diff failed (exit $rd_status): $(tail -n 1 "$run_dir/range-diff.err")"
	fi
fi
"$BIN/ci-html" --report "$dest" --out "$page" --title "x86-copy-series: report of ${set:-the run here}" \
	--report-cmd "$cmd" ${merge:+--merge "$merge"} "$@" ||
	die "no page: ci-html failed (above); ${page} is as it was"
progress 'done' "$page"
[ "$rd_status" = 0 ] || { warn "range-diff: make range-diff failed (above): the page says so"; rc=1; }
exit "$rc"
