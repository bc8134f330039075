#!/bin/sh
# What the gate is given that can never be right is an error, never a
# line of the report and exit 0: an acknowledgement (--gate-ack) with a
# broken glob, a glob whose metric is none of its suite in the records (a
# case may be missing from a run), a commit outside the series
# (--gate-series), a MAX-PCT of 0, below 0 or not a
# decimal; a threshold (--gate-pct, --gate-pct-tcg, --gate-pct-icount) or
# --alpha that is negative, hexadecimal, in exponent form or with more
# text.  A good acknowledgement still accepts its change.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
REC=$TOP/tests/fixtures/ci/rec.sh
need tool:ci-report
P=1111111111111111111111111111111111111111
C=2222222222222222222222222222222222222222
M=bench-vm/nd_pmem/rebind/memmap_init_ms

# icount_rec COMMIT VALUE: 5 samples of VALUE, clock icount
icount_rec() {
	# shellcheck disable=SC2046 # one sample a word
	sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms "$1" tcg cpu h '{}' $(seq 5 | sed "s/.*/$2/") |
		sed 's/"accel":"tcg"/"accel":"tcg","clock":"icount"/'
}

# exact records: the commit 3x the parent's emulated work (icount)
records() {
	printf '%s\tparent\n%s\tx86: the commit\n' $P $C >commits.txt &&
	printf '%s\tparent\n%s\tx86: the commit\n%s\tlater\n' $P $C \
		4444444444444444444444444444444444444444 >series.txt &&
	icount_rec $P 1115 >r.jsonl && icount_rec $C 3345 >>r.jsonl
}

# ack COMMIT GLOB PCT: ack.txt of that one line; report: ci-report with it
ack() {
	printf '# a comment\n%s %s %s streams the copies: 3x the emulated work, right\n' "$1" "$2" "$3" >ack.txt
}
report() {
	"$REPORT" --commits commits.txt --gate-pct 5 --gate-ack ack.txt "$@" r.jsonl >r.txt
}

test_expect_success 'a good acknowledgement accepts its change (the premise of the others)' '
	records && ack 222222222222 "$M" 250 && report --gate-series series.txt &&
	grep -q "accepted (ack.txt:2)" r.txt &&
	ack 222222222222 "bench-vm/*/rebind/memmap_init_[m]s" 250.5 && report --gate-series series.txt
'

test_expect_success 'a broken glob is an error naming the file and line' '
	records &&
	for g in "bench-vm/[nd_pmem/rebind/memmap_init_ms" "bench-vm/nd_pmem/rebind/memmap_init_ms\\" \
		"bench-vm//rebind/memmap_init_ms" "bench-vm/nd_pmem/rebind/" memmap_init_ms; do
		ack 222222222222 "$g" 250 && expect_fail report &&
		grep_err "^ci-report: gate-ack: ack.txt:2: .* is not a suite/case/metric glob: " || return 1
	done &&
	[ ! -f r.txt ] || ! grep -q "accepts no regression" r.txt
'

test_expect_success 'a glob whose metric is none of its suite in the records is an error' '
	records && ack 222222222222 bench-vm/nd_pmem/rebind/memmap_init_msx 250 && expect_fail report &&
	grep_err "^ci-report: gate-ack: ack.txt:2: .bench-vm/nd_pmem/rebind/memmap_init_msx. names no metric of the records: none of suite .bench-vm. \(such as .memmap_init_ms.\)$" &&
	ack 222222222222 "bench-vm/*/rebind/*_us" 250 && expect_fail report &&
	grep_err "ack.txt:2: .* names no metric of the records" &&
	ack 222222222222 "bench-vm/dax_pmem_mem/rebind/memmap_init_ms" 250 && expect_fail report &&
	grep_err "1 regression" && ! grep_err "gate-ack:" &&
	ack 222222222222 "bench/memcpy/x" 250 && expect_fail report &&
	grep_err "1 regression" && ! grep_err "gate-ack:" &&
	for g in "bench-vm/nd_pmem*" "bench-vm/*memmap_init_ms" "bench-vm/*/memmap_init_ms"; do
		# the gate matches the whole name, * across /: so does the check
		ack 222222222222 "$g" 250 && report 2>err.txt && ! grep -q "gate-ack:" err.txt ||
			{ echo "a glob the gate takes was refused: $g"; cat err.txt; return 1; }
	done
'

test_expect_success 'a commit outside the series (--gate-series) is an error' '
	records && ack 333333333333 "$M" 250 && expect_fail report --gate-series series.txt &&
	grep_err "^ci-report: gate-ack: ack.txt:2: .333333333333. is not a commit of the series \(series.txt\): " &&
	ack 444444444444 "$M" 250 && expect_fail report --gate-series series.txt &&
	grep_err "1 regression" && ! grep_err "gate-ack:"
'

test_expect_success 'a MAX-PCT of 0, below 0 or not a decimal is an error' '
	records &&
	for p in 0 0.0 -250 0x10 1e3 +250 inf nan 250% 250x; do
		ack 222222222222 "$M" "$p" && expect_fail report &&
		grep_err "^ci-report: gate-ack: ack.txt:2: .* is not a percent above 0 " || return 1
	done
'

# usage ARGS...: ci-report with ARGS is a usage error (exit 2) naming it
usage() {
	rc=0; "$REPORT" --commits commits.txt "$@" r.jsonl >/dev/null 2>err || rc=$?
	cat err; [ $rc = 2 ] && grep -q "^ci-report: usage: " err
}

test_expect_success 'thresholds and alpha: decimal numbers, all of their text, in range' '
	records &&
	for o in --gate-pct --gate-pct-tcg --gate-pct-icount; do
		for v in -1 0x10 1e1 " 5" "5 " 5x inf nan ""; do
			usage --gate-pct 5 "$o" "$v" || { echo "$o $v accepted"; return 1; }
		done
	done &&
	grep -q "gate-pct-icount: .. is not a decimal number 0 or above" err &&
	for v in 0 1 1.5 -0.1 0x0.1 1e-2; do usage --alpha "$v" || return 1; done &&
	"$REPORT" --commits commits.txt --gate-pct 0 --gate-pct-tcg 2.5 --gate-pct-icount 250 --alpha 0.01 r.jsonl >/dev/null
'
done_testing
