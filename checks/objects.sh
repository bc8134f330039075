# checks/objects.sh: what sparse, clang and codegen build for a commit:
# the objects of the touched files (a header's through a few of its
# includers), configured as the commit's build, each side's output cached
# by what it is made of, and compiler messages normalised for comparing.
# Sourced by checks/checks.sh (its variables: CT, CDIR, CACHE, KCONFIG,
# FRAGMENT, TOOLS_KEY, base, c, d, name); POSIX sh.
# shellcheck disable=SC2154 # base, c, p, d, name: checks.sh's, set for the commit

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
