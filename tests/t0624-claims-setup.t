#!/bin/sh
# A claim compares like with like: its two cells are of one setup (the
# row's: accel, CPU, -cpu, namespace size, QEMU build, kernel build,
# model) and one rebind count, or its verdict says "not comparable:
# <setup> vs <setup>", naming what differs, and the reply's Tested-by
# (which needs every claim reproduced) is not given.  It was the first
# row with samples at each commit: the base's 100 GiB figure against the
# head's 4 GiB one, 5 rebinds against 30, one kernel build against
# another, each "reproduced".  Where both setups are there at both
# commits, the claim takes the pair that is one setup.  On copies of the
# v4 icount record set (results/2026-12-07-series-v4/vm-icount-100G).
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
REPORT=$BIN/ci-report
SET=$TOP/results/2026-12-07-series-v4/vm-icount-100G
need tool:ci-report tool:ci-reproduce
# the base and the head of the record set
B=$(head -n 1 "$SET/commits.txt" | cut -f1)
H=$(tail -n 1 "$SET/commits.txt" | cut -f1)

# edit COMMIT PYTHON: the records of COMMIT in set/ changed by PYTHON
# (on r, a record; "keep" a list of the records to add after them)
edit() {
	python3 - "set/$1.jsonl" "$2" <<-\PY
	import json, sys
	path, code = sys.argv[1:3]
	out = []
	for line in open(path):
	    r = json.loads(line)
	    keep = []
	    exec(code)
	    out.append(r)
	    out.extend(keep)
	with open(path, "w") as f:
	    for r in out:
	        f.write(json.dumps(r, separators=(",", ":")) + "\n")
	PY
}

# a copy of the record set and the series; report: ci-report of it
setup() {
	ln -s "$TOP/patches" patches && cp "$SET/commits.txt" . && mkdir set && cp "$SET"/*.jsonl set/
}
report() {
	"$REPORT" --commits commits.txt --markdown r.md --json r.json set/*.jsonl >r.txt 2>err ||
		[ $? = 1 ] || { cat err; return 1; }
	sed -n "/^Claimed vs reproduced:/,/^  (/p" r.txt
}

claim() {
	grep "^  $1 " r.txt
}

# verdict ID: the claim's verdict in report.json
verdict() {
	python3 -c "import json, sys; print({c[\"id\"]: c for c in json.load(open(\"r.json\"))[\"claims\"]}[sys.argv[1]][\"verdict\"])" "$1"
}

test_expect_success 'the head measured at another namespace size: its claims are not comparable, named; a patch'"'"'s claim is untouched' '
	setup && edit $H "r[\"params\"][\"ns_size\"] = 4294967296.0" && report &&
	claim series-icount/nd_pmem | grep -q "reproduced - *: not comparable: ns 100 GiB vs ns 4 GiB$" &&
	[ "$(verdict series-icount/dax_pmem)" = "not comparable: ns 100 GiB vs ns 4 GiB" ] &&
	grep "| series-icount/nd_pmem |" r.md | grep -q "| not comparable: ns 100 GiB vs ns 4 GiB | base -> 7/7, nd_pmem/rebind; .*ns 100 GiB.* vs .*ns 4 GiB" &&
	! claim series-icount/ | grep -q "reproduced [0-9]" &&
	claim template/nd_pmem | grep -q "reproduced 1115.00 -> 495.00 ms .*: reproduced: the claimed figures$" &&
	# the reply: no Tested-by for it, the claim among those that did not hold
	"$BIN/ci-reproduce" reply r.json patches/0000-cover-letter.mbox "T <t@example.org>" x "the records of this test" "" >reply.mbox &&
	sed -n "/^  series-icount\/nd_pmem\$/,/^  [a-z]/p" reply.mbox | tr -s " \n" " " |
		grep -q "verdict: not comparable: ns 100 GiB vs ns 4 GiB" &&
	! grep -q "^Tested-by:" reply.mbox &&
	tr "\n" " " <reply.mbox | grep -q "No Tested-by: .* did not reproduce in direction: .*series-icount/nd_pmem"
'

test_expect_success 'the head run with another rebind count: not comparable, named' '
	setup && edit $H "r[\"params\"][\"rebinds\"] = 30.0" && report &&
	claim series-icount/nd_pmem | grep -q ": not comparable: 5 rebinds vs 30 rebinds$" &&
	[ "$(verdict series-icount/dax_pmem)" = "not comparable: 5 rebinds vs 30 rebinds" ] &&
	claim streaming/nd_pmem | grep -q ": reproduced: the claimed figures$"
'

test_expect_success 'the head of another kernel build: not comparable, the two builds named' '
	setup && edit $H "r[\"schema\"] = \"x86-copy-series/record/2\"; r[\"build\"] = json.load(open(\"$BUILD_ID\"))" &&
	report &&
	[ "$(verdict series-icount/nd_pmem)" = "not comparable: kernel distro -O2 HZ 1000, fragment 11db659b vs kernel tiny -Os HZ 1000, fragment 7587669c" ]
'

test_expect_success 'both setups at the base, one at the head: the claim compares the head with the base of its setup' '
	setup &&
	edit $B "c = dict(r, samples=[x / 25 for x in r[\"samples\"]]); c[\"params\"] = dict(r[\"params\"], ns_size=4294967296.0); keep.append(c)" &&
	edit $H "r[\"samples\"] = [x / 25 for x in r[\"samples\"]]; r[\"params\"][\"ns_size\"] = 4294967296.0" &&
	# read last: the rows of 100 GiB come first
	mv set/$H.jsonl set/zz-head.jsonl && report && claim series-icount/nd_pmem | grep -q "reproduced 44.60 -> 19.80 ms (-55.6%, exact" &&
	grep "| series-icount/nd_pmem |" r.md | grep -q "ns 4 GiB" && ! grep "| series-icount/nd_pmem |" r.md | grep -q "ns 100 GiB"
'

test_expect_success 'the model beside a claim: est_cycles of one setup, or "not comparable" said there too' '
	M=$TOP/results/2026-12-07-series-v4/model-8G &&
	ln -s "$TOP/patches" patches && cp "$M/commits.txt" . && mkdir set && cp "$M"/*.jsonl set/ &&
	report && grep -A1 "^  series-icount/nd_pmem " r.txt | grep -q "the model: est_cycles 368091567 -> 96863269 (-73.7%;" &&
	edit $H "r[\"params\"][\"rebinds\"] += r[\"metric\"] == \"est_cycles\"" && report &&
	claim series-icount/nd_pmem | grep -q "reproduced 90.00 -> 40.00 ms" &&
	grep -A1 "^  series-icount/nd_pmem " r.txt | grep -q "the model: not comparable: 3 rebinds vs 4 rebinds$"
'
done_testing
