#!/bin/sh
# make trailers: Reviewed-by/Tested-by/Acked-by from reply mails go into
# the right patches (by In-Reply-To, by subject; a cover-letter reply into
# all), once, before '---'; quoted trailers and unrelated replies do not.
# The mbox is read as git reads it (CRLF, no blank line before "From ",
# encodings); a reply whose patch is not certain is reported and skipped.
# Header names are case-insensitive (RFC 5322): every one the tool reads
# (In-Reply-To, References, Message-Id of replies and of the patches,
# Subject), and the "Re:" and trailer tags, in any case.  Each trailer
# folded is kept with the Message-Id of its reply (trailers.provenance); a
# trailer of trailers.rejected is not folded again, and a rejects file it
# cannot read whole (a line of another form, a trailer rejected twice)
# changes nothing.  A trailer that is not its sender's (b4 am's
# from/email mismatch) is listed and left out, unless TRAILERS_SLOPPY=1;
# Reported-by and Suggested-by are collected too.
. "$(dirname "$0")/lib.sh"
COLLECT=$BIN/trailers-collect
need tool:trailers-collect

# reply IN-REPLY-TO SUBJECT BODY: from the person of its first trailer
# (a trailer is its sender's: trailers-collect leaves out the others)
reply() {
	rf=$(printf '%b\n' "$3" | sed -n 's/^[A-Za-z-]*-by: *\(.*<[^>]*>\)$/\1/p' | head -n 1)
	printf 'From reviewer Mon Sep 17 00:00:00 2001\nFrom: %s\n' "${rf:-R <r@example.org>}"
	[ -n "$1" ] && printf 'In-Reply-To: %s\n' "$1"
	printf 'Subject: %s\nMessage-Id: <r%s@example.org>\n\n%b\n\n' "$2" "$$" "$3"
}

# the file and Message-Id of applied patch K
patch_file() {
	printf "%s\n" "$list" | awk -F"\t" -v k="$1" "\$1 == \"applied\" && ++n == k { print \$2 }"
}
patch_id() {
	sed -n "s/^Message-Id: //p" "p/$(patch_file "$1")"
}

# REPLY ID FROM IN-REPLY-TO [REFERENCES] SUBJECT BODY: a reply with its own id
mail_id() {
	printf 'From reviewer Mon Sep 17 00:00:00 2001\nFrom: %s\n' "$2"
	[ -n "$3" ] && printf 'In-Reply-To: %s\n' "$3"
	[ -n "$4" ] && printf 'References: %s\n' "$4"
	printf 'Subject: %s\nMessage-Id: %s\n\n%b\n' "$5" "$1" "$6"
}

# the issue's mbox: a reply to 3/7 without a trailer, then a Tested-by
# for 5/7, with no blank line between them
two_replies() {
	mail_id "<a@r>" "R <r@example.org>" "$(patch_id 3)" "" "Re: three" "Looks fine so far." &&
	mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"
}

# the one file<TAB>trailer line collected from replies.mbox, 5/7's
only_five() {
	"$COLLECT" p/series replies.mbox >found 2>err; rc=$?; cat found err &&
	[ $rc = 0 ] && [ "$(wc -l <found)" = 1 ] &&
	grep -qx "$(patch_file 5)	Tested-by: T <t@example.org>" found
}

setup() {
	rm -rf p && cp -r "$TOP/patches" p &&
	list=$("$BIN/series-check" p/series) &&
	f2=$(printf "%s\n" "$list" | awk -F"\t" "\$1 == \"applied\" && ++n == 2 { print \$2 }") &&
	id2=$(sed -n "s/^Message-Id: //p" "p/$f2") &&
	f3=$(printf "%s\n" "$list" | awk -F"\t" "\$1 == \"applied\" && ++n == 3 { print \$2 }") &&
	s3=$(sed -n "s/^Subject: //p" "p/$f3") &&
	cid=$(sed -n "s/^Message-Id: //p" p/0000-cover-letter.mbox) &&
	{
		reply "$id2" "Re: patch 2" "Looks right.\n\nReviewed-by: Rev One <one@example.org>\n> Acked-by: Quoted Person <q@example.org>" &&
		reply "" "Re: $s3" "Tested-by: Tess Ter <tess@example.org>" &&
		reply "$cid" "Re: [PATCH 0/7] cover" "For the series:\nAcked-by: Ack All <all@example.org>" &&
		reply "<unrelated@example.org>" "Re: something else" "Reviewed-by: Other <o@example.org>"
	} >replies.mbox
}

test_expect_success 'collect: each trailer to its patch; quoted and unrelated ignored' '
	setup && { rc=0; "$COLLECT" p/series replies.mbox >found 2>err || rc=$?; } &&
	cat found err && [ $rc = 0 ] &&
	grep -qx "$f2	Reviewed-by: Rev One <one@example.org>" found &&
	grep -qx "$f3	Tested-by: Tess Ter <tess@example.org>" found &&
	[ "$(grep -c "	Acked-by: Ack All <all@example.org>$" found)" = "$(printf "%s\n" "$list" | grep -c "^applied")" ] &&
	! grep -q "Quoted Person\|Other <o@" found &&
	grep -q "replies.mbox:[0-9]*: reply .Re: something else. matches no patch" err
'

test_expect_success 'trailers go before ---, once; a second run adds nothing' '
	setup && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/series/trailers.sh" &&
	awk "/^Reviewed-by: Rev One/ { r = NR } /^---\$/ && !d { d = NR } END { exit !(r && r < d) }" "p/$f2" &&
	cp -r p p1 && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/series/trailers.sh" &&
	diff -r p1 p && [ "$(grep -c "^Acked-by: Ack All" "p/$f3")" = 1 ]
'

test_expect_success 'the commits carry the trailers after apply' '
	setup && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/series/trailers.sh" &&
	PATCHES=$SCRATCH/p SERIES_REF=$REF_NS/trailers sh "$TOP/series/apply.sh" &&
	git -C "$WORKTREE" log --format=%B "$REF_NS/base..$REF_NS/trailers" >msgs &&
	grep -qx "Reviewed-by: Rev One <one@example.org>" msgs &&
	grep -qx "Tested-by: Tess Ter <tess@example.org>" msgs &&
	git -C "$WORKTREE" update-ref -d "$REF_NS/trailers" &&
	git -C "$WORKTREE" checkout -q --detach "$REF_NS/series"
'
test_expect_success 'no blank line before the next From line: 5/7 gets its Tested-by, 3/7 nothing' '
	setup && two_replies >replies.mbox && only_five
'

test_expect_success 'a CRLF mbox: the same as with LF' '
	setup && { mail_id "<a@r>" "R <r@example.org>" "$(patch_id 3)" "" "Re: three" "Fine.\n" &&
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"; } |
	sed "s/\$/\r/" >replies.mbox && only_five && ! grep -q "$(printf "\r")" found
'

test_expect_success 'mboxrd (public-inbox, b4 mbox): an escaped ">From " line stays in its mail' '
	setup && { mail_id "<a@r>" "R <r@example.org>" "$(patch_id 3)" "" "Re: three" ">From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n>>From here on: fine.\n" &&
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" ">From me: tested.\nTested-by: T <t@example.org>"; } >replies.mbox &&
	[ "$(git mailsplit --mboxrd -o"$SCRATCH" replies.mbox)" = 2 ] && only_five
'

test_expect_success 'X-Spam-Flag:NO, an encoded subject, a quoted-printable body: read as git reads them' '
	setup && mail_id "<c@r>" "T <t@example.org>" "" "" "=?UTF-8?q?Re=3A_$(sed -n "s/^Subject: //p" "p/$(patch_file 5)" | sed "s/_/=5F/g; s/ /_/g; s/:/=3A/g")?=" \
		"Tested-by: T <t@ex=\nample.org>" >replies.mbox &&
	sed -i "/^Message-Id:/a X-Spam-Flag:NO\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: quoted-printable" replies.mbox &&
	cat replies.mbox && only_five
'

test_expect_success 'a reply to a reply in the mbox belongs to the first reply'"'"'s patch' '
	setup && { mail_id "<a@r>" "R <r@example.org>" "$(patch_id 5)" "" "Re: five" "Did you test it?\n" &&
		mail_id "<b@r>" "T <t@example.org>" "<a@r>" "" "Re: Re: five" "Yes.\nTested-by: T <t@example.org>"; } >replies.mbox &&
	only_five
'

test_expect_success 'a thread naming two patches, or a subject naming another: reported, skipped' '
	setup && s3=$(sed -n "s/^Subject: //p" "p/$(patch_file 3)") &&
	{ mail_id "<a@r>" "R <r@example.org>" "$(patch_id 5)" "$cid $(patch_id 3)" "Re: five" "Reviewed-by: R <r@example.org>" &&
		mail_id "<b@r>" "S <s@example.org>" "$(patch_id 5)" "" "Re: $s3" "Reviewed-by: S <s@example.org>" &&
		mail_id "<c@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"; } >replies.mbox &&
	only_five &&
	grep -q "replies.mbox:1: reply .Re: five. has two patches of the series in its thread" err &&
	grep -q "replies.mbox:[0-9]*: reply .Re: .*. answers $(patch_file 5) by its thread, its subject names $(patch_file 3): skipped" err
'

test_expect_success 'the series'"'"' own mails, another version'"'"'s patch and replies to it give nothing' '
	setup && s3=$(sed -n "s/^Subject: \[[^]]*\] //p" "p/$(patch_file 3)") &&
	{ cat p/0000-cover-letter.mbox && echo && sed "/^Signed-off-by/i Reviewed-by: Old <old@example.org>" "p/$(patch_file 3)" && echo &&
		mail_id "<v9-3@x>" "A <a@example.org>" "<x86-copy-series-v9-0@example.org>" "" "[PATCH v9 3/7] $s3" "Reviewed-by: Carried <c@example.org>\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b" &&
		mail_id "<re-v9-3@x>" "B <b@example.org>" "<v9-3@x>" "" "Re: [PATCH v9 3/7] $s3" "Acked-by: B <b@example.org>" &&
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"; } >replies.mbox &&
	only_five && grep -q "is a mail of the series itself, not a reply: skipped" err &&
	grep -q "reply .\[PATCH v9 3/7\] .*. is a patch or a cover letter, not a reply: skipped" err &&
	grep -q "reply .Re: \[PATCH v9 3/7\] .*. answers a mail of the mbox that is not of this series: skipped" err
'

test_expect_success 'quoted, indented and signature trailers, and an unreadable reply, give nothing' '
	setup && { mail_id "<a@r>" "R <r@example.org>" "$(patch_id 3)" "" "Re: three =?x" "Reviewed-by: R <r@example.org>" &&
		mail_id "<c@r>" "Q <q@example.org>" "$(patch_id 3)" "" "Re: three" "> Reviewed-by: Q <q@example.org>\n  Acked-by: Q <q@example.org>\n-- \nTested-by: Sig <sig@example.org>" &&
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"; } >replies.mbox &&
	only_five && grep -q "replies.mbox:1: reply .*. cannot be read: git mailinfo cannot read this mail" err
'

test_expect_success 'no thread, a subject two patches share: reported, skipped' '
	setup && s3=$(sed -n "s/^Subject: \[[^]]*\] //p" "p/$(patch_file 3)") &&
	p3=$(sed -n "s/^Subject: //p" "p/$(patch_file 3)") &&
	sed -i "s|^Subject: \(\[[^]]*\]\) .*|Subject: \1 $s3|" "p/$(patch_file 4)" &&
	{ mail_id "<a@r>" "R <r@example.org>" "" "" "Re: $p3" "Reviewed-by: R <r@example.org>" &&
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"; } >replies.mbox &&
	only_five && grep -q "has no thread and a subject that fits several mails of the series: skipped" err
'

# SPELLINGS of a header name: as written, lower, upper, mixed
spellings() {
	lower=$(printf "%s" "$1" | tr "[:upper:]" "[:lower:]") &&
	upper=$(printf "%s" "$1" | tr "[:lower:]" "[:upper:]") &&
	mixed=$(printf "%s" "$lower" | sed "s/^./\u&/") &&
	printf "%s\n" "$1" "$lower" "$upper" "$mixed"
}

test_expect_success 'In-Reply-To and References in any case: the reply is threaded to its patch' '
	setup && for h in In-Reply-To References; do
		for s in $(spellings $h); do
			if [ $h = In-Reply-To ]; then
				mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "Tested-by: T <t@example.org>"
			else
				mail_id "<b@r>" "T <t@example.org>" "" "<other@example.org> $(patch_id 5)" "Re: five" "Tested-by: T <t@example.org>"
			fi | sed "s/^$h:/$s:/" >replies.mbox &&
			grep -q "^$s: " replies.mbox && echo "$s" &&
			only_five || exit 1
		done
	done &&
	[ "$(spellings In-Reply-To | sort -u | wc -l)" = 4 ]
'

test_expect_success 'Message-Id in any case: of a reply (a reply to it is threaded) and of a patch' '
	setup && for s in $(spellings Message-Id) Message-ID; do
		{ mail_id "<a@r>" "R <r@example.org>" "$(patch_id 5)" "" "Re: five" "Did you test it?\n" &&
			mail_id "<b@r>" "T <t@example.org>" "<a@r>" "" "Re: Re: five" "Yes.\nTested-by: T <t@example.org>"; } |
			sed "s/^Message-Id:/$s:/" >replies.mbox &&
		[ "$(grep -c "^$s: " replies.mbox)" = 2 ] && echo "$s" &&
		only_five || exit 1
	done &&
	for s in message-id MESSAGE-ID Message-ID; do
		setup && sed -i "s/^Message-Id:/$s:/" "p/$(patch_file 5)" &&
		grep -q "^$s: " "p/$(patch_file 5)" && echo "patch: $s" &&
		id5=$(sed -n "s/^$s: //p" "p/$(patch_file 5)") &&
		mail_id "<b@r>" "T <t@example.org>" "$id5" "" "Re: five" "Tested-by: T <t@example.org>" >replies.mbox &&
		only_five &&
		{ sed -n "1,/^\$/p" "p/$(patch_file 5)"; echo "Reviewed-by: Self <self@example.org>"; echo; } >replies.mbox &&
		{ "$COLLECT" p/series replies.mbox >found 2>err || :; } && cat err &&
		[ ! -s found ] && grep -q "is a mail of the series itself, not a reply: skipped" err || exit 1
	done
'

test_expect_success 'Subject: and Re: in any case: a reply without a thread is matched by its subject' '
	setup && s5=$(sed -n "s/^Subject: //p" "p/$(patch_file 5)") &&
	for re in Re: re: RE: rE:; do
		for s in $(spellings Subject); do
			mail_id "<b@r>" "T <t@example.org>" "" "" "$re $s5" "Tested-by: T <t@example.org>" |
				sed "s/^Subject:/$s:/" >replies.mbox &&
			grep -q "^$s: $re " replies.mbox && echo "$s: $re" &&
			only_five || exit 1
		done
	done
'

test_expect_success 'trailer tags in any case are collected, in the canonical spelling' '
	setup && for t in reviewed-by REVIEWED-BY Tested-By acked-by ACKED-BY; do
		mail_id "<b@r>" "T <t@example.org>" "$(patch_id 5)" "" "Re: five" "$t: T <t@example.org>" >replies.mbox &&
		"$COLLECT" p/series replies.mbox >found 2>err; cat found err &&
		case $t in [rR]*) want=Reviewed-by ;; [tT]*) want=Tested-by ;; *) want=Acked-by ;; esac &&
		[ "$(wc -l <found)" = 1 ] && grep -qx "$(patch_file 5)	$want: T <t@example.org>" found || exit 1
	done
'

test_expect_success 'stdout on a full disk, REPLIES a directory: clear errors, patches/ unchanged' '
	setup && two_replies >replies.mbox &&
	{ rc=0; "$COLLECT" p/series replies.mbox >/dev/full 2>err || rc=$?; } && cat err && [ $rc = 1 ] &&
	grep -q "^trailers-collect: write: stdout: No space left on device" err &&
	cp -r p p0 && mkdir maildir &&
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/maildir NO_APPLY=1 expect_fail sh "$TOP/series/trailers.sh" &&
	grep_err "replies: .*maildir. is not a file" && diff -r p0 p
'

test_expect_success 'a failure at the second patch leaves patches/ as it was' '
	setup && cp -r p p0 && git=$(command -v git) && mkdir bin &&
	{ for k in 1 7; do mail_id "<r$k@r>" "R <r@example.org>" "$(patch_id $k)" "" "Re: $k" "Reviewed-by: R <r@example.org>"; done; } >replies.mbox &&
	printf "#!/bin/sh\ncase \" \$* \" in *\" interpret-trailers \"*%s*) echo \"error: no space left (simulated)\" >&2; exit 1 ;; esac\nexec %s \"\$@\"\n" \
		"$(patch_file 7)" "$git" >bin/git && chmod +x bin/git &&
	PATH=$SCRATCH/bin:$PATH PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 expect_fail sh "$TOP/series/trailers.sh" &&
	grep_err "trailers: interpret-trailers: could not add .* patches/ is unchanged" &&
	diff -r p0 p
'

# ids_replies: a Reviewed-by for 2/7 from <rev@r>, an Acked-by for the
# series from <ack@r>; trail: make trailers on them, stderr in err
ids_replies() {
	mail_id "<rev@r>" "Rev One <one@example.org>" "$(patch_id 2)" "" "Re: two" "Reviewed-by: Rev One <one@example.org>" &&
	mail_id "<ack@r>" "Ack All <all@example.org>" "$cid" "" "Re: cover" "Acked-by: Ack All <all@example.org>"
}
trail() {
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/${1:-ids.mbox} NO_APPLY=1 sh "$TOP/series/trailers.sh" 2>err
}

test_expect_success 'a link at a name trailers writes (FILE.trailers-new) or reads: refused, the file it names as it was' '
	setup && ids_replies >ids.mbox && f2=$(patch_file 2) && mkdir outside &&
	echo canary >outside/c && ln -s "$SCRATCH/outside/c" "p/$f2.trailers-new" && cp -r p p0 &&
	expect_fail trail && grep_err "trailers: patches: .*p/$f2.trailers-new. is a symbolic link" &&
	grep_err "nothing changed" && [ "$(cat outside/c)" = canary ] && diff -r p0 p && [ -f "p/$f2" ] &&
	rm "p/$f2.trailers-new" && ln -s "$SCRATCH/outside/c" p/trailers.provenance.trailers-new && cp -r p p1 &&
	expect_fail trail && grep_err "is a symbolic link" && [ "$(cat outside/c)" = canary ] && diff -r p1 p &&
	rm p/trailers.provenance.trailers-new && trail && ! grep -q "trailers-new" err &&
	grep -qx "Reviewed-by: Rev One <one@example.org>" "p/$f2" && [ -z "$(find p -name ".*")" ]
'

test_expect_success 'provenance: each trailer folded is kept with the Message-Id of its reply; a second run adds no line' '
	setup && ids_replies >ids.mbox && trail || { cat err; return 1; }
	cat err p/trailers.provenance &&
	grep -qx "$(patch_file 2)	Reviewed-by: Rev One <one@example.org>	<rev@r>" p/trailers.provenance &&
	[ "$(grep -c "	Acked-by: Ack All <all@example.org>	<ack@r>\$" p/trailers.provenance)" = "$(printf "%s\n" "$list" | grep -c "^applied")" ] &&
	[ "$(grep -vc "^#" p/trailers.provenance)" = 8 ] &&
	grep -q ": + Reviewed-by: Rev One <one@example.org> (from <rev@r>)" err &&
	cp -r p p1 && trail && diff -r p1 p && grep -q "nothing new to fold" err
'

test_expect_success 'a rejected trailer is not folded, by its reply or from any (*); the run says why; another reply'"'"'s is' '
	setup && ids_replies >ids.mbox &&
	printf "# rejected\n<rev@r> Reviewed-by: Rev One <one@example.org> | a review of v1\n* Acked-by: Ack All <all@example.org> | acked another series\n" >p/trailers.rejected &&
	trail || { cat err; return 1; }
	cat err && ! grep -q "Rev One\|Ack All" p/*.mbox &&
	grep -q "Reviewed-by: Rev One <one@example.org>. from <rev@r>: rejected (.*trailers.rejected:2: a review of v1), not folded" err &&
	grep -q "Acked-by: Ack All <all@example.org>. from <ack@r>: rejected (.*trailers.rejected:3: acked another series), not folded" err &&
	[ ! -e p/trailers.provenance ] &&
	{ ids_replies | sed "s/<rev@r>/<rev2@r>/; s/<ack@r>/<ack2@r>/"; } >ids2.mbox && trail ids2.mbox &&
	grep -q "^Reviewed-by: Rev One <one@example.org>\$" "p/$(patch_file 2)" && ! grep -q "Ack All" p/*.mbox &&
	grep -qx "$(patch_file 2)	Reviewed-by: Rev One <one@example.org>	<rev2@r>" p/trailers.provenance
'

test_expect_success 'a rejects line of another form, or a trailer rejected twice: named by line, nothing changes' '
	setup && ids_replies >ids.mbox && cp -r p p0 &&
	for bad in "<rev@r> Reviewed-by: Rev One <one@example.org>" "rev@r Reviewed-by: R <r@x> | why" \
		"<rev@r> Signed-off-by: R <r@x> | why" "<rev@r> Reviewed-by: R <r@x> |"; do
		printf "# one bad line\n%s\n" "$bad" >p/trailers.rejected &&
		expect_fail trail && grep_err "trailers.rejected:2: not .<message-id> Reviewed-by: Name <addr> . why." &&
		grep_err "nothing changed" && rm p/trailers.rejected && diff -r p0 p || { echo "line: $bad"; return 1; }
	done &&
	printf "<rev@r> Reviewed-by: Rev One <one@example.org> | once\n\n<rev@r> Reviewed-by: Rev One <one@example.org>  |  twice\n" >p/trailers.rejected &&
	expect_fail trail && grep_err "trailers.rejected:3: Reviewed-by: Rev One <one@example.org> from <rev@r> is rejected twice .line 1." &&
	rm p/trailers.rejected && diff -r p0 p
'
test_expect_success 'a trailer not its sender'"'"'s is listed and left out, as b4 am; TRAILERS_SLOPPY=1 folds it; Reported-by and Suggested-by too' '
	cp -r "$TOP/patches" p && list=$("$BIN/series-check" p/series) &&
	{
		mail_id "<f1@r>" "Mallory <m@evil.example>" "$(patch_id 2)" "" "Re: two" "Reviewed-by: Rev One <one@example.org>" &&
		mail_id "<f2@r>" "Rev One <ONE@Example.org>" "$(patch_id 3)" "" "Re: three" "Reviewed-by: Rev One <one@example.org>\nReported-by: Rev One <one@example.org>" &&
		mail_id "<f3@r>" "Sue <sue@example.org>" "$(patch_id 4)" "" "Re: four" "Suggested-by: Sue <sue@example.org>"
	} >replies.mbox &&
	"$COLLECT" p/series replies.mbox >found 2>err && cat found err &&
	[ "$(wc -l <found)" = 3 ] &&
	grep -qx "$(patch_file 3)	Reviewed-by: Rev One <one@example.org>" found &&
	grep -qx "$(patch_file 3)	Reported-by: Rev One <one@example.org>" found &&
	grep -qx "$(patch_file 4)	Suggested-by: Sue <sue@example.org>" found &&
	grep -q "replies.mbox:[0-9]*: reply .Re: two.: trailer .Reviewed-by: Rev One <one@example.org>. is not its sender.s (From: <m@evil.example>): not folded" err &&
	grep -q "1 trailer(s) not their sender.s (above), left out: fold them anyway with TRAILERS_SLOPPY=1" err &&
	"$COLLECT" --sloppy p/series replies.mbox >found2 2>err2 && [ "$(wc -l <found2)" = 4 ] &&
	grep -qx "$(patch_file 2)	Reviewed-by: Rev One <one@example.org>" found2 && [ ! -s err2 ] &&
	# make trailers: the mismatch said, the rest folded; with TRAILERS_SLOPPY=1 that one too
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/series/trailers.sh" 2>err3 && cat err3 &&
	grep -q "is not its sender.s" err3 && ! grep -q "Rev One" "p/$(patch_file 2)" &&
	grep -qx "Reported-by: Rev One <one@example.org>" "p/$(patch_file 3)" &&
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 TRAILERS_SLOPPY=1 sh "$TOP/series/trailers.sh" 2>err4 &&
	grep -qx "Reviewed-by: Rev One <one@example.org>" "p/$(patch_file 2)" &&
	{ rc=0; PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox TRAILERS_SLOPPY=yes sh "$TOP/series/trailers.sh" 2>err5 || rc=$?; } &&
	[ $rc = 2 ] && grep -q "TRAILERS_SLOPPY=1 (fold trailers that are not their sender.s too, as b4 am -S) or unset, not .yes." err5
'

done_testing
