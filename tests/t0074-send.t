#!/bin/sh
# make send: a dry run of git send-email with To/Cc per patch from the
# pinned tree's get_maintainer.pl; nothing is sent.  SEND=1 sends only
# what CI passed: a report of exactly the current series, every step
# passed, no gate regression left unaccepted (else refused, named; an
# override is printed and kept); SEND=self sends to FROM alone.  Mail goes
# to a fake sendmail (SMTP_SERVER).  MAINTAINERS' keywords match the
# diff, not the changelog's or the notes' words.
. "$(dirname "$0")/lib.sh"
need tool:series-check
[ -f "$WORKTREE/scripts/get_maintainer.pl" ] || bail "no worktree at $WORKTREE: t0005 sets it up"

test_expect_success 'get_maintainer: x86 patches go to the x86 maintainers, mm ones to linux-mm' '
	x86=$(ls "$TOP"/patches/*REP-MOVSB*.mbox) && mm=$(ls "$TOP"/patches/0002-mm-*.mbox) &&
	sh "$TOP/series/get-maintainer.sh" to "$x86" >to && cat to && grep -q "mingo@redhat.com" to &&
	grep -q "x86@kernel.org" to && sh "$TOP/series/get-maintainer.sh" cc "$x86" >cc && cat cc && grep -q "linux-kernel@vger.kernel.org" cc &&
	sh "$TOP/series/get-maintainer.sh" cc "$mm" >cc2 && cat cc2 && grep -q "linux-mm@kvack.org" cc2 &&
	# prose: 7/7 says "zstd" in its changelog and notes, 6/7 "PREEMPT_RT": nobody of theirs
	grep -qi zstd "$x86" && ! grep -q "terrelln@fb.com" to cc &&
	six=$(ls "$TOP"/patches/0006-mm-*.mbox) && grep -q PREEMPT_RT "$six" &&
	sh "$TOP/series/get-maintainer.sh" to "$six" >to6 && sh "$TOP/series/get-maintainer.sh" cc "$six" >cc6 &&
	cat to6 cc6 && ! grep -q "rostedt@goodmis.org\|linux-rt-devel" to6 cc6 &&
	# a keyword in the code itself still finds its maintainer
	sed "/^+++ b\/arch\/x86\/lib\/memcpy_64.S/,/^@@/{/^@@/a\\
+/* zstd */
}" "$x86" >kw.mbox && ! cmp -s "$x86" kw.mbox &&
	sh "$TOP/series/get-maintainer.sh" to kw.mbox >to7 && grep -q "terrelln@fb.com" to7
'

test_expect_success 'send: dry run lists every mail with its recipients, sends nothing' '
	FROM="Tester <t@example.org>" sh "$TOP/series/send.sh" >out 2>err; rc=$?; cat out err; [ $rc = 0 ] &&
	n=$(awk "!/^#/ && (\$2 == \"cover\" || \$2 == \"applied\")" "$TOP/patches/series" | wc -l) &&
	[ "$(grep -c "^Dry-OK\|^Dry-Sent" out)" = "$n" ] &&
	grep -q "linux-mm@kvack.org" out && grep -q "x86@kernel.org" out &&
	grep -q "^\[ *[0-9]*s\] send: dry run done: SEND=1 would \(send\|refuse\) these mails" err
'
test_expect_success 'a figure with no source in patches/figures: not sent, not even a dry run' '
	cp -r "$TOP/patches" p && grep -v "^2 claim template/nd_pmem " p/figures >f && mv f p/figures &&
	rc=0; PATCHES=$SCRATCH/p FROM="Tester <t@example.org>" sh "$TOP/series/send.sh" >out 2>err || rc=$?
	cat err; [ $rc = 1 ] && grep -q "0002-.*: .495 ms. has no source" err &&
	grep -q "^send: claims: not sent: the figures of the mails are refused" err && ! grep -q "^Dry-OK" out
'
test_expect_success 'get-maintainer.sh: a patch that is not there is named' '
	expect_fail sh "$TOP/series/get-maintainer.sh" to "$SCRATCH/no.mbox" &&
	grep_err "^get-maintainer: patch: .*no.mbox. is not a file that can be read"
'

test_expect_success 'SEND other than 0 or 1, a FROM that is not one address: refused, nothing sent' '
	for v in "SEND=yes" "SEND=true" "SEND_OVERRIDE=" "FROM=Tester" "FROM=a@b,c@d" "FROM=Name <a@b> x <c@d>" \
		"FROM=Name <a@b.example>
Bcc: c@d.example"; do
		rc=0; env FROM="Tester <t@example.org>" "$v" sh "$TOP/series/send.sh" >out 2>err || rc=$?
		cat err; [ $rc = 2 ] && grep -q "^send: usage: " err && ! grep -q "^Dry-OK\|^Sent\|^OK" out || exit 1
	done
'
# ci_dir: a make ci result of the current series in ci/ (report.json,
# summary.txt); SKIP=1 leaves the head out, STEP=WORD is the head's
# checks outcome, GATE=1 a regression of patch 1 no one accepted, GATE=ack
# one that is accepted
ci_dir() {
	base=$(git -C "$WORKTREE" rev-parse "$REF_NS/base") &&
	all="$base $(git -C "$WORKTREE" rev-list --reverse "$base..$REF_NS/series" | tr "\n" " ")" &&
	last=$(echo "$all" | awk "{ print \$NF }") &&
	[ "${SKIP:-}" != 1 ] || all=$(echo "$all" | sed "s/ $last *\$//") &&
	mkdir -p ci && {
		printf "commit       build      checks     bench-vm   bench\n"
		for c in $all; do
			w=ok; [ "$c" != "$last" ] || w=${STEP:-ok}
			printf "%.12s ok         %-10s same       reused\n" "$c" "$w"
		done
	} >ci/summary.txt &&
	case ${GATE:-} in
	1) cell=", \"regression_pct\": 12.5" ;;
	ack) cell=", \"regression_pct\": 12.5, \"accepted\": {\"file\": \"a\", \"line\": 1}" ;;
	*) cell= ;;
	esac &&
	printf "{\"columns\": [%s], \"rows\": [{\"suite\": \"bench-vm\", \"case\": \"nd_pmem/rebind\", \"metric\": \"memmap_init_ms\", \"cells\": [{\"column\": \"%s\"%s}]}]}\n" \
		"$(for c in $all; do printf "{\"key\": \"%s\"}\n" "$c"; done | paste -sd, -)" \
		"$(echo "$all" | cut -d" " -f2)" "$cell" >ci/report.json
}
# a sendmail that keeps what it is given
smtp() {
	printf "#!/bin/sh\necho \"\$*\" >>%s/rcpts\ncat >>%s/mails\n" "$SCRATCH" "$SCRATCH" >smtp && chmod +x smtp
}
send() {
	rm -f rcpts mails && env OUT="$SCRATCH" WORKTREE="$WORKTREE" SEND_CI="$SCRATCH/ci" SMTP_SERVER="$SCRATCH/smtp" \
		FROM="Tester <t@example.org>" "$@" sh "$TOP/series/send.sh" >out 2>err
}
mails() {
	awk "!/^#/ && (\$2 == \"cover\" || \$2 == \"applied\")" "$TOP/patches/series" | wc -l
}

test_expect_success 'SEND=1 without CI results, or with a report of other commits: refused, named, nothing sent' '
	smtp && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: no CI results in $SCRATCH/ci (report.json, summary.txt): run .make ci. on this series first" err &&
	[ ! -e rcpts ] &&
	# the dry run says so before anyone tries
	send && grep -q "send: dry run done: SEND=1 would refuse these mails now: no CI results in $SCRATCH/ci" err &&
	[ ! -e rcpts ] &&
	send FROM="x86-copy-series <x86-copy-series@example.org>" &&
	grep -q "would refuse these mails now: no sender: the placeholder .x86-copy-series <x86-copy-series@example.org>. is no one.s address (FROM= or git config user.email); no CI results" err &&
	SKIP=1 ci_dir && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: .*report.json is of [0-9]* commits ending at [0-9a-f]*, not of the [0-9]* of the current series" err &&
	[ ! -e rcpts ] &&
	# a report without the run summary.txt (a run cut short): no CI results
	ci_dir && rm ci/summary.txt && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: no CI results in $SCRATCH/ci (report.json, summary.txt)" err &&
	[ ! -e rcpts ]
'

test_expect_success 'SEND=1 with a step that did not pass, a commit summary.txt lacks, or a gate regression no one accepted: refused, named' '
	smtp && for w in FAIL skipped lost; do
		STEP=$w ci_dir && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
		grep -q "^send: ci: not sent: [0-9a-f]\{12\} did not pass its steps ($w in .*summary.txt)" err &&
		[ ! -e rcpts ] || return 1
	done &&
	GATE=1 ci_dir && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: the gate flags 1 change(s) no one accepted: [0-9a-f]\{12\} bench-vm/nd_pmem/rebind/memmap_init_ms +12.5%" err &&
	[ ! -e rcpts ] &&
	# a commit of the series missing from summary.txt (a run cut short)
	ci_dir && mid=$(echo "$all" | awk "{ print \$3 }") && [ -n "$mid" ] &&
	sed -i "/^$(printf %.12s "$mid") /d" ci/summary.txt && ! grep -q "^$(printf %.12s "$mid")" ci/summary.txt &&
	{ rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: $(printf %.12s "$mid") did not pass its steps (lost in .*summary.txt)" err &&
	[ ! -e rcpts ]
'

test_expect_success 'SEND=1 with a report ci-verdict cannot read through (a regression without its suite, not JSON, no columns): refused, named; its usage is exit 2' '
	smtp && GATE=1 ci_dir && sed -i "s/\"suite\": \"bench-vm\", //" ci/report.json && ! grep -q suite ci/report.json &&
	{ rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: .*report.json is not a ci-report (make ci) report: row 1, cell 1: a regression without its column, suite, case, metric or number" err &&
	ci_dir && echo "{" >ci/report.json && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: .*report.json is not a ci-report (make ci) report" err &&
	echo "{\"rows\": []}" >ci/report.json && { rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^send: ci: not sent: .*report.json is not a ci-report (make ci) report: it has no columns" err &&
	[ ! -e rcpts ] &&
	{ rc=0; "$BIN/ci-verdict" ci/report.json ci/summary.txt 2>err || rc=$?; } && cat err && [ $rc = 2 ] &&
	grep -q "^ci-verdict: usage: ci-verdict REPORT SUMMARY COMMIT" err
'

test_expect_success 'SEND=1 on what CI passed (an accepted regression too): every mail sent, kept in sent/vN; a second SEND=1 of that version refused' '
	smtp && GATE=ack ci_dir && send || { cat err; return 1; }
	grep -q "send: dry run done: SEND=1 would send these mails (CI.s results pass this series, claims-lint passes)" err &&
	[ ! -e rcpts ] && send SEND=1 || { cat err; return 1; }
	[ "$(grep -c . rcpts)" = "$(mails)" ] && grep -q "x86@kernel.org" rcpts && [ ! -e send-overrides.log ] &&
	# what was sent is kept; the version is not sent twice
	v=$(sed -n "s/^Subject: \[PATCH v\([0-9]*\) 0\/.*/\1/p" "$TOP/patches/0000-cover-letter.mbox") && [ -n "$v" ] &&
	grep -qx "version $v" "sent/v$v" && grep -qx "toolkit $(git -C "$TOP" rev-parse HEAD)" "sent/v$v" &&
	grep -qx "from Tester <t@example.org>" "sent/v$v" &&
	[ "$(grep -c "^message-id <" "sent/v$v")" = "$(mails)" ] &&
	{ rc=0; send SEND=1 || rc=$?; } && cat err && [ $rc = 1 ] && [ ! -e rcpts ] &&
	grep -q "^send: ci: not sent: v$v was sent already ([0-9T:-]*Z, $SCRATCH/sent/v$v): its Message-Ids would be on the list twice; bump the version (make export VERSION=$((v + 1)))" err &&
	send && grep -q "SEND=1 would refuse these mails now: v$v was sent already" err &&
	rm -r sent
'

test_expect_success 'SEND_OVERRIDE: sent anyway, the refusal and the reason printed and kept' '
	smtp && STEP=FAIL ci_dir && send SEND=1 SEND_OVERRIDE="the fix of a typo, CI reran by hand" || { cat err; return 1; }
	grep -q "^send: warning: ci: .* did not pass its steps .*; sent anyway: SEND_OVERRIDE=.the fix of a typo" err &&
	[ "$(grep -c . rcpts)" = "$(mails)" ] && [ "$(wc -l <send-overrides.log)" = 1 ] &&
	grep -q "	Tester <t@example.org>	.* did not pass its steps .*	the fix of a typo, CI reran by hand\$" send-overrides.log
'

test_expect_success 'SEND=self: the real mails to FROM alone, no CI needed' '
	smtp && send SEND=self || { cat err; return 1; }
	[ "$(grep -c . rcpts)" = "$(mails)" ] && ! grep -v "^-i t@example.org\$" rcpts &&
	[ "$(grep -c "^Subject: \[PATCH" mails)" = "$(mails)" ] && ! grep -qi "^\(to\|cc\): .*kernel.org" mails
'
test_expect_success 'the dry run gives each recipient'"'"'s reason and mails; SEND_TO and SEND_CC reach every mail; an address list that is not one is refused' '
	smtp && GATE=ack ci_dir && send SEND_CC="Rev Iewer <rev@example.org>" || { cat err; return 1; }
	cat out err &&
	grep -q "^  Thomas Gleixner <tglx@linutronix.de>: maintainer:X86 ARCHITECTURE (32-BIT AND 64-BIT); patches [0-9 ]* and the cover$" out &&
	grep -q "^  linux-mm@kvack.org: open list:MEMBLOCK AND MEMORY MANAGEMENT INITIALIZATION; open list:MEMORY MANAGEMENT; patches [0-9 ]* and the cover$" out &&
	grep -q "^  Rev Iewer <rev@example.org>: SEND_CC, every mail$" out &&
	send SEND=1 SEND_TO="list@example.org" SEND_CC="Rev Iewer <rev@example.org>" || { cat err; return 1; }
	# (git send-email folds long headers: unfolded first)
	awk "/^[ \t]/ { sub(/^[ \t]+/, \" \"); l = l \$0; next } { if (NR > 1) print l; l = \$0 } END { print l }" mails >unf &&
	[ "$(grep -c "^To: .*list@example.org" unf)" = "$(mails)" ] &&
	[ "$(grep -c "^Cc: .*Rev Iewer <rev@example.org>" unf)" = "$(mails)" ] && rm -r sent &&
	{ rc=0; send SEND_TO="two@example.org three@example.org" || rc=$?; } && [ $rc = 2 ] &&
	grep -q "SEND_TO: .two@example.org three@example.org. is not one address" err && [ ! -e rcpts ] &&
	# a header made of the value: refused before anything is asked
	for v in "Bob\\nBcc: evil <e@example.org>" "$(printf "Bob\nBcc: evil <e@example.org>")" "$(printf "a@b\rc")"; do
		{ rc=0; send SEND=1 SEND_CC="$v" || rc=$?; } && [ $rc = 2 ] &&
		grep -q "SEND_CC: a backslash or a control character is in it" err && [ ! -e rcpts ] || return 1
	done
'
done_testing
