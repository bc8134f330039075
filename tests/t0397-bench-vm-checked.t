#!/bin/sh
# bench-vm/checked.sh without a build: a missing or unknown variant, two
# commits, a base that is no commit are usage errors or refusals that
# write nothing; every variant it accepts has its fragment, and each
# fragment asks for options with '=y' and '=m' lines only (what the
# .config check after the build compares).  The checked boots themselves need a kernel
# build each: results/2026-12-04-series-v3/checked.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
CHK="sh $TOP/bench-vm/checked.sh"

test_expect_success 'no variant, an unknown one, two commits: usage (exit 2), nothing written' '
	for a in "" ubsan "kasan a b"; do
		rc=0; OUT=$SCRATCH/o $CHK $a 2>err || rc=$?
		cat err; [ $rc = 2 ] && grep -q "usage: checked.sh kasan|debug-vm|hmm|kmsan \[COMMIT\]" err || return 1
	done &&
	[ ! -e o ]
'

test_expect_success 'a base that is no commit: refused, nothing written' '
	rc=0; OUT=$SCRATCH/o CHECKED_BASE=no-such-rev $CHK debug-vm 2>err || rc=$?
	cat err; [ $rc = 1 ] && grep -q "base: CHECKED_BASE=.no-such-rev. is not a commit" err && [ ! -e o ]
'

test_expect_success 'every variant has its fragment, of =y, =m and "is not set" lines and comments only' '
	vs=$(sed -n "s/^\([a-z-]*\)) args=.*/\1/p" "$TOP/bench-vm/checked.sh") && [ -n "$vs" ] &&
	for v in $vs; do
		f=$TOP/bench-vm/$v.config && [ -r "$f" ] || { echo "no $f"; return 1; }
		! grep -Ev "^(#.*|CONFIG_[A-Z0-9_]+=[ym]|)\$" "$f" || { echo "$f: a line the check would not compare"; return 1; }
	done &&
	[ "$(echo $vs)" = "kasan debug-vm hmm kmsan" ]
'
done_testing
