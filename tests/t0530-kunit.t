#!/bin/sh
# checks/kunit.sh: the tree's memcpy KUnit suite, run by the tree's own
# kunit.py in QEMU, on the series head under one CPU variant: every case
# passes and is a record; a variant whose feature QEMU's TCG drops (fsrm)
# is a 'skipped' record with QEMU's words, never a run of another CPU; a
# commit that adds a failing case makes kunit.sh exit 1 and name it.
# (Full runs, both suites and all variants on base and head: make checks.)
# test-quick: no: builds and runs a KUnit kernel
# test-lane: checks: the checks worktree, its objects and KUnit kernels; no build.sh, no guest
. "$(dirname "$0")/lib.sh"
KUNIT="sh $TOP/checks/kunit.sh"
need worktree
need series
HEAD=$SERIES_HEAD
[ -e "$OUT/checks/tree/.git" ] || bail "no checks worktree $OUT/checks/tree: t0520 makes it"
KUNIT_SUITES=memcpy
export KUNIT_SUITES

test_expect_success 'the head: memcpy under -cpu max, each case a passing record; fsrm skipped with QEMU'"'"'s words' '
	KUNIT_VARIANTS="erms fsrm" $KUNIT "$HEAD" 2>err; rc=$?; cat err; [ $rc = 0 ] &&
	r=$OUT/checks/kunit/$HEAD/records.jsonl && cat "$r" &&
	python3 - "$r" <<-PY
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	cases = [r for r in recs if r["case"].startswith("kunit/memcpy/")]
	assert len(cases) == 6, cases
	assert all(r["samples"] == [1.0] and r["cpu_variant"] == "erms" and r["status"] == "PASS" for r in cases), cases
	assert {r["case"].split("/")[-1] for r in cases} >= {"memcpy_test", "memset_test", "memmove_test"}
	sk = [r for r in recs if r["case"] == "kunit/variant/fsrm"]
	assert len(sk) == 1 and "support requested feature: CPUID" in sk[0]["reason"], sk
	assert not [r for r in recs if r.get("cpu_variant") == "fsrm" and r["case"] != "kunit/variant/fsrm"]
	PY
'

# holder.sh: a run that holds the checks worktree (lib.sh:
# checks_tree_lock), as make checks does, until ./go; sh -c names it
# in checks/ as $0, where lib.sh finds the toolkit
test_expect_success 'a run while another holds the checks worktree: refused at once, naming it; the tree is not touched' '
	cat >holder.sh <<-\EOS &&
	. "$(dirname "$0")/../scripts/lib.sh"
	checks_tree_lock "$2" "a test holder"
	echo $$ >"$3/held.tmp" && mv "$3/held.tmp" "$3/held"
	while [ ! -e "$3/go" ]; do sleep 0.1; done
	EOS
	ct=$OUT/checks/tree && at=$(git -C "$ct" rev-parse HEAD) &&
	{ sh -c ". \"\$1\"" "$TOP/checks/holder" "$SCRATCH/holder.sh" "$ct" "$SCRATCH" & } && holder=$! &&
	wait_file held && pid=$(cat held) &&
	{ rc=0; KUNIT_VARIANTS=erms $KUNIT "$HEAD" >out 2>err || rc=$?; }; touch go; wait $holder; cat err;
	[ $rc = 1 ] &&
	grep -q "kunit: lock: another run is checking out commits in $ct: a test holder, pid $pid: wait for it to end" err &&
	[ "$(git -C "$ct" rev-parse HEAD)" = "$at" ]
'

test_expect_success 'an unknown variant is a usage error' '
	{ KUNIT_VARIANTS=nosuch $KUNIT "$HEAD" 2>err; rc=$?; } ; cat err; [ $rc = 2 ] &&
	grep -q "KUNIT_VARIANTS: .nosuch. is not a variant of KUNIT_CPUS (erms fsrm noerms fsrm-noerms" err
'

# a commit on the head that adds a failing case to lib/memcpy_kunit.c
test_expect_success 'a commit that adds a failing KUnit case: exit 1, the case named' '
	git -C "$WORKTREE" show "$HEAD:lib/memcpy_kunit.c" |
		sed "/^static struct kunit_case memcpy_test_cases\[\] = {\$/i static void xcs_fails_test(struct kunit *test)\n{\n\tKUNIT_EXPECT_EQ(test, 1, 2);\n}\n" |
		sed "s/^\tKUNIT_CASE(memset_test),\$/&\n\tKUNIT_CASE(xcs_fails_test),/" >blob &&
	grep -q "KUNIT_CASE(xcs_fails_test)" blob &&
	b=$(git -C "$WORKTREE" hash-object -w --stdin <blob) &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" read-tree "$HEAD" &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" update-index --cacheinfo "100644,$b,lib/memcpy_kunit.c" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" write-tree) &&
	bad=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$t" -p "$HEAD" -m "lib: a failing memcpy case") &&
	KUNIT_VARIANTS=erms expect_fail $KUNIT "$bad" &&
	grep_err "KUnit failures new against the base:" && grep_err "kunit/memcpy/xcs_fails_test cpu_variant=erms" &&
	grep_err "verdict: 1 KUnit problem" &&
	grep -q "\"case\":\"kunit/memcpy/xcs_fails_test\".*\"samples\":\[0" "$OUT/checks/kunit/$bad/records.jsonl"
'
done_testing
