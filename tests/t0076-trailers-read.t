#!/bin/sh
# make trailers reads a trailer as git reads it and writes its address
# valid, or refuses it: a trailer folded over two lines is joined (git
# interpret-trailers --parse); a name in RFC 2047 words is decoded; a
# name with a comma, a quote or another special of RFC 5322 is quoted,
# a tab in it is a blank (git send-email split "Doe, John" at the comma,
# and a tab cut the address off); a name of any length is kept whole
# (one of 1,100 characters was cut at 1,023, its address gone).  A
# trailer whose address cannot be written valid (none, two, text after
# it, a control character, bytes that are not UTF-8, an encoded word
# that does not decode) is refused with the mbox's FILE:LINE, and
# patches/ is left as it was.  (It was dropped without a word, or
# folded as it came.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
# --sloppy: the names here are not the sender's (t0073 checks that a
# trailer is its sender's); what is read of them is this file's subject
COLLECT=$BIN/trailers-collect
need tool:trailers-collect

setup() {
	cp -r "$TOP/patches" p &&
	list=$("$BIN/series-check" p/series) &&
	f5=$(printf "%s\n" "$list" | awk -F"\t" "\$1 == \"applied\" && ++n == 5 { print \$2 }") &&
	id5=$(sed -n "s/^Message-Id: //p" "p/$f5")
}

# reply BODY: a reply to 5/7 whose body is BODY (printf %b)
reply() {
	printf 'From reviewer Mon Sep 17 00:00:00 2001\nFrom: R <r@example.org>\nIn-Reply-To: %s\nSubject: Re: five\nMessage-Id: <r@example.org>\n\n%b\n\n' \
		"$id5" "$1"
}

# collected BODY: trailers-collect of a reply with BODY: exit 0, its trailers in found
collected() {
	reply "$1" >replies.mbox && "$COLLECT" --sloppy p/series replies.mbox >found 2>err; rc=$?
	cat found err && [ $rc = 0 ] && [ ! -s err ]
}

# folded TRAILER: make trailers (NO_APPLY) folds exactly TRAILER into
# 5/7, where git reads it back as one trailer of one address
folded() {
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 TRAILERS_SLOPPY=1 sh "$TOP/series/trailers.sh" 2>terr ||
		{ cat terr; return 1; }
	grep -qxF "$1" "p/$f5" &&
	sed "/^---\$/q" "p/$f5" | git interpret-trailers --parse >parsed && grep -qxF "$1" parsed &&
	python3 -c "import sys; from email.utils import getaddresses
v = sys.argv[1].split(\": \", 1)[1]; a = getaddresses([v]); assert len(a) == 1 and \"@\" in a[0][1], a" "$1"
}

test_expect_success 'a trailer folded over lines: read whole, as git interpret-trailers --parse reads it' '
	setup && body="Looks good.\n\nReviewed-by: Very Long\n\tName <v@example.org>" &&
	collected "$body" && grep -qxF "$f5	Reviewed-by: Very Long Name <v@example.org>" found &&
	printf "%b\n" "$body" | git interpret-trailers --parse | grep -qxF "Reviewed-by: Very Long Name <v@example.org>" &&
	folded "Reviewed-by: Very Long Name <v@example.org>"
'

test_expect_success 'a name in RFC 2047 words (Q, B, Latin-1, words side by side): decoded' '
	setup && collected "Reviewed-by: =?UTF-8?q?J=C3=B6rg_R=C3=B6del?= <joro@example.org>\nTested-by: =?utf-8?B?SsO2cmc=?= =?UTF-8?Q?_R=C3=B6del?= <j2@example.org>\nAcked-by: =?ISO-8859-1?Q?Fran=E7ois?= Z <fz@example.org>" &&
	grep -qxF "$f5	Reviewed-by: Jörg Rödel <joro@example.org>" found &&
	grep -qxF "$f5	Tested-by: Jörg Rödel <j2@example.org>" found &&
	grep -qxF "$f5	Acked-by: François Z <fz@example.org>" found &&
	folded "Acked-by: François Z <fz@example.org>" &&
	# the mail says it is UTF-8, as format-patch would: git send-email asks nothing
	sed "/^\$/q" "p/$f5" >hdr && grep -qx "MIME-Version: 1.0" hdr &&
	grep -qx "Content-Type: text/plain; charset=UTF-8" hdr && grep -qx "Content-Transfer-Encoding: 8bit" hdr &&
	git mailinfo -k msg patch <"p/$f5" >info && grep -qx "Acked-by: François Z <fz@example.org>" msg &&
	# a mail that says another charset: refused, patches/ as it was
	rm -rf p p0 && setup && sed -i "0,/^\$/s//Content-Type: text\/plain; charset=ISO-8859-1\n/" "p/$f5" && cp -r p p0 &&
	reply "Acked-by: =?ISO-8859-1?Q?Fran=E7ois?= Z <fz@example.org>" >replies.mbox &&
	{ rc=0; PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 TRAILERS_SLOPPY=1 sh "$TOP/series/trailers.sh" 2>terr || rc=$?; } &&
	cat terr && [ $rc = 1 ] && grep -q "charset=ISO-8859-1: not UTF-8, and a trailer is" terr && diff -r p0 p
'

test_expect_success 'a comma, a quote or a tab in the name: the address written valid, one address' '
	setup && collected "Tested-by: Doe, John <jd@example.org>\nAcked-by: Ann\tB <ab@example.org>\nReviewed-by: John \"JJ\" Doe <jj@example.org>\nReviewed-by: \"Roe, Jane\" <jr@example.org>\nReviewed-by: Darrick J. Wong <djwong@example.org>" &&
	grep -qxF "$f5	Tested-by: \"Doe, John\" <jd@example.org>" found &&
	grep -qxF "$f5	Acked-by: Ann B <ab@example.org>" found &&
	grep -qxF "$f5	Reviewed-by: \"John \\\"JJ\\\" Doe\" <jj@example.org>" found &&
	grep -qxF "$f5	Reviewed-by: \"Roe, Jane\" <jr@example.org>" found &&
	grep -qxF "$f5	Reviewed-by: Darrick J. Wong <djwong@example.org>" found &&
	folded "Tested-by: \"Doe, John\" <jd@example.org>" && folded "Acked-by: Ann B <ab@example.org>"
'

test_expect_success 'a name of 1,100 characters: kept whole, its address with it' '
	setup && name=$(printf "%01100d" 0 | tr 0 n) && collected "Reviewed-by: N$name <long@example.org>" &&
	grep -qxF "$f5	Reviewed-by: N$name <long@example.org>" found &&
	folded "Reviewed-by: N$name <long@example.org>"
'

# refused BODY WHY: a reply with BODY: trailers-collect exits 1 naming the
# trailer's line of the mbox and WHY; make trailers changes nothing
refused() {
	reply "$1" >replies.mbox && line=$(grep -n "^[A-Za-z-]*-by" replies.mbox | head -n 1 | cut -d: -f1) &&
	expect_fail "$COLLECT" --sloppy p/series replies.mbox && cat "$SCRATCH/err" &&
	grep_err "^trailers-collect: replies.mbox:$line: reply .Re: five.: trailer .*$2" &&
	cp -r p p0 &&
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 expect_fail sh "$TOP/series/trailers.sh" &&
	diff -r p0 p && rm -rf p0
}

test_expect_success 'an address that cannot be written valid: refused with FILE:LINE, patches/ as it was' '
	setup &&
	refused "Reviewed-by: Rev One" "no <address>" &&
	refused "Reviewed-by: Rev One rev@example.org" "no <address>" &&
	refused "Reviewed-by: A <a@example.org>, B <b@example.org>" "two addresses" &&
	refused "Reviewed-by: R <r@example.org> and more" "text after the address" &&
	refused "Reviewed-by: R <r at example.org>" "not an address" &&
	refused "Reviewed-by: R <r@>" "not an address" &&
	refused "Ok.\n\nReviewed-by: R\033[31m <r@example.org>" "a control character" &&
	refused "Reviewed-by: R\377\376 <r@example.org>" "not UTF-8" &&
	refused "Reviewed-by: =?UTF-8?q?R=FF?= <r@example.org>" "not UTF-8" &&
	refused "Reviewed-by: =?x-unknown?q?R?= <r@example.org>" "charset" &&
	refused "Reviewed-by: =?UTF-8?B?!!!?= <r@example.org>" "base64" &&
	refused "Reviewed-by: A\n <a@example.org> x" "text after the address"
'

test_expect_success 'a refused trailer names its line in a quoted-printable mail too: the mail'"'"'s line' '
	setup && { reply "Fine." | sed "s/^Message-Id:/Content-Type: text\/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n&/" |
		sed "s/^Fine\.\$/Reviewed-by: R <r@ex=\n ample.org>/"; } >replies.mbox && cat replies.mbox &&
	expect_fail "$COLLECT" --sloppy p/series replies.mbox && cat "$SCRATCH/err" &&
	grep_err "^trailers-collect: replies.mbox:1: reply .Re: five.: trailer .Reviewed-by: R <r@ex ample.org>.: "
'
done_testing
