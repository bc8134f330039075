# scripts/lib-build.sh: what a kernel build and a step's result are made
# of: the tools' versions, the stamps, ccache across checkouts, compiler
# messages without the tree's path.  Sourced by scripts/lib.sh; POSIX sh.

# tool_versions PROG...: "PROG <the first line of PROG --version>" a line
# each, "PROG absent" for one that is not installed: what of the toolchain
# a step's results are made of (its stamp, its caches)
tool_versions() {
	for tv_p; do
		if command -v "$tv_p" >/dev/null; then
			printf '%s %s\n' "$tv_p" "$("$tv_p" --version 2>&1 | sed -n '/./{p;q;}')"
		else
			printf '%s absent\n' "$tv_p"
		fi
	done
}

# stamp_fresh FILE TEXT: FILE holds TEXT, the inputs of what it stamps:
# that is up to date.  stamp_write FILE TEXT: the stamp, written whole,
# as the last thing a step does.  The one stamp of build, KUnit and ci.
stamp_fresh() {
	[ -f "$1" ] || return 1
	# read by the shell, not cat (a run asks this of every commit and
	# step), its trailing newlines dropped as $(cat) drops them
	sf_t='' sf_l='' sf_nl='
'
	while IFS= read -r sf_l || [ -n "$sf_l" ]; do
		sf_t=$sf_t$sf_l$sf_nl
		sf_l=
	done <"$1" || return 1
	while :; do
		case $sf_t in *"$sf_nl") sf_t=${sf_t%"$sf_nl"} ;; *) break ;; esac
	done
	[ "$sf_t" = "$2" ]
}

stamp_write() {
	printf '%s\n' "$2" | write_file "$1"
}


# ccache_share DIR...: ccache serves a kernel build whatever the path of
# this checkout and of the build.  The compile's own directory (each
# commit's O=) is left out of the hash (CCACHE_NOHASHDIR), and absolute
# paths under the common parent of DIRs (the source tree and the O=
# directories) are given to the compiler relative to it (CCACHE_BASEDIR):
# without that, a fresh clone, whose paths are others, missed for every
# object (measured: a clone's make quick rebuilt the base cold).  Nothing
# of a path lands in the objects: the configs have no debug info, and
# kbuild maps the source tree's prefix out of __FILE__.  A common parent
# that is / shares nothing: ccache is told no base directory then.
# A miss is compiled in ccache's depend mode (CCACHE_DEPEND): the
# compiler's own dependency file (kbuild's -Wp,-MMD) names the headers,
# so no preprocessor run is made only to hash its output.  Measured
# (tinyconfig + build/kernel.config, mm/ kernel/ lib/, 336 objects,
# an empty cache, 2 cores): 280 -> 211 s of CPU, 146 -> 109 s wall; the
# objects and kbuild's .cmd files byte for byte the same; hits as before.
ccache_share() {
	cs_base=$(realpath -m "$1")
	shift
	for cs_d; do
		cs_d=$(realpath -m "$cs_d")
		while [ "$cs_base" != / ]; do
			case $cs_d/ in "$cs_base"/*) break ;; esac
			cs_base=$(dirname "$cs_base")
		done
	done
	CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
	export CCACHE_NOHASHDIR CCACHE_DEPEND
	if [ "$cs_base" != / ]; then
		CCACHE_BASEDIR=$cs_base
		export CCACHE_BASEDIR
	fi
}

# tree_paths_out TREE O: compiler messages (stdin) with the tree's path
# taken out, in both forms the compiler may have been given it: absolute,
# or relative to the build directory O (ccache_share), so that findings
# of builds made either way compare
tree_paths_out() {
	sed -e "s|$1/||g" -e "s|$(realpath -m --relative-to="$2" "$1")/||g"
}

