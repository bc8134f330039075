#!/bin/sh
# changelog-lint (checks/changelog-lint.c): the real patches pass every
# rule (patch 4 once failed asm-numbers, until its changelog quoted the
# measured hardware and numbers); a missing Signed-off-by, an
# asm change without hardware and numbers, a bad subject prefix and a long
# line are caught; a mail git cannot read is an error that names file and
# line.  Every limit is tested at its edge and one past it: 75 columns
# pass and 76 fail, tabs go to the next multiple of 8, a UTF-8 character
# is one column; exactly the trailers checkpatch exempts (a tag ending in
# "-by", Cc:, Link:, Closes:, and Fixes:), quoted and URL lines are
# exempt, and no other "Word: " line is.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
LINT=$BIN/changelog-lint
need tool:changelog-lint

# mail SUBJECT FROM BODY FILE: a one-patch mbox touching FILE
mail() {
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: %s\nDate: Mon, 1 Jan 2026 00:00:00 +0000\nSubject: %s\n\n' "$2" "$1"
	printf '%s\n---\n' "$3"
	printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-a\n+b\n' "$4" "$4" "$4" "$4"
}
AUTHOR='A U Thor <author@example.org>'
SOB='Signed-off-by: A U Thor <author@example.org>'

test_expect_success 'the real patches pass; the cover letter is skipped' '
	$LINT "$TOP"/patches/000*.mbox >out 2>err &&
	cat out err && [ ! -s out ] &&
	grep -q "0000-cover-letter.mbox:1: no diff (a cover letter?): skipped" err
'

test_expect_success 'patch 4 without its paragraph of numbers fails asm-numbers' '
	sed "/^What the copy alone costs depends on the CPU/,/^\$/d" "$TOP"/patches/0004-*.mbox >p4.mbox &&
	grep -q "64.2 ms" "$TOP"/patches/0004-*.mbox && ! grep -q "64.2 ms" p4.mbox &&
	grep -q "^Signed-off-by" p4.mbox &&
	rc=0 && $LINT p4.mbox >out || rc=$? && cat out && [ $rc = 1 ] &&
	[ "$(wc -l <out)" = 1 ] && grep -q "^p4.mbox:[0-9]*: asm-numbers: " out
'

test_expect_success 'a missing Signed-off-by of the author is caught' '
	mail "[PATCH] mm: do a thing" "$AUTHOR" "Body." mm/a.c >none.mbox &&
	mail "[PATCH] mm: do a thing" "$AUTHOR" "Body.

Signed-off-by: Someone Else <else@example.org>" mm/a.c >other.mbox &&
	mail "[PATCH] mm: do a thing" "$AUTHOR" "Body.

$SOB
Signed-off-by: Carrier <carrier@example.org>" mm/a.c >carried.mbox &&
	expect_fail $LINT none.mbox && grep -q "none.mbox:[0-9]*: signoff: no Signed-off-by" out &&
	expect_fail $LINT other.mbox && grep -q "signoff: the author <author@example.org> has no Signed-off-by" out &&
	$LINT carried.mbox
'

test_expect_success 'an asm change without hardware and numbers is caught, one with them passes' '
	mail "[PATCH] x86/lib: make memcpy faster" "$AUTHOR" "It is faster now.

$SOB" arch/x86/lib/memcpy_64.S >bare.mbox &&
	mail "[PATCH] x86/lib: make memcpy faster" "$AUTHOR" "On an AMD EPYC 7B13 (Zen 3) a 4 KiB copy
went from 120 ns to 80 ns.

$SOB" arch/x86/lib/memcpy_64.S >numbers.mbox &&
	mail "[PATCH] x86/string: tweak" "$AUTHOR" "On Intel Ice Lake: 10% faster.

$SOB" arch/x86/include/asm/string_64.h >one-number.mbox &&
	expect_fail $LINT bare.mbox &&
	grep -q "asm-numbers: touches arch/x86/lib/memcpy_64.S but names no hardware" out &&
	grep -q "asm-numbers: .*quotes 0 number" out &&
	$LINT numbers.mbox &&
	expect_fail $LINT one-number.mbox && grep -q "quotes 1 number" out &&
	! grep -q "names no hardware" out
'

test_expect_success 'subject prefix and 75 columns; URLs, quotes and trailers exempt' '
	long=$(printf "%076d" 0) &&
	mail "[PATCH v2 3/7] Fix the thing" "$AUTHOR" "Body.

$SOB" mm/a.c >subject.mbox &&
	mail "[PATCH] mm/mm_init: fix it" "$AUTHOR" "Body $long

> quoted $long
Link: https://lore.kernel.org/r/$long
Reviewed-by: Reviewer $long <r@example.org>
Cc: Someone $long <c@example.org>
$SOB" mm/a.c >long.mbox &&
	expect_fail $LINT subject.mbox &&
	grep -q "subject: .Fix the thing. is not .area: summary." out &&
	expect_fail $LINT long.mbox && [ "$(wc -l <out)" = 1 ] &&
	grep -q "long.mbox:6: line-length: 81 columns, more than 75" out
'

# rep STR N: STR N times (bytes: LANG=C, so a UTF-8 character is its bytes)
rep() {
	printf "%${2}s" "" | sed "s/ /$1/g"
}

test_expect_success 'line-length: 75 columns pass, 76 fail; tabs to the next multiple of 8; UTF-8' '
	tab=$(printf "\t") && e=$(printf "\303\251") &&
	mail "[PATCH] mm: lengths" "$AUTHOR" "$(rep x 75)
$(rep x 76)
$tab$(rep x 67)
$tab$(rep x 68)
abc$tab$(rep x 67)
abc$tab$(rep x 68)
abcdefg$tab$(rep x 67)
abcdefgh$tab$(rep x 59)
abcdefgh$tab$(rep x 60)
a$tab$tab$(rep x 59)
a$tab$tab$(rep x 60)
$(rep x 64)$tab$(rep x 4)
$(rep x 65)$tab$(rep x 3)
$(rep "$e" 75)
$(rep "$e" 76)
x$e$(rep x 73)
x$e$(rep x 74)

$SOB" mm/a.c >len.mbox &&
	[ "$(grep -c "$tab" len.mbox)" = 11 ] &&
	expect_fail $LINT len.mbox && cat >want <<-EOF &&
	len.mbox:7: line-length: 76 columns, more than 75
	len.mbox:9: line-length: 76 columns, more than 75
	len.mbox:11: line-length: 76 columns, more than 75
	len.mbox:14: line-length: 76 columns, more than 75
	len.mbox:16: line-length: 76 columns, more than 75
	len.mbox:17: line-length: 76 columns, more than 75
	len.mbox:20: line-length: 76 columns, more than 75
	len.mbox:22: line-length: 76 columns, more than 75
	EOF
	diff want out
'

test_expect_success 'exempt: "-by" tags, Cc:, Link:, Closes:, Fixes:, quotes, URLs; any other long line is not' '
	long=$(rep y 80) &&
	mail "[PATCH] mm: trailers" "$AUTHOR" "Body.

> $long
see https://example.org/$long
Fixes: 0123456789ab (\"mm: $long\")
Link: $long
Closes: $long
Cc: Some One $long <c@example.org>
Reviewed-by: R $long <r@example.org>
Acked-by: A $long <a@example.org>
Tested-by: T $long <t@example.org>
Reported-by: R $long <r@example.org>
Suggested-by: S $long <s@example.org>
Co-developed-by: C $long <c@example.org>
Signed-off-by: Other $long <o@example.org>
$SOB" mm/a.c >exempt.mbox &&
	$LINT exempt.mbox >out && cat out && [ ! -s out ] &&
	mail "[PATCH] mm: trailers" "$AUTHOR" "Body.

Note: $long
Word: $long
cc: $long
CC: $long
link: $long
Links: $long
Closed: $long
Fixes:$long
Standby: $long
Reviewed-byx: $long
-by: $long
 Cc: $long
see https:/$long
Cc:$long
$SOB" mm/a.c >not-exempt.mbox &&
	expect_fail $LINT not-exempt.mbox && cat >want <<-EOF &&
	not-exempt.mbox:8: line-length: 86 columns, more than 75
	not-exempt.mbox:9: line-length: 86 columns, more than 75
	not-exempt.mbox:10: line-length: 84 columns, more than 75
	not-exempt.mbox:11: line-length: 84 columns, more than 75
	not-exempt.mbox:12: line-length: 86 columns, more than 75
	not-exempt.mbox:13: line-length: 87 columns, more than 75
	not-exempt.mbox:14: line-length: 88 columns, more than 75
	not-exempt.mbox:15: line-length: 86 columns, more than 75
	not-exempt.mbox:16: line-length: 89 columns, more than 75
	not-exempt.mbox:17: line-length: 94 columns, more than 75
	not-exempt.mbox:18: line-length: 85 columns, more than 75
	not-exempt.mbox:19: line-length: 85 columns, more than 75
	not-exempt.mbox:20: line-length: 91 columns, more than 75
	not-exempt.mbox:21: line-length: 83 columns, more than 75
	EOF
	diff want out
'

test_expect_success 'asm-numbers at its edges: 2 numbers and 1 hardware name pass, 1 number or none fail' '
	mail "[PATCH] x86/lib: tweak" "$AUTHOR" "On Zen 4: 100 ns before, 90 ns after.

$SOB" arch/x86/lib/copy_user_64.S >two.mbox &&
	mail "[PATCH] x86/lib: tweak" "$AUTHOR" "On Zen 4: 100 ns before, faster after.

$SOB" arch/x86/lib/copy_user_64.S >one.mbox &&
	mail "[PATCH] x86/lib: tweak" "$AUTHOR" "Here: 100 ns before, 90 ns after.

$SOB" arch/x86/lib/copy_user_64.S >nohw.mbox &&
	mail "[PATCH] x86/mm: tweak" "$AUTHOR" "Faster.

$SOB" arch/x86/mm/init.c >other.mbox &&
	$LINT two.mbox other.mbox &&
	expect_fail $LINT one.mbox && [ "$(wc -l <out)" = 1 ] &&
	grep -q "^one.mbox:6: asm-numbers: touches an x86 copy routine but quotes 1 number" out &&
	expect_fail $LINT nohw.mbox && [ "$(wc -l <out)" = 1 ] &&
	grep -q "^nohw.mbox:6: asm-numbers: touches arch/x86/lib/copy_user_64.S but names no hardware" out
'

# git reads mail for the lint (git mailinfo): a line that is no header
# starts the body, as in git am; a mail git cannot read is an error
test_expect_success 'a mail git cannot read is an error naming the file and line' '
	printf "From x Mon Sep 17 00:00:00 2001\nFrom: a@b\nSubject: =?x\n\nbody\n---\n a | 1 +\n" >bad.mbox &&
	expect_fail $LINT bad.mbox &&
	grep_err "^changelog-lint: read: bad.mbox:1: git mailinfo cannot read this mail \(git am would refuse it\): it exits 1 without a word" &&
	printf "Subject: no From line\n" >nofrom.mbox &&
	expect_fail $LINT nofrom.mbox && grep_err "nofrom.mbox:1: not an mbox"
'
done_testing
