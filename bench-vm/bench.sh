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
#
# The kernels' results are one run: they are written into a directory of
# the run's own, $OUT/.bench-vm-run.XXXXXX (bench-vm/rundir.sh), and
# replace those of out/bench-vm/<commit> only when every kernel has run.
# Interrupted (INT, TERM, HUP: run.sh gets TERM and keeps what arrived
# with an error record saying so), the run replaces nothing and says
# where its partial results are (exit 128+N); killed outright, it
# replaces nothing either, and run.sh gets TERM from the parent-death
# signal.  The next run removes run directories of runs no longer alive.
# A run.sh usage error (a bad NS_SIZE, ...) ends the run before its first
# kernel (run.sh --check), exit 2.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$(dirname "$0")/rundir.sh"
# shellcheck disable=SC2034 # die and usage_die (scripts/lib.sh) name it
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
mkdir -p "$OUT/bench-vm" || die "results: cannot create $OUT/bench-vm"
runs_clean "$OUT" '.bench-vm-run.*' "the results"
# every option and variable as run.sh checks them, before the first
# kernel runs (and before its later kernels would be refused one by one)
rc=0
sh "$TOP/bench-vm/run.sh" --check >/dev/null || rc=$?
[ "$rc" = 0 ] || die_rc "$rc" "run.sh refused its options (above): the run stops, $OUT/bench-vm is unchanged"
run_dir_make "$OUT" .bench-vm-run
# shellcheck disable=SC2154 # run_dir_make (rundir.sh) sets it
stage=$run_dir
rpid='' keep=''
# interrupted SIG N: run.sh (started in the background, so that this
# shell's trap runs at once: it ignores SIGINT there) gets TERM and
# keeps what arrived; nothing of out/bench-vm is replaced
interrupted() {
	trap '' INT TERM HUP
	if [ -n "$rpid" ]; then
		kill -TERM "$rpid" 2>/dev/null || true
		wait "$rpid" 2>/dev/null || true
	fi
	keep=1
	die_rc $((128 + $2)) "interrupted by SIG$1: $OUT/bench-vm keeps the results of the run before; this run's, cut short, are in $stage (the next run removes them)"
}
trap 'interrupted INT 2' INT
trap 'interrupted TERM 15' TERM
trap 'interrupted HUP 1' HUP
# a run that stopped before its end leaves no half of it behind, but
# what an error names
trap '[ -n "$keep" ] || rm -rf "$stage"' EXIT

status=0 done_commits=''
for c in $commits; do
	progress "$c" "bench-vm: start"
	rc=0
	PDEATH_PARENT=$$ setpriv --pdeathsig TERM sh "$PDEATH" sh "$TOP/bench-vm/run.sh" --results "$stage/$c" "$c" &
	rpid=$!
	wait "$rpid" || rc=$?
	rpid=''
	case $rc in
	0) ;;
	2) die_rc 2 "run.sh refused its options (above): the run stops, $OUT/bench-vm is unchanged" ;;
	*) status=1 ;;
	esac
	if [ -f "$stage/$c/records.jsonl" ]; then
		case " $done_commits " in *" $c "*) ;; *) done_commits="$done_commits $c" ;; esac
	fi
	# run.sh keeps a directory of its own when an error names a file there
	! ls -d "$stage/$c"/.run.* >/dev/null 2>&1 || keep=1
done
[ -n "$done_commits" ] || die "report: no kernel produced records"

# Every kernel has run: their results replace those of the run before,
# without a stop halfway
trap '' INT TERM HUP
for c in $done_commits; do
	mkdir -p "$OUT/bench-vm/$c" && results_commit "$stage/$c" "$OUT/bench-vm/$c" ||
		die "results: moving $stage/$c into $OUT/bench-vm/$c failed (the reason is above)"
done
files=''
for c in $commits; do
	case " $done_commits " in *" $c "*) files="$files $OUT/bench-vm/$c/records.jsonl" ;; esac
done
# shellcheck disable=SC2086 # one path per commit id, no spaces
"$BENCH_VM_BIN/bench-vm-report" $files || status=1
exit $status
