#!/bin/sh
# make apply: b4 am + git am of patches/ onto the base, reproducibly; a
# conflict names the patch and the file and leaves the tree at the base;
# bad input changes nothing.  An apply interrupted in the middle of its
# git am (Ctrl-C, TERM, or KILL and a rerun) ends with the tree at the
# base; the user's own changes are refused, never reset.
. "$(dirname "$0")/lib.sh"
APPLY="sh $TOP/series/apply.sh"
need tool:series-check
need worktree
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")

series_ref() {
	git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series"
}

test_expect_success 'apply: every applied patch becomes one commit on the base, authors kept' '
	$APPLY && head=$(series_ref) &&
	n=$("$BIN/series-check" "$TOP/patches/series" | grep -c "^applied") &&
	[ "$(git -C "$WORKTREE" rev-list --count "$BASE..$head")" = "$n" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$head" ] &&
	git -C "$WORKTREE" log --format="%an <%ae>|%cn <%ce>|%cI|%s" "$BASE..$head" >log &&
	cat log &&
	grep -q "^Li Zhe <lizhe.67@bytedance.com>|.*|x86/string: extend memcpy_flushcache() fixed-size fastpaths$" log &&
	grep -q "^Usama Arif <usama.arif@linux.dev>|.*|x86/lib: Use REP MOVSB for large memcpy() on ERMS CPUs without FSRM$" log &&
	[ "$(cut -d"|" -f2 log | sort -u)" = "x86-copy-series import <x86-copy-series@example.org>" ] &&
	git -C "$WORKTREE" log -1 --format=%B "$head" | grep -q "^Link: https://lore.kernel.org/r/20261013100442.2658311-1-usama.arif@linux.dev$"
'

test_expect_success 'apply is idempotent: the same commit ids again' '
	before=$(series_ref) && $APPLY 2>err && cat err &&
	[ "$(series_ref)" = "$before" ] && grep -q "(unchanged)" err
'

# a copy of patches/ whose last applied patch no longer applies
broken_copy() {
	cp -r "$TOP/patches" p &&
	last=$(awk "!/^#/ && \$2 == \"applied\" { f = \$1 } END { print f }" p/series) &&
	sed -i "s/^ \(SYM_TYPED_FUNC_START(__memcpy)\)$/ \1 \/* changed *\//" "p/$last" &&
	! cmp -s "p/$last" "$TOP/patches/$last"
}

test_expect_success 'a patch that does not apply: named with its file, tree back at the base' '
	before=$(series_ref) && broken_copy &&
	PATCHES=$SCRATCH/p expect_fail $APPLY &&
	grep_err "apply: git am: $last: \[PATCH (v[0-9]+ )?[0-9]+/[0-9]+\] x86/lib: Use REP MOVSB.* does not apply: arch/x86/lib/memcpy_64.S:[0-9]+" &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$BASE" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain --untracked-files=no)" ] &&
	[ ! -d "$(git -C "$WORKTREE" rev-parse --git-path rebase-apply)" ] &&
	[ "$(series_ref)" = "$before" ]
'

test_expect_success 'after a failed apply, the real series applies again' '
	before=$(series_ref) && $APPLY && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'a malformed mbox: clear error, nothing changed' '
	before=$(series_ref) && cp -r "$TOP/patches" p &&
	first=$(awk "!/^#/ && \$2 == \"applied\" { print \$1; exit }" p/series) &&
	sed -i "1s/^From /Frm /" "p/$first" &&
	PATCHES=$SCRATCH/p expect_fail $APPLY &&
	grep_err "$first:1: not an mbox" &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ] && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'a worktree with local changes is refused and its changes kept' '
	echo "/* mine */" >>"$WORKTREE/Makefile" &&
	expect_fail $APPLY; rc=$?;
	grep_err "has local changes" && tail -n 1 "$WORKTREE/Makefile" | grep -qF "/* mine */";
	ok=$?; git -C "$WORKTREE" checkout -q -- Makefile; [ $rc = 0 ] && [ $ok = 0 ]
'

# interrupt SIG [TARGET]: apply.sh in a session of its own, with a
# pre-applypatch hook that, at the 3rd patch, cuts a file the patch wrote
# in half (what a kill in the middle of git apply's writes leaves) and
# sends SIG to apply.sh ("parent"), or to its whole process group (Ctrl-C).
# apply.sh (dash) takes the signal once git am, which waits for the hook,
# has ended: the hook's second of sleep only keeps it from returning
# before a signal to the group reaches it
interrupt() {
	mkdir -p hooks && cat >hooks/pre-applypatch <<-EOF &&
	#!/bin/sh
	[ "\$(cat "\$(git rev-parse --git-path rebase-apply/next)")" = 3 ] || exit 0
	f=\$(sed -n "s|^+++ b/||p" "\$(git rev-parse --git-path rebase-apply/patch)" | head -n 1)
	head -c 1000 "\$f" >"\$f.half" && mv "\$f.half" "\$f"
	if [ "${2:-}" = parent ]; then
		kill -$1 \$(awk "{ print \\\$4 }" /proc/\$PPID/stat)
	else
		kill -$1 0
	fi
	sleep 1
	EOF
	chmod +x hooks/pre-applypatch &&
	{ rc=0; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=$SCRATCH/hooks \
		setsid -w sh "$TOP/series/apply.sh" >out 2>err || rc=$?; } && cat out err
}

# the worktree at the base, clean, no am in progress, no marker
at_base() {
	gd=$(git -C "$WORKTREE" rev-parse --absolute-git-dir) &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$BASE" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain)" ] &&
	[ ! -e "$gd/rebase-apply" ] && [ ! -e "$gd/x86-copy-series-am" ]
}

test_expect_success 'Ctrl-C during the git am: am aborted, the tree back at the base, the ref unchanged' '
	before=$(series_ref) && interrupt INT &&
	[ $rc = 130 ] && grep -q "apply: interrupted: nothing applied" err &&
	at_base && [ "$(series_ref)" = "$before" ] &&
	$APPLY && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'TERM to apply during the git am: the same, exit 143' '
	before=$(series_ref) && interrupt TERM parent &&
	[ $rc = 143 ] && grep -q "apply: interrupted: nothing applied" err &&
	at_base && [ "$(series_ref)" = "$before" ] &&
	$APPLY && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'KILLed in the middle of the am: the next apply cleans it, not "local changes"' '
	before=$(series_ref) && interrupt KILL &&
	gd=$(git -C "$WORKTREE" rev-parse --absolute-git-dir) && [ -d "$gd/rebase-apply" ] &&
	[ -n "$(git -C "$WORKTREE" status --porcelain --untracked-files=no)" ] &&
	$APPLY 2>err && cat err && ! grep -q "local changes" err &&
	grep -q "cleaning up after an interrupted run" err &&
	[ "$(series_ref)" = "$before" ] && [ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain)" ] && [ ! -e "$gd/rebase-apply" ]
'

test_expect_success 'KILLed, then a real local change: the am is cleaned, the change refused and kept' '
	before=$(series_ref) && interrupt KILL &&
	echo "/* mine */" >>"$WORKTREE/Makefile" &&
	expect_fail $APPLY; rc=$?;
	grep_err "has local changes" && tail -n 1 "$WORKTREE/Makefile" | grep -qF "/* mine */" &&
	gd=$(git -C "$WORKTREE" rev-parse --absolute-git-dir) && [ ! -e "$gd/rebase-apply" ] &&
	[ "$(git -C "$WORKTREE" status --porcelain --untracked-files=no)" = " M Makefile" ];
	ok=$?; git -C "$WORKTREE" checkout -q -- Makefile; $APPLY && [ $rc = 0 ] && [ $ok = 0 ] &&
	[ "$(series_ref)" = "$before" ]
'

test_expect_success 'a git am the toolkit did not start is refused and left as it is' '
	broken_copy && git -C "$WORKTREE" checkout -q --detach "$BASE" &&
	! GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org git -C "$WORKTREE" am -q "$SCRATCH/p/$last" 2>/dev/null &&
	gd=$(git -C "$WORKTREE" rev-parse --absolute-git-dir) && [ -d "$gd/rebase-apply" ] &&
	expect_fail $APPLY; rc=$?;
	grep_err "a git am that the toolkit did not start is in progress" && [ -d "$gd/rebase-apply" ];
	# (the abort writes the reflog: a machine without a git identity needs one given)
	ok=$?; GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org git -C "$WORKTREE" am --abort &&
	$APPLY && [ $rc = 0 ] && [ $ok = 0 ]
'

test_expect_success 'SERIES_REF or REF_NS outside the toolkit namespace is refused' '
	{ rc=0; SERIES_REF=refs/heads/master $APPLY 2>err || rc=$?; } && cat err && [ $rc = 2 ] &&
	grep -q "SERIES_REF=.refs/heads/master. must be a ref under $REF_NS/" err &&
	{ rc=0; REF_NS=refs/heads $APPLY 2>err || rc=$?; } && cat err && [ $rc = 2 ] &&
	grep -q "REF_NS=.refs/heads. must be refs/x86-copy-series or refs/x86-copy-series-<name>" err &&
	! git -C "$WORKTREE" rev-parse -q --verify refs/heads/master &&
	! git -C "$WORKTREE" rev-parse -q --verify refs/heads/series
'

test_expect_success 'a full disk under out/: a clear error naming the file, nothing changed' '
	before=$(series_ref) &&
	# more than any one mail of patches/ (the tools split them in /tmp
	# under the same limit), less than all of them: in 512-byte blocks
	big=$(wc -c "$TOP"/patches/*.mbox | awk "\$2 != \"total\" && \$1 > m { m = \$1 } END { print m }") &&
	blocks=$((big / 512 + 2)) &&
	[ $((blocks * 512)) -lt "$(cat "$TOP"/patches/*.mbox | wc -c)" ] &&
	(trap "" XFSZ; ulimit -f $blocks; OUT=$SCRATCH/o expect_fail $APPLY) &&
	grep_err "apply: work: cannot write .$SCRATCH/o/apply/series/input.mbox. \(disk full\?\); nothing applied" &&
	[ "$(series_ref)" = "$before" ] && [ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ]
'

test_expect_success 'PATCHES that is not a patches/ directory: a clear error' '
	PATCHES=$SCRATCH/nowhere expect_fail $APPLY && grep_err "patches: .*nowhere/series. cannot be read"
'

test_expect_success 'the series head has the trees of patches/: git am of each mbox in turn agrees' '
	git -C "$WORKTREE" checkout -q --detach "$BASE" &&
	for f in $("$BIN/series-check" "$TOP/patches/series" | awk -F"\t" "\$1 == \"applied\" { print \$2 }"); do
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org git -C "$WORKTREE" am -q "$TOP/patches/$f" || exit 1
	done &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD^{tree})" = "$(git -C "$WORKTREE" rev-parse "$(series_ref)^{tree}")" ] &&
	git -C "$WORKTREE" checkout -q --detach "$(series_ref)"
'
done_testing
