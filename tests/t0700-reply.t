#!/bin/sh
# The reviewer's outputs, from the claims of a report (the v4 icount
# record set with patches/ as it is).  make reply: a reply to the cover
# letter whose headers answer the cover, whose body keeps to 75 columns
# with each claim's claimed and reproduced figure, clock label and
# spread, and Tested-by only when every measured claim held; git
# send-email --dry-run accepts it.  Bad input changes nothing: no report,
# a cover without a Message-Id, a table by CPU; for make reproduce an
# unknown claim, one nothing measures, a host one, no ID.  (The guest
# reproducer itself: t0701.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
SET=$TOP/results/2026-12-07-series-v4/vm-icount-100G
need tool:ci-reproduce
FROM='Rev Iewer <reviewer@example.org>'
MK="make -C $TOP --no-print-directory OUT=$OUT BIN=$BIN SANITIZE=1"
# the scripts behind make reply and make reproduce, for their exit status
REPLY="sh $TOP/review/reply.sh"
REPRO="sh $TOP/review/reproduce.sh"

# the cover as posted: with its To and Cc (the one in patches/ gets them
# when sent: make reply then asks get_maintainer.pl, in the worktree)
posted_cover() {
	awk '/^$/ && !d { print "To: A List <list@example.org>"; print "Cc: Pat Cc <pat@example.org>"; d = 1 } { print }' \
		"$TOP/patches/0000-cover-letter.mbox" >posted.mbox
}

# a report of the real series and its real v4 records, as make report makes it
real_report() {
	mkdir -p rep && ln -s "$TOP/patches" rep/patches &&
	(cd rep && "$BIN/ci-report" --commits "$SET/commits.txt" --json r.json "$SET"/*.jsonl \
		>r.txt 2>r.err) && [ -s rep/r.json ]
}

test_expect_success 'make reply: a reply to the cover letter, claim by claim, that git send-email --dry-run takes' '
	real_report && posted_cover &&
	$MK reply REPORT="$PWD/rep/r.json" COVER="$PWD/posted.mbox" REPLY_FILE="$PWD/reply.mbox" FROM="$FROM" >out 2>err; rc=$?
	cat err; [ $rc = 0 ] && [ -s reply.mbox ] && grep -q "git send-email --dry-run accepted it" err &&
	grep -qx "Cc: A List <list@example.org>, Pat Cc <pat@example.org>" reply.mbox &&
	id=$(sed -n "s/^Message-Id: //p" "$TOP/patches/0000-cover-letter.mbox") &&
	grep -qx "In-Reply-To: $id" reply.mbox && grep -qx "References: $id" reply.mbox &&
	grep -qx "From: $FROM" reply.mbox &&
	grep -qxF "Subject: Re: $(sed -n "s/^Subject: //p" "$TOP/patches/0000-cover-letter.mbox")" reply.mbox &&
	grep -q "^To: .*<maintainers@" reply.mbox &&
	[ -z "$(sed "1,/^\$/d" reply.mbox | awk "length(\$0) > 75")" ] &&
	grep -q "^2/7 mm/mm_init: add a template-based fast path" reply.mbox &&
	sed -n "/^  template\/nd_pmem\$/,/^  [a-z]/p" reply.mbox >claim &&
	grep -q "^    claimed: *1115.00 -> 495.00 (-55.6%)" claim &&
	tr "\n" " " <claim | grep -q "reproduced: *1115.00 -> 495.00 ms (-55.6%, exact: tcg-icount, no test, n *5/5); sd 0 / 0 \[tcg-icount\]" &&
	grep -q "^    verdict: *reproduced: the claimed figures" claim &&
	grep -q "^    author: *template fast path" claim && grep -q "^    here: *1/7 -> 2/7" claim &&
	tr "\n" " " <claim | tr -s " " | grep -q "limits: template/nd_pmem (memmap in the namespace, map=dev): claimed 25804288 struct pages x 64 B = 1.65 GB a bind" &&
	grep -q "^  make reproduce ID=<claim id>" reply.mbox &&
	# what the records hold, and only that: guests, no checks, no host bench
	tr "\n" " " <reply.mbox >flat &&
	grep -q "They hold each kernel booted in QEMU with emulated NVDIMMs, its rebinds timed[.] Per patch" flat &&
	! grep -qi -e sparse -e checkpatch -e coccinelle -e "host benchmark" flat &&
	# the host claims have no records in this set: no data, never a failure
	grep -q "No data here for [0-9]* claims (these records hold none of their suite, so they are neither held nor failed): nontemporal/template-copy-64," flat &&
	sed -n "/^  nontemporal\/template-copy-64\$/,/^  [a-z]/p" reply.mbox | grep -q "reproduced: *no data: these records hold no bench records" &&
	! grep -q "^Tested-by:" reply.mbox &&
	grep -q "No Tested-by: [0-9]* of the [0-9]* claims measured here did not reproduce in direction: [a-z]" flat &&
	! sed -n "/^No Tested-by/,\$p" reply.mbox | grep -q nontemporal
'

test_expect_success 'make reply: Tested-by when every measured claim held; none for a claim nothing measures' '
	real_report &&
	python3 - rep/r.json <<-\PY &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	for c in r["claims"]:
	    if c["suite"] and not c["verdict"].startswith(("reproduced", "direction reproduced")):
	        c["verdict"] = "reproduced: the claimed figures (edited for the test)"
	json.dump(r, open(sys.argv[1], "w"))
	PY
	posted_cover &&
	$MK reply REPORT="$PWD/rep/r.json" COVER="$PWD/posted.mbox" REPLY_FILE="$PWD/reply.mbox" FROM="$FROM" 2>err &&
	grep -qx "Tested-by: $FROM" reply.mbox &&
	sed -n "/^  rep-movsb\/below-512\$/,/^  [a-z]/p" reply.mbox | grep -q "reproduced: *not measured here" &&
	# exactly one measured claim that did not hold: no Tested-by, that one named
	python3 - rep/r.json <<-\PY &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	c = [c for c in r["claims"] if c["id"] == "template/nd_pmem"][0]
	c["verdict"] = "not reproduced: opposite direction (edited for the test)"
	json.dump(r, open(sys.argv[1], "w"))
	PY
	$MK reply REPORT="$PWD/rep/r.json" COVER="$PWD/posted.mbox" REPLY_FILE="$PWD/reply.mbox" FROM="$FROM" 2>err &&
	! grep -q "^Tested-by:" reply.mbox &&
	tr "\n" " " <reply.mbox | grep -q "No Tested-by: 1 of the [0-9]* claims measured here did not reproduce in direction: template/nd_pmem[.]"
'

test_expect_success 'make reply: no report, a cover without a Message-Id, a table by CPU, a report of other commits: an error, the reply left as it was' '
	real_report && echo old >reply.mbox &&
	python3 - rep/r.json other.json <<-\PY &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	r["columns"] = r["columns"][1:]
	json.dump(r, open(sys.argv[2], "w"))
	PY
	# the series here: a repository of its own (this file runs beside
	# t0030, which applies the real one)
	fake_series repo && b=$(git -C repo rev-parse --short=12 HEAD~2) && h=$(git -C repo rev-parse --short=12 HEAD) &&
	expect_fail env KERNEL_TREE=$SCRATCH/repo REPORT=$PWD/other.json REPLY_FILE=$PWD/reply.mbox $REPLY &&
	grep_err "^reply: report: .*other.json is of [0-9a-f]{12}[.][.]$(tail -n 1 "$SET/commits.txt" | cut -c1-12), but the series here is $b[.][.]$h" &&
	expect_fail env REPORT=$PWD/none.json REPLY_FILE=$PWD/reply.mbox $REPLY &&
	grep_err "^reply: report: .*none.json is missing" &&
	grep -v "^Message-Id:" "$TOP/patches/0000-cover-letter.mbox" >cover.mbox &&
	expect_fail env REPORT=$PWD/rep/r.json COVER=$PWD/cover.mbox REPLY_FILE=$PWD/reply.mbox $REPLY &&
	grep_err "cover: .*cover.mbox has no Message-Id" &&
	sed "s/\"mode\":\"commits\"/\"mode\":\"by-cpu\"/" rep/r.json >bycpu.json &&
	grep -q by-cpu bycpu.json &&
	expect_fail env REPORT=$PWD/bycpu.json REPLY_FILE=$PWD/reply.mbox $REPLY &&
	grep_err "is a table by CPU" &&
	[ "$(cat reply.mbox)" = old ] && [ -z "$(ls -d .reply.mbox.* 2>/dev/null)" ]
'

test_expect_success 'make report RESULTS=<set>: a committed set'"'"'s report, and the reply from it says whose records; a set given as REPORT, a set'"'"'s report to make reproduce, or a directory of sets, refused with the way in' '
	$MK report RESULTS="$SET" REPORT_OUT="$PWD/setrep" >out 2>err || { cat out err; return 1; }
	cat err && [ -s setrep/report.json ] && [ -s setrep/report.md ] && cmp "$SET/commits.txt" setrep/commits.txt &&
	grep -q "report of $SET: $PWD/setrep/report.md" err && [ "$(cat setrep/set)" = "$SET" ] &&
	posted_cover &&
	$MK reply REPORT="$PWD/setrep" COVER="$PWD/posted.mbox" REPLY_FILE="$PWD/reply.mbox" FROM="$FROM" 2>err &&
	tr "\n" " " <reply.mbox | grep -q "from the committed records of $SET[.] They hold" &&
	expect_fail env REPORT="$PWD/setrep" REPRO_DIR="$PWD/repro" CI_OUT="$PWD/nothing" $REPRO series-icount/nd_pmem &&
	grep_err "report: $PWD/setrep/report.json is the report of the committed set $SET: a set keeps records, not the kernels .*run .make ci. .*then .make reproduce ID=series-icount/nd_pmem." &&
	[ ! -e repro ] && [ -z "$(ls -a | grep "^[.]repro")" ] &&
	echo old >reply.mbox &&
	expect_fail env REPORT="$SET" REPLY_FILE=$PWD/reply.mbox $REPLY &&
	grep_err "report: $SET is a result set, not a report: .make report RESULTS=$SET. makes its report" &&
	{ $MK report RESULTS="$(dirname "$SET")" REPORT_OUT="$PWD/setrep2" >out 2>err; rc=$?; cat err; [ $rc != 0 ]; } &&
	grep -q "holds no commits.txt but sets of its own: .*$SET" err &&
	{ $MK report RESULTS="$PWD/nowhere" REPORT_OUT="$PWD/setrep2" >out 2>err; rc=$?; cat err; [ $rc != 0 ]; } &&
	grep -q "RESULTS: .*nowhere. is not a directory" err &&
	[ ! -e setrep2 ] && [ "$(cat reply.mbox)" = old ]
'

test_expect_success 'make reproduce: an unknown claim, one nothing measures, a host one, runs not here, no ID: errors, nothing written' '
	real_report && export REPORT="$PWD/rep/r.json" REPRO_DIR="$PWD/repro" &&
	{ $REPRO no/such >out 2>err; rc=$?; cat err; [ $rc = 2 ]; } &&
	grep -q "claim: .no/such. is not a claim of .*; its claims are: series/nd_pmem, .*template/nd_pmem" err &&
	expect_fail $REPRO rep-movsb/below-512 &&
	grep_err "claim: rep-movsb/below-512: no record measures it" &&
	expect_fail $REPRO nontemporal/fastpaths-64 &&
	grep_err "a bench claim [(]host timings .*make bench COMMITS=" &&
	# a report of commits whose runs are not here (another ref, another machine)
	expect_fail env CI_OUT=$PWD/nothing $REPRO template/nd_pmem &&
	grep_err "reproduce: inputs: .*/nothing/$(sed -n "2s/\t.*//p" "$SET/commits.txt")/bench-vm/inputs is missing: make ci.s bench-vm step" &&
	{ $MK reproduce >out 2>err; rc=$?; cat err; [ $rc != 0 ]; } &&
	grep -q "usage: make reproduce ID=<claim id>" err &&
	[ ! -e repro ] && [ -z "$(ls -a | grep "^[.]repro")" ]
'

done_testing
