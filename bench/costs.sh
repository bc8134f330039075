#!/bin/sh
# bench/costs.sh: `make costs`, this CPU's cost table (lib/costs.h) and its
# check.  For one commit's copy routines (bench/gen.sh):
#   1. host times: copy-bench's cost-classes kernels, and the memmap
#      replica (template-ways: memcpy and inline NT copies in the ways of
#      the series' versions; template-copy: memcpy, out-of-line and inline
#      NT copies of 64, 80, 96 B) at each size of COST_PAGES, pinned, in
#      one process, COST_ROUNDS rounds of all of it (copy-bench --rounds):
#      kernels and replica interleaved, so that the machine's drift
#      reaches both alike; the fit is made on the odd rounds, checked on
#      the even ones, and the spread between rounds is the CPU's
#      run-to-run spread, in every interval;
#   2. counts: the same copy-bench, the same calls, under qemu-x86_64
#      with bench-vm's model plugin (copy-bench --count): exact counts of
#      each class, one window per call;
#   3. cost-fit: the table from the odd rounds' kernels alone (each held
#      out in turn: the model's error), then the even rounds' replica
#      passes predicted from it against their host times.
# Everything goes to $OUT/costs/run-<time>/ (or --results DIR):
#   records.jsonl      the host samples, params.round each (doc/records.md)
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
# COST_SAMPLES  host samples per call and round (default: copy-bench's)
# COST_ROUNDS   rounds (default 10; 2 at least: the fit's and the check's)
set -eu
# shellcheck disable=SC2034 # read by scripts/lib.sh
PROG=costs
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check

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
COST_ROUNDS=${COST_ROUNDS:-10}
pages_csv=''
for p in $COST_PAGES; do
	case $p in
	'' | *[!0-9]* | 0*) usage_die "COST_PAGES: '$p' is not a page count above 0" ;;
	esac
	pages_csv=${pages_csv:+$pages_csv,}$p
done
[ -n "$pages_csv" ] || usage_die "COST_PAGES: no size given"

case $COST_SAMPLES in
'' | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;
*) usage_die "COST_SAMPLES: '$COST_SAMPLES' is not a sample count from 1 to 999" ;;
esac
case $COST_ROUNDS in
[2-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;;
*) usage_die "COST_ROUNDS: '$COST_ROUNDS' is not a round count from 2 to 999 (the fit's and the check's)" ;;
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
[ ! -e "$RUN/records.jsonl" ] ||
	die "results: $RUN has the records of an unfinished run: remove it or give a new --results DIR"
# ASan's shadow memory under qemu-x86_64 took 24 GiB and the OOM killer
# (2026-12-06), and its checks would be timed as the CPU's
tools_plain "its times are not this CPU's and qemu-x86_64 runs out of memory counting it"
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

progress "$label" "host: $COST_ROUNDS rounds of the cost-classes kernels and the replica at $COST_PAGES struct pages (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
host "$RUN/records.jsonl" --only cost-classes,template-ways,template-copy \
	--pages "$pages_csv" --rounds "$COST_ROUNDS"
progress "$label" "count: cost-classes under qemu-x86_64 and the model"
count cost-classes --only cost-classes
set -- --counts "$RUN/cost-classes"
for p in $COST_PAGES; do
	progress "$label" "count: template-ways and template-copy, $p struct pages"
	count "ways-$p" --only template-ways,template-copy --pages "$p"
	set -- "$@" --counts "$RUN/ways-$p"
done
progress "$label" "fit the table on the odd rounds, check it on the even rounds' replica"
write_file -k "$RUN/cost-fit.txt" "$BIN/cost-fit" --times "$RUN/records.jsonl" "$@" \
	--table "$RUN/cost-table.jsonl" --check "$RUN/cost-check.jsonl" || {
	cat "$RUN/cost-fit.txt"
	die "fit: cost-fit wrote no table for $RUN: the reason is above (and in $RUN/cost-fit.txt)"
}
cat "$RUN/cost-fit.txt"
progress "done" "table: $RUN/cost-table.jsonl, check: $RUN/cost-check.jsonl"
