#!/bin/sh
# build.sh: build one commit into its own O=out/build/<commit>, with the
# guest's configuration (KCONFIG: tinyconfig + its fragments), through
# ccache, walking the series in one build directory (walk_dir below):
# builds or not, the time taken, and compiler and objtool warnings that
# are new against its parent's build.  `make build` (ci/run.sh --view build) runs it on each
# commit and prints the table (build/build-step.sh).
#
#   build.sh [--results DIR] COMMIT
#   build.sh --check    FRAGMENT, JOBS and BUILD_TARGETS checked, then what
#                       decides a build besides the commit, a line each;
#                       nothing built (ci/steps.sh, before any step starts)
#
# A build is keyed by what it is made of: the commit's tree, the fragment,
# the compiler and the targets (its stamp).  A commit whose stamp matches
# is not rebuilt, so a second run with nothing changed does nothing; a
# commit whose tree another commit's build has (a changelog edit, a
# trailer: a new id, the same tree) gets that build, hard-linked (cp -al,
# seconds), its records saying "reused_from" (the commit first built).  The
# build records (suite build, case kernel: ok, seconds, warnings,
# new_warnings, and an error record when it does not build; doc/records.md)
# are written by record-write into --results DIR (make ci and the views
# give $OUT/ci/<commit>/build), else out/build/<commit>/records.jsonl.
# Exit 1 when the commit does not build.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
. "$TOP/build/kconfig.sh"
results='' check=''
if [ "${1:-}" = --results ]; then
	[ $# = 3 ] || usage_die "build.sh [--results DIR] COMMIT: one commit (make build COMMITS='...' for several)"
	results=$2
	shift 2
elif [ "${1:-}" = --check ]; then
	[ $# = 1 ] || usage_die "build.sh --check: no commits"
	check=1
else
	[ $# = 1 ] || usage_die "build.sh [--results DIR] COMMIT: one commit (make build COMMITS='...' for several)"
fi

# KCONFIG=distro|tiny: the guest's configuration (build/kconfig.sh,
# guest_fragment); FRAGMENT=<file>: another fragment, named KCONFIG_NAME
# in the build's identity (bench-vm/checked.sh passes the guest's with a
# variant's fragment appended)
if [ -z "${FRAGMENT:-}" ]; then
	FRAGMENT=$(guest_fragment) || exit
	KCONFIG_NAME=${KCONFIG:-distro}
fi
KCONFIG_NAME=${KCONFIG_NAME:-custom}
case $KCONFIG_NAME in *[!a-z0-9+_-]* | '') usage_die "KCONFIG_NAME: '$KCONFIG_NAME': a name of [a-z0-9+_-]" ;; esac
JOBS=${JOBS:-$(nproc)}
BUILD_TARGETS=${BUILD_TARGETS:-bzImage}
# BUILD_LLVM=1: clang and the LLVM tools (LLVM=1), as a sanitizer that
# only clang has needs (bench-vm/checked.sh kmsan); gcc otherwise
BUILD_LLVM=${BUILD_LLVM:-}
case $BUILD_LLVM in '' | 0 | 1) ;; *) usage_die "BUILD_LLVM: '$BUILD_LLVM' is not 1 (clang, LLVM=1) or 0 or empty (gcc)" ;; esac
case $JOBS in '' | *[!0-9]* | 0*) usage_die "JOBS: '$JOBS' is not a number of jobs, 1 or more" ;; esac
case $BUILD_TARGETS in *[!a-zA-Z0-9_./\ -]*) usage_die "BUILD_TARGETS: '$BUILD_TARGETS': only make targets, words of [a-zA-Z0-9_./-]" ;; esac
[ -r "$FRAGMENT" ] || die "config: $FRAGMENT is missing"

# the compiler, and LLVM=1 with clang (config_into passes it to Kconfig)
cc=gcc
[ "$BUILD_LLVM" != 1 ] || cc=clang
llvm_arg() {
	[ "$BUILD_LLVM" != 1 ] || echo LLVM=1
}

# settings: what decides a build besides the commit id (its stamp, below)
settings() {
	echo "kconfig $KCONFIG_NAME"
	echo "fragment $(sha256sum <"$FRAGMENT" | cut -d' ' -f1)"
	if [ "$BUILD_LLVM" = 1 ]; then
		echo "cc LLVM=1 $(clang --version | head -n 1)"
	else
		echo "cc $(gcc --version | head -n 1)"
	fi
	echo "targets $BUILD_TARGETS"
}
if [ -n "$check" ]; then
	settings
	exit 0
fi

command -v ccache >/dev/null || die "ccache: not installed: run 'make deps'"
tool_built record-write
# the base is checked first: a KERNEL_BASE it is not is refused
base_commit >/dev/null

c=$(commit_list "$1") || exit 1

# The stamp: everything that decides what a build produces; the commit
# id is not of it, its tree is.
stamp_of() {
	echo "tree $(tree_of "$1")"
	settings
}

# build_twin COMMIT: another commit's build directory of the same stamp
# (same tree and settings), built whole; nothing when there is none
build_twin() {
	bt_stamp=$(stamp_of "$1")
	for bt_d in "$OUT"/build/*/; do
		bt_d=${bt_d%/}
		[ "${bt_d##*/}" != "$1" ] && [ ! -L "$bt_d" ] || continue
		[ "$(cat "$bt_d/result" 2>/dev/null)" = ok ] && [ -f "$bt_d/arch/x86/boot/bzImage" ] ||
			continue
		stamp_fresh "$bt_d/stamp" "$bt_stamp" || continue
		echo "${bt_d##*/}"
		return 0
	done
}

# build_reuse FROM COMMIT: COMMIT's build directory as FROM's, its files
# hard links (a build is never changed in place: build_one removes the
# directory first).  What is the commit's own (stamp, result, seconds,
# warnings, log) is copied, so that writing it never writes FROM's;
# reused-from names the commit first built.  Whole or not at all: made
# aside, renamed in.
build_reuse() {
	br_from=$OUT/build/$1 br_o=$OUT/build/$2 br_tmp=$OUT/build/.$2.reuse
	br_first=$(cat "$br_from/reused-from" 2>/dev/null || echo "$1")
	# shellcheck disable=SC2086 # the file names, a word each
	rm -rf "$br_tmp" && cp -al "$br_from" "$br_tmp" &&
		(cd "$br_tmp" && rm -f $OWN_FILES) &&
		(cd "$br_from" && cp result seconds warnings.txt warnings-by-target.txt build.log \
			build-id.json compiled.txt stamp "$br_tmp/") &&
		echo "$br_first" >"$br_tmp/reused-from" &&
		rm -rf "$br_o" && mv "$br_tmp" "$br_o" || {
		rm -rf "$br_tmp"
		die "build: cannot link the build of $1 as $2's (disk full?)"
	}
}

# by_target LOG: what each step of the build printed that is a warning or
# an error, as "TARGET<TAB>FINDING", and "TARGET<TAB>" for each target
# it made: make runs with --output-sync=target, so a target's kbuild line
# ("  CC      mm/mm_init.o") and its compiler's messages come out together.
# A finding has its line and column numbers and code offsets removed, so
# that moving code does not make a warning "new", and the tree's path
# taken out as the compiler got it (absolute, or relative to the build
# directory: ccache_share), so that builds made either way compare.
by_target() {
	awk '/^  [A-Z][A-Z0-9_]* +(\[M\] +)?[^ ]+$/ { t = $NF; print t "\t"; next }
		/(warning|error):/ { print (t == "" ? "-" : t) "\t" $0 }' "$1" |
		tree_paths_out "$BUILD_TREE" "$w" |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/; s/\+0x[0-9a-f]+//g'
}

# the walk: one build directory per configuration, each commit built
# where the commit before it was (build/walk.sh)
# shellcheck source=walk.sh
. "$TOP/build/walk.sh"

# build_one COMMIT: 0 built, 1 failed: the commit built in the walk
# directory W, then W copied to $OUT/build/<commit> with the commit's own
# files (result, seconds, log, warnings; a failed build's directory has
# those alone).  W's warnings, W/.warnings-by-target, are the kernel's
# whole: those of the commit built before, the targets made again
# replaced by this build's.
build_one() {
	c=$1
	o=$OUT/build/$c w=$(walk_dir)
	walk_take "$w"
	walked=$(cat "$w/.commit" 2>/dev/null || true)
	rm -rf "$o" "$o.tmp"
	h=$(btgit rev-parse HEAD)
	btgit checkout -q --detach "$c" || die "build: git checkout $c in $BUILD_TREE failed"
	walk_times "$walked" "$h" "$c"
	rm -f "$w/.checkout" && echo "$c" >"$w/.checkout" || die "build: cannot write $w/.checkout (disk full?)"
	# the walk directory's own files, removed before they are written:
	# a link put at one of those names is never written through
	rm -f "$w/.building" "$w/.log" "$w/.by-target" "$w/.compiled" "$w/.warnings.new" \
		"$w/build-id.json.tmp"
	proc_owner >"$w/.building"
	rm -f "$w/.commit"
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2086,SC2046 # BUILD_TARGETS: make targets, a word each; llvm_arg: LLVM=1 or nothing
	{
		config_into "$w" &&
		make -C "$BUILD_TREE" O="$w" -j"$JOBS" --output-sync=target $(llvm_arg) CC="ccache $cc" HOSTCC="ccache $cc" \
			KBUILD_BUILD_TIMESTAMP="$PIN_DATE" KBUILD_BUILD_USER=x86-copy-series \
			KBUILD_BUILD_HOST=build KBUILD_BUILD_VERSION=1 $BUILD_TARGETS
	} >"$w/.log" 2>&1 || rc=$?
	seconds=$(( $(date +%s) - start ))
	# the warnings of the whole kernel
	by_target "$w/.log" >"$w/.by-target"
	awk -F '\t' '$2 == "" { print $1 }' "$w/.by-target" | LC_ALL=C sort -u >"$w/.compiled"
	{
		[ ! -f "$w/.warnings-by-target" ] || awk -F '\t' 'FILENAME == ARGV[1] { made[$0] = 1; next }
			!($1 in made)' "$w/.compiled" "$w/.warnings-by-target"
		awk -F '\t' '$2 != ""' "$w/.by-target"
	} | LC_ALL=C sort >"$w/.warnings.new" && mv "$w/.warnings.new" "$w/.warnings-by-target" ||
		die "build: cannot write $w/.warnings-by-target (disk full?)"
	rm -f "$w/.by-target" "$w/.building"
	[ $rc != 0 ] || build_id "$w" || {
		echo "$PROG: build: $w/.config lacks what build-id.json names (CC_OPTIMIZE_FOR_*, HZ, CC_VERSION_TEXT)" >>"$w/.log"
		rc=1
	}
	if [ $rc = 0 ]; then
		echo "$c" >"$w/.commit"
		cp -a "$w" "$o.tmp" || { rm -rf "$o.tmp"; die "build: cannot copy $w to $o.tmp (disk full?)"; }
		# shellcheck disable=SC2086 # the file names, a word each
		(cd "$o.tmp" && rm -f .commit .checkout .log .compiled .warnings-by-target $OWN_FILES)
	else
		mkdir -p "$o.tmp"
	fi
	echo "$seconds" >"$o.tmp/seconds" &&
		cp "$w/.log" "$o.tmp/build.log" && cp "$w/.compiled" "$o.tmp/compiled.txt" &&
		cp "$w/.warnings-by-target" "$o.tmp/warnings-by-target.txt" &&
		cut -f 2- "$w/.warnings-by-target" | LC_ALL=C sort >"$o.tmp/warnings.txt" &&
		{ [ -z "$walked" ] || echo "$walked" >"$o.tmp/walked-from"; } &&
		{ [ $rc != 0 ] || cp "$w/build-id.json" "$o.tmp/build-id.json"; } ||
		die "build: cannot write the files of $o.tmp (disk full?)"
	if [ $rc = 0 ]; then
		stamp_write "$o.tmp/stamp" "$(stamp_of "$c")"
		echo ok >"$o.tmp/result"
	else
		echo fail >"$o.tmp/result"
	fi
	mv "$o.tmp" "$o" || die "build: cannot move $o.tmp to $o"
	return $rc
}

# records COMMIT DIR: the build records of COMMIT into DIR/records.jsonl,
# written whole or not at all; a build reused from another commit says
# so in every record (reused_from: the commit first built)
records() {
	rc_c=$1 rc_dir=$2 rc_file=$2/records.jsonl rc_o=$OUT/build/$1
	mkdir -p "$2" && rm -f "$rc_file.tmp"
	ok=0
	[ "$(cat "$rc_o/result")" = ok ] && ok=1
	ru=$(cat "$rc_o/reused-from" 2>/dev/null || true)
	# a build that failed has no identity (no bzImage): only the records
	# of a kernel name one
	bid=
	[ $ok = 0 ] || bid=$(cat "$rc_o/build-id.json") ||
		die "records: $rc_o/build-id.json is missing: build $rc_c again (rm $rc_o/stamp)"
	for m in "ok count $ok" "seconds s $(cat "$rc_o/seconds")" \
		 "warnings count $(wc -l <"$rc_o/warnings.txt")" \
		 "new_warnings count $(wc -l <"$rc_o/new-warnings.txt")"; do
		# shellcheck disable=SC2086 # metric, unit and sample: three words
		set -- $m
		"$BIN/record-write" --to "$rc_file.tmp" --suite build --case kernel --metric "$1" \
			--unit "$2" --commit "$rc_c" ${ru:+--field "reused_from=$ru"} \
			${bid:+--json "build=$bid"} "$3" ||
			die_rc $? "records: $rc_file cannot be written"
	done
	[ $ok = 1 ] || "$BIN/record-write" --to "$rc_file.tmp" --suite build --case kernel \
		--metric error --unit count --commit "$rc_c" ${ru:+--field "reused_from=$ru"} \
		--error "the kernel does not build: $rc_o/build.log" ||
		die_rc $? "records: $rc_file cannot be written"
	# a build linked from another commit's ran nothing: built-from says
	# so beside the records, for the pipeline's estimate (ci/estimate.sh)
	if [ -n "$ru" ]; then
		printf '%s\n' "$ru" | write_file "$rc_dir/built-from" ||
			die "records: $rc_dir/built-from cannot be written (disk full?)"
	else
		rm -f "$rc_dir/built-from"
	fi
	mv "$rc_file.tmp" "$rc_file"
}

# Every commit builds from the same worktree path: without the build
# directory in ccache's hash, a file whose preprocessed text did not
# change is a hit in any build of this checkout, and with the paths
# relative, in a clone elsewhere (a walk directory there starts cold).
ccache_share "$BUILD_TREE" "$OUT/build" "$OUT/kbuild"

# The builds' own worktree, $OUT/kbuild/tree: the walk is only as short
# as the files git rewrites between two builds, so nothing else moves it
# (out/tree is apply's, export's and the user's; going back and forth
# there would make every header new).  One build at a time uses it.
build_tree_take
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

short=$(printf %.12s "$c")
subj=$(kgit log -1 --format=%s "$c")
o=$OUT/build/$c
mkdir -p "$OUT/build"
failed=
if stamp_fresh "$o/stamp" "$(stamp_of "$c")" && [ -f "$o/arch/x86/boot/bzImage" ]; then
	progress build "$short up to date: $subj"
elif twin=$(build_twin "$c") && [ -n "$twin" ]; then
	build_reuse "$twin" "$c"
	progress build "$short: the tree of $(printf %.12s "$twin"), built: its build, linked, not rebuilt: $subj"
else
	w=$(walk_dir)
	walk_take "$w"
	if [ -f "$w/.commit" ]; then
		progress build "$short building in $w, from the build of $(printf %.12s "$(cat "$w/.commit")") there: $subj (log: $w/.log)"
	else
		progress build "$short building from nothing in $w: $subj (log: $w/.log)"
	fi
	if build_one "$c"; then
		progress build "$short built in $(cat "$o/seconds")s ($(grep -c '\.o$' "$o/compiled.txt" || true) objects compiled)"
	else
		failed=1
		tail -n 20 "$o/build.log" >&2
		progress build "$short FAILED after $(cat "$o/seconds")s (log: $o/build.log)"
	fi
fi
# new warnings against the parent's build, when it was built
parent=$(kgit rev-parse -q --verify "$c^" || true)
if [ -n "$parent" ] && [ -f "$OUT/build/$parent/warnings.txt" ]; then
	nw_p=$(tmp_beside "$o/parent-warnings") && nw_c=$(tmp_beside "$o/warnings") &&
		tree_paths_out "$BUILD_TREE" "$o" <"$OUT/build/$parent/warnings.txt" | LC_ALL=C sort >"$nw_p" &&
		tree_paths_out "$BUILD_TREE" "$o" <"$o/warnings.txt" | LC_ALL=C sort >"$nw_c" &&
		write_file "$o/new-warnings.txt" env LC_ALL=C comm -13 "$nw_p" "$nw_c" ||
		die "build: cannot write $o/new-warnings.txt (disk full?)"
	rm -f "$nw_p" "$nw_c"
else
	write_file "$o/new-warnings.txt" true || die "build: cannot write $o/new-warnings.txt (disk full?)"
fi
if [ -s "$o/new-warnings.txt" ]; then
	warn "$short adds $(wc -l <"$o/new-warnings.txt") warning(s):"
	sed 's/^/  /' "$o/new-warnings.txt" >&2
fi
records "$c" "${results:-$o}"
[ -z "$failed" ] || die "build: $short does not build: $subj (log: $o/build.log)"
