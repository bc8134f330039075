#!/bin/sh
# make quick and make report with the real steps of ci/steps.sh (build,
# checks, bench-vm, bench), at the smallest size that runs each for real:
# the last two commits of the series (make quick takes the first and the
# last of CI_COMMITS), 512M namespaces, one rebind, two host samples of one
# experiment, checks without KUnit and the kernel's 70 coccinelle rules.
# Every step gives records in out/quick (never in out/ci, the full run's
# place), the bench-vm guest with the cache model (make quick's MODEL=auto
# under icount), the report shows both commits and where the work goes
# between them, a rerun does nothing, make
# report CI_QUICK=1 rebuilds the report from the records alone.
# test-quick: no: make quick: builds and boots
. "$(dirname "$0")/lib.sh"
need worktree
need series
HEAD=$SERIES_HEAD
PREV=$(git -C "$WORKTREE" rev-parse "$HEAD^")
# what make quick gets from its caller here: small sizes, fast checks
Q="CI_COMMITS='$PREV $HEAD' NS_SIZE=512M REBINDS=1 KUNIT=0 COCCI_SET=ours BENCH_ARGS='--quick --samples 2 --only memcpy-sweep'"

test_expect_success 'make quick: each real step runs on both commits and writes its records; the report names both' '
	rm -rf "$OUT/quick" && [ ! -e "$OUT/ci/summary.txt" ] || cp "$OUT/ci/summary.txt" ci-summary.before
	eval "$Q make -C \"\$TOP\" --no-print-directory quick OUT=\"\$OUT\" BIN=\"\$BIN\" SANITIZE=1" >out 2>err; rc=$?
	cat err out; [ $rc = 0 ] &&
	for c in $PREV $HEAD; do
		for s in build checks bench-vm bench; do
			[ -s "$OUT/quick/$c/$s/records.jsonl" ] && [ -f "$OUT/quick/$c/$s.stamp" ] ||
				{ echo "no records or stamp: $c $s"; return 1; }
		done
	done &&
	grep -q "^$(printf %.12s "$HEAD")  *ok  *ok  *ok  *ok *$" "$OUT/quick/summary.txt" &&
	grep -q "\"suite\":\"build\",\"case\":\"kernel\",\"metric\":\"ok\".*\"samples\":\[1" "$OUT/quick/$HEAD/build/records.jsonl" &&
	grep -q "\"metric\":\"verdict\"" "$OUT/quick/$HEAD/checks/records.jsonl" &&
	grep -q "\"case\":\"nd_pmem/rebind\",\"metric\":\"memmap_init_ms\"" "$OUT/quick/$HEAD/bench-vm/records.jsonl" &&
	# MODEL=auto, the default of make quick: the cache model in the icount guest
	grep -q "\"case\":\"nd_pmem/rebind\",\"metric\":\"est_cycles\".*\"model\":\"cache\"" "$OUT/quick/$HEAD/bench-vm/records.jsonl" &&
	grep -q "^Where the work goes: $(printf %.12s "$HEAD") x86/lib: Use REP MOVSB" "$OUT/quick/report.txt" &&
	grep -q "\"case\":\"memcpy-sweep/" "$OUT/quick/$HEAD/bench/records.jsonl" &&
	grep -q "^commit $(printf %.12s "$HEAD") x86/lib: Use REP MOVSB" "$OUT/quick/report.txt" &&
	grep -q "^parent $(printf %.12s "$PREV")" "$OUT/quick/report.txt" &&
	[ -s "$OUT/quick/report.md" ] && [ -s "$OUT/quick/report.json" ] &&
	[ -s "$OUT/quick/times.txt" ] && grep -q "plan: 8 of 8 steps to run" err &&
	{ [ ! -e ci-summary.before ] || cmp ci-summary.before "$OUT/ci/summary.txt"; }
'

test_expect_success 'make quick again: every step up to date, nothing run' '
	eval "$Q make -C \"\$TOP\" --no-print-directory quick OUT=\"\$OUT\" BIN=\"\$BIN\" SANITIZE=1" >out 2>err; rc=$?
	cat err; [ $rc = 0 ] &&
	[ "$(grep -c ": up to date (inputs " err)" = 8 ] && ! grep -q ": start (log: " err
'

test_expect_success 'make report: the same report from the records alone' '
	cp "$OUT/quick/report.txt" before.txt &&
	eval "$Q make -C \"\$TOP\" --no-print-directory report CI_QUICK=1 OUT=\"\$OUT\" BIN=\"\$BIN\" SANITIZE=1" >out 2>err; rc=$?
	cat err; [ $rc = 0 ] && ! grep -q ": start (log: " err &&
	diff -u before.txt "$OUT/quick/report.txt"
'
done_testing
