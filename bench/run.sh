#!/bin/sh
# bench/run.sh: the copy benchmark of one commit (--results DIR: the bench
# step of the pipeline, which `make bench` runs on each commit), or of
# trees with diffs applied (`make bench-diffs`).  For each: build its copy routines
# (bench/gen.sh), check that every variant copies like memcpy() (a quick
# selftest: timing a wrong copy proves nothing), then run the experiments
# pinned to one CPU.  Tables go to stdout and to tables.txt, copy-bench
# writes the records (JSON Lines, doc/records.md) to records.jsonl, both
# in the run's own directory: $OUT/bench/run-<time>/, or --results DIR
# for one commit (make ci gives its own).
#
#   run.sh [--results DIR]
#   run.sh --check     BENCH_ARGS checked as copy-bench parses them, then
#                      what decides the figures besides the commit (the
#                      options, the versions of the compiler and perf), a
#                      line each; nothing runs (ci/steps.sh, before any
#                      step starts)
#
# COMMITS='REV REV+a.diff ...'  what to measure (a REV as commit_list of
#   scripts/lib.sh reads it: base, head or any revision); with --results,
#   one commit; empty: the base and the base plus the seed changes in
#   bench/seed-diffs (REP MOVSB, seed 001; fixed-size flushcache
#   fastpaths, seed 000), labelled as such: the series' changes measured
#   before the series is applied.
# BENCH_ARGS='...'  more copy-bench options (--only, --samples, --pages,
#   --cpu, --quick).
set -eu
# shellcheck disable=SC2034 # read by scripts/lib.sh
PROG=bench
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

results='' check=''
case ${1:-} in
'') ;;
--results) [ $# = 2 ] || usage_die "run.sh [--results DIR] | --check"; results=$2 ;;
--check) [ $# = 1 ] || usage_die "run.sh [--results DIR] | --check"; check=1 ;;
*) usage_die "run.sh [--results DIR] | --check" ;;
esac
BENCH=$BIN/copy-bench
tool_built copy-bench
COMMITS=${COMMITS:-}
BENCH_ARGS=${BENCH_ARGS:-}
# BENCH_ARGS as copy-bench itself parses them (--list parses every option,
# then lists the tables instead of measuring): a mistyped one is refused
# before any commit is built or measured
# shellcheck disable=SC2086 # option lists, split on purpose
"$BENCH" --list $BENCH_ARGS >/dev/null ||
	usage_die "BENCH_ARGS: '$BENCH_ARGS': copy-bench refuses them (above)"
# --check: what decides the figures besides the commit: the options, the
# compiler of its copy routines (bench/gen.sh) and the peer's perf
if [ -n "$check" ]; then
	echo "args $BENCH_ARGS"
	tool_versions "${CC:-gcc}" perf
	exit 0
fi

if [ -z "$COMMITS" ]; then
	base=$(base_commit)
	COMMITS="$base $base+$TOP/bench/seed-diffs/001-rep-movsb.diff+$TOP/bench/seed-diffs/000-flushcache-fastpaths.diff"
	progress commits "the base and the base with the seed diffs of bench/seed-diffs (the series' commits: make bench)"
fi

if [ -n "$results" ]; then
	[ "$(echo "$COMMITS" | wc -w)" = 1 ] ||
		usage_die "run.sh --results DIR: one commit, not COMMITS='$COMMITS'"
	RUN=$results
else
	RUN=$OUT/bench/run-$(date -u +%Y%m%dT%H%M%SZ)
fi
mkdir -p "$RUN"
RECORDS=$RUN/records.jsonl
TABLES=$RUN/tables.txt
# both are added to (copy-bench, tee -a), in a --results DIR that may hold
# them already: a link there is refused, not written through
no_link "$RECORDS" "$TABLES" || die "results: $RUN: remove the link named above"

# The peer check needs a working `perf bench`; say so when it does not.
perf=
if command -v perf >/dev/null 2>&1 &&
	perf bench mem memcpy -f x86-64-movsb -s 4KB -l 1 >"$RUN/perf-probe.log" 2>&1; then
	perf=$(command -v perf)
else
	warn "peer: 'perf bench mem memcpy' does not run here (Debian package linux-perf; $RUN/perf-probe.log): no peer check"
fi

for spec in $COMMITS; do
	rev=${spec%%+*}
	id=$(commit_list "$rev") || exit 1
	label=$id
	rest=${spec#"$rev"}
	while [ -n "$rest" ]; do
		rest=${rest#+}
		d=${rest%%+*}
		rest=${rest#"$d"}
		label=$label+$(basename "$d" .diff)
	done
	spec=$id${spec#"$rev"}
	dir=$OUT/bench/$label
	progress "$label" "build the tree's copy routines into $dir/variants.so"
	sh "$TOP/bench/gen.sh" "$spec" "$dir"
	progress "$label" "selftest: every variant against memcpy()"
	"$BENCH" --variants "$dir/variants.so" --selftest --cases 2000 >"$dir/selftest.log" ||
		die_rc $? "selftest: a variant of $label does not copy like memcpy() ($(grep FAIL "$dir/selftest.log" | head -n 1)): no figures for it"
	progress "$label" "experiments (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
	{
		echo "### commit $label, kernel $(cat "$dir/kernel"), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "### load: $(uptime)"
		rc=0
		# shellcheck disable=SC2086 # option lists, split on purpose
		"$BENCH" --variants "$dir/variants.so" --commit "$label" \
			--kernel "$(cat "$dir/kernel")" --records "$RECORDS" \
			${perf:+--perf "$perf"} $BENCH_ARGS || rc=$?
		echo "### load after: $(uptime)"
		# no pipefail in POSIX sh: the status goes around tee
		echo "$rc" >"$dir/rc"
	} | tee -a "$TABLES"
	rc=$(cat "$dir/rc")
	[ "$rc" = 0 ] || die_rc "$rc" "experiments: copy-bench failed on $label (exit $rc); partial records kept in $RECORDS"
done
progress "done" "records: $RECORDS, tables: $TABLES"
