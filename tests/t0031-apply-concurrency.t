#!/bin/sh
# make apply and its neighbours, cut short or run twice: one run at a time
# (a second is refused at once, naming the live run's pid, and changes
# nothing of it); a trap that ends with "interrupted" and the worktree
# back at the base whatever state git was left in (index.lock behind, an
# am in progress, a file staged); a marker is a dead run's only when its
# pid and that pid's start time say so; a mail b4 am cannot assemble is
# named with b4's reason.  Every wait is for a state (a file a hook
# writes), never for a length of time.
. "$(dirname "$0")/lib.sh"
APPLY="sh $TOP/series/apply.sh"
need tool:series-check
need worktree
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")
GD=$(git -C "$WORKTREE" rev-parse --absolute-git-dir)

series_ref() {
	git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series"
}

# hook BODY: a pre-applypatch hook that runs BODY at the 3rd patch, with
# $apply the pid of apply.sh (the parent of git am)
hook() {
	mkdir -p hooks && cat >hooks/pre-applypatch <<-EOF &&
	#!/bin/sh
	[ "\$(cat "\$(git rev-parse --git-path rebase-apply/next)")" = 3 ] || exit 0
	apply=\$(awk "{ print \\\$4 }" /proc/\$PPID/stat)
	$1
	EOF
	chmod +x hooks/pre-applypatch
}

# with_hook CMD...: CMD with the hooks of $SCRATCH/hooks
with_hook() {
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=$SCRATCH/hooks "$@"
}

# the worktree at the base, clean, no am, no marker, no index.lock
at_base() {
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$BASE" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain)" ] &&
	[ ! -e "$GD/rebase-apply" ] && [ ! -e "$GD/x86-copy-series-am" ] && [ ! -e "$GD/index.lock" ]
}

test_expect_success 'the series applies (the state the other tests start from)' '
	$APPLY && [ -n "$(series_ref)" ]
'

test_expect_success 'Ctrl-C with index.lock left behind, a file staged, a file cut: "interrupted", exit 130, the tree at the base' '
	before=$(series_ref) &&
	hook "f=\$(sed -n \"s|^+++ b/||p\" \"\$(git rev-parse --git-path rebase-apply/patch)\" | head -n 1)
	head -c 1000 \"\$f\" >\"\$f.half\" && mv \"\$f.half\" \"\$f\"
	echo new >staged-by-hook.c && git add -f staged-by-hook.c &&
	git diff --cached --name-only | grep -qx staged-by-hook.c && touch \"$SCRATCH/staged\"
	: >\"\$(git rev-parse --git-path index.lock)\"
	kill -INT 0" &&
	{ rc=0; with_hook setsid -w sh "$TOP/series/apply.sh" >out 2>err || rc=$?; } && cat out err &&
	[ -e staged ] && [ $rc = 130 ] && grep -q "^apply: interrupted: nothing applied; .* is back at the base and .* is unchanged$" err &&
	at_base && [ ! -e "$WORKTREE/staged-by-hook.c" ] && [ "$(series_ref)" = "$before" ] &&
	$APPLY && [ "$(series_ref)" = "$before" ]
'

test_expect_success 'Ctrl-C before the am: "interrupted", exit 130, nothing changed' '
	before=$(series_ref) && head=$(git -C "$WORKTREE" rev-parse HEAD) &&
	printf "#!/bin/sh\nkill -INT \$PPID\nexec \"%s\" \"\$@\"\n" "$BIN/series-check" >check && chmod +x check &&
	{ rc=0; SERIES_CHECK=$SCRATCH/check $APPLY >out 2>err || rc=$?; } && cat out err &&
	[ $rc = 130 ] && grep -q "^apply: interrupted: nothing applied; the am had not started" err &&
	[ "$(series_ref)" = "$before" ] && [ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$head" ]
'

test_expect_success 'a second apply while one runs: refused at once naming its pid; the first goes on and succeeds' '
	before=$(series_ref) &&
	hook "echo \$apply >\"$SCRATCH/reached.tmp\" && mv \"$SCRATCH/reached.tmp\" \"$SCRATCH/reached\"
	while [ ! -e \"$SCRATCH/go\" ]; do sleep 0.1; done" &&
	{ with_hook sh "$TOP/series/apply.sh" >out1 2>err1 & } && first=$! &&
	wait_file reached && pid=$(cat reached) &&
	expect_fail $APPLY; rc2=$?; touch go;
	wait $first; rc1=$?; cat out1 err1;
	[ $rc2 = 0 ] && [ $rc1 = 0 ] &&
	grep_err "^apply: lock: another run is changing $WORKTREE: apply of .*, pid $pid: wait for it to end" &&
	! grep -q "cleaning up" err && [ "$(wc -l <"$SCRATCH/err")" = 1 ] &&
	[ "$(series_ref)" = "$before" ] && [ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain)" ] && [ ! -e "$GD/x86-copy-series-am" ]
'

test_expect_success 'a repin or range-diff while an apply runs: refused the same way' '
	hook "echo \$apply >\"$SCRATCH/reached.tmp\" && mv \"$SCRATCH/reached.tmp\" \"$SCRATCH/reached\"
	while [ ! -e \"$SCRATCH/go\" ]; do sleep 0.1; done" &&
	{ with_hook sh "$TOP/series/apply.sh" >out1 2>err1 & } && first=$! &&
	wait_file reached && pid=$(cat reached) &&
	TO=$BASE expect_fail sh "$TOP/series/repin.sh"; rc2=$?; cp err err.repin;
	PREV=HEAD expect_fail sh "$TOP/series/range-diff.sh"; rc3=$?; touch go;
	wait $first; rc1=$?; cat out1 err1 err.repin;
	[ $rc1 = 0 ] && [ $rc2 = 0 ] && [ $rc3 = 0 ] &&
	grep -q "^repin: lock: another run is changing .*, pid $pid: " err.repin &&
	grep_err "^range-diff: lock: another run is changing .*, pid $pid: "
'

# killed: a run KILLed at the 3rd patch, its am and marker left behind
killed() {
	hook "kill -KILL 0" && { with_hook setsid -w sh "$TOP/series/apply.sh" >out 2>err || :; } &&
	[ -d "$GD/rebase-apply" ] && [ -f "$GD/x86-copy-series-am" ]
}

test_expect_success 'a marker whose run is alive (pid and start time) is not cleaned: refused, the am kept' '
	before=$(series_ref) && killed &&
	# a live process, with its own start time and boot
	{ sleep 600 & } && live=$! &&
	start=$(sed "s/.*) //" /proc/$live/stat | cut -d" " -f20) &&
	echo "$live $start $(cat /proc/sys/kernel/random/boot_id) apply of elsewhere" >"$GD/x86-copy-series-am" &&
	expect_fail $APPLY; rc=$?;
	grep_err "a run of the toolkit is applying patches in $WORKTREE: apply of elsewhere, pid $live" &&
	[ -d "$GD/rebase-apply" ]; ok=$?;
	# the same pid with another start time: a pid given again, a dead run
	echo "$live 1 $(cat /proc/sys/kernel/random/boot_id) apply of elsewhere" >"$GD/x86-copy-series-am" &&
	$APPLY 2>err; rc2=$?; kill $live; cat err && grep -q "cleaning up after an interrupted run" err &&
	[ $rc2 = 0 ] && [ $rc = 0 ] && [ $ok = 0 ] && [ "$(series_ref)" = "$before" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ] && [ ! -e "$GD/rebase-apply" ]
'

test_expect_success 'a lock still held by the processes of a dead run is waited for, then taken' '
	before=$(series_ref) && lock=$GD/x86-copy-series.lock &&
	# a dead owner: pid 1 with a start time it does not have
	echo "1 1 $(cat /proc/sys/kernel/random/boot_id) apply of a killed run" >"$lock" &&
	{ flock "$lock" sh -c "touch held; while [ ! -e release ]; do sleep 0.1; done" & } && holder=$! &&
	wait_file held &&
	{ $APPLY >out 2>err & } && run=$! &&
	until grep -q "waiting for the processes of a run that is no longer alive (pid 1)" err; do
		kill -0 $run 2>/dev/null || break; sleep 0.1; done;
	touch release; wait $holder; wait $run; rc=$?; cat err;
	[ $rc = 0 ] && grep -q "waiting for the processes" err && [ "$(series_ref)" = "$before" ]
'

# fold_copy FILE SED: a copy of patches/ in p/ with SED run on FILE, and
# a series-check that passes it (the real one refuses a folded header):
# what b4 am meets when series-check lets a mail through
fold_copy() {
	cp -r "$TOP/patches" p && sed -i "$2" "p/$1" && ! cmp -s "p/$1" "$TOP/patches/$1" &&
	printf "#!/bin/sh\nexec \"%s\" \"%s\"\n" "$BIN/series-check" "$TOP/patches/series" >check && chmod +x check
}

test_expect_success 'b4 am fails on a patch: the patch named with b4 one-line reason, no traceback, nothing changed' '
	before=$(series_ref) &&
	f=$(awk "!/^#/ && \$2 == \"applied\" { n++ } n == 3 { print \$1; exit }" "$TOP/patches/series") &&
	fold_copy "$f" "s/^\(Subject: .*\) \([^ ]*\) \([^ ]*\)\$/\1\n \2\n \3/" &&
	! "$BIN/series-check" p/series 2>/dev/null &&
	PATCHES=$SCRATCH/p SERIES_CHECK=$SCRATCH/check expect_fail $APPLY &&
	grep_err "^apply: b4 am: $f: \[PATCH (v[0-9]+ )?3/[0-9]+\] .*: b4 cannot assemble it: ValueError: Header values may not contain linefeed or carriage return characters \(b4.s output: .*\); nothing applied$" &&
	! grep -q Traceback err && [ "$(series_ref)" = "$before" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$before" ]
'

test_expect_success 'b4 am fails on the cover letter: the cover letter named' '
	fold_copy 0000-cover-letter.mbox "s/^\(Date: .*\) \([0-9:]*\) \(+0000\)\$/\1\n \2 \3/" &&
	PATCHES=$SCRATCH/p SERIES_CHECK=$SCRATCH/check expect_fail $APPLY &&
	grep_err "^apply: b4 am: 0000-cover-letter.mbox: \[PATCH (v[0-9]+ )?0/[0-9]+\] .*: b4 cannot assemble it: ValueError: Header values" &&
	! grep -q Traceback err
'

# mv_interrupts DIR/: bin/mv, an mv that sends INT to its process group
# (as Ctrl-C does: the script runs under setsid, the group its own) at its
# first rename into DIR/ (its last argument starts so)
mv_interrupts() {
	mkdir -p bin && cat >bin/mv <<-EOF && chmod +x bin/mv
	#!/bin/sh
	for a; do last=\$a; done
	case \$last in "$1"*) [ -e "$SCRATCH/sent" ] || {
		touch "$SCRATCH/sent" && kill -INT 0; } ;;
	esac
	exec /bin/mv "\$@"
	EOF
}

test_expect_success 'export interrupted while it renames into PATCHES_OUT: the export whole, "interrupted", exit 130' '
	PATCHES_OUT=$SCRATCH/want sh "$TOP/series/export.sh" 2>/dev/null &&
	cp -r "$TOP/patches" got &&
	mv_interrupts "$SCRATCH/got/" &&
	# its last patch as an older export had it: the rename must replace it
	last=$(awk "!/^#/ && \$2 == \"applied\" { f = \$1 } END { print f }" got/series) &&
	echo "an older export" >>"got/$last" &&
	{ rc=0; PATH=$SCRATCH/bin:$PATH PATCHES=$SCRATCH/got PATCHES_OUT=$SCRATCH/got setsid -w sh "$TOP/series/export.sh" 2>err || rc=$?; } &&
	cat err && [ -e sent ] && [ $rc = 130 ] && grep -q "^export: interrupted" err &&
	diff -r -x upstream -x ".export.*" want got
'

test_expect_success 'trailers interrupted while it renames into patches/: every patch has its trailer, "interrupted", exit 130' '
	cp -r "$TOP/patches" p && cover_id=$(sed -n "s/^Message-Id: //p" p/0000-cover-letter.mbox) &&
	printf "From r Mon Sep 17 00:00:00 2001\nFrom: R <r@example.org>\nIn-Reply-To: %s\nSubject: Re: the series\nMessage-Id: <r@example.org>\n\nReviewed-by: R <r@example.org>\n" \
		"$cover_id" >replies.mbox &&
	mv_interrupts "$SCRATCH/p/" &&
	{ rc=0; PATH=$SCRATCH/bin:$PATH PATCHES=$SCRATCH/p REPLIES=$SCRATCH/replies.mbox NO_APPLY=1 \
		setsid -w sh "$TOP/series/trailers.sh" 2>err || rc=$?; } && cat err &&
	[ -e sent ] && [ $rc = 130 ] && grep -q "^trailers: interrupted" err &&
	for f in $(awk "!/^#/ && \$2 == \"applied\" { print \$1 }" p/series); do
		grep -qx "Reviewed-by: R <r@example.org>" "p/$f" || { echo "no trailer in $f"; exit 1; }
	done && [ -z "$(find p -name ".*")" ]
'
done_testing
