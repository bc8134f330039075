#!/bin/sh
# patches/series and mbox parsing: the real series is valid; every kind of
# malformed input gets one error naming the file and line, and exit 1.
# Mail is read as git am reads it (git mailsplit, git mailinfo): what git
# takes (CRLF, a header with no space after its colon, encoded subjects)
# is taken, what it refuses is refused.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
CHECK=$BIN/series-check
need tool:series-check

# mail K N [SUBJECT] [DIFF]: a format-patch style mail numbered K/N
mail() {
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: A U Thor <author@example.org>\nDate: Mon, 30 Nov 2026 12:00:00 +0000\n'
	printf 'Subject: [PATCH %s/%s] %s\nMessage-Id: <m%s@example.org>\n\n' "$1" "$2" "${3:-x: do y}" "$1"
	printf 'Why.\n\nSigned-off-by: A U Thor <author@example.org>\n---\n'
	[ "${4:-diff}" = diff ] && printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'
	printf -- '-- \n2.39.5\n\n'
}

# a valid two-patch series in the current directory
good_series() {
	mail 0 2 cover nodiff >0000-cover.mbox &&
	mail 1 2 >0001-a.mbox && mail 2 2 >0002-b.mbox &&
	mail 1 1 'x86: old' >up.mbox && sed -i 's/\[PATCH 1\/1\] //' up.mbox &&
	printf '# order\n0000-cover.mbox cover\n0001-a.mbox applied\n0002-b.mbox applied\nup.mbox upstream 0123456789abcdef0123456789abcdef01234567\n' >series
}

test_expect_success 'the real patches/series is valid: cover, applied in order, upstream last' '
	"$CHECK" "$TOP/patches/series" >list &&
	cat list &&
	[ "$(cut -f1 list | head -n 1)" = cover ] &&
	[ "$(grep -c "^applied" list)" -ge 2 ] &&
	[ "$(grep -c "^upstream" list)" = 2 ] &&
	grep -q "^upstream	upstream/.*	236222d39347e0e486010f10c1493e83dbbdfba8	" list &&
	grep -q "^upstream	upstream/.*	02101c45ec5b19d607af7372680f5259050b4e9c	" list
'

test_expect_success 'a synthetic valid series parses, tab-separated, in order' '
	good_series && "$CHECK" series >list && cat list &&
	[ "$(cut -f2 list | tr "\n" " ")" = "0000-cover.mbox 0001-a.mbox 0002-b.mbox up.mbox " ] &&
	[ "$(sed -n 2p list | cut -f4)" = "[PATCH 1/2] x: do y" ]
'

test_expect_success 'not an mbox: error names the file and line 1' '
	good_series && echo "hello" >0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "0001-a.mbox:1: not an mbox"
'

test_expect_success 'an empty mbox is an error' '
	good_series && : >0002-b.mbox &&
	expect_fail "$CHECK" series && grep_err "0002-b.mbox:1: empty file"
'

test_expect_success 'the first line must be a From line with a date, as git mailsplit wants' '
	good_series && printf "From x\nFrom: a\nSubject: [PATCH 1/2] x\n\nbody\n" >0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "0001-a.mbox:1: not an mbox: the first line must be a .From <sender> <date>. line" &&
	! git mailsplit -o"$SCRATCH" 0001-a.mbox 2>/dev/null
'

test_expect_success 'X-Spam-Flag:NO (no space after the colon) is a valid header' '
	good_series && "$CHECK" series >before &&
	sed -i "/^Date:/a X-Spam-Flag:NO" 0001-a.mbox && grep -q "^X-Spam-Flag:NO\$" 0001-a.mbox &&
	"$CHECK" series >after && diff before after
'

test_expect_success 'a line that is no header ends the headers and starts the body, as in git mailinfo' '
	good_series && sed -i "/^Message-Id:/a this is not a header" 0001-a.mbox &&
	"$CHECK" series >list && grep -q "^applied	0001-a.mbox	-	\[PATCH 1/2\] x: do y\$" list &&
	git mailinfo -k msg patch <0001-a.mbox >info && head -n 1 msg | grep -qx "this is not a header" &&
	sed -i "/^Date:/,\$d" 0002-b.mbox && printf "this is not a header\n" >>0002-b.mbox &&
	expect_fail "$CHECK" series &&
	grep_err "0002-b.mbox:1: no Date: header" && grep_err "0002-b.mbox:[0-9]+: no diff"
'

test_expect_success 'CRLF line ends: the same series as with LF' '
	good_series && "$CHECK" series >lf &&
	for f in *.mbox; do sed -i "s/\$/\r/" "$f"; done && grep -c "$(printf "\r")\$" 0001-a.mbox &&
	"$CHECK" series >crlf && diff lf crlf
'

test_expect_success 'an encoded subject is decoded as git mailinfo does' '
	good_series &&
	sed -i "s|^Subject: .*|Subject: =?UTF-8?q?=5BPATCH_1/2=5D_x=3A_caf=C3=A9?=|" 0001-a.mbox &&
	"$CHECK" series >list && grep -q "^applied	0001-a.mbox	-	\[PATCH 1/2\] x: café\$" list
'

test_expect_success 'a mail git mailinfo cannot read (a broken encoded word) is refused, as git am does' '
	good_series && sed -i "s/^Subject: .*/Subject: [PATCH 1\/2] x: a =?b/" 0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "0001-a.mbox:1: git mailinfo cannot read this mail"
'

test_expect_success 'a From line without a blank line before it still starts a second mail' '
	good_series && { cat 0001-a.mbox; mail 1 2; } | awk "NF || !/^\$/" >two.mbox && mv two.mbox 0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "series:3: .0001-a.mbox. holds 2 mails"
'

test_expect_success 'a body line starting with "From " is named: b4 am would cut the mail there' '
	good_series && sed -i "s/^Why.\$/From the datasheet: why./" 0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "0001-a.mbox:7: a line of the mail starts with .From .: b4 am" &&
	sed -i "s/^From the datasheet/>From the datasheet/" 0001-a.mbox && "$CHECK" series >/dev/null
'

test_expect_success 'a patch without a diff is an error' '
	good_series && mail 2 2 "x: y" nodiff >0002-b.mbox &&
	expect_fail "$CHECK" series && grep_err "0002-b.mbox:[0-9]+: no diff"
'

test_expect_success 'a missing Message-Id header is named' '
	good_series && sed -i "/^Message-Id/d" 0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "0001-a.mbox:1: no Message-Id: header"
'

test_expect_success 'each header git am needs, missing alone, is named (From, Date, Subject, Message-Id)' '
	for h in From Date Subject Message-Id; do
		good_series && sed -i "/^$h:/d" 0001-a.mbox && ! grep -q "^$h:" 0001-a.mbox &&
		expect_fail "$CHECK" series && grep_err "0001-a.mbox:1: no $h: header" &&
		[ "$(grep -c "0001-a.mbox:1: no [A-Za-z-]*: header" "$SCRATCH/err")" = 1 ] ||
			{ echo "header $h"; return 1; }
	done &&
	# an empty value is no header either
	good_series && sed -i "s/^Subject: .*/Subject: /" 0002-b.mbox &&
	expect_fail "$CHECK" series && grep_err "0002-b.mbox:1: no Subject: header"
'

test_expect_success 'the N of [PATCH k/N] is the series: a patch or the cover with another N is named' '
	good_series && sed -i "s/\[PATCH 2\/2\]/[PATCH 2\/3]/" 0002-b.mbox &&
	expect_fail "$CHECK" series &&
	grep_err "series:4: .0002-b.mbox. is numbered 2/3, its place in the series is 2/2" &&
	good_series && sed -i "s/\[PATCH 0\/2\]/[PATCH 0\/1]/" 0000-cover.mbox &&
	expect_fail "$CHECK" series &&
	grep_err "series:2: .0000-cover.mbox. is numbered 0/1, its place in the series is 0/2" &&
	good_series && sed -i "s/\[PATCH 1\/2\]/[PATCH 1\/1]/" 0001-a.mbox && mail 2 1 >0002-b.mbox &&
	expect_fail "$CHECK" series && grep_err "is numbered 1/1, its place in the series is 1/2" &&
	grep_err "is numbered 2/1, its place in the series is 2/2"
'

test_expect_success 'two mails in one file are refused' '
	good_series && mail 1 2 >>0001-a.mbox &&
	expect_fail "$CHECK" series && grep_err "series:3: .0001-a.mbox. holds 2 mails"
'

test_expect_success 'numbering must follow the series order' '
	good_series && printf "0000-cover.mbox cover\n0002-b.mbox applied\n0001-a.mbox applied\n" >series &&
	expect_fail "$CHECK" series && grep_err "series:2: .0002-b.mbox. is numbered 2/2, its place in the series is 1/2"
'

test_expect_success 'unknown status, and upstream without its commit' '
	good_series && printf "0000-cover.mbox cover\n0001-a.mbox applied\n0002-b.mbox maybe\nup.mbox upstream\n" >series &&
	expect_fail "$CHECK" series &&
	grep_err "series:3: status must be cover, applied or upstream" &&
	grep_err "series:4: an upstream patch, and only it, names its 40-hex"
'

test_expect_success 'the cover letter must come first, files only once' '
	good_series && printf "0001-a.mbox applied\n0000-cover.mbox cover\n0001-a.mbox applied\n" >series &&
	expect_fail "$CHECK" series &&
	grep_err "series:2: the cover letter must come first" &&
	grep_err "series:3: file listed twice"
'

test_expect_success 'a missing mbox file is named' '
	good_series && rm 0002-b.mbox &&
	expect_fail "$CHECK" series && grep_err "0002-b.mbox:0: cannot open: No such file"
'

# the errors of the last expect_fail, without its summary line
nerrors() {
	grep -v "error.*; nothing applied\$" "$SCRATCH/err" | grep -c "^series-check: "
}

test_expect_success 'one error per fault: an unreadable entry brings no numbering errors' '
	good_series && mail 3 3 >0003-c.mbox && mail 0 3 cover nodiff >0000-cover.mbox &&
	sed -i "s/\[PATCH \([12]\)\/2\]/[PATCH \1\/3]/" 0001-a.mbox 0002-b.mbox &&
	printf "0000-cover.mbox cover\n0001-a.mbox applied\n0002-b.mbox applied\n0003-c.mbox applied\n" >series &&
	"$CHECK" series >/dev/null && rm 0002-b.mbox &&
	expect_fail "$CHECK" series && [ "$(nerrors)" = 1 ] &&
	good_series && echo hello >0001-a.mbox &&
	expect_fail "$CHECK" series && [ "$(nerrors)" = 1 ] &&
	good_series && printf "0000-cover.mbox cover\n0001-a.mbox aplied\n0002-b.mbox applied\n" >series &&
	expect_fail "$CHECK" series && [ "$(nerrors)" = 1 ] && grep_err "series:2: status must be" &&
	good_series && printf "0000-cover.mbox cover\n0001-a.mbox applied\n0001-a.mbox applied\n0002-b.mbox applied\n" >series &&
	expect_fail "$CHECK" series && [ "$(nerrors)" = 1 ] && grep_err "series:3: file listed twice"
'

# b4_am MBOX: b4 am (the Debian 12 one, 0.12, as apply.sh runs it) of MBOX.
# b4 is a dependency (scripts/deps.list): missing, the tests that ask it
# fail and say so, never pass without it.
b4_am() {
	command -v b4 >/dev/null || {
		echo "b4 is not installed: run 'make deps' (scripts/deps.list names it)" >&2
		echo "b4 missing" >b4.log
		return 2
	}
	mkdir -p b4o && XDG_CACHE_HOME=$SCRATCH/b4c GIT_CONFIG_COUNT=2 \
		GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=t GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1=t@example.org \
		b4 --offline-mode -q -n --no-stdin am -m "$1" -o b4o -n s </dev/null >b4.log 2>&1
}

test_expect_success 'a folded Subject:, From: or Date: is named: b4 am cannot assemble it' '
	good_series && "$CHECK" series >before &&
	sed -i "s/^Subject: \(.*\) do y\$/Subject: \1\n do\n y/" 0001-a.mbox && grep -A2 "^Subject:" 0001-a.mbox &&
	expect_fail "$CHECK" series &&
	grep_err "0001-a.mbox:4: the Subject: header is folded over 3 lines: b4 am cannot assemble" &&
	mail 1 2 >0001-a.mbox && sed -i "s/^Subject: \(.*\) do y\$/Subject: \1\n\tdo y/" 0001-a.mbox &&
	sed -i "s/^From: \(.*\) </From: \1\n </; s/^Date: \(.*\) 12:/Date: \1\n 12:/" 0000-cover.mbox &&
	expect_fail "$CHECK" series && [ "$(nerrors)" = 3 ] &&
	grep_err "0001-a.mbox:4: the Subject: header is folded over 2 lines" &&
	grep_err "0000-cover.mbox:2: the From: header is folded over 2 lines" &&
	grep_err "0000-cover.mbox:4: the Date: header is folded over 2 lines" &&
	cat 0000-cover.mbox 0001-a.mbox 0002-b.mbox >all.mbox &&
	! b4_am all.mbox && tail -n 1 b4.log | grep "Header values may not contain linefeed" &&
	good_series && sed -i "s/^\(Subject: .*\)\$/\1\n /" up.mbox && "$CHECK" series >list && diff before list
'

test_expect_success 'folded To:, Cc: and References: are valid, and b4 am takes them' '
	good_series && "$CHECK" series >before &&
	sed -i "/^Message-Id:/i To: a@example.org,\n b@example.org\nCc: c@example.org,\n\td@example.org,\n e@example.org\nReferences:\n <m0@example.org>" 0001-a.mbox &&
	grep -A2 "^Cc:" 0001-a.mbox && "$CHECK" series >after && diff before after &&
	cat 0000-cover.mbox 0001-a.mbox 0002-b.mbox >all.mbox && b4_am all.mbox &&
	[ "$(grep -c "^From " b4o/s.mbx)" = 2 ]
'

test_expect_success 'a path out of the series directory is refused' '
	good_series && mkdir sub && mv series 0000-cover.mbox 0002-b.mbox up.mbox sub/ &&
	sed -i "s|^0001-a.mbox|../0001-a.mbox|" sub/series &&
	expect_fail "$CHECK" sub/series && grep_err "sub/series:3: the path must be relative to the series" &&
	[ "$(nerrors)" = 1 ]
'

test_expect_success 'a full disk: stdout or the directory git mailsplit writes into' '
	good_series && { rc=0; "$CHECK" series >/dev/full 2>err || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^series-check: write: stdout: No space left on device" err &&
	mkdir tmp && { for i in $(seq 200); do echo "+line $i"; done >>0001-a.mbox; } &&
	(trap "" XFSZ; ulimit -f 2; TMPDIR=$SCRATCH/tmp expect_fail "$CHECK" series) &&
	grep_err "0001-a.mbox:0: git mailsplit wrote [0-9]+ of its [0-9]+ bytes into .$SCRATCH/tmp/.*.: is the disk full" &&
	[ -z "$(ls tmp)" ]
'

test_expect_success 'usage errors exit 2' '
	rc=0; "$CHECK" >/dev/null 2>&1 || rc=$?; [ $rc = 2 ]
'
done_testing
