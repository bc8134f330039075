#!/bin/sh
# claims-lint on a scratch copy of patches/ (the mails and patches/figures)
# and the committed records: the real series passes; each mismatch the
# review of v2 found, put back into a mail, is refused with its reason:
# figures with no record set (v2's AMD copies), a table from another run
# than the one named (v2 5/7: run 2, README naming run 1), and from a run
# too disturbed for the statistic named, "medians of 11" that were the
# medians of the 4-5 clean samples, "5-8% (three runs)" from one run,
# icount figures in "ms" without "not hardware time" (v2 3/7), means
# called medians, "N rebinds" in its forms and a clean median called a
# mean; and a figure off by its last printed digit, a claim's
# percent changed, a prediction not called one, a cite whose reference is
# gone; a figures line that cannot be right is named; records of another
# base than the cover letter's base-commit (a repin) are refused.  v2's stale cover
# diffstat: make export writes format-patch's own (t0070).  make export
# and make send refusing: t0070, t0074.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
LINT=$BIN/claims-lint
need tool:claims-lint
RUN1=results/2026-12-01-series-v2/bench-run1.jsonl
RUN2=results/2026-12-01-series-v2/bench-run2.jsonl
V2HEAD1=874963143f76	# the v2 head measured in run 1
V2HEAD2=cacdaa294c17	# and in run 2

# p/: a copy of patches/ to edit; lint: claims-lint on it from the top
# of the checkout, as make export runs it (the records' paths are from there)
copy() {
	rm -rf p && cp -r "$TOP/patches" p
}
lint() {
	(cd "$TOP" && "$LINT" --series "$SCRATCH/p/series" --figures "$SCRATCH/p/figures") >out 2>err
}
refused() {
	rc=0; lint || rc=$?
	cat err; [ $rc = 1 ] && grep -q -- "$1" err && grep -q "^claims-lint: [0-9]* refusal(s)" err
}
# mail FILE: the mail of patch N (0: the cover letter)
mail() {
	ls p/000"$1"-*.mbox
}
# para N TEXT: TEXT, a paragraph of its own, before patch N's first
# Signed-off-by: (the cover letter's "v4:", the notes of its version)
para() {
	python3 - "$(mail "$1")" "$2" <<-'EOF'
	import re, sys
	path, text = sys.argv[1], sys.argv[2]
	lines = open(path).read().split("\n")
	at = next(i for i, l in enumerate(lines) if re.match(r"^(Signed-off-by:|v[0-9]+:$)", l))
	lines[at:at] = text.split("\n") + [""]
	open(path, "w").write("\n".join(lines))
	EOF
}
# edit N OLD NEW: the first OLD of patch N's mail made NEW (OLD must be there)
edit() {
	python3 - "$(mail "$1")" "$2" "$3" <<-'EOF'
	import sys
	path, old, new = sys.argv[1:4]
	s = open(path).read()
	assert old in s, "not in %s: %s" % (path, old)
	open(path, "w").write(s.replace(old, new, 1))
	EOF
}
add_source() {
	printf '%s\n' "$1" >>p/figures
}

test_expect_success 'the real series: every figure from its source' '
	copy && lint && cat out &&
	grep -q "^claims-lint: [0-9]* figures of .*/p/series, each from its source" out && [ ! -s err ]
'

test_expect_success 'figures with no record set (v2 4/7, the AMD copies): no source, refused' '
	copy && para 4 "On an AMD Zen 5 VM the copy alone was 49% slower than memcpy()
(41.2 ms against 27.6 ms)." &&
	refused "0004-.*: .49%. has no source in .*p/figures" && grep -q ".41.2 ms. has no source" err
'

# v2 5/7's table: run 2's medians of all 11 samples, its README naming run 1
V2TABLE="medians of 11 samples, in ms:

                     memcpy()   v1   Li Zhe's later   this patch
  fsdax map=dev         226.0  98.8           101.3         95.8"
CASES=template-ways/fsdax/plain,template-ways/fsdax/v1,template-ways/fsdax/pub,template-ways/fsdax/v2
test_expect_success 'a table from run 2, its source run 1 (v2 5/7): the records do not give it' '
	copy && para 6 "$V2TABLE" &&
	add_source "6 records $RUN1 median bench ms_per_pass template-ways/fsdax/plain,template-ways/fsdax/v1,template-ways/fsdax/v2 $V2HEAD1 | fsdax map=dev 226.0 98.8 101.3 95.8" &&
	refused "figures:[0-9]*: .*0006-.*: .226.0.: the median of $RUN1.s records is none of it"
'

test_expect_success 'the same table from run 2 as the clean-median: too few unpreempted samples, refused' '
	copy && para 6 "$V2TABLE" &&
	add_source "6 records $RUN2 clean-median bench ms_per_pass $CASES $V2HEAD2 | fsdax map=dev 226.0 98.8 101.3 95.8" &&
	refused "only 0 of 11 samples no other task preempted" &&
	copy && para 6 "$V2TABLE" &&
	add_source "6 records $RUN2 median bench ms_per_pass $CASES $V2HEAD2 | fsdax map=dev 226.0 98.8 101.3 95.8" &&
	lint && cat err
'

test_expect_success '"medians of 11" that are the medians of the 4-5 clean ones (v2 4/7): refused until it says so' '
	copy && para 4 "On a loaded machine, medians of 11 samples: memcpy() 192.1 ms, out of line
116.4 ms, inline 84.8 ms." &&
	add_source "4 records $RUN1 clean-median bench ms_per_pass template-copy/tmpl-memcpy-64,template-copy/fc-outline-64,template-copy/fc-inline-64 $V2HEAD1 | memcpy() 192.1 ms, out of line 116.4 ms, inline 84.8 ms" &&
	refused "0004-.*: .192.1 ms. is the median of the samples no other task preempted" &&
	edit 4 "medians of 11 samples:" "medians of the samples no other task preempted (4-5 of 11):" &&
	lint && cat err &&
	edit 4 "(4-5 of 11)" "(4-5 of 12 samples)" &&
	refused "says \"12 samples\", the records have 11"
'

test_expect_success '"5-8% (three runs)" from one run (v2 5/7): both figures need a source, three runs are not one' '
	copy && para 6 "The cached copy of 1 page in 512 makes fsdax 5-8% slower (three runs)." &&
	refused "0006-.*: .5-8%. has no source" && grep -q "0006-.*: .8%. has no source" err &&
	add_source "6 records $RUN2 median bench ms_per_pass template-ways/fsdax/v2,template-ways/fsdax/pub $V2HEAD2 | makes fsdax 5-8% slower" &&
	refused "says \"three runs\", its source is one record set"
'

# 3/7's description of its method, as its changelog words it
P3_METHOD="(QEMU TCG with -icount: emulated
instructions at 1 ns each, not hardware time; 100 GB namespaces, a
kernel built with Debian's options, the mean of 5 rebinds, all equal)"
test_expect_success 'icount figures without "not hardware time" (v2 3/7): refused' '
	copy && edit 3 "$P3_METHOD" "(QEMU TCG, -icount, 100 GB, 5 rebinds, all equal)" &&
	refused "0003-.*: .1352. is an icount figure (claim compound-tails/dax_pmem, .*): its paragraph must say it is \"not hardware time\""
'

test_expect_success 'means called medians, a count that is not the samples: refused' '
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are medians of 5 rebinds" &&
	refused "is a mean (.*vm-icount-100G), its paragraph calls it a median" &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means of 30 rebinds" &&
	refused "says \"of 30\", the mean of 5 samples"
'

test_expect_success '"N rebinds" in its forms, a clean median called a mean: refused; the right count passes' '
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means, 5 rebinds" && lint && [ ! -s err ] &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means of five rebinds" && lint && [ ! -s err ] &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means, 7 rebinds" &&
	refused "0000-.*: its paragraph says \"7 rebinds\", the records have 5" &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means, seven rebinds" &&
	refused "says \"seven rebinds\", the records have 5" &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means of seven rebinds" &&
	refused "says \"of seven\", the mean of 5 samples" &&
	copy && edit 0 "The figures are means of 5 rebinds" "The figures are means of 5 rebinds (6 samples)" &&
	refused "says \"6 samples\", the records have 5" &&
	copy && edit 0 "the median of those" "the mean of those" &&
	refused "0000-.*: .64.2. is a clean-median (.*), its paragraph calls it a mean"
'

test_expect_success 'a figure off by its last printed digit, or by less than one but more than half of it, or printed finer than its records give: refused' '
	copy && edit 4 "gave 59.1," "gave 59.2," &&
	sed -i "/^4 /s/| gave 59.1,$/| gave 59.2,/" p/figures &&
	refused "0004-.*: .59.2.: the clean-median of .*bench-run2.s records is none of it" &&
	copy && edit 4 "gave 59.1," "gave 59.13," &&
	sed -i "/^4 /s/| gave 59.1,$/| gave 59.13,/" p/figures &&
	refused ".59.13.: the clean-median .* 59.11" &&
	# 0.08 from the 60.72 of the records: under one last digit (0.1), over half of
	# it (0.05, what rounding allows)
	copy && edit 0 "gave 60.7 / 86.8" "gave 60.8 / 86.8" &&
	sed -i "/^cover /s|gave 60.7 / 86.8|gave 60.8 / 86.8|" p/figures &&
	refused ".60.8.: the clean-median .*fsdax/plain at head 60.7," &&
	copy && edit 0 "    3/7 compound tails                495      503" "    3/7 compound tails                495      550" &&
	sed -i "s|3/7 compound tails 495 503|3/7 compound tails 495 550|" p/figures &&
	refused ".550.: the mean of .*vm-icount-100G.s records is none of it"
'

test_expect_success 'a claim whose percent no longer matches its records: refused with the claim named' '
	copy && edit 2 "to 495 ms (-55.6%)" "to 495 ms (-48.1%)" &&
	refused "figures:[0-9]*: claim template/nd_pmem on the records of .*: stale"
'

# v3's predictions (its cover letter quoted them), a report ci-report made
V3MODEL=results/2026-12-04-series-v3/model-8G/ci-report.txt
test_expect_success 'a prediction not called one, a report that does not print it, a cite without its reference' '
	copy && para 0 "For an AMD EPYC VM, per rebind: base 21.46 / 23.08 ms." &&
	add_source "cover report $V3MODEL /rebind | base 21.46 / 23.08 ms" &&
	refused ".21.46. is a prediction (.*ci-report.txt says so): its paragraph must too" &&
	copy && para 0 "Predicted, not measured, for an AMD EPYC VM, per rebind: base 21.46 / 23.08 ms." &&
	add_source "cover report $V3MODEL /rebind | base 21.46 / 23.08 ms" && lint && [ ! -s err ] &&
	copy && para 0 "Predicted, not measured, for an AMD EPYC VM, per rebind: base 21.47 / 23.08 ms." &&
	add_source "cover report $V3MODEL /rebind | base 21.47 / 23.08 ms" &&
	refused ".21.47.: no line of .*ci-report.txt with ./rebind. prints it" &&
	copy && edit 0 "  [2] https://lkml.iu.edu/2605.2/02033.html" "" &&
	edit 0 "base v7.1-rc3 [2]:" "base v7.1-rc3:" &&
	sed -i "s|base v7.1-rc3 \[2\]:|base v7.1-rc3:|" p/figures &&
	refused "does not say .\[2\]., the source its figures are cited from"
'

test_expect_success 'a series on another base than its records (a repin): every set of records refused once, named with both bases' '
	copy && sed -i "s/^base-commit: [0-9a-f]*$/base-commit: 0123456789abcdef0123456789abcdef01234567/" "$(mail 0)" &&
	grep -q "^base-commit: 0123456789ab" "$(mail 0)" &&
	refused "records: results/2026-12-07-series-v4/vm-icount-100G were measured on base e9b351700f1f, and the series is on 0123456789ab now (its cover letter.s base-commit): measure them again on this base (make), or quote them with a cite line" &&
	[ "$(grep -c "records: results/2026-12-07-series-v4/vm-icount-100G were measured on base" err)" = 1 ]
'

test_expect_success 'figures lines that cannot be right: each named, nothing else said of them' '
	for l in "cover bogus x | 1 ms" "cover claim template/nd_pmem" "9 param x | 1 ms" \
		"upstream:236222d39347 param x | 1 ms" "cover param x | 999 parsecs" \
		"3 claim template/nd_pmem results/2026-12-07-series-v4/vm-icount-100G" \
		"2 claim no/such results/2026-12-07-series-v4/vm-icount-100G" \
		"2 claim template/nd_pmem results/no-such-dir" \
		"cover records results/2026-12-07-series-v4/bench-run1 mean bench ms_per_pass template-ways/fsdax/plain deadbeef00 | fsdax 64.2 / 88.3 ms" \
		"cover records results/2026-12-07-series-v4/bench-run1 mean bench ms_per_pass template-ways/fsdax/plain head | fsdax 64.2 / 88.3 ms" \
		"cover records results/2026-12-07-series-v4/bench-run1 mode bench ms_per_pass template-ways/fsdax/plain head | fsdax 64.2 / 88.3 ms" \
		"cover records results/2026-12-07-series-v4/bench-run1 clean-median bench ms_per_pass no/such head | fsdax 64.2 / 88.3 ms" \
		"cover report no-such-file x | fsdax 64.2 / 88.3 ms"; do
		copy && add_source "$l" && n=$(wc -l <p/figures) && rc=0 && lint || rc=$?
		[ $rc = 1 ] && [ "$(grep -c "figures:$n: " err)" -ge 1 ] && [ "$(grep -c "refusal(s)" err)" = 1 ] &&
		! grep -v -e "figures:$n: " -e "refusal(s)" -e "records: .*no-such-dir" err || { echo "$l:"; cat err; return 1; }
	done
'

test_expect_success 'no figures file, a missing series, an argument: refused, usage' '
	copy && rm p/figures && rc=0 && lint || rc=$?
	[ $rc = 1 ] && grep -q "figures: .*p/figures: cannot open" err &&
	rc=0; "$LINT" --series "$SCRATCH/none/series" 2>err || rc=$?; [ $rc = 1 ] && grep -q "series: .*none/series" err &&
	rc=0; "$LINT" extra 2>err || rc=$?; [ $rc = 2 ] && grep -q "usage: claims-lint" err
'

test_expect_success 'the figures it reads: ranges with a unit are two, numberings and versions none' '
	copy && para 6 "Versions 6.12.117 and 1-5 of E5-2690, 2026-12-04: none; 10-15 ns and 5-8% are four." &&
	rc=0 && lint || rc=$?
	[ $rc = 1 ] && [ "$(grep -c "0006-.* has no source" err)" = 4 ]
'
test_expect_success 'a records source over two commits: the percent is against the first, the ratio last over first; either the other way round is refused' '
	copy && S=results/2026-12-07-series-v4/vm-icount-100G &&
	sed -i "s|^2 claim template/nd_pmem .*|2 records $S mean bench-vm memmap_init_ms nd_pmem/rebind base,2 \| 495 ms (-55.6%)|" p/figures &&
	grep -q "^2 records .* base,2 | 495 ms (-55.6%)$" p/figures && lint && cat out &&
	# (495 - 1115) / 495, the change against the last commit: refused
	edit 2 "to 495 ms (-55.6%)" "to 495 ms (-125.3%)" &&
	sed -i "s/| 495 ms (-55.6%)$/| 495 ms (-125.3%)/" p/figures &&
	refused "figures:[0-9]*: .*-125.3%.: the mean of .*records is none of it .*: nd_pmem/rebind base -> 2 -55.6%$" &&
	# a ratio: 495 / 1115 = 0.44x ("3x the work" reads so); 1115 / 495 = 2.25x is refused
	copy && edit 2 "to 495 ms (-55.6%)" "to 495 ms (0.44x)" &&
	sed -i "s|^2 claim template/nd_pmem .*|2 records $S mean bench-vm memmap_init_ms nd_pmem/rebind base,2 \| 495 ms (0.44x|" p/figures &&
	lint && cat out &&
	edit 2 "(0.44x)" "(2.25x)" && sed -i "s/| 495 ms (0.44x$/| 495 ms (2.25x/" p/figures &&
	refused "figures:[0-9]*: .*2.25x.: the mean of .*records is none of it .*: nd_pmem/rebind base -> 2 0.44x$"
'
done_testing
