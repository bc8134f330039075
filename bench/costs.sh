#!/bin/sh
# bench/costs.sh: `make costs`, this CPU's cost table (lib/costs.h) and its
# check.  For one commit's copy routines (bench/gen.sh):
#   1. host times: copy-bench's cost-classes kernels, and the memmap
#      replica (template-ways: memcpy and inline NT copies in the ways of
#      the series' versions; template-copy: memcpy, out-of-line and inline
#      NT copies of 64, 80, 96 B) at each size of COST_PAGES, pinned;
#      all of it twice, two runs one after the other: the fit is made on
#      the first, checked on the second, and the kernels of the two give
#      the CPU's run-to-run spread;
#   2. counts: the same copy-bench, the same calls, under qemu-x86_64
#      with bench-vm's model plugin (copy-bench --count): exact counts of
#      each class, one window per call;
#   3. cost-fit: the table from the first run's kernels alone (each
#      held out in turn: the model's error), then the second run's replica
#      passes predicted from it against their host times.
# Everything goes to $OUT/costs/run-<time>/ (or --results DIR):
#   records.jsonl      the host samples of the first run (doc/records.md)
#   records-2.jsonl    those of the second
#   *.windows *.counts the counting runs (case of each window; its counts)
#   cost-table.jsonl   the table: records of suite cost-table (ci-report
#                      --costs reads them, in out/ or in results/)
#   cost-check.jsonl   the check's records; cost-fit.txt its text
#
#   costs.sh [--results DIR]
#
# COST_COMMIT   whose copy routines (default head; before the series is
#   applied, the base with the seed diffs, as bench/run.sh)
# COST_PAGES    the replica's sizes in struct pages (default
#   '65536 1048576 4194304': 4 MiB, 64 MiB, 256 MiB of memmap)
# COST_SAMPLES  host samples per call (default: copy-bench's)
set -eu
# shellcheck disable=SC2034 # read by scripts/lib.sh
PROG=costs
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

results=''
case ${1:-} in
'') ;;
--results) [ $# = 2 ] || usage_die "costs.sh [--results DIR]"; results=$2 ;;
*) usage_die "costs.sh [--results DIR]" ;;
esac
tool_built copy-bench cost-fit bench-vm-model.so
command -v qemu-x86_64 >/dev/null 2>&1 ||
	die "count: qemu-x86_64 is not installed (Debian package qemu-user; 'make deps' installs it)"
COST_PAGES=${COST_PAGES:-65536 1048576 4194304}
COST_SAMPLES=${COST_SAMPLES:-}
for p in $COST_PAGES; do
	case $p in
	'' | *[!0-9]* | 0*) usage_die "COST_PAGES: '$p' is not a page count above 0" ;;
	esac
done
case $COST_SAMPLES in
'' | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;
*) usage_die "COST_SAMPLES: '$COST_SAMPLES' is not a sample count from 1 to 999" ;;
esac

if [ -n "${COST_COMMIT:-}" ]; then
	spec=$COST_COMMIT
elif kgit rev-parse --verify -q "$REF_NS/series^{commit}" >/dev/null; then
	spec='head'
else
	spec="$(base_commit)+$TOP/bench/seed-diffs/001-rep-movsb.diff+$TOP/bench/seed-diffs/000-flushcache-fastpaths.diff"
	warn "commit: $REF_NS/series is not set: the base with the seed diffs"
fi
rev=${spec%%+*}
id=$(commit_list "$rev") || exit 1
spec=$id${spec#"$rev"}
label=$id
[ "$spec" = "$id" ] || label=$id+seed-diffs

RUN=${results:-$OUT/costs/run-$(date -u +%Y%m%dT%H%M%SZ)}
[ ! -e "$RUN/cost-table.jsonl" ] || die "results: $RUN already has a cost table: give a new --results DIR"
# copy-bench appends: an unfinished run's samples would count twice
[ ! -e "$RUN/records.jsonl" ] && [ ! -e "$RUN/records-2.jsonl" ] ||
	die "results: $RUN has the records of an unfinished run: remove it or give a new --results DIR"
mkdir -p "$RUN"
dir=$OUT/bench/$label
progress "$label" "build the tree's copy routines into $dir/variants.so"
sh "$TOP/bench/gen.sh" "$spec" "$dir"
SO=$dir/variants.so
"$BIN/copy-bench" --variants "$SO" --selftest --cases 2000 >"$dir/selftest.log" ||
	die "selftest: a variant of $label does not copy like memcpy() ($dir/selftest.log): no figures for it"

samples=''
[ -z "$COST_SAMPLES" ] || samples="--samples $COST_SAMPLES"
# host RECORDS ARGS...: copy-bench's calls, timed, into RECORDS
host() {
	hr=$1
	shift
	# shellcheck disable=SC2086 # option lists, split on purpose
	# (added to: a link there is refused, not written through)
	no_link "$RUN/tables.txt" "$hr" &&
	"$BIN/copy-bench" --variants "$SO" --commit "$label" --kernel "$(cat "$dir/kernel")" \
		--records "$hr" $samples "$@" >>"$RUN/tables.txt" ||
		die "host: copy-bench $* failed ($RUN/tables.txt)"
}
# count TAG ARGS...: the same calls under the model, windows named
count() {
	tag=$1
	shift
	write_file -e -k "$RUN/$tag.count.log" \
		qemu-x86_64 -cpu max -plugin "$BIN/bench-vm-model.so,out=$RUN/$tag.counts" \
		"$BIN/copy-bench" --variants "$SO" --count "$RUN/$tag.windows" "$@" ||
		die "count: copy-bench $* under qemu-x86_64 failed ($RUN/$tag.count.log)"
}

for run in 1 2; do
	recs=$RUN/records.jsonl
	[ "$run" = 1 ] || recs=$RUN/records-2.jsonl
	progress "$label" "host, run $run of 2: cost-classes kernels (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
	host "$recs" --only cost-classes
	for p in $COST_PAGES; do
		progress "$label" "host, run $run of 2: template-ways and template-copy, $p struct pages"
		host "$recs" --only template-ways,template-copy --pages "$p"
	done
done
progress "$label" "count: cost-classes under qemu-x86_64 and the model"
count cost-classes --only cost-classes
set -- --counts "$RUN/cost-classes"
for p in $COST_PAGES; do
	progress "$label" "count: template-ways and template-copy, $p struct pages"
	count "ways-$p" --only template-ways,template-copy --pages "$p"
	set -- "$@" --counts "$RUN/ways-$p"
done
progress "$label" "fit the table on run 1, check it on run 2's template-ways"
write_file -k "$RUN/cost-fit.txt" "$BIN/cost-fit" --times "$RUN/records.jsonl" \
	--check-times "$RUN/records-2.jsonl" "$@" \
	--table "$RUN/cost-table.jsonl" --check "$RUN/cost-check.jsonl" || {
	cat "$RUN/cost-fit.txt"
	die "fit: cost-fit wrote no table for $RUN: the reason is above (and in $RUN/cost-fit.txt)"
}
cat "$RUN/cost-fit.txt"
progress "done" "table: $RUN/cost-table.jsonl, check: $RUN/cost-check.jsonl"
