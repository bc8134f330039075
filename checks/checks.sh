#!/bin/sh
# checks.sh: the kernel's checkers on one series commit, new findings only.
# `make checks` (ci/run.sh --view checks) runs it on each commit and
# prints the table (checks/checks-step.sh).
#
#   checks.sh [--results DIR] COMMIT
#   checks.sh --check   KUNIT, COCCI_SET, CHECKS_ONLY, JOBS checked, then
#                       those that decide the findings, on one line, and
#                       the versions of gcc, sparse, spatch, clang,
#                       ld.lld and QEMU (KUnit's), a line each; nothing runs (ci/steps.sh,
#                       before any step starts)
#
# The checks of the CHECKS table run on what the commit
# touches, and file-level checks run on its parent too: a finding is new
# when the parent's same check on the same file lacks it (line and column
# numbers removed).  Patch-level checks (checkpatch, changelog) judge the
# commit's own patch, so all their findings are the commit's.  Build-level
# checks (codegen) judge the commit's kernel as the guest builds it, the
# base's too: every finding counts.  Results, in
# the commit's results directory, out/checks/<commit>/ (--results DIR for
# one commit: make ci gives its own):
#
#   <check>.log     full output, both sides
#   <check>.txt     normalised findings of the commit; <check>.new, those
#                   it adds
#   records.jsonl   a record per finding and the verdict (doc/records.md),
#                   written by record-write as each check ends
#   verdict         pass or fail, with the reasons
#   kunit/          KUnit's (base and head), with --results
#   summary.txt     the header and the commit's line of make checks's table
#
# Exit 1 when the commit adds an error-level finding or fails KUnit.
# KUNIT=0 skips the KUnit run (checks/kunit.sh) of the base and the
# series head.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
. "$(dirname "$0")/../build/kconfig.sh"
results='' check=''
if [ "${1:-}" = --results ]; then
	[ $# = 3 ] || usage_die "checks.sh [--results DIR] COMMIT: one commit (make checks COMMITS='...' for several)"
	results=$2
	shift 2
elif [ "${1:-}" = --check ]; then
	[ $# = 1 ] || usage_die "checks.sh --check: no commits"
	check=1
else
	[ $# = 1 ] || usage_die "checks.sh [--results DIR] COMMIT: one commit (make checks COMMITS='...' for several)"
fi

# The checks, one line each: name, scope (patch: the mail; file: each
# touched file, against the parent), and what runs.
CHECKS='
checkpatch patch scripts/checkpatch.pl --strict on git format-patch -1
changelog  patch changelog-lint: subject, Signed-off-by chain, 75 columns, asm numbers
sparse     file  sparse (make C=2 CHECK=sparse) on the touched .c files, commit .config
cocci      file  scripts/coccinelle (MODE=report) and checks/cocci/*.cocci on the touched files
clang      file  LLVM=1 build of the touched objects only (not a whole kernel)
configs    file  a touched shared header: whole builds (i386, arm64; x86_64 without ZONE_DEVICE, with KMSAN, with a 96-byte struct page) and W=1
codegen    build the machine code of the measured path and the layout of struct page, the guest build against the configuration of Debian (checks/codegen.sh)
'
CHECKS_ONLY=${CHECKS_ONLY:-}

# Objects are built one make call per commit, without -j: kbuild runs
# two single-object targets of one directory in parallel twice (a race on
# .o.d files).
#
# Headers have no object of their own: sparse and clang check them through
# objects that include them, as kbuild knows them (header_users below).
# A header's inline functions and macros are checked in every object that
# includes it, so a few are enough to see what the header itself adds;
# all of string.h's 1,900 would cost sparse about 10 minutes a side.
HEADER_USERS_MAX=${HEADER_USERS_MAX:-3}

CDIR=$OUT/checks
CT=${CHECKS_TREE:-$CDIR/tree}
# the guest's fragment (KCONFIG), or FRAGMENT=<file>, as build.sh takes it
KCONFIG=${KCONFIG:-distro}
if [ -n "${FRAGMENT:-}" ]; then
	[ -r "$FRAGMENT" ] || die "config: FRAGMENT='$FRAGMENT' is not a readable file"
	KCONFIG=custom
else
	FRAGMENT=$(guest_fragment) || exit
fi
# the objects of the measured path, as codegen.sh compares them
CODEGEN_OBJS='mm/mm_init.o mm/page_alloc.o arch/x86/lib/usercopy_64.o arch/x86/lib/memcpy_64.o'
JOBS=${JOBS:-$(nproc)}
KUNIT=${KUNIT:-1}
CACHE=$CDIR/cache
# COCCI_SET=ours: only checks/cocci/*.cocci (the kernel's ~70 rules cost
# about 2 s of CPU each in spatch start-up)
COCCI_SET=${COCCI_SET:-all}

# A mistyped one is refused, not read as "off" or "all" (KUNIT=yes would
# skip KUnit, CHECKS_ONLY=checkpach every check)
case $KUNIT in 0 | 1) ;; *) usage_die "KUNIT: '$KUNIT' is not 1 (run KUnit on the base and the head) or 0" ;; esac
case $COCCI_SET in all | ours) ;; *) usage_die "COCCI_SET: '$COCCI_SET' is not all or ours" ;; esac
case $JOBS in '' | *[!0-9]* | 0*) usage_die "JOBS: '$JOBS' is not a number of jobs, 1 or more" ;; esac
case $HEADER_USERS_MAX in '' | *[!0-9]* | 0*) usage_die "HEADER_USERS_MAX: '$HEADER_USERS_MAX' is not a number of objects, 1 or more" ;; esac
# enabled_check NAME: NAME is among CHECKS_ONLY (or it is empty)
enabled_check() {
	[ -z "$CHECKS_ONLY" ] || case " $CHECKS_ONLY " in *" $1 "*) ;; *) return 1 ;; esac
}
check_names=$(printf '%s\n' "$CHECKS" | awk 'NF { print $1 }')
for w in $CHECKS_ONLY; do
	printf '%s\n' "$check_names" | grep -qxF -- "$w" ||
		usage_die "CHECKS_ONLY: '$w' is not a check (checks: $(printf '%s\n' "$check_names" | tr '\n' ' ' | sed 's/ $//'))"
done
# the programs whose output the findings are: a new sparse, spatch or
# compiler finds other things, another QEMU runs KUnit otherwise (the
# stamp, and every cache key below)
TOOLS=$(tool_versions gcc sparse spatch clang ld.lld qemu-system-x86_64)
# shellcheck source=configs.sh
. "$(dirname "$0")/configs.sh"
# codegen's reference: Debian's own configuration of the pinned version
# (its sha256 decides the findings: a stamp input), fetched once
# (build/debian-config.sh); only for the distro guest, whose claim it is
debian_config=''
if [ "$KCONFIG" != tiny ] && enabled_check codegen; then
	debian_config=$(sh "$TOP/build/debian-config.sh") ||
		die "codegen: Debian's configuration of the pinned kernel is not at hand (above); CHECKS_ONLY without codegen leaves it out"
fi
if [ -n "$check" ]; then
	echo "kunit $KUNIT cocci $COCCI_SET only $CHECKS_ONLY configs $CONFIGS targets $CONFIGS_TARGETS kconfig $KCONFIG header-users-max $HEADER_USERS_MAX"
	[ -z "$debian_config" ] || echo "debian-config $(sha256sum <"$debian_config" | cut -d' ' -f1)"
	# what KUnit runs, as kunit.sh checks it
	[ "$KUNIT" = 0 ] || sh "$TOP/checks/kunit.sh" --check
	printf '%s\n' "$TOOLS"
	exit 0
fi
TOOLS_KEY=$(printf '%s\n' "$TOOLS" | sha256sum | cut -c1-12)

tool_built changelog-lint record-write
base=$(base_commit)
c=$(commit_list "$1") || exit 1

# Our own worktree: out/tree belongs to make build; one run at a time
checks_tree_lock "$CT" "checks of $(printf %.12s "$c")"
if [ ! -e "$CT/.git" ]; then
	progress setup "creating the checks worktree $CT"
	mkdir -p "$(dirname "$CT")"
	# a worktree whose directory was deleted (rm -rf out/checks) is still
	# registered: forget it first, as kernel-tree.sh does for out/tree
	kgit worktree prune
	kgit worktree add -q --detach "$CT" "$base" ||
		die "setup: cannot create the worktree $CT"
fi
ctgit() {
	git -C "$CT" "$@"
}
# sparse's and clang's objects: as in build/build.sh, from any checkout
ccache_share "$CT" "$CDIR/obj"
[ -z "$(ctgit status --porcelain --untracked-files=no)" ] ||
	die "setup: $CT has local changes: discard them (git -C $CT checkout -f)"

checkout() {
	[ "$(ctgit rev-parse HEAD)" = "$1" ] || ctgit checkout -q --detach "$1" ||
		die "checkout: cannot check out $1 in $CT"
}


have_clang=1
command -v clang >/dev/null && command -v ld.lld >/dev/null || have_clang=0
command -v sparse >/dev/null || die "sparse: not installed: run 'make deps'"
command -v spatch >/dev/null || die "coccinelle: spatch is not installed: run 'make deps'"

# header_users HEADER: up to HEADER_USERS_MAX objects that include HEADER
# in the commit's own build (make build: kbuild's dependency lists,
# out/build/<commit>/**/.*.o.cmd): first those whose source the series
# touches (base..head), then the others in name order; nothing, with a
# word on stderr, when the commit has no build
header_users() {
	hu_b=$OUT/build/$c
	[ -f "$hu_b/.config" ] || {
		echo "$PROG: $1: its users are unknown: no build of $(printf %.12s "$c") in $hu_b (make build)" >&2
		return 0
	}
	hu_head=$(kgit rev-parse -q --verify "$REF_NS/series^{commit}" || echo "$c")
	hu_series=$(kgit diff --name-only "$base" "$hu_head" -- '*.c' '*.S' | sed 's/\.[cS]$/.o/')
	# the source tree its build read (make build: out/tree), as kbuild
	# names it in the dependency lists; tools/ is objtool's host build
	hu_src=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$hu_b/Makefile")
	(cd "$hu_b" && grep -rlF --include='.*.o.cmd' --exclude-dir=tools "$hu_src/$1 " .) 2>/dev/null |
		sed 's|^\./||; s|\.\([^/]*\)\.cmd$|\1|' | LC_ALL=C sort |
		awk -v series="$hu_series" -v max="$HEADER_USERS_MAX" '
			BEGIN { n = split(series, s, "\n"); for (i = 1; i <= n; i++) want[s[i]] = 1 }
			$0 in want { print; k++; next }
			{ rest[++r] = $0 }
			END { for (i = 1; i <= r && k < max; i++) { print rest[i]; k++ } }' |
		head -n "$HEADER_USERS_MAX"
}

# the objects that sparse and clang build for a list of touched files
objects_of() {
	for f in "$@"; do
		case $f in
		*.c | *.S) echo "${f%.*}.o" ;;
		*.h) header_users "$f" ;;
		esac
	done | sort -u
}

# configure O=$1 for commit $2 (LLVM=1 when $3 is clang): the commit's
# .config from make build, else tinyconfig + the bench-vm fragment
configure() {
	o=$1 cfg_c=$2 llvm=${3:+LLVM=1}
	cfg=$OUT/build/$cfg_c/.config
	mkdir -p "$o"
	if [ ! -f "$cfg" ]; then
		cfg=$CDIR/obj/fragment.config
		if [ ! -f "$cfg" ]; then
			progress config "no $OUT/build/$cfg_c/.config (make build): tinyconfig + $FRAGMENT"
			kconfig_fragment "$CT" "$CDIR/obj/kconfig" "$FRAGMENT" &&
			cp "$CDIR/obj/kconfig/.config" "$cfg" || die "config: tinyconfig + $FRAGMENT failed"
		fi
	fi
	if ! cmp -s "$cfg" "$o/source.config"; then
		# shellcheck disable=SC2086 # $llvm: empty or LLVM=1
		cp "$cfg" "$o/.config" && cp "$cfg" "$o/source.config" &&
		make -s -C "$CT" O="$o" $llvm olddefconfig >/dev/null ||
			die "config: olddefconfig in $o failed"
		# clang's olddefconfig may drop what depends on the compiler
		kconfig_verify "$o/.config" "$FRAGMENT" || {
			rm -f "$o/source.config"
			die "config: the ${3:-gcc} configuration of $o lost an option of $FRAGMENT"
		}
	fi
}

# cached SIDE TOOL OBJ...: the cache file of a (tree, fragment, tools,
# tool, objects) result: one make call per side builds all the objects of
# a commit.  Keyed by what the output is made of, not the commit id: a
# changelog edit finds its sparse and clang runs done, a new compiler or
# checker does not.
FRAGMENT_KEY=$(sha256sum <"$FRAGMENT" | cut -c1-12)
cached() {
	side=$1 tool=$2
	shift 2
	echo "$CACHE/$(tree_of "$side")-$FRAGMENT_KEY-$TOOLS_KEY/$tool/$(echo "$@" | tr ' /' '+_')"
}

# the objects among OBJ... whose source exists at the checked-out commit
present() {
	for obj; do
		ls "$CT/${obj%.o}".[cS] >/dev/null 2>&1 && echo "$obj"
	done
}

# side_prepare SIDE TOOL OBJ...: sets f (the cached output of TOOL for
# the objects at SIDE) and objs_here (those of the objects SIDE has);
# false when there is nothing left to do (cached, or no object: empty f)
side_prepare() {
	side=$1 tool=$2
	shift 2
	f=$(cached "$side" "$tool" "$@")
	[ -f "$f" ] && return 1
	checkout "$side"
	objs_here=$(present "$@" | tr "\n" " ")
	mkdir -p "$(dirname "$f")"
	[ -n "$objs_here" ] || { write_file "$f" true; return 1; }
}

# sparse SIDE OBJ...: sparse's output for the objects at commit SIDE
run_sparse_side() {
	side=$1
	shift
	side_prepare "$side" sparse "$@" || return 0
	configure "$CDIR/obj/gcc" "$side"
	# Compile first, so that the C=2 run prints only sparse's output.
	# One job (as every make of an object list here): kbuild reaches
	# arch/x86/lib twice for single targets, and under -j2 two jobs
	# compiled usercopy_64.o at once (fixdep lost its .d); host
	# programs through ccache, as every other build's.
	# shellcheck disable=SC2086 # object and file lists, a word each
	write_file -e -k "$f.build" make -C "$CT" O="$CDIR/obj/gcc" CC="ccache gcc" HOSTCC="ccache gcc" \
		$objs_here ||
		{ tail -n 20 "$f.build" >&2; die "sparse: building $objs_here of $side failed (log: $f.build)"; }
	# shellcheck disable=SC2086 # object and file lists, a word each
	write_file -e -k "$f.out" make -s -C "$CT" O="$CDIR/obj/gcc" CC="ccache gcc" \
		HOSTCC="ccache gcc" C=2 CHECK=sparse $objs_here ||
		{ cat "$f.out" >&2; die "sparse: make C=2 $objs_here of $side failed"; }
	write_file "$f" cat "$f.out" && rm -f "$f.out" ||
		die "sparse: cannot write $f (disk full?)"
}

# clang SIDE OBJ...: the LLVM=1 build output of the objects at SIDE
run_clang_side() {
	side=$1
	shift
	side_prepare "$side" clang "$@" || return 0
	configure "$CDIR/obj/clang" "$side" clang
	for obj in $objs_here; do rm -f "$CDIR/obj/clang/$obj"; done
	rc=0
	# -k: one object that does not compile does not hide the others
	# shellcheck disable=SC2086 # object and file lists, a word each
	write_file -e -k "$f.out" make -k -C "$CT" O="$CDIR/obj/clang" LLVM=1 \
		CC="ccache clang" HOSTCC="ccache clang" $objs_here || rc=$?
	clang_output() {
		cat "$f.out"
		for obj in $objs_here; do
			# shellcheck disable=SC2012 # the object's one source, our path
			[ -f "$CDIR/obj/clang/$obj" ] ||
				echo "$(ls "$CT/${obj%.o}".[cS] | head -n 1):0:0: error: clang build of $obj failed (make exit $rc)"
		done
	}
	write_file "$f" clang_output && rm -f "$f.out" || die "clang: cannot write $f (disk full?)"
}

# run_codegen SIDE: codegen.sh's findings for the commit SIDE (cached by
# its tree, the guest's fragment, Debian's configuration and the tools):
# the objects of the measured path built twice in the checks worktree,
# with the guest's configuration (tinyconfig + FRAGMENT, as make build
# makes it) in obj/guest and with Debian's own in obj/debian.  Each
# directory is configured once and walked from commit to commit.
DEBIAN_KEY=''
[ -z "$debian_config" ] || DEBIAN_KEY=$(sha256sum <"$debian_config" | cut -c1-12)
run_codegen() {
	side=$1
	# shellcheck disable=SC2086 # the objects, a word each
	side_prepare "$side" "codegen-$DEBIAN_KEY" $CODEGEN_OBJS || return 0
	if ! cmp -s "$FRAGMENT" "$CDIR/obj/guest/source.fragment"; then
		rm -rf "$CDIR/obj/guest" &&
		kconfig_fragment "$CT" "$CDIR/obj/guest" "$FRAGMENT" &&
		cp "$FRAGMENT" "$CDIR/obj/guest/source.fragment" ||
			die "codegen: configuring $CDIR/obj/guest with $FRAGMENT failed"
	fi
	if ! cmp -s "$debian_config" "$CDIR/obj/debian/source.config"; then
		rm -rf "$CDIR/obj/debian" &&
		mkdir -p "$CDIR/obj/debian" && cp "$debian_config" "$CDIR/obj/debian/.config" &&
		make -s -C "$CT" O="$CDIR/obj/debian" olddefconfig >/dev/null &&
		cp "$debian_config" "$CDIR/obj/debian/source.config" ||
			die "codegen: olddefconfig of Debian's configuration in $CDIR/obj/debian failed"
	fi
	for cg_o in guest debian; do
		# shellcheck disable=SC2086 # the objects, a word each
		make -C "$CT" O="$CDIR/obj/$cg_o" CC="ccache gcc" HOSTCC="ccache gcc" $CODEGEN_OBJS \
			>"$f.$cg_o.build" 2>&1 || {
			tail -n 20 "$f.$cg_o.build" >&2
			die "codegen: building $CODEGEN_OBJS of $side with the $cg_o configuration failed (log: $f.$cg_o.build)"
		}
	done
	rc=0
	{
		sh "$TOP/checks/codegen.sh" code "$CDIR/obj/debian" "$CDIR/obj/guest" || rc=$?
		[ "$rc" -ge 2 ] || sh "$TOP/checks/codegen.sh" layout "$CDIR/obj/debian" "$CDIR/obj/guest" "$CT" ||
			{ r=$?; [ "$r" -lt 2 ] || rc=$r; }
	} >"$f.tmp"
	[ "$rc" -lt 2 ] || die "codegen: checks/codegen.sh could not compare the builds of $side (above)"
	mv "$f.tmp" "$f"
}

# Normalise compiler-style output (sparse, clang): "file: severity: msg"
# with the line and column numbers and the tree's path removed; the
# indented continuation lines of sparse are joined to their finding.
# (the objects' directories, obj/gcc and obj/clang, are one deep alike)
normalise_cc() {
	tree_paths_out "$CT" "$CDIR/obj/gcc" | sed -e "s|$CDIR/obj/[a-z]*/||g" | awk '
	/^[^ ].*:[0-9]+:[0-9]+: (warning|error): / {
		if (cur != "") print cur
		sub(/:[0-9]+:[0-9]+: /, ": ")
		cur = $0
		next
	}
	/^   [^ ]/ && cur != "" { sub(/^ +/, ""); cur = cur " / " $0; next }
	{ if (cur != "") print cur; cur = "" }
	END { if (cur != "") print cur }'
}

# compiler_outputs TOOL NOTE OBJ...: from the cached output of TOOL at the
# parent $p and the commit $c, write $d/$name.log (both, headed) and the
# normalised, sorted $d/$name.parent and $d/$name.txt that are compared
# shellcheck disable=SC2031 # $p is the loop's, set before each call
compiler_outputs() {
	tool=$1 note=$2
	shift 2
	{
		echo "# $p $* (the parent${note:+; $note})"
		cat "$(cached "$p" "$tool" "$@")"
		echo "# $c $*${note:+ ($note)}"
		cat "$(cached "$c" "$tool" "$@")"
	} >"$d/$name.log"
	normalise_cc <"$(cached "$p" "$tool" "$@")" | LC_ALL=C sort >"$d/$name.parent"
	normalise_cc <"$(cached "$c" "$tool" "$@")" | LC_ALL=C sort >"$d/$name.txt"
}

# coccinelle: every rule on every (side, file) version.  Each rule runs
# once over a directory of all the file versions it has not seen, so
# spatch's start-up (about 2 s of CPU per rule) is paid once per rule and
# run; results are cached per (rule content, file blob).
COCCI_RULES=""
cocci_rules() {
	[ -n "$COCCI_RULES" ] && return
	d=$CDIR/cocci-rules
	if [ ! -f "$d/.stamp" ] || [ "$(cat "$d/.stamp")" != "$base" ]; then
		rm -rf "$d" && mkdir -p "$d/kernel"
		kgit archive "$base" scripts/coccinelle | tar -x -C "$d/kernel" ||
			die "cocci: cannot extract scripts/coccinelle of $base"
		echo "$base" | write_file "$d/.stamp"
	fi
	# ours, then the kernel rules that have a report mode (COCCI_SET=ours:
	# none)
	COCCI_RULES=$(ls "$TOP"/checks/cocci/*.cocci)
	if [ "$COCCI_SET" = ours ]; then
		echo "cocci: skipped: the kernel's rules (COCCI_SET=ours)" | write_file "$CDIR/cocci-skipped" ||
			die "cocci: cannot write $CDIR/cocci-skipped (disk full?)"
		return
	fi
	write_file "$CDIR/cocci-skipped" kernel_rules || die "cocci: cannot write $CDIR/cocci-skipped (disk full?)"
}

# kernel_rules: the kernel's rules of a report mode into COCCI_RULES; those
# left out, a line each on stdout (cocci-skipped)
kernel_rules() {
	for r in $(grep -l '^virtual report' "$d"/kernel/scripts/coccinelle/*/*.cocci); do
		# Debian's spatch has no OCaml scripting (no ocamlopt)
		if grep -q '^@script:ocaml\|^@initialize:ocaml' "$r"; then
			echo "cocci: skipped: ${r#"$d/kernel/"}: OCaml script rules need ocamlopt"
			continue
		fi
		COCCI_RULES="$COCCI_RULES $r"
	done
}

# "cache-dir rule-name" per rule, computed once
COCCI_KEYS=""
cocci_keys() {
	[ -n "$COCCI_KEYS" ] && return
	COCCI_KEYS=$(for r in $COCCI_RULES; do echo "$(cocci_key "$r") $(basename "$r" .cocci)"; done)
}

# the cache directory of a rule: its name, a hash of its content and the
# tools' versions
cocci_key() {
	echo "$CACHE/cocci/$(basename "$1" .cocci)-$(sha256sum <"$1" | cut -c1-12)-$TOOLS_KEY"
}

# cocci_queue SIDE FILE...: queue the blobs of the C files among FILEs
cocci_queue() {
	side=$1
	shift
	for f; do
		case $f in *.c | *.h) ;; *) continue ;; esac
		b=$(kgit rev-parse -q --verify "$side:$f") || continue
		# added to while the run goes on: a link there refused
		no_link "$CDIR/cocci-queue" && echo "$b $f" >>"$CDIR/cocci-queue" ||
			die "cocci: cannot write $CDIR/cocci-queue"
	done
}

cocci_run() {
	[ -s "$CDIR/cocci-queue" ] || return 0
	store=$CDIR/cocci-blobs
	mkdir -p "$store"
	sort -u "$CDIR/cocci-queue" | while read -r b f; do
		[ -f "$store/$b.${f##*.}" ] || write_file "$store/$b.${f##*.}" kgit cat-file blob "$b" ||
			die "cocci: cannot write $store/$b.${f##*.} (disk full?)"
	done
	nv=$(sort -u "$CDIR/cocci-queue" | wc -l)
	progress cocci "$(echo "$COCCI_RULES" | wc -w) rules on $nv file version(s) (cached ones skipped)"
	for r in $COCCI_RULES; do
		k=$(cocci_key "$r")
		in=$CDIR/cocci-in
		rm -rf "$in" && mkdir -p "$in" "$k"
		sort -u "$CDIR/cocci-queue" | while read -r b f; do
			[ -f "$k/$b" ] || ln "$store/$b.${f##*.}" "$in/"
		done
		[ -n "$(ls "$in")" ] || continue
		opts=$(sed -n 's|^// *Options: *||p' "$r" | head -n 1)
		# Options come from the rule, as scripts/coccicheck does.
		# shellcheck disable=SC2086 # object and file lists, a word each
		# (its stderr into a new file beside cocci-rule.err, renamed in)
		rule_err=$(tmp_beside "$CDIR/cocci-rule.err") || die "cocci: cannot write in $CDIR"
		# shellcheck disable=SC2086 # object and file lists, a word each
		if ! write_file -k "$CDIR/cocci-rule.out" spatch -D report --very-quiet --no-show-diff --no-includes \
			--include-headers $opts --sp-file "$r" --dir "$in" 2>"$rule_err"; then
			mv -f -T "$rule_err" "$CDIR/cocci-rule.err"
			warn "cocci: spatch failed with $(basename "$r"): $(tail -n 1 "$CDIR/cocci-rule.err")"
			no_link "$CDIR/cocci-skipped" &&
				echo "cocci: failed: $(basename "$r"): $(tail -n 1 "$CDIR/cocci-rule.err")" >>"$CDIR/cocci-skipped" ||
				die "cocci: cannot write $CDIR/cocci-skipped"
			continue
		fi
		mv -f -T "$rule_err" "$CDIR/cocci-rule.err"
		for v in "$in"/*; do
			b=$(basename "$v")
			# "/path/<blob>.c:12:3-9: msg" -> "@FILE@:12:3-9: msg"
			grep -F "$v:" "$CDIR/cocci-rule.out" | sed "s|$v:|@FILE@:|" | write_file "$k/${b%.*}" ||
				die "cocci: cannot write $k/${b%.*} (disk full?)"
		done
	done
	write_file "$CDIR/cocci-queue" true || die "cocci: cannot write $CDIR/cocci-queue"
}

# normalised cocci findings of FILE at SIDE: "file: rule: msg"
cocci_findings() {
	b=$(kgit rev-parse -q --verify "$1:$2") || return 0
	echo "$COCCI_KEYS" | while read -r k rn; do
		[ -f "$k/$b" ] || { grep -q ": $rn.cocci:" "$CDIR/cocci-skipped" && continue; }
		# (in a pipeline: die would only end the subshell)
		[ -f "$k/$b" ] || {
			no_link "$CDIR/cocci-missing" &&
				echo "no result of $rn.cocci for $2 at $1" >>"$CDIR/cocci-missing"
			continue
		}
		sed -E "s|^@FILE@:[0-9]+:[0-9-]+: *|$2: $rn: |" "$k/$b"
	done
}

# severity_of CHECK FINDING: error or warning
severity_of() {
	case $1:$2 in
	checkpatch:*ERROR*) echo error ;;
	changelog:*) echo error ;;
	sparse:*": error: "* | sparse:*"address space"* | sparse:*"different base types"*) echo error ;;
	clang:*": error: "*) echo error ;;
	configs:*": error: "*) echo error ;;
	# a guest whose measured code is not a distro kernel's measures
	# another binary: every figure of it would be
	codegen:*) echo error ;;
	# kernel rules say ERROR or WARNING; ours say error or warning
	cocci:*": ERROR "* | cocci:*": ERROR: "* | cocci:*": ERROR! "*) echo error ;;
	cocci:*": error "* | cocci:*": error: "* | cocci:*": error! "*) echo error ;;
	*) echo warning ;;
	esac
}

# record CASE METRIC UNIT SAMPLE FIELD...: one record of the commit $c
# into $d/records.jsonl.tmp (renamed in when the commit is checked)
# (with the build of the commit that make build made, when there is one:
# the configuration sparse, clang and codegen checked it in)
record() {
	r_case=$1 r_metric=$2 r_unit=$3 r_sample=$4
	shift 4
	r_build=$(cat "$OUT/build/$c/build-id.json" 2>/dev/null || true)
	"$BIN/record-write" --to "$d/records.jsonl.tmp" --suite checks --case "$r_case" \
		--metric "$r_metric" --unit "$r_unit" --commit "$c" \
		${r_build:+--json "build=$r_build"} "$@" "$r_sample" ||
		die_rc $? "records: $d/records.jsonl cannot be written"
}

# with_lines NEW LINES: the findings of NEW (compared without lines) as
# LINES has them, "<finding> (line N)"
with_lines() {
	# (FILENAME, not NR == FNR: NEW is empty when nothing is new)
	awk 'FILENAME == ARGV[1] { want[$0] = 1; next }
		{ k = $0; sub(/ \(line [0-9]+\)$/, "", k); if (k in want) { print; delete want[k] } }
		END { for (k in want) print k }' "$1" "$2" | LC_ALL=C sort
}

# finding_records CHECK NEW FILE: a record per finding of FILE (NEW: true,
# the commit adds it; false, its parent has it too); the new errors go
# to $d/new-errors, every new finding to $d/new-findings
finding_records() {
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		sev=$(severity_of "$1" "$f")
		record "$1/${f%%: *}" finding count 1 --field check="$1" --field severity="$sev" \
			--json new="$2" --field message="$f"
		[ "$2" = true ] || continue
		echo "$1: $f" >>"$d/new-findings"
		[ "$sev" = warning ] || echo "$1: $f" >>"$d/new-errors"
	done <"$3"
}

mkdir -p "$CDIR" "$CACHE"
rm -f "$CDIR/cocci-missing"
write_file "$CDIR/cocci-queue" true || die "cocci: cannot write $CDIR/cocci-queue"

# First: queue both versions of every touched file for coccinelle, so
# that spatch runs once per rule (its results are cached by file content)
if enabled_check cocci && kgit rev-parse -q --verify "$c^" >/dev/null; then
	cocci_rules
	cocci_keys
	files=$(kgit diff-tree --no-commit-id --name-only -r "$c")
	# shellcheck disable=SC2086 # file names, a word each
	cocci_queue "$c" $files
	# shellcheck disable=SC2086 # object and file lists, a word each
	cocci_queue "$c^" $files
	cocci_run
fi

failed=0
summary=${results:-$CDIR/$c}/summary.txt
# check_commit: the checks of the commit, its verdict, its records and
# its line of the table
check_commit() {
	short=$(printf %.12s "$c")
	subj=$(kgit log -1 --format=%s "$c")
	# the base, the pinned kernel as imported, is no patch: only the
	# build-level checks judge it
	p=$(kgit rev-parse -q --verify "$c^" || true)
	files='' objs=''
	if [ -n "$p" ]; then
		files=$(kgit diff-tree --no-commit-id --name-only -r "$c")
		# shellcheck disable=SC2086 # object and file lists, a word each
		objs=$(objects_of $files)
		kgit format-patch -q -1 --stdout "$c" >"$d/patch.mbox"
	fi
	progress check "$short: $subj"
	: >"$d/new-findings"
	: >"$d/new-errors"
	while read -r name scope what; do
		[ -n "$name" ] || continue
		if ! enabled_check "$name"; then
			echo "$name: skipped: not in CHECKS_ONLY='$CHECKS_ONLY'" >"$d/$name.skipped"
			continue
		fi
		if [ -z "$p" ] && [ "$scope" != build ]; then
			echo "$name: skipped: $short has no parent (the pinned kernel), nothing is new" >"$d/$name.skipped"
			continue
		fi
		progress check "$short $name: $what"
		case $name in
		checkpatch)
			checkout "$c"
			(cd "$CT" && perl scripts/checkpatch.pl --strict --terse --show-types \
				--no-summary "$d/patch.mbox") >"$d/$name.log" 2>&1 || true
			# "patch.mbox:12: WARNING:TYPE: msg" -> "TYPE: msg"
			sed -nE 's|^[^:]*:[0-9]+: ((ERROR\|WARNING\|CHECK):[A-Z_]+: .*)$|patch: \1|p' \
				"$d/$name.log" >"$d/$name.txt"
			;;
		changelog)
			rc=0
			"$BIN/changelog-lint" "$d/patch.mbox" >"$d/$name.log" 2>&1 || rc=$?
			[ $rc -le 1 ] || die_rc $rc "changelog: changelog-lint failed (exit $rc): see $d/$name.log"
			sed -nE 's|^[^:]*:[0-9]+: ([a-z-]+: .*)$|patch: \1|p' "$d/$name.log" >"$d/$name.txt"
			;;
		sparse)
			# shellcheck disable=SC2086 # object and file lists, a word each
			cobjs=$(for o in $objs; do [ -z "$(kgit ls-tree "$c" "${o%.o}.c")" ] || echo "$o"; done)
			if [ -z "$cobjs" ]; then
				echo "sparse: skipped: $short touches no C file (only: $files)" | tee "$d/$name.skipped" >&2
				: >"$d/$name.txt"
				continue
			fi
			# shellcheck disable=SC2086 # object and file lists, a word each
			run_sparse_side "$p" $cobjs
			# shellcheck disable=SC2086 # object and file lists, a word each
			run_sparse_side "$c" $cobjs
			# shellcheck disable=SC2086 # object and file lists, a word each
			compiler_outputs sparse "" $cobjs
			;;
		cocci)
			for side in "$p" "$c"; do
				for f in $files; do
					case $f in *.c | *.h) cocci_findings "$side" "$f" ;; esac
				done | LC_ALL=C sort >"$d/$name.$([ "$side" = "$c" ] && echo txt || echo parent)"
			done
			[ ! -s "$CDIR/cocci-missing" ] || die "cocci: $(head -n 1 "$CDIR/cocci-missing")"
			cp "$d/$name.txt" "$d/$name.log"
			[ ! -s "$CDIR/cocci-skipped" ] || cp "$CDIR/cocci-skipped" "$d/$name.skipped"
			;;
		clang)
			if [ $have_clang = 0 ]; then
				echo "clang: skipped: clang or ld.lld is not installed (apt-get install clang lld)" |
					tee "$d/$name.skipped" >&2
				continue
			fi
			if [ -z "$objs" ]; then
				echo "clang: skipped: $short touches no file with an object (only: $files)" |
					tee "$d/$name.skipped" >&2
				continue
			fi
			# shellcheck disable=SC2086 # object and file lists, a word each
			run_clang_side "$p" $objs
			# shellcheck disable=SC2086 # object and file lists, a word each
			run_clang_side "$c" $objs
			# shellcheck disable=SC2086 # object and file lists, a word each
			compiler_outputs clang "touched objects only, not a whole kernel" $objs
			;;
		configs)
			rc=0
			configs_check || rc=$?
			[ "$rc" != 2 ] || die "configs: the findings of $short could not be written (disk full?)"
			[ "$rc" = 0 ] || continue
			;;
		codegen)
			if [ "$KCONFIG" = tiny ]; then
				echo "codegen: skipped: KCONFIG=$KCONFIG is no distro kernel's build (tinyconfig at -Os): nothing to hold against Debian's (make checks KCONFIG=distro)" |
					tee "$d/$name.skipped" >&2
				: >"$d/$name.txt"
				continue
			fi
			run_codegen "$c"
			# shellcheck disable=SC2086 # the objects, a word each
			cp "$(cached "$c" "codegen-$DEBIAN_KEY" $CODEGEN_OBJS)" "$d/$name.log"
			grep -v '^#' "$d/$name.log" | LC_ALL=C sort >"$d/$name.txt" || true
			;;
		esac
		# new findings: patch-level ones all; file-level ones against the parent
		if [ "$scope" = file ] && [ -f "$d/$name.parent" ]; then
			LC_ALL=C comm -13 "$d/$name.parent" "$d/$name.txt" >"$d/$name.new"
			# a check that keeps its findings with their lines too
			# ($name.lines: "<finding> (line N)") reports the new ones so
			if [ -f "$d/$name.lines" ]; then
				with_lines "$d/$name.new" "$d/$name.lines" >"$d/$name.new.tmp" &&
					mv "$d/$name.new.tmp" "$d/$name.new"
			fi
		else
			cp "$d/$name.txt" "$d/$name.new"
		fi
		finding_records "$name" true "$d/$name.new"
		if [ -f "$d/$name.parent" ]; then
			LC_ALL=C comm -12 "$d/$name.parent" "$d/$name.txt" >"$d/$name.old"
			finding_records "$name" false "$d/$name.old"
		fi
		[ ! -s "$d/$name.new" ] || {
			warn "$short $name: $(wc -l <"$d/$name.new") new finding(s):"
			sed 's/^/  /' "$d/$name.new" >&2
		}
	done <<EOF
$CHECKS
EOF
	# the verdict: fail when the commit adds an error-level finding
	errs=$(grep -c . "$d/new-errors" || true)
	nnew=$(grep -c . "$d/new-findings" || true)
	if [ "$errs" -gt 0 ]; then
		{ echo fail; cat "$d/new-errors"; } >"$d/verdict"
		failed=$((failed + 1))
	else
		echo pass >"$d/verdict"
	fi
	cat "$d"/*.skipped 2>/dev/null >>"$d/verdict" || true
	v=$(head -n 1 "$d/verdict")
	record verdict verdict pass "$([ "$v" = pass ] && echo 1 || echo 0)" --field verdict="$v" \
		--field reasons="$(tail -n +2 "$d/verdict" | paste -sd';' -)"
	mv "$d/records.jsonl.tmp" "$d/records.jsonl"
	progress check "$short: $v ($nnew new finding(s), $errs error(s))"
	printf '%-12s %-7s %5s %5s  %s\n' "$short" "$v" "$nnew" "$errs" "$subj" >>"$summary.tmp"
}
d=${results:-$CDIR/$c}
# the results of the commit, all of them anew; a --results DIR is the
# caller's, given empty (ci/run.sh keeps its log there)
[ -n "$results" ] || rm -rf "$d"
mkdir -p "$d" && rm -f "$d/records.jsonl.tmp" || die "results: cannot create $d"
printf '%-12s %-7s %5s %5s  %s\n' commit verdict new errors subject >"$summary.tmp"
check_commit
mv "$summary.tmp" "$summary"

# KUnit: the base and the series head only (a kernel build each)
if [ "$KUNIT" = 1 ]; then
	head=$(kgit rev-parse -q --verify "$REF_NS/series" || true)
	if [ "$c" = "$base" ] || [ "$c" = "$head" ]; then
		# its KUnit results beside its findings
		sh "$TOP/checks/kunit.sh" --results "$d/kunit" "$c" || failed=$((failed + 1))
	else
		progress kunit "skipped: KUnit runs only on the base and the series head"
	fi
else
	progress kunit "skipped: KUNIT=0"
fi
cat "$summary"
[ $failed = 0 ] || die "verdict: $short adds error-level findings or fails KUnit (see $d/verdict)"
