#!/bin/sh
# make costs (bench/costs.sh) on inputs that can never be right: a page
# count, sample count or round count that is not one, a results directory that has a
# table already or an unfinished run's records, the test suite's sanitized
# tools, no qemu-x86_64; each a clear error before anything is
# built, timed or counted, and nothing written.  (The run itself is
# timing: doc/bench-vm-measured.md quotes its figures; no test decides on it.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:copy-bench tool:cost-fit tool:bench-vm-model.so
COSTS_SH=$TOP/bench/costs.sh

test_expect_success 'COST_PAGES, COST_SAMPLES and COST_ROUNDS that are not counts: usage errors, nothing made' '
	for p in 12x 0 -5 "1 0x10" 012; do
		rc=0 && OUT=$SCRATCH/o COST_PAGES="$p" sh "$COSTS_SH" 2>err || rc=$? &&
		[ "$rc" = 2 ] && grep -q "costs: usage: COST_PAGES: .* is not a page count above 0" err &&
		[ ! -e o/costs ] || return 1
	done &&
	for n in 0 x 1000 -1; do
		rc=0 && OUT=$SCRATCH/o COST_SAMPLES="$n" sh "$COSTS_SH" 2>err || rc=$? &&
		[ "$rc" = 2 ] && grep -q "costs: usage: COST_SAMPLES: .$n. is not a sample count from 1 to 999" err &&
		[ ! -e o/costs ] || return 1
	done &&
	for n in 0 1 x 1000 -2; do
		rc=0 && OUT=$SCRATCH/o COST_ROUNDS="$n" sh "$COSTS_SH" 2>err || rc=$? &&
		[ "$rc" = 2 ] &&
		grep -q "costs: usage: COST_ROUNDS: .$n. is not a round count from 2 to 999 (the fit.s and the check.s)" err &&
		[ ! -e o/costs ] || return 1
	done &&
	rc=0 && OUT=$SCRATCH/o COST_PAGES="	 " sh "$COSTS_SH" 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "costs: usage: COST_PAGES: no size given" err && [ ! -e o/costs ] &&
	rc=0 && sh "$COSTS_SH" --results 2>err || rc=$? && [ "$rc" = 2 ] &&
	grep -q "costs: usage: costs.sh \[--results DIR\]" err
'

test_expect_success 'a results directory with a table, or an unfinished run: refused, kept' '
	mkdir r && echo keep >r/cost-table.jsonl &&
	expect_fail sh "$COSTS_SH" --results r &&
	grep_err "results: r already has a cost table: give a new --results DIR" &&
	[ "$(cat r/cost-table.jsonl)" = keep ] && [ "$(ls r)" = cost-table.jsonl ] &&
	mkdir u && echo half >u/records.jsonl &&
	expect_fail sh "$COSTS_SH" --results u &&
	grep_err "results: u has the records of an unfinished run: remove it or give a new --results DIR" &&
	[ "$(cat u/records.jsonl)" = half ]
'

test_expect_success 'the test suite.s sanitized tools: refused before anything is timed or counted' '
	mkdir -p sb/bin && for t in copy-bench cost-fit bench-vm-model.so; do
		ln -s "$BIN/$t" "sb/bin/$t" || return 1
	done &&
	echo "gcc -O2 -fsanitize=address,undefined" >sb/cflags &&
	BIN=$SCRATCH/sb/bin expect_fail sh "$COSTS_SH" --results r &&
	grep_err "tools: .*/sb/bin is the test suite.s sanitized build .*: its times are not this CPU.s and qemu-x86_64 runs out of memory counting it; .make costs. or .make tools. builds them plain" &&
	[ ! -e r ]
'

test_expect_success 'no qemu-x86_64: what to install, before anything runs' '
	mkdir bin &&
	for d in /usr/local/bin /usr/bin /bin; do
		for f in "$d"/*; do
			n=${f##*/}
			[ "$n" = qemu-x86_64 ] || [ -e "bin/$n" ] || ln -s "$f" "bin/$n" || return 1
		done
	done &&
	PATH=$SCRATCH/bin expect_fail sh "$COSTS_SH" --results r &&
	grep_err "count: qemu-x86_64 is not installed \(Debian package qemu-user; .make deps. installs it\)" &&
	[ ! -e r ]
'

done_testing
