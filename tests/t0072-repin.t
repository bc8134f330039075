#!/bin/sh
# make repin TO=<rev>: per-patch status on the new base (applies, with
# offset, already upstream, conflict with file and hunk; the files the new
# base changes under it), and the figures to measure again; a conflict keeps
# the pin, the refs and the worktree; a clean re-pin moves the refs.
# TO_DEBIAN with a version Debian does not have is a download error that
# changes nothing (the successful download and import, 150 MB and ~3 min,
# are left to a maintainer's run: doc/maintainer.md, repin).
. "$(dirname "$0")/lib.sh"
need tool:series-check
need series
HEAD=$SERIES_HEAD
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")

# new_kernel SED-FOR-MEMCPY: a "newer kernel": the base with memcpy_64.S
# edited by SED and the first patch of the series already in it
new_kernel() {
	first=$(awk "!/^#/ && \$2 == \"applied\" { print \$1; exit }" "$TOP/patches/series") &&
	git -C "$WORKTREE" checkout -q --detach "$BASE" &&
	git -C "$WORKTREE" apply "$TOP/patches/$first" &&
	sed -i "$1" "$WORKTREE/arch/x86/lib/memcpy_64.S" &&
	git -C "$WORKTREE" -c user.name=t -c user.email=t@example.org commit -qam "newer kernel" &&
	git -C "$WORKTREE" rev-parse HEAD && git -C "$WORKTREE" checkout -q --detach "$HEAD"
}

# repin_back TO: a repin to TO that must succeed, its status in out, the
# refs it moved in nb and nh; then the refs and the worktree back as they were
repin_back() {
	TO=$1 sh "$TOP/series/repin.sh" >out 2>err; rc=$?
	cat out err
	nb=$(git -C "$WORKTREE" rev-parse "$REF_NS/base"); nh=$(git -C "$WORKTREE" rev-parse "$REF_NS/series")
	git -C "$WORKTREE" update-ref "$REF_NS/base" "$BASE" && git -C "$WORKTREE" update-ref "$REF_NS/series" "$HEAD" &&
		git -C "$WORKTREE" checkout -q --detach "$HEAD" && [ $rc = 0 ]
}

test_expect_success 'a conflict names the file and hunk; pin, refs and worktree unchanged' '
	to=$(new_kernel "s/^\tALTERNATIVE \"jmp memcpy_orig\", \"\", X86_FEATURE_FSRM$/\tALTERNATIVE \"jmp memcpy_orig\", \"nop\", X86_FEATURE_FSRM/") &&
	TO=$to expect_fail sh "$TOP/series/repin.sh" &&
	cat out &&
	grep -q "^upstream  *0001-" out && grep -q "^conflict  *.*REP-MOVSB.* arch/x86/lib/memcpy_64.S hunk 1" out &&
	grep_err "1 patch\\(es\\) conflict" &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/base")" = "$BASE" ] &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/series")" = "$HEAD" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain --untracked-files=no)" ]
'

test_expect_success 'offsets and an upstream patch: re-pinned, refs moved' '
	to=$(new_kernel "1i /* three */\n/* new */\n/* lines */") &&
	repin_back "$to" &&
	grep -q "^upstream  *0001-.* reverse-applies" out &&
	grep -q "^applies-offset  *.*REP-MOVSB.* offset 3 lines ; the new base changes arch/x86/lib/memcpy_64.S under it$" out &&
	[ "$(grep -c "^applies " out)" -ge 1 ] &&
	# what the new base changed under each patch, and the figures to measure again
	grep -q "^applies  *0002-.* the new base changes mm/mm_init.c under it$" out &&
	! grep -q "^applies  *0005-.*under it" out &&
	grep -q "figures: the changelogs. figures were measured on $(printf %.12s "$BASE"), and the new base changes files under [0-9]* patch(es) (status above): measure them again on this base before posting: make" err &&
	[ "$nb" = "$to" ] &&
	[ "$(git -C "$WORKTREE" rev-list --count "$to..$nh")" = "$(($(awk "!/^#/ && \$2 == \"applied\"" "$TOP/patches/series" | wc -l) - 1))" ]
'
test_expect_success 'fuzz: a changed context line is applies-fuzz with its fuzz, never a clean applies' '
	to=$(new_kernel "s|could/should do much better|could do much better|") &&
	repin_back "$to" &&
	grep -q "^applies-fuzz  *.*REP-MOVSB.* fuzz 1" out &&
	! grep -q "^applies  *.*REP-MOVSB" out && [ "$nb" = "$to" ] &&
	git -C "$WORKTREE" show "$nh:arch/x86/lib/memcpy_64.S" >m.S &&
	grep -q "could do much better" m.S && grep -q "ALTERNATIVE_2 \"jmp memcpy_orig\"" m.S
'

test_expect_success 'TO_DEBIAN: an unknown version fails at the download; nothing changes' '
	pin=$(sha256sum <"$TOP/series/pin.conf") && link=$(git -C "$TOP" ls-files -s kernel-tree) &&
	TO_DEBIAN=0.0-no-such-version expect_fail sh "$TOP/series/repin.sh" &&
	grep_err "^repin: download: .apt-get download linux-source-6.12=0.0-no-such-version. failed" &&
	! grep -q usage "$SCRATCH/err" &&
	[ "$(sha256sum <"$TOP/series/pin.conf")" = "$pin" ] &&
	[ "$(git -C "$TOP" ls-files -s kernel-tree)" = "$link" ] &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/base")" = "$BASE" ] &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/series")" = "$HEAD" ]
'
# nothing moved: the refs, the worktree (clean, at the series head), the pin
repin_unchanged() {
	gd=$(git -C "$WORKTREE" rev-parse --absolute-git-dir) &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/base")" = "$BASE" ] &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/series")" = "$HEAD" ] &&
	[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$HEAD" ] &&
	[ -z "$(git -C "$WORKTREE" status --porcelain)" ] &&
	[ ! -e "$gd/rebase-apply" ] && [ ! -e "$gd/x86-copy-series-am" ] &&
	[ "$(sha256sum <"$TOP/series/pin.conf")" = "$pin" ] && [ -z "$(ls -d "$TOP"/scripts/.pin.conf.* 2>/dev/null)" ]
}

test_expect_success 'TO with TO_DEBIAN, a TO_DEBIAN that is no version, TO_DEBIAN with KERNEL_TREE: usage errors' '
	pin=$(sha256sum <"$TOP/series/pin.conf") &&
	for v in "TO=$BASE TO_DEBIAN=6.12.115-2~deb12u1" "TO_DEBIAN=6.12;rm" "TO_DEBIAN=../x" \
		"TO_DEBIAN=6.12.115-2~deb12u1 KERNEL_TREE=$TOP/kernel-tree"; do
		rc=0; env $v sh "$TOP/series/repin.sh" 2>err || rc=$?; cat err
		[ $rc = 2 ] && grep -q "^repin: usage: " err || exit 1
	done && repin_unchanged
'

test_expect_success 'TERM in the middle of a repin: refs, worktree and pin as they were' '
	pin=$(sha256sum <"$TOP/series/pin.conf") &&
	to=$(new_kernel "1i /* three */\n/* new */\n/* lines */") && mkdir hooks &&
	cat >hooks/pre-applypatch <<-EOF &&
	#!/bin/sh
	echo x >>"$SCRATCH/count"
	[ "\$(wc -l <"$SCRATCH/count")" = 3 ] || exit 0
	f=\$(sed -n "s|^+++ b/||p" "\$(git rev-parse --git-path rebase-apply/patch)" | head -n 1)
	head -c 1000 "\$f" >"\$f.half" && mv "\$f.half" "\$f"
	kill -TERM \$(awk "{ print \\\$4 }" /proc/\$PPID/stat)
	# repin.sh takes the TERM when this git am ends: no fourth patch
	sleep 1
	EOF
	chmod +x hooks/pre-applypatch &&
	{ rc=0; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=$SCRATCH/hooks \
		TO=$to sh "$TOP/series/repin.sh" >out 2>err || rc=$?; } && cat out err &&
	[ $rc = 143 ] && [ "$(wc -l <count)" = 3 ] && repin_unchanged
'
done_testing
