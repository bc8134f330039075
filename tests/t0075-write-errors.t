#!/bin/sh
# Every C tool of tools/ and checks/ checks its writes (record-write, the
# record CLI, and record-reuse too): a
# full disk (/dev/full for stdout, 'ulimit -f' for a file) is an error that
# names what could not be written, exit 1, never a short file and exit 0.
# record-write writes no record that no reader would take: an empty name,
# a --json value or a sample that is not all of its text; and the reader
# refuses such a record written by another hand.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:series-check tool:trailers-collect tool:changelog-lint tool:record-write tool:record-reuse

# full CMD...: CMD with stdout on /dev/full must exit 1 and say so
full() {
	rc=0; "$@" >/dev/full 2>err || rc=$?; cat err
	[ $rc = 1 ] && grep -q "^[a-z-]*: write: stdout: No space left on device$" err
}

test_expect_success 'series-check: stdout on a full disk' '
	full "$BIN/series-check" "$TOP/patches/series"
'

test_expect_success 'trailers-collect: stdout on a full disk' '
	id=$(sed -n "s/^Message-Id: //p" "$TOP/patches/0000-cover-letter.mbox") &&
	printf "From r Mon Sep 17 00:00:00 2001\nFrom: R <r@example.org>\nIn-Reply-To: %s\nSubject: Re: all\n\nAcked-by: R <r@example.org>\n" "$id" >r.mbox &&
	full "$BIN/trailers-collect" "$TOP/patches/series" r.mbox
'

test_expect_success 'changelog-lint: its findings on a full disk' '
	"$BIN/changelog-lint" "$TOP"/patches/upstream/*.mbox >/dev/null 2>&1; [ $? = 1 ] &&
	full "$BIN/changelog-lint" "$TOP"/patches/upstream/*.mbox
'

test_expect_success 'record-write: stdout on a full disk, and a file over its limit' '
	full "$BIN/record-write" --suite build --case c --metric m --unit s 1 2 &&
	(trap "" XFSZ; ulimit -f 1; rc=0;
	 for i in $(seq 40); do
		"$BIN/record-write" --to out.jsonl --suite checks --case sparse/a.c --metric finding \
			--unit count --field message=x 1 2>err || { rc=$?; break; }
	 done;
	 cat err; [ $rc = 1 ] && grep -q "^record-write: write: out.jsonl: File too large$" err)
'

test_expect_success 'reading an mbox: a TMPDIR that is full is named, nothing left in it' '
	mkdir tmp && id=$(sed -n "s/^Message-Id: //p" "$TOP/patches/0000-cover-letter.mbox") &&
	{ printf "From r Mon Sep 17 00:00:00 2001\nFrom: R <r@example.org>\nIn-Reply-To: %s\nSubject: Re: all\n\n" "$id";
	  for i in $(seq 100); do echo "a line of text to make the reply longer than the limit"; done; } >r.mbox &&
	(trap "" XFSZ; ulimit -f 4; rc=0; TMPDIR=$SCRATCH/tmp "$BIN/trailers-collect" "$TOP/patches/series" r.mbox >out 2>err || rc=$?;
	 cat err; [ $rc = 1 ] &&
	 grep -Eq "mbox:0: git mailsplit (wrote [0-9]+ of its [0-9]+ bytes into .$SCRATCH/tmp/.*.: is the disk full\?|into .$SCRATCH/tmp/.*. failed: fatal: cannot write output: File too large)" err) &&
	[ -z "$(ls tmp)" ]
'

# rw ARGS...: record-write ARGS is a usage error (exit 2) and writes nothing
rw() {
	rc=0; "$BIN/record-write" --to rw.jsonl "$@" 2>err || rc=$?; cat err
	[ $rc = 2 ] && [ ! -s rw.jsonl ] && grep -q "^record-write: usage: " err
}

test_expect_success 'record-write: empty names, a value or a sample with more text: usage errors' '
	set -- --suite s --case c --metric m --unit ms &&
	rw --suite "" --case c --metric m --unit ms 1 && grep -q -- "--suite .*: empty" err &&
	rw --suite s --case "" --metric m --unit ms 1 &&
	rw --suite s --case c --metric "" --unit ms 1 && grep -q -- "--metric .*: empty" err &&
	rw --suite s --case c --metric m --unit "" 1 &&
	rw "$@" --commit "" 1 && rw "$@" --accel "" 1 && rw "$@" --kernel "" 1 &&
	rw "$@" --json "k=1 2" 1 && grep -q "not one JSON value, all of the text: .1 2." err &&
	rw "$@" --json "k={\"a\": 1} x" 1 && rw "$@" --json "k=" 1 &&
	for x in 0x10 1x "1 2" inf nan ""; do rw "$@" "$x" || return 1; done &&
	grep -q "a sample is a finite number .*, not ..$" err &&
	# a name among the params that every reader refuses empty: not written
	for p in qemu_cpu cpu_model variant state; do
		{ rc=0; "$BIN/record-write" --to p.jsonl "$@" --json "params={\"$p\": \"\"}" 1 2>err || rc=$?; } &&
		cat err && [ $rc = 1 ] && [ ! -s p.jsonl ] && grep -q "empty" err || return 1
	done &&
	"$BIN/record-write" "$@" --json "k=1" --json "j={\"a\": [1, 2.5]}" --json "z=null" 1e3 2.5 >ok.jsonl &&
	grep -q "\"samples\":\[1000.0,2.5\]" ok.jsonl && grep -q "\"k\":1,\"j\":{\"a\":\[1,2.5\]},\"z\":null" ok.jsonl
'

test_expect_success 'the reader refuses empty names and empty string fields, naming file and line' '
	"$BIN/record-write" --suite bench-vm --case nd_pmem/rebind --metric memmap_init_ms --unit ms \
		--commit 2222222222222222222222222222222222222222 --accel tcg \
		--json "params={\"qemu_cpu\": \"max\"}" --json "build=$(cat "$BUILD_ID")" 1 2 >good.jsonl &&
	rc=0 && "$BIN/record-write" --suite bench-vm --case c --metric m --unit ms 1 >nobuild.jsonl 2>err || rc=$? &&
	cat err && [ $rc = 1 ] && [ ! -s nobuild.jsonl ] && grep -q "names no build" err &&
	"$BIN/ci-report" good.jsonl >/dev/null &&
	for f in suite case metric unit commit accel clock; do
		sed "s/\"$f\":\"[^\"]*\"/\"$f\":\"\"/" good.jsonl >bad.jsonl &&
		grep -q "\"$f\":\"\"" bad.jsonl &&
		expect_fail "$BIN/ci-report" bad.jsonl &&
		grep_err "^ci-report: records: bad.jsonl:1: field .$f. is empty" || return 1
	done &&
	sed "s/\"qemu_cpu\":\"max\"/\"qemu_cpu\":\"\"/" good.jsonl >bad.jsonl &&
	expect_fail "$BIN/ci-report" bad.jsonl && grep_err "bad.jsonl:1: field .params.qemu_cpu. is empty"
'

test_expect_success 'record-reuse: a file over its limit is an error naming it, and no part of it is left' '
	a=$(printf "a%.0s" $(seq 40)) && c=$(printf "c%.0s" $(seq 40)) &&
	for i in $(seq 40); do
		"$BIN/record-write" --to in.jsonl --suite bench-vm --case nd_pmem/rebind --metric m \
			--unit ms --commit "$a" --json "build=$(cat "$BUILD_ID")" 1 2 3 || return 1
	done &&
	"$BIN/record-reuse" --from "$a" --commit "$c" --to whole.jsonl in.jsonl &&
	[ "$(grep -c "\"commit\":\"$c\"" whole.jsonl)" = 40 ] &&
	(trap "" XFSZ; ulimit -f 1; rc=0;
	 "$BIN/record-reuse" --from "$a" --commit "$c" --to out.jsonl in.jsonl 2>err || rc=$?
	 cat err; [ $rc = 1 ] && grep -q "^record-reuse: write: out.jsonl: File too large$" err) &&
	[ ! -e out.jsonl ]
'
done_testing
