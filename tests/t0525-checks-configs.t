#!/bin/sh
# The configs check of make checks (checks/configs.sh): a commit that
# deletes the generic memcpy_nontemporal() of <linux/string.h> (x86_64
# keeps its own, so the toolkit's own kernel still builds) breaks arm64,
# where memmap_init_zone_device() calls it: the arm64 build of the commit
# and of its parent, the new error named with its config, file and line,
# the commit fails, and so does the pipeline (ci/run.sh, make ci's
# driver); the parent's findings are not new.  A commit that touches no
# shared header says the builds are not needed.  Only the arm64 config
# (CONFIGS=arm64): the others are the same code with other arguments.
# Each build makes mm/mm_init.o alone (CONFIGS_TARGETS), where the error
# is: the check's own vmlinux is the same make with another target, and
# two whole arm64 kernels would be most of this file's time on a new
# machine; a target that is no object is refused.
# test-quick: no: builds arm64 objects (ccache serves them again)
# test-lane: checks: the checks worktree, its objects and KUnit kernels; no build.sh, no guest
. "$(dirname "$0")/lib.sh"
need worktree
need series
HEAD=$SERIES_HEAD
need tool:changelog-lint tool:record-write
need cmd:clang cmd:ld.lld
KUNIT=0 COCCI_SET=ours CONFIGS=arm64 CONFIGS_TARGETS=mm/mm_init.o
export KUNIT COCCI_SET CONFIGS CONFIGS_TARGETS

# the head with the generic fallback of memcpy_nontemporal() deleted,
# made without touching any ref or worktree
no_fallback() {
	git -C "$WORKTREE" show "$HEAD:include/linux/string.h" |
		sed "/^#ifndef memcpy_nontemporal\$/,/^#endif\$/d" >blob &&
	! grep -q "memcpy_nontemporal" blob &&
	b=$(git -C "$WORKTREE" hash-object -w --stdin <blob) &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" read-tree "$HEAD" &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" update-index --cacheinfo "100644,$b,include/linux/string.h" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" write-tree) &&
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$t" -p "$HEAD" -m "string: drop the generic memcpy_nontemporal()

Signed-off-by: t <t@example.org>"
}

test_expect_success 'no generic memcpy_nontemporal(): the arm64 build breaks, named with config, file and line; the commit fails, and so does the pipeline' '
	bad=$(no_fallback) &&
	CHECKS_ONLY=configs expect_fail sh "$TOP/checks/checks.sh" --results res "$bad" &&
	grep_err "configs: shared headers touched: include/linux/string.h" &&
	grep_err "^  arm64/mm/mm_init.c: error: .*memcpy_nontemporal.* [(]line [0-9]+[)]$" &&
	[ "$(head -n 1 res/verdict)" = fail ] &&
	grep -q "^configs: arm64/mm/mm_init.c: error: .*(line [0-9]*)$" res/verdict &&
	grep -q "\"check\":\"configs\",\"severity\":\"error\",\"new\":true,\"message\":\"arm64/mm/mm_init.c: error: " res/records.jsonl &&
	grep -q "\"case\":\"configs/arm64\",\"metric\":\"struct_page_bytes\"" res/records.jsonl &&
	grep -q "^# $HEAD arm64 (make exit 0; struct page: [0-9]* bytes)" res/configs.log &&
	grep -q "^# $bad arm64 (make exit [1-9]" res/configs.log &&
	! grep -q "\"new\":false" res/records.jsonl && pipeline_lock &&
	CHECKS_ONLY=configs CI_OUT=$SCRATCH/ci CI_STEPS=checks CI_COMMITS=$bad \
		expect_fail sh "$TOP/ci/run.sh" &&
	grep_err "steps failed: $(printf %.12s "$bad"):checks"
'

test_expect_success 'a shared header touched but nothing broken (a comment at its end): built, no new finding, the parent'"'"'s warnings old' '
	git -C "$WORKTREE" show "$HEAD:arch/x86/include/asm/string_64.h" >blob && echo "/* a comment */" >>blob &&
	b=$(git -C "$WORKTREE" hash-object -w --stdin <blob) &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" read-tree "$HEAD" &&
	GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" update-index --cacheinfo "100644,$b,arch/x86/include/asm/string_64.h" &&
	t=$(GIT_INDEX_FILE=$SCRATCH/index git -C "$WORKTREE" write-tree) &&
	ok=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$t" -p "$HEAD" -m "string: a comment

Signed-off-by: t <t@example.org>") &&
	# (w1 too: W=1 finds kernel-doc warnings in usercopy_64.c, a user of string_64.h, on both sides)
	CONFIGS="arm64 w1" CHECKS_ONLY=configs sh "$TOP/checks/checks.sh" --results res "$ok" 2>err && cat err &&
	grep -q "configs: arm64: [0-9]* finding(s), struct page 64 bytes" err &&
	[ -s res/configs.txt ] &&
	[ "$(head -n 1 res/verdict)" = pass ] && [ ! -s res/configs.new ] &&
	! grep -q "\"new\":true" res/records.jsonl &&
	[ "$(grep -c "\"new\":false" res/records.jsonl)" = "$(grep -c . res/configs.txt)" ]
'

test_expect_success 'a commit that touches no shared header: the builds are not needed, and said so; CONFIGS=none (make quick) says it skips them' '
	CHECKS_ONLY=configs sh "$TOP/checks/checks.sh" --results res "$HEAD" 2>err && cat err &&
	grep -q "configs: not needed: $(printf %.12s "$HEAD") touches no shared header (only: arch/x86/lib/memcpy_64.S)" err &&
	[ "$(head -n 1 res/verdict)" = pass ] && grep -q "^configs: not needed: " res/verdict &&
	[ ! -e res/configs.log ] &&
	bad=$(no_fallback) &&
	CONFIGS=none CHECKS_ONLY=configs sh "$TOP/checks/checks.sh" --results res2 "$bad" 2>err && cat err &&
	grep -q "^configs: skipped: CONFIGS=none (make quick.s default; shared headers touched: include/linux/string.h)" res2/verdict &&
	[ ! -e res2/configs.log ] &&
	{ rc=0; CONFIGS="none arm64" sh "$TOP/checks/checks.sh" --check >/dev/null 2>err || rc=$?; } && [ $rc = 2 ] &&
	grep -q "CONFIGS: none is alone" err &&
	{ rc=0; CONFIGS=arm46 sh "$TOP/checks/checks.sh" --check >/dev/null 2>err || rc=$?; } && [ $rc = 2 ] &&
	grep -q "CONFIGS: .arm46. is not a configuration of the configs check (i386 arm64 x86_64-nozd x86_64-kmsan x86_64-page96 w1)" err &&
	for t in mm/mm_init.c ../x.o /x.o "a;b.o"; do
		{ rc=0; CONFIGS_TARGETS=$t sh "$TOP/checks/checks.sh" --check >/dev/null 2>err || rc=$?; } && [ $rc = 2 ] &&
		grep -q "CONFIGS_TARGETS: .$t. is not vmlinux or an object of the tree" err || { echo "not refused: $t"; return 1; }
	done &&
	CONFIGS_TARGETS="vmlinux mm/mm_init.o" sh "$TOP/checks/checks.sh" --check | grep -q " targets vmlinux mm/mm_init.o "
'
test_expect_success 'a fragment that does not take: on the parent the toolkit stops and says so (its fragment to fix); on the commit a new kconfig error of the commit' '
	# ZONE_DEVICE of arm64.config cannot be had once it depends on BROKEN
	nozd="/^config ZONE_DEVICE\$/a\\
	depends on BROKEN" &&
	p=$(commit_with "$HEAD" mm/Kconfig "$nozd" "mm: no ZONE_DEVICE") &&
	c=$(commit_with "$p" arch/x86/include/asm/string_64.h "\$a /* a comment */" "string: a comment") &&
	CHECKS_ONLY=configs expect_fail sh "$TOP/checks/checks.sh" --results res "$c" &&
	grep_err "configs: arm64: checks/configs. fragment does not take on the parent $(printf %.12s "$p"): .*CONFIG_ZONE_DEVICE=y.* did not take effect" &&
	[ ! -e res/verdict ] &&
	# the same Kconfig change in the commit itself (c'"'"'s tree on the head): its finding, new
	c2=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		git -C "$WORKTREE" commit-tree "$c^{tree}" -p "$HEAD" -m "mm: no ZONE_DEVICE, and a comment

Signed-off-by: t <t@example.org>") &&
	CHECKS_ONLY=configs expect_fail sh "$TOP/checks/checks.sh" --results res2 "$c2" &&
	[ "$(head -n 1 res2/verdict)" = fail ] &&
	grep -q "^configs: arm64/kconfig: error: .*CONFIG_ZONE_DEVICE=y.* did not take effect" res2/verdict
'
done_testing
