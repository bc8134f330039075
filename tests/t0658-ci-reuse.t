#!/bin/sh
# ci/run.sh: results keyed by content.  A changelog edit gives the commits
# from it on new ids and the same trees: the steps that declare what they
# are made of (ci/steps.sh step_<name>_content: checks, bench-vm, bench)
# are not run again for them, their results are the earlier commit's,
# every record rewritten for the new id with reused_from, every figure
# equal, and the report says so.  A check reads the mail, so the edited
# commit's checks run; a new tree runs everything; results that are no
# longer the key's are never reused; a reuse that fails says why and runs
# the step; a gate acknowledgement of a commit holds for its results
# reused under a new id, and for nothing else.  The keys themselves,
# input by input: each input changes its own line and nothing else does.
# Fake runs with the real content of ci/steps.sh, on a three-commit
# repository.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need tool:ci-report tool:record-write tool:record-reuse

short() {
	printf %.12s "$1"
}

setup() {
	fake_series repo &&
	C1=$(git -C repo rev-parse HEAD~2) && C2=$(git -C repo rev-parse HEAD~1) && C3=$(git -C repo rev-parse HEAD) &&
	cat >steps.sh <<-EOS
	. "$TOP/ci/steps.sh"
	BUILD_ID='$BUILD_ID'
	EOS
	cat >>steps.sh <<-\EOS
	for s in build checks bench-vm bench; do
		f=$(printf %s "$s" | tr - _)
		eval "step_${f}_inputs() { echo \"commit \$1 opt \${FAKE_OPT:-0}\"; echo \"path out/x/\$1/y\"; }"
		eval "step_${f}_run() { fake $s \"\$@\"; }"
	done
	# fake STEP COMMIT DIR: a record with samples of the commit's file, a
	# file in a subdirectory with its own records, and a plain file
	fake() {
		echo "$1 $2" >>"$SCRATCH/ran"
		v=$(git -C "$SCRATCH/repo" show "$2:f")
		# FAKE_BAD=<f>: the tree with that file regresses (150 ms)
		[ "$v" != "${FAKE_BAD:-}" ] || v=-50
		mkdir -p "$3/sub" && echo "made for $2" >"$3/note" &&
		"$BIN/record-write" --to "$3/records.jsonl" --suite "$1" --case x/rebind \
			--metric memmap_init_ms --unit ms --commit "$2" --accel tcg --clock icount --json "build=$(cat "$BUILD_ID")" \
			"$((100 - v))" "$((101 - v))" &&
		"$BIN/record-write" --to "$3/sub/more.jsonl" --suite "$1" --case sub \
			--metric n --unit count --commit "$2" --json "build=$(cat "$BUILD_ID")" 7
	}
	EOS
}

ci() {
	: >ran && { [ -e ack ] || : >ack; } &&
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh OUT=$SCRATCH/run-out CI_OUT=$SCRATCH/ci CLOCK=icount \
		GATE_ACK=$SCRATCH/ack sh "$TOP/ci/run.sh" >ci.out 2>ci.err
}

# ran_steps: "step:commit" of the fake runs, sorted; want "STEP COMMIT"...:
# the same of those
ran_steps() {
	sort ran | while read -r s c; do printf '%s:%s ' "$s" "$(short "$c")"; done
}
want() {
	printf '%s\n' "$@" | sort | while read -r s c; do printf '%s:%s ' "$s" "$(short "$c")"; done
}

# commit_as TREE-OF PARENT MSG: a commit of TREE-OF's tree on PARENT
commit_as() {
	git -C repo -c user.name=T -c user.email=t@example.org commit-tree "$1^{tree}" -p "$2" -m "$3"
}

# edited: a run of every step, then the changelog of commit 2 edited
# (N2, N3: the same trees as C2, C3) and a run again
edited() {
	setup && ci || { cat ci.err >&2; return 1; }
	[ "$(wc -l <ran)" = 12 ] &&
	N2=$(commit_as "$C2" "$C1" "x: commit 2, its changelog edited") &&
	N3=$(commit_as "$C3" "$N2" "x: commit 3") &&
	git -C repo update-ref "$REF_NS/series" "$N3" &&
	ci || { cat ci.err >&2; return 1; }
}

test_expect_success 'a changelog edit: the edited commit is checked again, nothing else runs but the builds (build.sh links a built tree)' '
	edited &&
	[ "$(ran_steps)" = "$(want "build $N2" "build $N3" "checks $N2")" ] ||
		{ echo "ran: $(ran_steps)"; return 1; }
	grep -q "plan: 8 of 12 steps to run" ci.err &&
	grep -q "bench-vm: the same content as $(short "$C2"): its results, reused" ci.err &&
	grep -q "bench-vm: reused from $(short "$C3")" ci.err &&
	grep -Eq "^$(short "$N3") +reused +reused +reused +reused|^$(short "$N3") +ok +reused +reused +reused" "$SCRATCH/ci/summary.txt" ||
		{ cat "$SCRATCH/ci/summary.txt"; return 1; }
'

test_expect_success 'the reused records are the new commit'"'"'s, with reused_from; every sample and file equal' '
	edited && for s in checks bench-vm bench; do
		for f in records.jsonl sub/more.jsonl; do
			new=ci/$N3/$s/$f old=ci/$C3/$s/$f &&
			[ "$(grep -c "\"commit\":\"$N3\"" "$new")" = 1 ] &&
			grep -q "\"reused_from\":\"$C3\"" "$new" &&
			[ "$(sed "s/$N3/X/; s/,\"reused_from\":\"$C3\"//" "$new")" = "$(sed "s/$C3/X/" "$old")" ] ||
				{ echo "$new"; cat "$new"; return 1; }
		done &&
		[ "$(cat "ci/$N3/$s/note")" = "made for $C3" ] &&
		[ "$(cat "ci/$N3/$s/reused-from")" = "$C3" ] || return 1
	done &&
	grep -q "\"commit\":\"$N2\"" "ci/$N2/checks/records.jsonl" &&
	! grep -q reused_from "ci/$N2/checks/records.jsonl"
'

test_expect_success 'the report says which results are reused, from which commit, in text, Markdown and JSON' '
	edited && grep -A3 "^Results reused (the same content under another commit id):" ci/report.txt >reused &&
	grep -q "$(short "$N3") x: commit 3: bench $(short "$C3"), bench-vm $(short "$C3"), checks $(short "$C3")" reused ||
		{ cat ci/report.txt; return 1; }
	grep -q "$(short "$N2") x: commit 2, its changelog edited: bench $(short "$C2"), bench-vm $(short "$C2")$" reused &&
	[ "$(grep -c . reused)" = 3 ] &&
	grep -q "| $(short "$N2") | x: commit 2, its changelog edited | .* | bench $(short "$C2"), bench-vm $(short "$C2") |" ci/report.md &&
	grep -q "| $(short "$C1") | x: commit 1 | .* | - |" ci/report.md &&
	grep -q "\"reused\":\"bench $(short "$C3"), bench-vm $(short "$C3"), checks $(short "$C3")\"" ci/report.json
'

test_expect_success 'a second edit reuses the commit first measured; a rerun does nothing' '
	edited && M3=$(commit_as "$C3" "$N2" "x: commit 3, edited once more") &&
	git -C repo update-ref "$REF_NS/series" "$M3" && ci || { cat ci.err >&2; return 1; }
	[ "$(ran_steps)" = "$(want "build $M3" "checks $M3")" ] || { echo "ran: $(ran_steps)"; return 1; }
	grep -q "\"reused_from\":\"$C3\"" "ci/$M3/bench-vm/records.jsonl" &&
	ci && [ ! -s ran ] && grep -q "plan: 0 of 12 steps to run" ci.err
'

# content STEP COMMIT: step_<STEP>_content of COMMIT in ./repo, as
# ci/run.sh calls it (lib.sh and ci/steps.sh sourced; $0 names a file in
# ci/ so that lib.sh finds the toolkit)
content() {
	KERNEL_TREE=$SCRATCH/repo sh -c ". \"$TOP/scripts/lib.sh\" && . \"$TOP/ci/steps.sh\" && step_\$1_content \"\$2\"" \
		"$TOP/ci/content" "$1" "$2"
}

# differs_in KEY A B: the contents A and B differ in the line of KEY alone
differs_in() {
	[ "$(diff "$2" "$3" | grep "^[<>]" | cut -c3- | cut -d" " -f1 | sort -u)" = "$1" ] ||
		{ echo "not $1 alone:"; diff "$2" "$3"; return 1; }
}

test_expect_success 'the checks key, input by input: each changes its line alone; a new commit id of the same inputs none' '
	setup && content checks "$C2" >k2 && grep -c . k2 | grep -qx 4 &&
	grep -qx "parent-tree $(git -C repo rev-parse "$C1^{tree}")" k2 && grep -qx "head no" k2 &&
	same=$(GIT_COMMITTER_NAME=Other commit_as "$C2" "$C1" "x: commit 2") && [ "$same" != "$C2" ] &&
	content checks "$same" >k && cmp k2 k &&
	c=$(commit_as "$C3" "$C1" "x: commit 2") && content checks "$c" >k && differs_in tree k2 k &&
	c=$(commit_as "$C2" "$C2" "x: commit 2") && content checks "$c" >k && differs_in parent-tree k2 k &&
	c=$(commit_as "$C2" "$C1" "x: commit 2, its changelog edited") && content checks "$c" >k && differs_in mail k2 k &&
	c=$(GIT_AUTHOR_NAME=Else commit_as "$C2" "$C1" "x: commit 2") && content checks "$c" >k && differs_in mail k2 k &&
	c=$(GIT_AUTHOR_EMAIL=else@example.org commit_as "$C2" "$C1" "x: commit 2") && content checks "$c" >k &&
	differs_in mail k2 k &&
	git -C repo update-ref "$REF_NS/series" "$same" && content checks "$same" >k && differs_in head k2 k &&
	for s in bench_vm bench; do
		content $s "$C2" >b2 && content $s "$same" >b && cmp b2 b &&
		content $s "$C3" >b && differs_in tree b2 b || return 1
	done
'

test_expect_success 'what the key is made of: a new tree, or other inputs, run the step; the edited mail runs checks alone' '
	edited && echo 9 >repo/f && git -C repo add f && git -C repo -c user.name=T -c user.email=t@example.org commit -q -m "x: commit 3" &&
	T3=$(git -C repo rev-parse HEAD) && git -C repo reset -q --hard "$C3" &&
	T3=$(git -C repo -c user.name=T -c user.email=t@example.org commit-tree "$T3^{tree}" -p "$N2" -m "x: commit 3") &&
	git -C repo update-ref "$REF_NS/series" "$T3" && ci || { cat ci.err >&2; return 1; }
	[ "$(ran_steps)" = "$(want "bench-vm $T3" "bench $T3" "build $T3" "checks $T3")" ] ||
		{ echo "ran: $(ran_steps)"; return 1; }
	grep -q "\"samples\":\[91.0,92.0\]" "ci/$T3/bench-vm/records.jsonl" &&
	git -C repo update-ref "$REF_NS/series" "$N3" && FAKE_OPT=1 ci &&
	[ "$(wc -l <ran)" = 12 ]
'

test_expect_success 'results that are no longer the key'"'"'s are not reused; a reuse that fails says why and runs the step' '
	edited && rm -rf "ci/$C3" "ci/$N3" &&
	M3=$(commit_as "$C3" "$N2" "x: commit 3, again") &&
	git -C repo update-ref "$REF_NS/series" "$M3" && ci || { cat ci.err >&2; return 1; }
	[ "$(ran_steps)" = "$(want "bench $M3" "bench-vm $M3" "build $M3" "checks $M3")" ] ||
		{ echo "ran: $(ran_steps)"; return 1; }
	! grep -q "reused_from" "ci/$M3/bench-vm/records.jsonl" &&
	sed -i "s/\"commit\":\"$M3\"/\"commit\":\"$C2\"/" "ci/$M3/bench/records.jsonl" &&
	M4=$(commit_as "$C3" "$N2" "x: commit 3, a third time") &&
	git -C repo update-ref "$REF_NS/series" "$M4" && ci || { cat ci.err >&2; return 1; }
	[ "$(ran_steps)" = "$(want "bench $M4" "build $M4" "checks $M4")" ] || { echo "ran: $(ran_steps)"; return 1; }
	grep -q "a record of commit $C2, not of --from $M3" ci.err &&
	grep -q "reuse of $M3.s results failed (above): running the step" ci.err &&
	! grep -q reused_from "ci/$M4/bench/records.jsonl" &&
	grep -q "\"reused_from\":\"$M3\"" "ci/$M4/bench-vm/records.jsonl"
'
test_expect_success 'an acknowledged regression stays accepted when its results are reused under a new id; not for a new run' '
	setup && echo "$C3 bench-vm/x/rebind/memmap_init_ms 60 fake: commit 3 is slower on purpose" >ack &&
	FAKE_BAD=3 ci || { cat ci.err >&2; return 1; }
	grep -q "accepted" ci/report.txt &&
	N2=$(commit_as "$C2" "$C1" "x: commit 2, its changelog edited") && N3=$(commit_as "$C3" "$N2" "x: commit 3") &&
	git -C repo update-ref "$REF_NS/series" "$N3" &&
	FAKE_BAD=3 ci || { cat ci.err >&2; return 1; }
	grep -q "\"reused_from\":\"$C3\"" "ci/$N3/bench-vm/records.jsonl" &&
	grep -q "ack:1.*fake: commit 3 is slower on purpose" ci/report.txt ||
		{ grep -A20 "^Regression gate" ci/report.txt; return 1; }
	grep -q "REGRESSION, accepted (.*ack:1)" ci/report.txt && ! grep -q "REGRESSION\$" ci/report.txt &&
	FAKE_OPT=1 FAKE_BAD=3 expect_fail ci &&
	grep -q "gate-ack: .*ack:1: .$C3. is not a commit of the series" ci.err
'
done_testing
