#!/bin/sh
# make trailers: Reviewed-by/Tested-by/Acked-by from reply mails go into
# the right patches (by In-Reply-To, by subject; a cover-letter reply into
# all), once, before '---'; quoted trailers and unrelated replies do not.
. "$(dirname "$0")/lib.sh"
COLLECT=$BIN/trailers-collect
[ -x "$COLLECT" ] || bail "tools are not built: run 'make tools'"
plan 3

# reply IN-REPLY-TO SUBJECT BODY
reply() {
	printf 'From reviewer Mon Sep 17 00:00:00 2001\nFrom: R <r@example.org>\n'
	[ -n "$1" ] && printf 'In-Reply-To: %s\n' "$1"
	printf 'Subject: %s\nMessage-Id: <r%s@example.org>\n\n%b\n\n' "$2" "$$" "$3"
}

setup() {
	cp -r "$TOP/patches" p &&
	list=$("$BIN/series-check" p/series) &&
	f2=$(printf "%s\n" "$list" | awk -F"\t" "\$1 == \"applied\" && ++n == 2 { print \$2 }") &&
	id2=$(sed -n "s/^Message-Id: //p" "p/$f2") &&
	f3=$(printf "%s\n" "$list" | awk -F"\t" "\$1 == \"applied\" && ++n == 3 { print \$2 }") &&
	s3=$(sed -n "s/^Subject: //p" "p/$f3") &&
	{
		reply "$id2" "Re: patch 2" "Looks right.\n\nReviewed-by: Rev One <one@example.org>\n> Acked-by: Quoted Person <q@example.org>" &&
		reply "" "Re: $s3" "Tested-by: Tess Ter <tess@example.org>" &&
		reply "<x86-copy-series-v1-0@example.org>" "Re: [PATCH 0/7] cover" "For the series:\nAcked-by: Ack All <all@example.org>" &&
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
	setup && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/scripts/trailers.sh" &&
	awk "/^Reviewed-by: Rev One/ { r = NR } /^---\$/ && !d { d = NR } END { exit !(r && r < d) }" "p/$f2" &&
	cp -r p p1 && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/scripts/trailers.sh" &&
	diff -r p1 p && [ "$(grep -c "^Acked-by: Ack All" "p/$f3")" = 1 ]
'

test_expect_success 'the commits carry the trailers after apply' '
	setup && PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 sh "$TOP/scripts/trailers.sh" &&
	PATCHES=$SCRATCH/p SERIES_REF=$REF_NS/trailers sh "$TOP/scripts/apply.sh" &&
	git -C "$WORKTREE" log --format=%B "$REF_NS/base..$REF_NS/trailers" >msgs &&
	grep -qx "Reviewed-by: Rev One <one@example.org>" msgs &&
	grep -qx "Tested-by: Tess Ter <tess@example.org>" msgs &&
	git -C "$WORKTREE" update-ref -d "$REF_NS/trailers" &&
	git -C "$WORKTREE" checkout -q --detach "$REF_NS/series"
'
done_testing
