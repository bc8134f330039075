#!/bin/sh
# out/tree refuses what it does not own: while a git operation that the
# toolkit did not start is in progress in the worktree (a rebase stopped
# at 'edit' or on a conflict, with rebase-merge/ or rebase-apply/, a
# merge, a cherry-pick, a revert, a sequence of cherry-picks with its
# commit in hand done, a bisect), apply, repin and range-diff each refuse
# it, naming it and the command that ends it, and change nothing: HEAD,
# the operation's state, the index and the series ref as they were.  The
# command named ends it, and apply runs again.  (apply checked the base
# out and ran git am under a user's rebase or bisect, which broke it.)
. "$(dirname "$0")/lib.sh"
need tool:series-check
need worktree
need series
H=$SERIES_HEAD
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")
GD=$(git -C "$WORKTREE" rev-parse --absolute-git-dir)

# g ARG...: git in the worktree, as a user with an identity
g() {
	git -C "$WORKTREE" -c user.name=T -c user.email=t@example.org "$@"
}

series_ref() {
	git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series"
}

# clean: no operation of a test left, the worktree at the series head
clean() {
	for op in rebase merge cherry-pick revert; do
		g "$op" --abort >/dev/null 2>&1
	done
	g bisect reset >/dev/null 2>&1
	g checkout -q -f --detach "$H" && rm -f "$WORKTREE"/xcs-t0032-*
}

# commit_file NAME TEXT: a commit on the series head that adds NAME
commit_file() {
	g checkout -q --detach "$H" && printf '%s\n' "$2" >"$WORKTREE/xcs-t0032-$1" &&
	g add -f "xcs-t0032-$1" && g commit -q -m "t0032: $1" && g rev-parse HEAD
}

# refused_all WHAT STATE: apply, repin and range-diff each refuse the
# worktree, naming WHAT and the command that ends it; HEAD, STATE (in
# the worktree's git directory), the index and the series ref as they
# were.  The last command the message names, in $end.
refused_all() {
	head=$(g rev-parse HEAD) && st=$(g status --porcelain) && ser=$(series_ref) &&
	[ -e "$GD/$2" ] || { echo "no $GD/$2: the test did not start $1"; return 1; }
	for run in apply repin range-diff; do
		case $run in
		apply) expect_fail sh "$TOP/series/apply.sh" ;;
		repin) TO=$BASE expect_fail sh "$TOP/series/repin.sh" ;;
		range-diff) PREV=HEAD expect_fail sh "$TOP/series/range-diff.sh" ;;
		esac &&
		grep_err "^$run: worktree: $1 that the toolkit did not start is in progress in $WORKTREE: end it \(.*'git -C $WORKTREE [^']*'\), then run this again; nothing changed\$" &&
		[ "$(g rev-parse HEAD)" = "$head" ] && [ -e "$GD/$2" ] && [ "$(series_ref)" = "$ser" ] &&
		[ "$(g status --porcelain)" = "$st" ] || { echo "$run: not refused, or something changed"; return 1; }
	done
	end=$(sed -n "s/.*'\(git -C [^']*\)'), then run this again.*/\1/p" "$SCRATCH/err")
	[ -n "$end" ]
}

# ended STATE: $end run (as a user) ends it: no STATE left
ended() {
	echo "running: $end" &&
	GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.org $end >/dev/null 2>&1 && [ ! -e "$GD/$1" ]
}

test_expect_success 'an interactive rebase stopped at edit: refused by all three, ended by the command named' '
	clean && g -c sequence.editor="sed -i 1s/^pick/edit/" rebase -q -i HEAD~2 &&
	[ "$(g rev-parse HEAD)" = "$(g rev-parse "$H~1")" ] && [ -z "$(g status --porcelain)" ] &&
	refused_all "a rebase" rebase-merge && case $end in *"rebase --abort") ;; *) false ;; esac &&
	ended rebase-merge && [ "$(g rev-parse HEAD)" = "$H" ]
'

test_expect_success 'a rebase --apply stopped on a conflict: refused' '
	clean && a=$(commit_file f a) && b=$(commit_file f b) && g checkout -q --detach "$b" &&
	! g rebase -q --apply "$a" >/dev/null 2>&1 &&
	refused_all "a rebase" rebase-apply/rebasing && ended rebase-apply
'

test_expect_success 'a merge stopped on a conflict: refused' '
	clean && a=$(commit_file f a) && b=$(commit_file f b) && g checkout -q --detach "$a" &&
	! g merge -q --no-edit "$b" >/dev/null 2>&1 &&
	refused_all "a merge" MERGE_HEAD && ended MERGE_HEAD && [ "$(g rev-parse HEAD)" = "$a" ]
'

test_expect_success 'a cherry-pick stopped on a conflict: refused' '
	clean && a=$(commit_file f a) && b=$(commit_file f b) && g checkout -q --detach "$a" &&
	! g cherry-pick "$b" >/dev/null 2>&1 &&
	refused_all "a cherry-pick" CHERRY_PICK_HEAD && ended CHERRY_PICK_HEAD
'

test_expect_success 'a revert stopped on a conflict: refused' '
	clean && a=$(commit_file f a) && printf "a2\n" >"$WORKTREE/xcs-t0032-f" &&
	g commit -q -am "t0032: f again" && ! g revert --no-edit "$a" >/dev/null 2>&1 &&
	refused_all "a revert" REVERT_HEAD && ended REVERT_HEAD
'

test_expect_success 'a sequence of cherry-picks whose conflict is committed, the next to come: refused' '
	clean && a=$(commit_file f a) && b=$(commit_file f b) && c=$(commit_file g c) &&
	g checkout -q --detach "$a" && ! g cherry-pick "$b" "$c" >/dev/null 2>&1 &&
	g add -f xcs-t0032-f && g commit -q --no-edit && [ ! -e "$GD/CHERRY_PICK_HEAD" ] &&
	refused_all "a cherry-pick of several commits" sequencer && ended sequencer
'

test_expect_success 'a bisect: refused, ended by bisect reset' '
	clean && g bisect start "$H" "$H~3" >/dev/null &&
	[ "$(g rev-parse HEAD)" != "$H" ] &&
	refused_all "a bisect" BISECT_START && case $end in *"bisect reset") ;; *) false ;; esac &&
	ended BISECT_START && [ "$(g rev-parse HEAD)" = "$H" ]
'

test_expect_success 'with every operation ended, apply runs again: the same series' '
	clean && sh "$TOP/series/apply.sh" && [ "$(series_ref)" = "$H" ] && [ "$(g rev-parse HEAD)" = "$H" ]
'
clean
done_testing
