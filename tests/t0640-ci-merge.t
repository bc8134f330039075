#!/bin/sh
# make merge: the records of two hosts with different CPUs become one
# table with a column per CPU model; the joined records are kept.  Guest
# records under TCG carry QEMU's CPU model, the same on every host: their
# host_cpu keeps two hosts' TCG runs in two columns.  icount runs are exact:
# the same kernel should count the same instructions on any host, and the
# merge says whether the hosts agree exactly, and flags the rows where not.
# The change is against the series' base (MERGE_COMMITS), whatever order
# the inputs come in; the same set given twice counts once; a merge that
# fails leaves the one before whole.
# test-parallel: its scratch directories and out/test/t0640-commits.txt
. "$(dirname "$0")/lib.sh"
REC=$TOP/tests/fixtures/ci/rec.sh
need tool:ci-merge
B=1111111111111111111111111111111111111111
H=3333333333333333333333333333333333333333
MERGE_COMMITS=$TEST_OUT/t0640-commits.txt
printf '%s\tbase\n%s\thead\n' $B $H >"$MERGE_COMMITS"
export MERGE_COMMITS

hosts() {
	mkdir -p a/x b &&
	sh "$REC" --normal 100 2 10 1 bench memcpy-sweep/v/64 ns_per_call ns $B host "AMD EPYC 7763" hostA "{}" >a/x/records.jsonl &&
	sh "$REC" --normal 50 2 10 2 bench memcpy-sweep/v/64 ns_per_call ns $H host "AMD EPYC 7763" hostA "{}" >>a/x/records.jsonl &&
	sh "$REC" --normal 200 2 10 3 bench memcpy-sweep/v/64 ns_per_call ns $B host "Intel Xeon 6338" hostB "{}" >b/records.jsonl &&
	sh "$REC" --normal 190 2 10 4 bench memcpy-sweep/v/64 ns_per_call ns $H host "Intel Xeon 6338" hostB "{}" >>b/records.jsonl
}

test_expect_success 'two hosts: one row per commit, one column per CPU, change against the base per CPU' '
	hosts && MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" a b/records.jsonl &&
	cat m/merge.md &&
	grep -q "| host, AMD EPYC 7763 (hostA) | host, Intel Xeon 6338 (hostB) |" m/merge.md &&
	grep -q "^| bench.memcpy-sweep/v/64.ns_per_call (ns) | 333333333333 |  | 5[0-9].[0-9]* ± .* (n 10) -5[0-9].[0-9]% \*\*\* | 1[89][0-9].[0-9]* ± .* (n 10) -[0-9].[0-9]% \*\*\* |" m/merge.md &&
	[ "$(wc -l <m/records.jsonl)" = 4 ]
'

# jcells DIR: "column n pct" of every cell of the merge's JSON, a line each
jcells() {
	python3 -c "import json, sys
r = json.load(open(sys.argv[1] + \"/merge.json\"))
for w in r[\"rows\"]:
    for c in w[\"cells\"]:
        print(w[\"commit\"][:4], c[\"column\"], c[\"n\"], c.get(\"vs_base\", {}).get(\"pct\"))" "$1"
}

test_expect_success 'the same set twice: every record counted once (n 10, not 20), with a warning' '
	hosts && MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" a a b/records.jsonl b 2>err && cat err &&
	grep -q "merge: warning: records: .*counted once" err &&
	grep -q "| 333333333333 |  | 5[0-9].[0-9]* ± .* (n 10) -5[0-9].[0-9]% \*\*\* |" m/merge.md &&
	! grep -q "(n 20)" m/merge.md && [ "$(wc -l <m/records.jsonl)" = 4 ]
'

test_expect_success 'the change is against the series base whatever the input order or names' '
	hosts && mv a zz && mkdir aa && mv b/records.jsonl aa/ &&
	MERGE_OUT=$SCRATCH/m1 sh "$TOP/report/merge.sh" zz aa && MERGE_OUT=$SCRATCH/m2 sh "$TOP/report/merge.sh" aa zz &&
	jcells m1 >c1 && jcells m2 >c2 && cat c1 && diff c1 c2 &&
	grep -q "^3333 host, AMD EPYC 7763 10 -5[0-9]" c1 && grep -q "^1111 host, AMD EPYC 7763 10 None" c1 &&
	printf "%s\thead\n%s\tbase\n" $H $B >rev.txt &&
	MERGE_COMMITS=rev.txt MERGE_OUT=$SCRATCH/m3 sh "$TOP/report/merge.sh" zz aa && jcells m3 >c3 && cat c3 &&
	grep -q "^1111 host, AMD EPYC 7763 10 1[0-9][0-9]" c3
'

test_expect_success 'a merge that fails (a bad record) leaves the one before whole' '
	hosts && MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" a b && cp -r m before &&
	echo "{\"schema\": 1}" >>b/records.jsonl &&
	expect_fail env MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" a b &&
	grep_err "records: b/records.jsonl:3: schema" && grep_err "m keeps the merge before" &&
	diff -r before m
'

# tcg_host SEED HOST_CPU: a TCG bench-vm record, QEMU's CPU, on HOST_CPU
tcg_host() {
	sh "$REC" --normal 900 50 10 "$1" bench-vm nd_pmem/rebind memmap_init_ms ms $B tcg \
		"QEMU TCG CPU version 2.5+" vm "{}" |
		sed "s/,\"host\":/,\"host_cpu\":{\"model_name\":\"$2\"},\"host\":/"
}

test_expect_success 'TCG runs of two hosts: a column per host CPU, named guest on host' '
	tcg_host 5 "AMD EPYC 7763" >t1.jsonl && tcg_host 6 "Intel Xeon 6338" >t2.jsonl &&
	grep -q "\"host_cpu\":{\"model_name\":\"Intel Xeon 6338\"}" t2.jsonl &&
	MERGE_OUT=$SCRATCH/t sh "$TOP/report/merge.sh" t1.jsonl t2.jsonl &&
	cat t/merge.md &&
	grep -q "| tcg, QEMU TCG CPU version 2.5+ on AMD EPYC 7763 (vm) | tcg, QEMU TCG CPU version 2.5+ on Intel Xeon 6338 (vm) |" t/merge.md
'

# icount_host SAMPLE HOST_CPU [COMMIT]: an exact (icount) bench-vm record
icount_host() {
	# shellcheck disable=SC2046 # one sample a word
	sh "$REC" bench-vm nd_pmem/rebind memmap_init_ms ms "${3:-$B}" tcg "QEMU TCG CPU version 2.5+" vm "{}" \
		$(seq 5 | sed "s/.*/$1/") |
		sed "s/,\"host\":/,\"host_cpu\":{\"model_name\":\"$2\"},\"host\":/; s/\"accel\":\"tcg\"/\"accel\":\"tcg\",\"clock\":\"icount\"/"
}

test_expect_success 'icount runs of two hosts: equal, within the 1 ms the kernel prints, DIFFER (flagged) beyond' '
	icount_host 1115 "AMD EPYC 7763" >i1.jsonl && icount_host 1115 "Intel Xeon 6338" >i2.jsonl &&
	icount_host 856 "AMD EPYC 7763" $H >>i1.jsonl && icount_host 860 "Intel Xeon 6338" $H >>i2.jsonl &&
	MERGE_OUT=$SCRATCH/i sh "$TOP/report/merge.sh" i1.jsonl i2.jsonl 2>err && cat err i/merge.md &&
	grep -q "| tcg-icount, QEMU TCG CPU version 2.5+ on AMD EPYC 7763 (vm) | tcg-icount, QEMU TCG CPU version 2.5+ on Intel Xeon 6338 (vm) | tcg-icount on the hosts |" i/merge.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | 111111111111 | .* 1115.00 ± 0.00 (n 5) | equal |$" i/merge.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | 333333333333 | .* 860.00 ± 0.00 (n 5) -22.9% e | \*\*DIFFER\*\*: 4 ms apart, beyond 1 ms (the kernel prints whole ms) |$" i/merge.md &&
	grep -q "emulated instructions at 1 ns each, not hardware time" i/merge.md &&
	grep -q "MOVNTI costs what MOV costs and no cache is modelled" i/merge.md &&
	grep -q "merge: 1 tcg-icount row(s) whose hosts or runs do not agree to the metric.s resolution" err &&
	icount_host 1115 "AMD EPYC 7763" >i3.jsonl && icount_host 859 "AMD EPYC 7763" $H >>i3.jsonl &&
	MERGE_OUT=$SCRATCH/j sh "$TOP/report/merge.sh" i3.jsonl i2.jsonl 2>err && cat err j/merge.md &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | 333333333333 | .* 859.00 ± 0.00 (n 5) .* | agree: up to 1 ms apart (the kernel prints whole ms) |$" j/merge.md &&
	! grep -q "do not agree" err &&
	python3 -c "import json; r = json.load(open(\"i/merge.json\")); assert all(c[\"clock\"] == \"icount\" for w in r[\"rows\"] for c in w[\"cells\"])"
'

test_expect_success 'a set of another version of the series (new ids: a rebase, trailers folded) on this checkout'"'"'s order: refused, naming the order that takes it; merged whole on its own' '
	fake_series repo && mkdir -p old &&
	printf "%s\tbase\n%s\thead\n" $B $H >old/commits.txt && hosts && cp a/x/records.jsonl old/ &&
	expect_fail env -u MERGE_COMMITS KERNEL_TREE=$SCRATCH/repo MERGE_OUT=$SCRATCH/m1 sh "$TOP/report/merge.sh" old &&
	grep_err "series: old is of 2 commit.s. that .*m1/commits.txt does not list .another version of the series: rebased, or trailers folded in.: MERGE_COMMITS=old/commits.txt merges it in its own order" &&
	[ ! -e m1/merge.txt ] &&
	env MERGE_COMMITS=old/commits.txt KERNEL_TREE=$SCRATCH/repo MERGE_OUT=$SCRATCH/m2 sh "$TOP/report/merge.sh" old >out 2>err &&
	[ "$(grep -c . m2/records.jsonl)" = 2 ] && ! grep -q "left out" err
'

test_expect_success 'a missing input is named; no input is a usage error' '
	expect_fail sh "$TOP/report/merge.sh" nothere && grep_err "merge: inputs: .nothere. does not exist" &&
	{ rc=0; sh "$TOP/report/merge.sh" 2>/dev/null || rc=$?; } && [ $rc = 2 ]
'
test_expect_success 'no base record for a metric (or for one CPU): no change against the base, never another commit' '
	M=2222222222222222222222222222222222222222 &&
	printf "%s\tbase\n%s\tmiddle\n%s\thead\n" $B $M $H >three.txt &&
	mkdir -p c &&
	for x in "100 $B hostA" "90 $M hostA" "80 $H hostA" "70 $M hostB" "60 $H hostB"; do
		set -- $x &&
		sh "$REC" --normal "$1" 1 10 5 bench memcpy-sweep/v/64 ns_per_call ns "$2" host "cpu $3" "$3" "{}" >>c/records.jsonl ||
			return 1
	done &&
	# a second metric that the base never measured, on both CPUs
	for x in "9 $M hostA" "8 $H hostA" "7 $M hostB" "6 $H hostB"; do
		set -- $x &&
		sh "$REC" --normal "$1" 1 10 6 bench memcpy-sweep/v/64 ns_per_byte ns "$2" host "cpu $3" "$3" "{}" >>c/records.jsonl ||
			return 1
	done &&
	MERGE_COMMITS=three.txt MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" c && jcells m >cells && cat cells &&
	grep -q "^2222 host, cpu hostA 10 -1[0-9]" cells && grep -q "^3333 host, cpu hostA 10 -[12][0-9]" cells &&
	grep -q "^2222 host, cpu hostB 10 None$" cells && grep -q "^3333 host, cpu hostB 10 None$" cells &&
	[ "$(wc -l <cells)" = 9 ] && [ "$(grep -c " None$" cells)" = 7 ] &&
	grep "ns_per_byte" m/merge.md | grep -q "| 3333" &&
	! grep "ns_per_byte" m/merge.md | grep -Eq "\(n 10\) [-+][0-9.]+%" &&
	grep "| 3333" m/merge.md | grep -q " (n 10) |$" && ! grep "| 3333" m/merge.md | grep -Eq "\(n 10\) [-+][0-9.]+% [*]* \|$"
'
done_testing
