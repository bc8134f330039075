#!/bin/sh
# checks/checks.sh on a deliberately bad commit, make checks (its view of
# the pipeline) on the real series.  The bad commit, on the series head, adds a sparse
# address-space warning and removes the fence after the template copies
# in mm/mm_init.c, and touches arch/x86/lib/memcpy_64.S with a changelog
# that has no Signed-off-by and no numbers: each is a new error-level
# finding and the commit fails.  The real series passes every check.
# To stay within minutes, the kernel's ~70 coccinelle rules
# (COCCI_SET=ours), clang and KUnit are left to `make checks`; sparse
# runs on the bad commit and on patch 6 (the streaming copies).
# test-quick: no: builds kernel objects (sparse, clang)
# test-lane: checks: the checks worktree, its objects and KUnit kernels; no build.sh, no guest
. "$(dirname "$0")/lib.sh"
CHECKS="sh $TOP/checks/checks.sh"
need worktree
need series
HEAD=$SERIES_HEAD
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")
need tool:changelog-lint tool:record-write
need cmd:sparse cmd:spatch
KUNIT=0 COCCI_SET=ours
export KUNIT COCCI_SET

# new_error CHECK MESSAGE RECORDS: a record of a finding of CHECK that the
# commit adds, error-level, its message starting with MESSAGE
new_error() {
	grep -q "\"check\":\"$1\",\"severity\":\"error\",\"new\":true,\"message\":\"$2" "$3" ||
		{ echo "no new error finding of $1: $2"; return 1; }
}

# commit_edit PARENT MSG FILE SED [FILE SED]...: a commit on PARENT whose
# FILEs are edited by SEDs, made without touching any ref or worktree
commit_edit() {
	parent=$1 msg=$2
	shift 2
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" read-tree "$parent" || return 1
	while [ $# -ge 2 ]; do
		git -C "$WORKTREE" show "$parent:$1" | sed "$2" >blob &&
		b=$(git -C "$WORKTREE" hash-object -w --stdin <blob) &&
		GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" update-index --cacheinfo "100644,$b,$1" || return 1
		shift 2
	done
	t=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" write-tree) &&
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$t" -p "$parent" -m "$msg"
}

test_expect_success 'a bad commit: sparse, Signed-off-by, asm numbers and the fence are caught' '
	n=$(git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" | grep -n "Order the streaming stores before the stores that publish" | cut -d: -f1) &&
	f=$(git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" | awk -v n="$n" "NR > n && /memcpy_nontemporal_fence\\(\\);/ { print NR; exit }") &&
	[ -n "$f" ] &&
	bad=$(commit_edit "$HEAD" "x86/lib: tweak memcpy and the memmap init

It is better this way." \
		mm/mm_init.c "${f}d; s/^void __init mm_core_init(void)\$/static int xcs_peek(int __user *p) { return *(int *)p; }\n&/" \
		arch/x86/lib/memcpy_64.S "1a/* a comment */") &&
	CHECKS_ONLY="checkpatch changelog sparse cocci" expect_fail $CHECKS "$bad" &&
	d=$OUT/checks/$bad && r=$d/records.jsonl && cat "$d/verdict" &&
	[ "$(head -n 1 "$d/verdict")" = fail ] &&
	new_error sparse "mm/mm_init.c: warning: cast removes address space .__user." "$r" &&
	new_error changelog "patch: signoff: no Signed-off-by" "$r" &&
	new_error changelog "patch: asm-numbers: touches arch/x86/lib/memcpy_64.S but names no hardware" "$r" &&
	new_error cocci "mm/mm_init.c: nt_fence: error: zone_device_copy_pages() leaves non-temporal stores unfenced and memmap_init_zone_device() returns" "$r" &&
	new_error checkpatch "patch: ERROR:MISSING_SIGN_OFF" "$r" &&
	grep_err "$(printf %.12s "$bad") sparse: 1 new finding" &&
	grep_err "verdict: $(printf %.12s "$bad") adds error-level findings or fails KUnit" &&
	grep -q "\"metric\":\"verdict\".*\"samples\":\[0\.0\].*\"verdict\":\"fail\"" "$d/records.jsonl" &&
	grep -q "\"case\":\"sparse/mm/mm_init.c\",\"metric\":\"finding\".*\"new\":true" "$d/records.jsonl" &&
	st=$(git -C "$OUT/checks/tree" status --porcelain --untracked-files=no) && [ -z "$st" ]
'

test_expect_success 'make checks on the real series: every commit passes, a line each' '
	pipeline_lock && CI_OUT=$SCRATCH/ci CHECKS_ONLY="checkpatch changelog cocci" \
		make -C "$TOP" --no-print-directory -s checks OUT="$OUT" BIN="$BIN" >table 2>err ||
		{ cat err table; return 1; }
	cat table &&
	set -- $(git -C "$WORKTREE" rev-list --reverse "$BASE..$HEAD") &&
	[ $# = 7 ] && i=0 &&
	for c in "$@"; do
		i=$((i + 1)) && v=$(head -n 1 "$SCRATCH/ci/$c/checks/verdict") && echo "$i $v" &&
		[ "$v" = pass ] &&
		! grep -q "\"severity\":\"error\",\"new\":true" "$SCRATCH/ci/$c/checks/records.jsonl" &&
		grep -q "^$(printf %.12s "$c") pass " table ||
		return 1
	done &&
	[ "$(head -n 1 "$SCRATCH/ci/$BASE/checks/verdict")" = pass ] &&
	[ "$(grep -c "^[0-9a-f]\{12\} pass " table)" = 8 ] &&
	grep -q "^commit  *verdict  *new  *errors  *subject$" table
'

test_expect_success 'the real series: patch 6 adds no sparse finding in mm/mm_init.c' '
	c5=$(git -C "$WORKTREE" rev-list --reverse "$BASE..$HEAD" | sed -n 6p) &&
	rm -rf "$OUT/checks/cache/$c5/sparse" "$OUT/checks/cache/$(git -C "$WORKTREE" rev-parse "$c5^")/sparse" &&
	CHECKS_ONLY=sparse $CHECKS "$c5" 2>err && cat err && grep -q "sparse: sparse (make C=2" err &&
	[ "$(head -n 1 "$OUT/checks/$c5/verdict")" = pass ] &&
	[ ! -s "$OUT/checks/$c5/sparse.new" ] &&
	grep -q "^# $c5 .*mm/mm_init\.o" "$OUT/checks/$c5/sparse.log"
'
# gcc takes a GNU C nested function, clang refuses it: only the clang check
# can find this one
test_expect_success 'clang: a commit only clang rejects (a nested function) fails the clang check' '
	bad=$(commit_edit "$HEAD" "mm/mm_init: a nested function

Signed-off-by: t <t@example.org>" \
		mm/mm_init.c "s/^void __init mm_core_init(void)\$/static int xcs_outer(int x) { int xcs_inner(int y) { return y + 1; } return xcs_inner(x); }\n&/") &&
	CHECKS_ONLY=clang expect_fail $CHECKS "$bad" &&
	d=$OUT/checks/$bad && cat "$d/verdict" &&
	new_error clang "mm/mm_init.c: error: function definition is not allowed here" "$d/records.jsonl" &&
	[ "$(head -n 1 "$d/verdict")" = fail ] &&
	grep -q "touched objects only" "$d/clang.log" && grep -q "mm_init.c:[0-9]*:[0-9]*: error: function definition is not allowed here" "$d/clang.log"
'

test_expect_success 'out/checks deleted: the next run recreates its worktree' '
	rm -rf "$OUT/checks" &&
	CHECKS_ONLY=changelog $CHECKS "$HEAD" 2>err && cat err &&
	grep -q "creating the checks worktree" err && [ -e "$OUT/checks/tree/.git" ] &&
	[ "$(head -n 1 "$OUT/checks/$HEAD/verdict")" = pass ]
'
done_testing
