#!/bin/sh
# kernel-tree.sh refuses bad input with a clear error and changes nothing:
# a pin of a version the archive lacks, a tarball with the wrong checksum, a non-empty
# non-repository directory, a kernel-tree with local changes, one that lacks
# the pinned commit.  Each runs on a scratch copy of the toolkit.  And the
# import itself, on a small tarball: the tree a plain 'git add' gives,
# packed, and no gc left running behind it.
. "$(dirname "$0")/lib.sh"
PIN=$(git -C "$TOP" ls-files -s kernel-tree | cut -d" " -f2)
[ -n "$PIN" ] || bail "no kernel-tree gitlink in $TOP"

# a scratch toolkit: scripts/, series/, a gitlink, an empty kernel-tree/
toolkit() {
	mkdir -p tk/kernel-tree && cp -r "$TOP/scripts" "$TOP/series" tk/ &&
	git init -q tk && git -C tk update-index --add --cacheinfo "160000,$PIN,kernel-tree"
}

# nothing was created: kernel-tree still empty, no import or worktree left
unchanged() {
	[ -z "$(ls -A tk/kernel-tree)" ] && [ ! -e out/tree ] &&
	! find out -maxdepth 1 -name '*import*' 2>/dev/null | grep -q .
}

test_expect_success 'a tarball with the wrong sha256 is refused, nothing changes' '
	toolkit && mkdir -p fake/linux && echo x >fake/linux/Makefile &&
	tar -cJf fake.tar.xz -C fake linux &&
	OUT=$SCRATCH/out WORKTREE=$SCRATCH/out/tree PIN_TARBALL_OVERRIDE=$SCRATCH/fake.tar.xz expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "tarball: sha256 of .*fake.tar.xz. is [0-9a-f]{64}, expected 585a4a07" &&
	grep_err "reinstall linux-source-6.12=6.12.117-1~deb12u1" && unchanged
'

test_expect_success 'a pin of another version than the installed package: downloaded, never installed; a version the archive lacks fails there; a cached tarball that is not the pin is named; nothing changes' '
	toolkit && sed -i "s/^PIN_VERSION=.*/PIN_VERSION=6.12.999-1/" tk/series/pin.conf &&
	before=$(dpkg-query -W -f "\${Version}" linux-source-6.12 2>/dev/null || echo none) &&
	OUT=$SCRATCH/o WORKTREE=$SCRATCH/o/tree expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "linux-source-6.12 6.12.999-1 is not installed.*downloading it into $SCRATCH/o/pin/6.12.999-1, not installing it" &&
	grep_err "download: .apt-get download linux-source-6.12=6.12.999-1. failed" &&
	[ "$(dpkg-query -W -f "\${Version}" linux-source-6.12 2>/dev/null || echo none)" = "$before" ] &&
	unchanged && [ -z "$(ls -A o | grep -v "^pin\$")" ] && [ ! -e o/pin/6.12.999-1/linux-source-6.12.tar.xz ] &&
	mkdir -p fake/linux o/pin/6.12.999-1 && echo x >fake/linux/Makefile &&
	tar -cJf o/pin/6.12.999-1/linux-source-6.12.tar.xz -C fake linux &&
	OUT=$SCRATCH/o WORKTREE=$SCRATCH/o/tree expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "tarball: sha256 of .*o/pin/6.12.999-1/linux-source-6.12.tar.xz. is [0-9a-f]{64}, expected 585a4a07.*: not the pinned source; remove it: it is downloaded again" &&
	unchanged
'

test_expect_success 'a non-empty kernel-tree that is not a repository is left alone' '
	toolkit && echo mine >tk/kernel-tree/notes &&
	OUT=$SCRATCH/out WORKTREE=$SCRATCH/out/tree expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "is not empty and not a git repository" &&
	[ "$(cat tk/kernel-tree/notes)" = mine ] && [ ! -e out/tree ]
'

# a kernel-tree that shares the real one objects, with only Makefile
# checked out (sparse), so the test takes seconds, not a full checkout
sparse_clone() {
	rmdir tk/kernel-tree &&
	git clone -q --shared --no-checkout "$TOP/kernel-tree" tk/kernel-tree &&
	git -C tk/kernel-tree sparse-checkout set --no-cone /Makefile &&
	git -C tk/kernel-tree checkout -q --detach "$PIN"
}

test_expect_success 'a kernel-tree with local changes is refused and kept as it is' '
	toolkit && sparse_clone && echo "# mine" >>tk/kernel-tree/Makefile &&
	OUT=$SCRATCH/out WORKTREE=$SCRATCH/out/tree expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "kernel-tree: .*has local changes" &&
	tail -n 1 tk/kernel-tree/Makefile | grep -qx "# mine" && [ ! -e out/tree ]
'

test_expect_success 'a kernel-tree without the pinned commit is refused' '
	toolkit && mkdir other && git -C other init -q && echo a >other/f &&
	git -C other add f && git -C other -c user.name=a -c user.email=a@b commit -qm x &&
	rmdir tk/kernel-tree && git clone -q other tk/kernel-tree &&
	OUT=$SCRATCH/out WORKTREE=$SCRATCH/out/tree expect_fail sh tk/series/kernel-tree.sh &&
	grep_err "lacks the pinned commit $PIN" && [ ! -e out/tree ]
'
# import_tarball (lib.sh) on a tarball of 500 files, an empty one, an
# executable, a symlink and Debian's .gitignore that ignores everything:
# the same tree as a plain 'git add' of it, every object in a pack, and
# no gc started (gc.auto=1 in the environment: without the import's own
# gc.auto=0 its commit would start one), none of gc's files left behind
test_expect_success 'the import: the tree of a plain git add, packed, no gc behind it' '
	toolkit && mkdir -p src/linux/d/e &&
	printf "*\n" >src/linux/.gitignore && : >src/linux/empty &&
	printf "#!/bin/sh\n" >src/linux/run && chmod +x src/linux/run &&
	ln -s d/e src/linux/link &&
	i=0 && while [ $i -lt 500 ]; do echo "$i" >src/linux/d/e/f$i; i=$((i + 1)); done &&
	tar -cJf k.tar.xz -C src linux &&
	printf ". \"\$(dirname \"\$0\")/lib.sh\"\nimport_tarball \"\$@\"\n" >tk/scripts/imp.sh &&
	GIT_TRACE=$SCRATCH/trace GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=1 \
		GIT_CONFIG_KEY_1=gc.autoDetach GIT_CONFIG_VALUE_1=false \
		sh tk/scripts/imp.sh "$SCRATCH/imp" k.tar.xz 1.0 0123 2026-11-14T12:56:01Z 2>err &&
	cat err && grep -q "import: committing 503 files" err &&
	mkdir plain && tar -xJf k.tar.xz --strip-components=1 -C plain &&
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C plain init -q &&
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C plain add -f -A . &&
	[ "$(git -C imp rev-parse HEAD^{tree})" = "$(git -C plain write-tree)" ] &&
	[ -z "$(git -C imp status --porcelain --untracked-files=no)" ] &&
	git -C imp count-objects -v >count && cat count && grep -qx "count: 0" count &&
	grep -qx "in-pack: 508" count && git -C imp fsck --strict --no-progress &&
	! grep "built-in: git gc" trace && ! ls imp/.git | grep "^gc"
'
done_testing
