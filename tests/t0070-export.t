#!/bin/sh
# make export: patches/ regenerated from the series commits; applying the
# export gives identical commits (round trip); the committed patches/ is
# what export writes (a fixpoint); VERSION=N numbers [PATCH vN k/N]; the
# Message-Ids are the sender's domain's and differ per sender, version and
# content, and an export again keeps them; bad options and a failed write
# leave the destination as it was.
. "$(dirname "$0")/lib.sh"
need tool:series-check
need series
HEAD=$SERIES_HEAD

test_expect_success 'export, then apply the export: the same commit ids' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" &&
	"$BIN/series-check" p/series &&
	PATCHES=$SCRATCH/p SERIES_REF=$REF_NS/roundtrip sh "$TOP/series/apply.sh" &&
	[ "$(git -C "$WORKTREE" rev-parse "$REF_NS/roundtrip")" = "$HEAD" ] &&
	git -C "$WORKTREE" update-ref -d "$REF_NS/roundtrip" &&
	git -C "$WORKTREE" checkout -q --detach "$HEAD"
'

test_expect_success 'the committed patches/ is exactly what export writes' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" &&
	diff -r -x upstream "$TOP/patches" p
'

test_expect_success 'VERSION=2: [PATCH v2 k/N], v2 Message-Ids for every mail, a carried one its original as Link:' '
	VERSION=2 PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" &&
	grep -q "^Subject: \[PATCH v2 0/[0-9]*\]" p/0000-cover-letter.mbox &&
	d=$(sed -n "s/^From: .*@\(.*\)>\$/\1/p" p/0000-cover-letter.mbox) && [ -n "$d" ] &&
	t=$(sed -n "s/^Message-Id: <x86-copy-series-v2-0-\([0-9a-f]\{12\}\)@.*/\1/p" p/0000-cover-letter.mbox) && [ -n "$t" ] &&
	grep -qxF "Message-Id: <x86-copy-series-v2-0-$t@$d>" p/0000-cover-letter.mbox &&
	grep -l "^Subject: \[PATCH v2 1/" p/0001-*.mbox &&
	grep -qxF "Message-Id: <x86-copy-series-v2-1-$t@$d>" p/0001-*.mbox &&
	f=$(ls p/*REP-MOVSB*.mbox) && k=$(basename "$f" | sed "s/^0*\([0-9]*\)-.*/\1/") &&
	grep -qxF "Message-Id: <x86-copy-series-v2-$k-$t@$d>" "$f" &&
	grep -qx "Link: https://lore.kernel.org/r/20261013100442.2658311-1-usama.arif@linux.dev" "$f" &&
	! grep -q "^Message-Id: <[^x]" p/*.mbox &&
	grep -qxF "In-Reply-To: <x86-copy-series-v2-0-$t@$d>" "$f" &&
	grep -q "^base-commit: $(git -C "$WORKTREE" rev-parse "$REF_NS/base")" p/0000-cover-letter.mbox
'

# Two maintainers posting the same series, one of them two versions or
# an edited cover: every Message-Id differs (lore keeps one mail an id);
# the same export twice (the dry run, then the real send): the same ids.
test_expect_success 'Message-Ids: the sender'"'"'s domain; another sender, version or cover text, other ids; an export again, the same' '
	ids() { sed -n "s/^Message-Id: //p" "$1"/*.mbox | sort; } &&
	FROM="Ann <ann@one.example>" PATCHES_OUT=$SCRATCH/a sh "$TOP/series/export.sh" &&
	FROM="Ann <ann@one.example>" PATCHES_OUT=$SCRATCH/a2 sh "$TOP/series/export.sh" &&
	FROM="Bob <bob@two.example>" PATCHES_OUT=$SCRATCH/b sh "$TOP/series/export.sh" &&
	FROM="Ann <ann@one.example>" VERSION=9 PATCHES_OUT=$SCRATCH/v sh "$TOP/series/export.sh" &&
	[ "$(ids a | grep -c "@one.example>$")" = 8 ] && [ "$(ids b | grep -c "@two.example>$")" = 8 ] &&
	[ "$(ids a)" = "$(ids a2)" ] &&
	[ -z "$({ ids a; ids b; ids v; } | sort | uniq -d)" ] &&
	cp -r "$TOP/patches" c && sed -i "0,/^\$/b; /^-- \$/i An edit of the cover." c/0000-cover-letter.mbox &&
	! cmp -s "$TOP/patches/0000-cover-letter.mbox" c/0000-cover-letter.mbox &&
	FROM="Ann <ann@one.example>" PATCHES=$SCRATCH/c PATCHES_OUT=$SCRATCH/c2 sh "$TOP/series/export.sh" &&
	[ -z "$({ ids a; ids c2; } | sort | uniq -d)" ]
'

# A stale shortlog and diffstat in the cover letter (an edit after the
# last export, a dropped patch) are replaced by format-patch's own.
test_expect_success 'the cover letter: shortlog and diffstat of the commits, whatever the old ones said' '
	cp -r "$TOP/patches" stale &&
	sed -i "s/^\( [0-9]* files\? changed\).*/\1, 1 insertion(+), 1 deletion(-)/; s/^\(.*\) (\([0-9]*\)):\$/\1 (9\2):/" stale/0000-cover-letter.mbox &&
	! diff -q "$TOP/patches/0000-cover-letter.mbox" stale/0000-cover-letter.mbox &&
	PATCHES=$SCRATCH/stale PATCHES_OUT=$SCRATCH/fresh sh "$TOP/series/export.sh" &&
	git -C "$WORKTREE" diff --stat "$REF_NS/base" "$REF_NS/series" | tail -n 1 >want &&
	grep -qxF "$(cat want)" fresh/0000-cover-letter.mbox &&
	! grep -q "^.* (9[0-9]*):\$" fresh/0000-cover-letter.mbox &&
	sed -i "/^ [0-9]* files\? changed/d" stale/0000-cover-letter.mbox &&
	PATCHES=$SCRATCH/stale PATCHES_OUT=$SCRATCH/nostat expect_fail sh "$TOP/series/export.sh" &&
	grep_err "cover: .* has no shortlog and diffstat" && [ ! -e nostat ]
'
# claims-lint on the mails as exported (its own tests: t0623)
test_expect_success 'a figure with no source in patches/figures: export refused, nothing written; relative paths lint as absolute ones' '
	cp -r "$TOP/patches" src && grep -v "^2 claim template/nd_pmem " src/figures >f && mv f src/figures &&
	PATCHES=$SCRATCH/src PATCHES_OUT=$SCRATCH/o expect_fail sh "$TOP/series/export.sh" &&
	grep_err "0002-.*: .495 ms. has no source in .*src/figures" &&
	grep_err "^export: claims: the figures of the export are refused .*; .*/o is unchanged" && [ ! -e o ] &&
	cp -r src src0 && PATCHES=$SCRATCH/src PATCHES_OUT=$SCRATCH/src expect_fail sh "$TOP/series/export.sh" &&
	diff -r src0 src &&
	cp -r "$TOP/patches" ok && PATCHES=ok PATCHES_OUT=okout sh "$TOP/series/export.sh" &&
	diff -r -x upstream "$TOP/patches" okout
'
test_expect_success 'VERSION that is no positive number, PATCHES_OUT that is a file: refused' '
	for v in 0 01 x 2a ""; do
		rc=0; VERSION=$v PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" 2>err || rc=$?
		[ -z "$v" ] && { [ $rc = 0 ] || exit 1; rm -rf p; continue; }
		cat err; [ $rc = 2 ] && grep -q "VERSION must be a positive number" err && [ ! -e p ] || exit 1
	done &&
	echo keep >file && rc=0 && PATCHES_OUT=$SCRATCH/file sh "$TOP/series/export.sh" 2>err || rc=$?;
	cat err; [ $rc = 2 ] && grep -q "PATCHES_OUT=.*file. is not a directory" err && [ "$(cat file)" = keep ]
'

test_expect_success 'a copy that fails half-way leaves PATCHES_OUT as it was' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" && cp -r p p0 && mkdir bin &&
	printf "#!/bin/sh\ncase \"\$*\" in */.export.*) echo \"cp: error writing: No space left on device (simulated)\" >&2; exit 1 ;; esac\nexec /bin/cp \"\$@\"\n" >bin/cp &&
	chmod +x bin/cp &&
	VERSION=2 PATH=$SCRATCH/bin:$PATH PATCHES_OUT=$SCRATCH/p expect_fail sh "$TOP/series/export.sh" &&
	grep_err "export: write: could not copy the export into .* is unchanged" &&
	diff -r p0 p && [ -z "$(ls -A p | grep "^\.export")" ]
'
# What an export killed outright (SIGKILL: no EXIT trap) leaves in
# PATCHES_OUT and TMPDIR: its stage and scratch with their owner file; the
# owner is a shell that has ended.  The next export removes them, and
# keeps a live run's, a fresh one with no owner yet, and a user's
# NAME.XXXXXX.old.
test_expect_success 'the stage and scratch of a killed export: removed by the next one, said; a live run'"'"'s kept' '
	PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" && mkdir tmp &&
	dead=$(sh -c ". \"$TOP/scripts/owner.sh\"; proc_owner") &&
	mkdir p/.export.dead01 tmp/xcs-export.dead02 p/.export.live03 p/.export.new004 p/.export.dead05.old &&
	echo "$dead" >p/.export.dead01/.owner && echo "$dead" >tmp/xcs-export.dead02/.owner &&
	echo "$dead" >p/.export.dead05.old/.owner && : >p/.export.dead01/0001-x.mbox &&
	printf "%s %s %s\n" $$ "$(sed "s/.*) //" /proc/$$/stat | cut -d" " -f20)" "$(cat /proc/sys/kernel/random/boot_id)" >p/.export.live03/.owner &&
	TMPDIR=$SCRATCH/tmp PATCHES_OUT=$SCRATCH/p sh "$TOP/series/export.sh" 2>err &&
	cat err && grep -q "removed $SCRATCH/p/.export.dead01: the stage of an export of a dead run (run ${dead%% *}, no longer alive)" err &&
	grep -q "removed $SCRATCH/tmp/xcs-export.dead02: the scratch directory of an export of a dead run" err &&
	[ ! -e p/.export.dead01 ] && [ ! -e tmp/xcs-export.dead02 ] &&
	[ -d p/.export.live03 ] && [ -d p/.export.new004 ] && [ -d p/.export.dead05.old ] &&
	[ -z "$(ls -A tmp)" ] && "$BIN/series-check" p/series
'

# The series with the placeholder identity where patches/ has the
# maintainer's, applied under refs of its own, then exported with FROM,
# and with no identity at all (no FROM, no git configuration).
test_expect_success 'identity: the placeholder becomes FROM (or the git identity); with none it stays' '
	ph="x86-copy-series <x86-copy-series@example.org>" && cp -r "$TOP/patches" ph &&
	me=$(sed -n "s/^From: //p" ph/0001-*.mbox) && [ "$me" != "$ph" ] &&
	for f in ph/*.mbox; do
		sed -i "s|^From: $me\$|From: $ph|; s|^Signed-off-by: $me\$|Signed-off-by: $ph|" "$f" || return 1
	done &&
	ns=$REF_NS-ident && git -C "$WORKTREE" update-ref "$ns/base" "$(git -C "$WORKTREE" rev-parse "$REF_NS/base")" &&
	REF_NS=$ns PATCHES=$SCRATCH/ph sh "$TOP/series/apply.sh" &&
	REF_NS=$ns PATCHES=$SCRATCH/ph FROM="Maint Ainer <m@example.org>" PATCHES_OUT=$SCRATCH/m sh "$TOP/series/export.sh" &&
	grep -qx "From: Maint Ainer <m@example.org>" m/0000-cover-letter.mbox &&
	grep -qx "From: Maint Ainer <m@example.org>" m/0001-*.mbox &&
	grep -qx "Signed-off-by: Maint Ainer <m@example.org>" m/0001-*.mbox &&
	grep -qx "^Message-Id: <x86-copy-series-v[0-9]*-1-[0-9a-f]\{12\}@example.org>" m/0001-*.mbox &&
	grep -q "^From: Li Zhe <lizhe.67@bytedance.com>" m/*fixed-size-fastpa*.mbox &&
	grep -q "^Signed-off-by: Li Zhe <lizhe.67@bytedance.com>" m/*fixed-size-fastpa*.mbox &&
	grep -qx "Signed-off-by: Maint Ainer <m@example.org>" m/*fixed-size-fastpa*.mbox &&
	! grep -l "$ph" m/*.mbox &&
	HOME=/nonexistent REF_NS=$ns PATCHES=$SCRATCH/ph PATCHES_OUT=$SCRATCH/n sh "$TOP/series/export.sh" &&
	grep -qx "From: $ph" n/0001-*.mbox && grep -qx "Signed-off-by: $ph" n/*fixed-size-fastpa*.mbox &&
	{ rc=0; REF_NS=$ns FROM="Maint Ainer" PATCHES_OUT=$SCRATCH/x sh "$TOP/series/export.sh" 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] && grep -q "is not one .Name <address>." err && [ ! -e x ] &&
	# a line break would be a header of its own (From:, Message-Id:)
	{ rc=0; REF_NS=$ns FROM="Maint Ainer <m@example.org>
X-Injected: 1" PATCHES_OUT=$SCRATCH/x sh "$TOP/series/export.sh" 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] && grep -q "the sender (FROM) has a line break or a control character" err && [ ! -e x ] &&
	for d in "b\$(id)" "b\"c" "-b.example" "b.example."; do
		{ rc=0; REF_NS=$ns FROM="M <m@$d>" PATCHES_OUT=$SCRATCH/x sh "$TOP/series/export.sh" 2>err || rc=$?; } &&
		[ $rc = 2 ] && grep -qF "is not a domain name" err && [ ! -e x ] || { cat err; echo "domain $d"; return 1; }
	done &&
	git -C "$WORKTREE" update-ref -d "$ns/series" && git -C "$WORKTREE" update-ref -d "$ns/base" &&
	git -C "$WORKTREE" checkout -q --detach "$HEAD"
'
done_testing
