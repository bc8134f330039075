# build/walk.sh: the build directory that build/build.sh walks along the
# series (its lock, its worktree, which configuration's directory, the
# files of a commit's own build, the walk's file times).  Sourced by
# build.sh in place, after its settings; POSIX sh.
# shellcheck disable=SC2154,SC2034 # build.sh's variables, read and set for it

# The build walks the series as a kernel developer's does: one build
# directory per configuration, $OUT/kbuild/<key of the settings>, in
# which each commit is built in turn, kbuild remaking what changed since
# the commit built there before (along the series: a change to
# mm/mm_init.c, one object and the link).  That is sound for any commit
# built before, not only the parent: every file that differs from what
# an object was made of was written by git after it (a checkout), so
# make sees it newer, and kbuild remakes what a changed command line,
# option or removed header reaches.  KBUILD_BUILD_VERSION fixes the one
# counter a rebuild in place would otherwise bump (uname -v), so the
# kernel is the one a build from nothing makes.  The directory keeps its
# path (objtool is built with it, and every object depends on objtool);
# each commit's build is a copy of it, $OUT/build/<commit> (cp -a: never
# links, make writes objects in place).
BUILD_TREE=$OUT/kbuild/tree
btgit() {
	git -C "$BUILD_TREE" "$@"
}

# build_tree_take: this run is the only build (flock on
# $OUT/kbuild/tree.lock, let go by the kernel when the run ends, SIGKILL
# included; or refused, naming the holder), and $BUILD_TREE is a clean
# worktree of the kernel repository: made when missing, made again when
# it belongs to another repository (KERNEL_TREE changed)
build_tree_take() {
	mkdir -p "$OUT/kbuild" || die "build: cannot create $OUT/kbuild"
	no_link "$BUILD_TREE.lock" && command exec 7>>"$BUILD_TREE.lock" ||
		die "build: cannot open $BUILD_TREE.lock"
	if ! flock -n 7; then
		bt_pid=''
		read -r bt_pid _ <"$BUILD_TREE.lock" 2>/dev/null || true
		die "build: another build is running (pid ${bt_pid:-unknown}, $BUILD_TREE.lock): wait for it to end; nothing changed"
	fi
	printf '%s build\n' "$(proc_owner)" >"$BUILD_TREE.lock"
	bt_mine=$(cd "$(kernel_repo)" && cd "$(git rev-parse --git-common-dir)" && pwd -P) ||
		die "repo: '$(kernel_repo)' is not a git repository"
	if [ -e "$BUILD_TREE/.git" ]; then
		bt_common=$(cd "$BUILD_TREE" && cd "$(git rev-parse --git-common-dir 2>/dev/null)" 2>/dev/null && pwd -P) || bt_common=
		if [ "$bt_common" != "$bt_mine" ]; then
			progress build "$BUILD_TREE is not a worktree of $(kernel_repo): making it again"
			rm -rf "$BUILD_TREE"
		fi
	fi
	if [ ! -e "$BUILD_TREE/.git" ]; then
		rm -rf "$BUILD_TREE"
		kgit worktree prune
		progress build "creating the builds' worktree $BUILD_TREE"
		kgit worktree add -q --detach "$BUILD_TREE" "$(base_commit)" ||
			die "build: cannot create the worktree $BUILD_TREE (disk full?)"
	fi
	# a build killed in the middle of a checkout leaves files half
	# written: the tree is the toolkit's, made clean again
	[ -z "$(btgit status --porcelain --untracked-files=no)" ] || {
		progress build "$BUILD_TREE has changes no build made (an interrupted checkout?): resetting it"
		btgit checkout -q -f HEAD || die "build: cannot reset $BUILD_TREE"
	}
}

walk_dir() {
	printf '%s/kbuild/%s\n' "$OUT" "$(settings | sha256sum | cut -c1-12)"
}

# walk_take W: W made ready for a build (the caller holds the builds'
# lock): a build that a kill cut short (its marker W/.building names a
# run that is gone) is cleaned: what it wrote, all newer than its marker,
# is removed, so that no object cut in the middle of its write passes
# for up to date
#
# W/.checkout names the commit last checked out for W.  A build that
# failed or was cut leaves no W/.commit, and objects of that commit and
# the one before: while the tree is still at that commit, the next build
# walks from it (what the checkout rewrites is remade); once another
# configuration's build moved the tree (and set its file times), what W
# holds is not known, and W is emptied: a build from nothing
walk_take() {
	mkdir -p "$1" || die "build: cannot create $1"
	if [ -f "$1/.building" ]; then
		progress build "cleaning up after an interrupted build in $1 ($(cat "$1/.building"))"
		find "$1" -newer "$1/.building" -type f -delete 2>/dev/null || true
		rm -f "$1/.building" "$1/.commit"
	fi
	if [ ! -f "$1/.commit" ] && [ -f "$1/.checkout" ]; then
		if [ "$(cat "$1/.checkout")" = "$(btgit rev-parse HEAD)" ]; then
			cp "$1/.checkout" "$1/.commit" || die "build: cannot write $1/.commit"
		else
			progress build "$1 holds a build that failed or was cut, and the tree has moved since: emptied, built from nothing"
			find "$1" -mindepth 1 -delete || die "build: cannot empty $1"
		fi
	fi
}

# The files of a build directory that are its commit's own, not kbuild's
OWN_FILES='stamp result seconds build.log warnings.txt warnings-by-target.txt new-warnings.txt
	records.jsonl reused-from walked-from compiled.txt build-id.json'

# build_id O: O/build-id.json, what every record of a measurement of this
# kernel names as its build (doc/records.md): the configuration's name
# and fragment, the optimisation level, HZ, the compiler, the CPU
# mitigations compiled in, and the sha256 of .config and bzImage.  From
# .config as kconfig wrote it: CC_VERSION_TEXT is a quoted string whose
# escapes (\" and \\) are JSON's too.
build_id() {
	bi_o=$1
	awk -v kconfig="$KCONFIG_NAME" \
	    -v frag="$(sha256sum <"$FRAGMENT" | cut -d' ' -f1)" \
	    -v cfgsum="$(sha256sum <"$bi_o/.config" | cut -d' ' -f1)" \
	    -v bzsum="$(sha256sum <"$bi_o/arch/x86/boot/bzImage" | cut -d' ' -f1)" '
	/^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y$/ { opt = "-O2" }
	/^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE_O3=y$/ { opt = "-O3" }
	/^CONFIG_CC_OPTIMIZE_FOR_SIZE=y$/ { opt = "-Os" }
	/^CONFIG_HZ=[0-9]+$/ { hz = substr($0, 11) }
	/^CONFIG_CC_VERSION_TEXT=".*"$/ { cc = substr($0, 24) }
	/^CONFIG_CPU_MITIGATIONS=y$/ { cpu_mit = 1 }
	/^CONFIG_MITIGATION_[A-Z0-9_]+=y$/ {
		m = $0; sub(/^CONFIG_MITIGATION_/, "", m); sub(/=y$/, "", m)
		mit = mit (mit == "" ? "" : " ") tolower(m)
	}
	END {
		if (opt == "" || hz == "" || cc == "")
			exit 1
		printf "{\"kconfig\":\"%s\",\"fragment_sha256\":\"%s\",\"opt\":\"%s\",\"hz\":%s,", kconfig, frag, opt, hz
		printf "\"cc\":%s,\"mitigations\":\"%s\",\"config_sha256\":\"%s\",\"bzimage_sha256\":\"%s\"}\n",
			cc, cpu_mit ? (mit == "" ? "cpu_mitigations" : mit) : "none", cfgsum, bzsum
	}' "$bi_o/.config" >"$bi_o/build-id.json.tmp" && mv "$bi_o/build-id.json.tmp" "$bi_o/build-id.json"
}

# config_into O: O/.config for the commit checked out, as kconfig_fragment
# makes it, made aside and copied in only when it differs from O's: an
# unchanged .config leaves every object valid
config_into() {
	ci_o=$1
	rm -rf "$ci_o.kconfig"
	# shellcheck disable=SC2046 # llvm_arg: LLVM=1 or nothing
	kconfig_fragment "$BUILD_TREE" "$ci_o.kconfig" "$FRAGMENT" $(llvm_arg) || return 1
	if ! cmp -s "$ci_o.kconfig/.config" "$ci_o/.config"; then
		cp "$ci_o.kconfig/.config" "$ci_o/.config" || return 1
	fi
	rm -rf "$ci_o.kconfig"
}

# walk_times WALKED HEAD COMMIT: the tree's file times as the walk
# directory needs them, after a checkout from HEAD to COMMIT when the
# tree was last checked out for another walk directory (another
# configuration) than this one, whose last build was of WALKED: a file
# the checkout rewrote with what WALKED has gets an old time back (its
# objects here are of that content: nothing to remake), and every file
# that differs from WALKED is made newer than the objects here, whatever
# the checkout did with it
walk_times() {
	[ -n "$1" ] && [ "$1" != "$2" ] || return 0
	# (removed first: a link put at one of those names is not written through)
	rm -f "$OUT/kbuild/.differs" "$OUT/kbuild/.rewritten" &&
		btgit diff --name-only "$1" "$3" -- >"$OUT/kbuild/.differs" &&
		btgit diff --name-only "$2" "$3" -- >"$OUT/kbuild/.rewritten" ||
		die "build: git diff in $BUILD_TREE failed"
	(
		cd "$BUILD_TREE" || exit 1
		grep -vxF -f "$OUT/kbuild/.differs" "$OUT/kbuild/.rewritten" | while IFS= read -r f; do
			[ ! -f "$f" ] || touch -h -d @1 -- "$f" || exit 1
		done &&
		while IFS= read -r f; do
			[ ! -f "$f" ] || touch -h -- "$f" || exit 1
		done <"$OUT/kbuild/.differs"
	) || die "build: cannot set the file times in $BUILD_TREE"
	rm -f "$OUT/kbuild/.differs" "$OUT/kbuild/.rewritten"
}
