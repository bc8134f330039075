#!/bin/sh
# No write follows a link.  A file of a fixed name that a script or a
# tool writes (a table of OUT, a stamp, a tool's --to) may be a symlink
# someone put there, to a file outside OUT: the file is written whole
# into a new file beside it and renamed over the link (lib.sh:
# write_file, lib/outfile.h), or, where it is added to (records), the
# link is refused by name; the file the link named (a canary, outside
# the results) stays as it was.  patches/ holds no link: every tool of
# it refuses one, by name, before it reads or changes anything.
# test-parallel: its scratch directories only: a fake kernel repository, no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:ci-report tool:ci-merge tool:record-write tool:record-reuse tool:kunit-records tool:series-check tool:trailers-collect tool:claims-lint
# the fake series here hold none of the commits ci/gate-ack.txt names
GATE_ACK=/dev/null
export GATE_ACK

# plant NAME...: NAME becomes a link to outside/NAME's canary (a file
# outside every result, "canary NAME"); canaries_intact: each is so still
plant() {
	for pl_n; do
		pl_c=$SCRATCH/outside/$(printf '%s' "$pl_n" | tr / _)
		mkdir -p "$SCRATCH/outside" "$(dirname "$pl_n")" &&
			printf 'canary %s\n' "$pl_n" >"$pl_c" && ln -sfn "$pl_c" "$pl_n" || return 1
	done
}
canaries_intact() {
	for ci_c in "$SCRATCH"/outside/*; do
		[ "$(cat "$ci_c")" = "canary $(sed -n 's/^canary //p' "$ci_c")" ] &&
			[ "$(wc -l <"$ci_c")" = 1 ] || { echo "canary $ci_c changed:"; cat "$ci_c"; return 1; }
	done
}
# plain FILE...: a regular file, not a link
plain() {
	for pl_f; do
		[ -f "$pl_f" ] && [ ! -L "$pl_f" ] || { echo "$pl_f: not a regular file"; ls -l "$pl_f"; return 1; }
	done
}
# the scripts' shared state kept out of reach: their own OUT, worktree and
# kernel repository
isolate() {
	OUT=$SCRATCH/o WORKTREE=$SCRATCH/no-worktree KERNEL_TREE=$SCRATCH/repo
	export OUT WORKTREE KERNEL_TREE
}

test_expect_success 'write_file: a link at the name is replaced, never written through; a failure changes nothing and leaves no temporary file' '
	plant f1 d/f2 f3 && mkdir real && ln -s real f4 && echo old >f5 &&
	sh -c ". \"$TOP/scripts/lib.sh\"
		printf \"one\\n\" | write_file f1 &&
		write_file d/f2 printf \"two\\n\" &&
		write_file -e -k f4 sh -c \"echo out; echo err >&2\" &&
		{ write_file f5 sh -c \"echo new; exit 3\"; [ \$? = 3 ]; } &&
		{ write_file f3 false; [ \$? = 1 ]; } &&
		write_file /dev/null echo into-the-device && no_link f1 && no_link f3" "$TOP/scripts/t0086" 2>err;
	rc=$?; cat err && [ $rc = 1 ] && grep -q "write: f3 is a symbolic link (to .*outside/f3): not written through" err &&
	canaries_intact && plain f1 d/f2 f4 f5 && [ "$(cat f1)" = one ] && [ "$(cat d/f2)" = two ] &&
	[ "$(cat f4)" = "$(printf "out\nerr")" ] && [ -z "$(ls real)" ] && [ "$(cat f5)" = old ] && [ -L f3 ] &&
	[ -z "$(ls -d .f* d/.[!.]* 2>/dev/null)" ] && [ -c /dev/null ]
'

# write_file's temporary name is .NAME.PID.N (lib.sh: wf_tmp, no mktemp):
# a link or a FIFO already there (a dead run's, a planted one) is passed
# over for mktemp's random name, never opened
test_expect_success 'write_file: a link or a FIFO at its temporary name is not opened; mktemp'"'"'s name then' '
	mkdir t && cd t && mkdir ../elsewhere &&
	timeout 20 sh -c ". \"$TOP/scripts/lib.sh\"
		ln -s /dev/null .g.\$\$.1 && mkfifo .h.\$\$.2 && ln -s \"$SCRATCH/elsewhere/x\" .i.\$\$.3 &&
		write_file g echo one && write_file h echo two && write_file i echo three" "$TOP/scripts/t0086" 2>err;
	rc=$?; cd .. && cat t/err && [ $rc = 0 ] &&
	[ "$(cat t/g)" = one ] && [ "$(cat t/h)" = two ] && [ "$(cat t/i)" = three ] &&
	[ -z "$(ls elsewhere)" ] && [ -c /dev/null ] &&
	[ "$(find t -name ".[ghi].*" -type l | wc -l)" = 2 ] && [ "$(find t -name ".h.*" -type p | wc -l)" = 1 ] &&
	[ "$(find t -name ".[ghi].*" -type f | wc -l)" = 0 ]
'

# the fake step of t0650: records of the commit, FAIL_AT=<commit> fails it
steps() {
	fake_series repo &&
	cat >steps.sh <<-\EOS
	CI_ALL_STEPS="fake"
	step_fake_inputs() { echo "commit $1 opt ${FAKE_OPT:-0}"; }
	step_fake_run() {
		[ "$1" != "${FAIL_AT:-}" ] || { echo "fake: fails" >&2; return 1; }
		"$BIN/record-write" --to "$2/records.jsonl" --suite bench-vm --json "build=$(cat "$TOP/tests/fixtures/build-id.json")" --case nd_pmem/rebind \
			--metric memmap_init_ms --unit ms --commit "$1" --accel tcg 10 11 12
	}
	EOS
}
ci() {
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci \
		sh "$TOP/ci/run.sh" >ci.out 2>ci.err
}

test_expect_success 'ci/run.sh: links at commits.txt, series.txt, summary.txt, times-last.txt, times.txt, their .tmp and a stamp'"'"'s: written beside, canaries as they were' '
	steps && c1=$(git -C repo rev-parse HEAD~2) && c2=$(git -C repo rev-parse HEAD~1) &&
	plant ci/commits.txt ci/series.txt ci/summary.txt ci/summary.txt.tmp ci/times-last.txt \
		ci/times-last.txt.tmp ci/times.txt ci/times.txt.tmp ci/$c1/fake.stamp ci/$c1/fake.stamp.tmp &&
	ci; rc=$?; cat ci.err && [ $rc = 0 ] && canaries_intact &&
	plain ci/commits.txt ci/series.txt ci/summary.txt ci/times-last.txt ci/times.txt ci/$c1/fake.stamp &&
	[ "$(cut -f1 ci/commits.txt | tr "\n" " ")" = "$(git -C repo rev-list --reverse HEAD | tr "\n" " ")" ] &&
	[ "$(wc -l <ci/series.txt)" = 3 ] && grep -q "^commit  *fake" ci/summary.txt &&
	grep -q "^Where the time went" ci/times-last.txt && cmp ci/times-last.txt ci/times.txt &&
	grep -q "^$(printf %.12s $c2) *ok" ci/summary.txt &&
	# a failed rerun keeps the last good results, marked superseded
	plant ci/$c2/.fake.superseded && { FAKE_OPT=1 FAIL_AT=$c2 ci; [ $? = 1 ]; } && cat ci.err &&
	canaries_intact && plain ci/$c2/.fake.superseded && [ ! -s ci/$c2/.fake.superseded ]
'

test_expect_success 'report/merge.sh: links at merge/commits.txt and at inputs-commits: written beside, canaries as they were' '
	fake_series repo && B=$(git -C repo rev-parse HEAD~2) && H=$(git -C repo rev-parse HEAD) &&
	mkdir -p a/x &&
	sh "$TOP/tests/fixtures/ci/rec.sh" bench memcpy-sweep/v/64 ns_per_call ns $B host "AMD EPYC 7763" h "{}" \
		10 11 12 >a/x/records.jsonl &&
	sh "$TOP/tests/fixtures/ci/rec.sh" bench memcpy-sweep/v/64 ns_per_call ns $H host "AMD EPYC 7763" h "{}" \
		9 10 11 >>a/x/records.jsonl &&
	plant m/commits.txt &&
	KERNEL_TREE=$SCRATCH/repo MERGE_OUT=$SCRATCH/m sh "$TOP/report/merge.sh" a >out 2>err; rc=$?;
	cat err && [ $rc = 0 ] && canaries_intact && plain m/commits.txt m/merge.md &&
	[ "$(wc -l <m/commits.txt)" = 3 ] && grep -q "^$H	x: commit 3$" m/commits.txt &&
	# no series in the checkout: the commits.txt of the results, found
	git init -q norefs && cp m/commits.txt a/x/commits.txt && plant m2/inputs-commits &&
	KERNEL_TREE=$SCRATCH/norefs MERGE_OUT=$SCRATCH/m2 sh "$TOP/report/merge.sh" a >out 2>err; rc=$?;
	cat err && [ $rc = 0 ] && canaries_intact && plain m2/merge.md
'

test_expect_success 'record-reuse --to a link: the records replace the link, the file it named as it was' '
	O=1111111111111111111111111111111111111111 N=2222222222222222222222222222222222222222 &&
	sh "$TOP/tests/fixtures/ci/rec.sh" b c m ns $O host cpu h "{}" 1 2 >in.jsonl && plant out.jsonl &&
	"$BIN/record-reuse" --from $O --commit $N --to out.jsonl in.jsonl && canaries_intact &&
	plain out.jsonl && grep -q "\"commit\":\"$N\"" out.jsonl && [ -z "$(ls -d .out.jsonl.* 2>/dev/null)" ]
'

test_expect_success 'record-write and kunit-records add to --to and --failures: a link there is refused, by name' '
	plant r.jsonl k.jsonl f.txt && echo "{}" >kunit.json &&
	expect_fail "$BIN/record-write" --suite s --case c --metric m --unit ns --to r.jsonl 1 &&
	grep_err "^record-write: write: r.jsonl: a symbolic link: not written through \(remove it\)$" &&
	expect_fail "$BIN/kunit-records" --commit c --cpu-variant v --qemu-cpu max --to k.jsonl kunit.json &&
	grep_err "^kunit-records: write: k.jsonl: a symbolic link: not written through" &&
	expect_fail "$BIN/kunit-records" --commit c --cpu-variant v --qemu-cpu max --to ok.jsonl \
		--failures f.txt kunit.json &&
	grep_err "^kunit-records: write: f.txt: a symbolic link: not written through" &&
	canaries_intact && [ -L r.jsonl ] && [ -L k.jsonl ]
'

# linked_patches: p, a copy of patches/ whose third mail is a link to a
# copy outside it (a link a pulled commit could carry)
linked_patches() {
	cp -r "$TOP/patches" p && f=$(basename p/0003-*) && mkdir -p outside &&
	mv "p/$f" outside/ && ln -s "$SCRATCH/outside/$f" "p/$f" && cp "outside/$f" before
}
# refused: the last expect_fail named the link of p, "is a symbolic link"
refused() {
	grep_err "patches: .*p/$f. is a symbolic link" && cmp before "outside/$f" && [ -L "p/$f" ]
}

test_expect_success 'a link in patches/: series-check, trailers-collect, claims-lint and ci-report refuse it by name' '
	linked_patches && printf "From r Mon Sep 17 00:00:00 2001\nSubject: Re: x\n\nAcked-by: A <a@example.org>\n" >r.mbox &&
	expect_fail "$BIN/series-check" p/series && refused &&
	expect_fail "$BIN/trailers-collect" p/series r.mbox && refused &&
	expect_fail "$BIN/claims-lint" --series p/series && refused &&
	B=1111111111111111111111111111111111111111 && printf "%s\tbase\n" $B >commits.txt &&
	sh "$TOP/tests/fixtures/ci/rec.sh" bench-vm nd_pmem/rebind memmap_init_ms ms $B tcg cpu h "{}" \
		10 11 12 >r.jsonl &&
	expect_fail "$BIN/ci-report" --commits commits.txt --series p/series --text rep.txt r.jsonl && refused &&
	[ ! -e rep.txt ]
'

test_expect_success 'a link in patches/: apply, export, trailers, send and repin refuse it by name, nothing changed' '
	linked_patches && fake_series repo && isolate && git -C repo for-each-ref >refs &&
	printf "From r Mon Sep 17 00:00:00 2001\nSubject: Re: x\n\nAcked-by: A <a@example.org>\n" >r.mbox &&
	PATCHES=$SCRATCH/p expect_fail sh "$TOP/series/apply.sh" && refused &&
	PATCHES=$SCRATCH/p expect_fail sh "$TOP/series/export.sh" && refused &&
	PATCHES=$SCRATCH/p REPLIES=$SCRATCH/r.mbox NO_APPLY=1 expect_fail sh "$TOP/series/trailers.sh" && refused &&
	PATCHES=$SCRATCH/p expect_fail sh "$TOP/series/send.sh" && refused &&
	PATCHES=$SCRATCH/p TO=HEAD expect_fail sh "$TOP/series/repin.sh" && refused &&
	[ ! -e o ] && git -C repo for-each-ref | cmp - refs
'

test_expect_success 'export: a link in PATCHES_OUT is refused by name, the file it names as it was' '
	fake_series repo && isolate && cp -r "$TOP/patches" p && mkdir d && plant d/0001-x.mbox &&
	PATCHES=$SCRATCH/p PATCHES_OUT=$SCRATCH/d expect_fail sh "$TOP/series/export.sh" &&
	grep_err "patches: .*d/0001-x.mbox. is a symbolic link" && canaries_intact && [ -L d/0001-x.mbox ]
'

test_expect_success 'range-diff: a link committed in the previous patches/ is refused by name, before anything' '
	git init -q tk && cp -r "$TOP/scripts" "$TOP/series" tk/ && mkdir tk/patches &&
	cp "$TOP/patches/series" "$TOP/patches/0000-cover-letter.mbox" tk/patches/ &&
	ln -s ../../outside-file tk/patches/0001-x.mbox && git -C tk add -A &&
	git -C tk -c user.name=T -c user.email=t@example.org commit -q -m "patches with a link" &&
	fake_series repo && isolate && git -C repo for-each-ref >refs &&
	PREV=HEAD expect_fail sh tk/series/range-diff.sh &&
	grep_err "prev: patches: .patches/0001-x.mbox. of HEAD \([0-9a-f]{12}\) is a symbolic link" &&
	[ ! -e o ] && git -C repo for-each-ref | cmp - refs
'
done_testing
