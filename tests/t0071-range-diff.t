#!/bin/sh
# make range-diff: the applied series against a previous version of
# patches/ from the toolkit's history, with git range-diff.
. "$(dirname "$0")/lib.sh"
need tool:series-check
need series
HEAD=$SERIES_HEAD

test_expect_success 'a changed changelog shows as a modified commit, the rest as equal' '
	cp -r "$TOP/patches" p &&
	f=$(awk "!/^#/ && \$2 == \"applied\" { print \$1; exit }" p/series) &&
	awk "!done && /^Signed-off-by:/ { print \"Range-diff-test: yes\"; done = 1 } { print }" "p/$f" >x && mv x "p/$f" &&
	PATCHES=$SCRATCH/p sh "$TOP/series/apply.sh" &&
	PREV=HEAD sh "$TOP/series/range-diff.sh" >rd; rc=$?;
	cat rd; PATCHES=$TOP/patches sh "$TOP/series/apply.sh" && [ $rc = 0 ] &&
	grep -q "^1:  [0-9a-f]* ! 1:  [0-9a-f]* " rd && grep -q "+    Range-diff-test: yes" rd &&
	[ "$(grep -c "^[0-9]*:  [0-9a-f]* = [0-9]*:  [0-9a-f]* " rd)" -ge 1 ] &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/series")" = "$HEAD" ]
'

test_expect_success 'an unknown PREV is a clear error' '
	PREV=no-such-rev expect_fail sh "$TOP/series/range-diff.sh" &&
	grep_err "prev: .no-such-rev. is not a commit"
'
test_expect_success 'a PREV without patches/series is a clear error, nothing applied' '
	root=$(git -C "$TOP" rev-list --max-parents=0 HEAD | tail -n 1) &&
	! git -C "$TOP" cat-file -e "$root:patches/series" 2>/dev/null &&
	before=$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/prev" || echo none) &&
	PREV=$root expect_fail sh "$TOP/series/range-diff.sh" &&
	grep_err "prev: $root \($root\) has no patches/series" &&
	[ "$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/prev" || echo none)" = "$before" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ]
'
test_expect_success 'the default PREV: the parent of the last change of patches/, or HEAD with local changes' '
	# a clone of the toolkit, so that patches/ can be changed without
	# touching this checkout; the kernel and the worktree are the tests'\''
	git clone -q "$TOP" tk && kt=$(cd "$TOP/kernel-tree" && pwd) &&
	last=$(git -C tk log -n 1 --format=%H -- patches) && [ -n "$last" ] &&
	want=$(git -C tk rev-parse "$last^") &&
	KERNEL_TREE=$kt sh tk/series/range-diff.sh >rd 2>err || { cat err; false; } &&
	grep -q "applying patches/ of $last^ ($(printf %.12s "$want")) on " err &&
	grep -q "^[0-9]*:  [0-9a-f]* [=!] [0-9]*:  [0-9a-f]* " rd &&
	echo "# a local change" >>tk/patches/series &&
	KERNEL_TREE=$kt sh tk/series/range-diff.sh >rd 2>err || { cat err; false; } &&
	grep -q "applying patches/ of HEAD ($(git -C tk rev-parse --short=12 HEAD)) on " err &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ]
'
test_expect_success 'PREV=v2: the newest toolkit commit whose patches/ is version 2, or the one make send sent it from; a version nowhere is named' '
	want=$(for c in $(git -C "$TOP" log --format=%H -- patches); do
		git -C "$TOP" show "$c:patches/0000-cover-letter.mbox" 2>/dev/null | grep -q "^Subject: \[PATCH v2 0/" &&
			{ echo "$c"; break; }
	done) && [ -n "$want" ] &&
	PREV=v2 OUT=$SCRATCH/o sh "$TOP/series/range-diff.sh" >rd 2>err || { cat err; false; } &&
	cat err && grep -q "applying patches/ of v2, the toolkit commit $want ($(printf %.12s "$want")) on " err &&
	grep -q "^[0-9]*:  [0-9a-f]* [=!] [0-9]*:  [0-9a-f]* " rd &&
	# sent from another commit: that one
	older=$(git -C "$TOP" rev-parse "$want^") && mkdir -p o/sent &&
	printf "version 2\ntoolkit %s\n" "$older" >o/sent/v2 &&
	PREV=v2 OUT=$SCRATCH/o sh "$TOP/series/range-diff.sh" >rd 2>err || { cat err; false; } &&
	grep -q "applying patches/ of v2, the toolkit commit $older " err &&
	PREV=v9 OUT=$SCRATCH/o expect_fail sh "$TOP/series/range-diff.sh" &&
	grep_err "prev: no commit of .* has version 9 of the series in patches/" &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ]
'
done_testing
