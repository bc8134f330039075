#!/bin/sh
# bench.sh: make bench-vm.  Runs bench-vm/run.sh for each kernel, then
# prints the changelog-shaped report of all of them (bench-vm-report), the
# first kernel being the reference of the percent changes.
#
#   bench.sh [COMMIT...]     default: the base and the series head
# NS_SIZE, REBINDS, CPU, ACCEL, CLOCK, TIMEOUT, NVDIMM_DIR, PAGES pass
# through to run.sh (CLOCK=auto: icount under TCG, wall under KVM).  The
# KVM probe runs once for the host (run.sh caches its verdict), and why
# KVM is not used is said once for the whole run.  PAGES=1 digests the struct pages after the binds and the report
# compares them with the first kernel's; the module of each commit is built
# with that commit's headers (the worktree is moved there and back, as
# build.sh moves it: do not run both at once).  A kernel
# that fails is reported with its partial results; the exit status is 1.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
PROG=bench-vm
BENCH_VM_BIN=${BENCH_VM_BIN:-$BIN}

if [ $# -gt 0 ]; then
	commits=
	for c in "$@"; do
		id=$(kgit rev-parse --verify -q "$c^{commit}") ||
			die "commits: '$c' is not a commit in $(kernel_repo)"
		commits="$commits $id"
	done
else
	head=$(kgit rev-parse -q --verify "$REF_NS/series") ||
		die "series: $REF_NS/series is not set: run 'make apply', or give COMMITS=..."
	commits="$(base_commit) $head"
fi

PAGES_CHECKOUT=1
# one run: run.sh says why KVM is not used for the first kernel only
BENCH_VM_RUN=bench.sh-$$-$(date +%s)
export PAGES_CHECKOUT BENCH_VM_RUN
status=0 files=''
for c in $commits; do
	progress "$c" "bench-vm: start"
	sh "$TOP/bench-vm/run.sh" "$c" || status=1
	[ ! -f "$OUT/bench-vm/$c/records.jsonl" ] || files="$files $OUT/bench-vm/$c/records.jsonl"
done
[ -n "$files" ] || die "report: no kernel produced records"
# shellcheck disable=SC2086 # one path per commit id, no spaces
"$BENCH_VM_BIN/bench-vm-report" $files || status=1
exit $status
