#!/bin/sh
# make send: a dry run of git send-email with To/Cc per patch from the
# pinned tree's get_maintainer.pl; nothing is sent.
. "$(dirname "$0")/lib.sh"
[ -x "$BIN/series-check" ] || bail "tools are not built: run 'make tools'"
[ -f "$WORKTREE/scripts/get_maintainer.pl" ] || bail "no worktree at $WORKTREE: t0005 sets it up"
plan 4

test_expect_success 'get_maintainer: x86 patches go to the x86 maintainers, mm ones to linux-mm' '
	x86=$(ls "$TOP"/patches/*REP-MOVSB*.mbox) && mm=$(ls "$TOP"/patches/0002-mm-*.mbox) &&
	sh "$TOP/scripts/get-maintainer.sh" to "$x86" >to && cat to && grep -q "mingo@redhat.com" to &&
	grep -q "x86@kernel.org" to && sh "$TOP/scripts/get-maintainer.sh" cc "$x86" >cc && cat cc && grep -q "linux-kernel@vger.kernel.org" cc &&
	sh "$TOP/scripts/get-maintainer.sh" cc "$mm" >cc2 && cat cc2 && grep -q "linux-mm@kvack.org" cc2
'

test_expect_success 'send: dry run lists every mail with its recipients, sends nothing' '
	FROM="Tester <t@example.org>" sh "$TOP/scripts/send.sh" >out 2>err; rc=$?; cat out err; [ $rc = 0 ] &&
	n=$(awk "!/^#/ && (\$2 == \"cover\" || \$2 == \"applied\")" "$TOP/patches/series" | wc -l) &&
	[ "$(grep -c "^Dry-OK\|^Dry-Sent" out)" = "$n" ] &&
	grep -q "linux-mm@kvack.org" out && grep -q "x86@kernel.org" out
'
test_expect_success 'get-maintainer.sh: a patch that is not there is named' '
	expect_fail sh "$TOP/scripts/get-maintainer.sh" to "$SCRATCH/no.mbox" &&
	grep_err "^get-maintainer: patch: .*no.mbox. is not a file that can be read"
'

test_expect_success 'SEND other than 0 or 1, a FROM that is not one address: refused, nothing sent' '
	for v in "SEND=yes" "SEND=true" "FROM=Tester" "FROM=a@b,c@d" "FROM=Name <a@b> x <c@d>"; do
		rc=0; env FROM="Tester <t@example.org>" "$v" sh "$TOP/scripts/send.sh" >out 2>err || rc=$?
		cat err; [ $rc = 2 ] && grep -q "^send: usage: " err && ! grep -q "^Dry-OK\|^Sent\|^OK" out || exit 1
	done
'
done_testing
