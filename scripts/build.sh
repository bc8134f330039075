#!/bin/sh
# build.sh: build the base and every series commit, each in its own
# O=out/build/<commit>, with tinyconfig + bench-vm/kernel.config, through
# ccache.  Reports per commit: builds or not, the time taken, and compiler
# and objtool warnings that are new against its parent.
#
#   build.sh [COMMIT...]      default: the base and base..series
#
# A commit whose stamp (commit id, fragment, compiler, make flags) matches
# is not rebuilt, so a second run with nothing changed does nothing.
set -eu
. "$(dirname "$0")/lib.sh"

# FRAGMENT=<file>: another fragment (bench-vm/kasan.sh passes
# kernel.config with kasan.config appended)
FRAGMENT=${FRAGMENT:-$TOP/bench-vm/kernel.config}
JOBS=${JOBS:-$(nproc)}
BUILD_TARGETS=${BUILD_TARGETS:-bzImage}

# the worktree it checks commits out in must be the kernel repository's
worktree_check
[ -r "$FRAGMENT" ] || die "config: $FRAGMENT is missing"
command -v ccache >/dev/null || die "ccache: not installed: run 'make deps'"
base=$(base_commit)

commits=$(commit_list "$@") || exit 1

# The stamp: everything that decides what a build produces besides the
# commit id itself.
stamp_of() {
	{
		echo "commit $1"
		echo "fragment $(sha256sum <"$FRAGMENT" | cut -d' ' -f1)"
		echo "cc $(gcc --version | head -n 1)"
		echo "targets $BUILD_TARGETS"
	}
}

# Compiler and objtool warnings, with line and column numbers and code
# offsets removed, so that moving code does not make a warning "new".
warnings_of() {
	grep -E '(warning|error):' "$1" |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/; s/\+0x[0-9a-f]+//g' |
		LC_ALL=C sort || true
}

# build_one COMMIT: 0 built, 1 failed; writes result, time and warnings
build_one() {
	c=$1
	o=$OUT/build/$c
	rm -rf "$o"
	mkdir -p "$o"
	wgit checkout -q --detach "$c"
	start=$(date +%s)
	rc=0
	{
		kconfig_fragment "$WORKTREE" "$o" "$FRAGMENT" &&
		make -C "$WORKTREE" O="$o" -j"$JOBS" CC="ccache gcc" \
			KBUILD_BUILD_TIMESTAMP="$PIN_DATE" KBUILD_BUILD_USER=x86-copy-series \
			KBUILD_BUILD_HOST=build $BUILD_TARGETS
	} >"$o/build.log" 2>&1 || rc=$?
	echo $(( $(date +%s) - start )) >"$o/seconds"
	warnings_of "$o/build.log" >"$o/warnings.txt"
	if [ $rc = 0 ]; then
		stamp_of "$c" >"$o/stamp"
		echo ok >"$o/result"
	else
		echo fail >"$o/result"
	fi
	return $rc
}

# Every commit builds in its own O= directory, but from the same worktree
# path: without the directory in ccache's hash, a file whose preprocessed
# text did not change is a hit in every commit's build, and a commit whose
# tree did not change at all (a changelog edit, a trailer) rebuilds from
# the cache.  Nothing of the directory lands in the objects: the config
# has no debug info.
CCACHE_NOHASHDIR=1
export CCACHE_NOHASHDIR

[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
	die "worktree: $WORKTREE has local changes: commit or discard them first (git -C $WORKTREE status)"
orig=$(wgit rev-parse HEAD)
trap 'wgit checkout -q --detach "$orig" 2>/dev/null || true' EXIT INT TERM

n=$(echo $commits | wc -w)
i=0
failed=0
parent=""
# The summary of the whole series; a run on chosen commits (make ci
# builds one at a time) prints its own and leaves the series' alone.
summary=$OUT/build/summary.txt
[ $# = 0 ] || summary=$OUT/build/summary-$$.txt
mkdir -p "$OUT/build"
printf '%-12s %-6s %6s %5s %5s  %s\n' commit result secs warn new subject >"$summary.tmp"
for c in $commits; do
	i=$((i + 1))
	short=$(printf %.12s "$c")
	subj=$(kgit log -1 --format=%s "$c")
	o=$OUT/build/$c
	if [ -f "$o/stamp" ] && [ "$(stamp_of "$c")" = "$(cat "$o/stamp")" ] &&
	   [ -f "$o/arch/x86/boot/bzImage" ]; then
		progress "build $i/$n" "$short up to date: $subj"
	else
		progress "build $i/$n" "$short building: $subj (log: $o/build.log)"
		if build_one "$c"; then
			progress "build $i/$n" "$short built in $(cat "$o/seconds")s"
		else
			failed=$((failed + 1))
			tail -n 20 "$o/build.log" >&2
			progress "build $i/$n" "$short FAILED after $(cat "$o/seconds")s (log: $o/build.log)"
		fi
	fi
	# new warnings against the parent build (the previous commit here)
	if [ -n "$parent" ] && [ -f "$OUT/build/$parent/warnings.txt" ]; then
		LC_ALL=C comm -13 "$OUT/build/$parent/warnings.txt" "$o/warnings.txt" >"$o/new-warnings.txt"
	else
		: >"$o/new-warnings.txt"
	fi
	if [ -s "$o/new-warnings.txt" ]; then
		warn "$short adds $(wc -l <"$o/new-warnings.txt") warning(s):"
		sed 's/^/  /' "$o/new-warnings.txt" >&2
	fi
	printf '%-12s %-6s %6s %5s %5s  %s\n' "$short" "$(cat "$o/result")" \
		"$(cat "$o/seconds")" "$(wc -l <"$o/warnings.txt")" \
		"$(wc -l <"$o/new-warnings.txt")" "$subj" >>"$summary.tmp"
	parent=$c
done
mv "$summary.tmp" "$summary"
cat "$summary"
[ $# = 0 ] || rm -f "$summary"
[ $failed = 0 ] || die "bisect: $failed of $n commits do not build: the series does not bisect"
