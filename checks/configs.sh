# checks/configs.sh: the configs check of checks/checks.sh (sourced by
# it, POSIX sh): what a change to a shared header can break, built before
# the robots that read a posting build it (0-day: many configs and i386;
# NIPA: 32-bit, W=1, clang).  A commit that touches a header under
# include/ or arch/*/include/ (a header beside its C files is its
# directory's own, and the file-level checks build its users) is built,
# and so is its parent, in each configuration of CONFIGS_TABLE, whole
# (vmlinux), and with W=1 for the objects of what it touches; the
# findings are the compilers' and the linker's, new against the parent's
# same build.  Each build's output is cached by tree, fragment and tools
# (checks.sh's cached), so a commit of the same tree (a changelog edit)
# or a second run builds nothing, and ccache serves the rest.
#
# CONFIGS='i386 arm64 ...': a subset (default: all of the table, and w1);
# none: no build (make quick's default: said in the verdict).
# CONFIGS_TARGETS: what each configuration builds (default vmlinux, the
# check); a test that needs one object's error gives that object alone
# (tests/t0525: mm/mm_init.o), as BUILD_TARGETS does for the build.
# shellcheck disable=SC2154 # c, p, d, files, objs, short, have_clang: checks.sh's, set for the commit

# name, make arguments (',' between them; '-': none), the fragment it
# starts from ('-': tinyconfig alone) and its own, in checks/configs/
CONFIGS_TABLE='
i386          ARCH=i386          -                       i386.config
arm64         ARCH=arm64,LLVM=1  -                       arm64.config
x86_64-nozd   -                  -                       x86_64-no-zone-device.config
x86_64-kmsan  LLVM=1             build/kernel.config  x86_64-kmsan.config
x86_64-page96 LLVM=1             -                       x86_64-page96.config
'
# w1: W=1 on the objects of the touched files, in the commit's own x86_64
# configuration (the one sparse builds)
configs_names=$(printf '%s\n' "$CONFIGS_TABLE" | awk 'NF { printf "%s ", $1 }')
CONFIGS=${CONFIGS:-${configs_names}w1}
CONFIGS_TARGETS=${CONFIGS_TARGETS:-vmlinux}
for cf_w in $CONFIGS_TARGETS; do
	case $cf_w in
	vmlinux | *[!A-Za-z0-9_./-]* | /* | *..*) [ "$cf_w" = vmlinux ] ||
		usage_die "CONFIGS_TARGETS: '$cf_w' is not vmlinux or an object of the tree (dir/file.o)" ;;
	*.o) ;;
	*) usage_die "CONFIGS_TARGETS: '$cf_w' is not vmlinux or an object of the tree (dir/file.o)" ;;
	esac
done
for cf_w in $CONFIGS; do
	[ "$cf_w" != none ] || [ "$CONFIGS" = none ] ||
		usage_die "CONFIGS: none is alone or not at all, not in '$CONFIGS'"
	case " $configs_names w1 none " in
	*" $cf_w "*) ;;
	*) usage_die "CONFIGS: '$cf_w' is not a configuration of the configs check (${configs_names}w1)" ;;
	esac
done

# configs_shared FILE...: the shared headers among the files a commit
# touches
configs_shared() {
	for cf_f; do
		case $cf_f in include/*.h | arch/*/include/*.h) echo "$cf_f" ;; esac
	done
}

# config_row NAME: sets cf_args (make arguments, a word each), cf_frag
# (the fragment file, written into $CDIR/configs/) and cf_key (its hash)
config_row() {
	# shellcheck disable=SC2046 # the row's four words
	set -- $(printf '%s\n' "$CONFIGS_TABLE" | awk -v n="$1" '$1 == n')
	cf_args=$(printf '%s' "$2" | tr ',' ' ')
	[ "$cf_args" != - ] || cf_args=
	cf_frag=$CDIR/configs/$1.config
	mkdir -p "$CDIR/configs" &&
		{ [ "$3" = - ] || cat "$TOP/$3"; cat "$TOP/checks/configs/$4"; } | write_file "$cf_frag" ||
		die "configs: cannot write $cf_frag (disk full?)"
	cf_key=$(sha256sum <"$cf_frag" | cut -c1-12)
}

# page_size O: sizeof(struct page) in the build at O, compiled with the
# very flags of its mm/mm_init.o (its .cmd file): the size the fastpaths
# of memcpy_flushcache() are for, said per configuration
page_size() {
	ps_cmd=$(sed -n 's/^savedcmd_mm\/mm_init\.o := //p' "$1/mm/.mm_init.o.cmd" 2>/dev/null |
		sed -e 's/-Wp,-MMD,[^ ]*//' -e 's/ -c -o [^ ]* [^ ]*\.c *$/ -S -o - -x c -/')
	[ -n "$ps_cmd" ] || return 1
	printf '#include <linux/mm_types.h>\nint xcs_struct_page_size = sizeof(struct page);\n' |
		(cd "$1" && eval "$ps_cmd") 2>/dev/null |
		awk '/^xcs_struct_page_size:/ { getline; print $2; exit }'
}

# config_side SIDE NAME OBJ...: the cached output of NAME's build at SIDE
# ($f; $f.rc its make status, $f.page its struct page size): vmlinux, or
# for w1 the objects
config_side() {
	cs_side=$1 cs_name=$2
	shift 2
	if [ "$cs_name" = w1 ]; then
		# (cached, or none of the objects at this side: nothing to build)
		side_prepare "$cs_side" configs-w1 "$@" || { [ -f "$f.rc" ] || echo 0 | write_file "$f.rc"; return 0; }
		configure "$CDIR/obj/gcc" "$cs_side"
		for obj in $objs_here; do rm -f "$CDIR/obj/gcc/$obj"; done
		cs_rc=0
		cs_log=$(tmp_beside "$f") || die "configs: cannot write in $(dirname "$f")"
		# shellcheck disable=SC2086 # object lists, a word each
		make -k -C "$CT" O="$CDIR/obj/gcc" CC="ccache gcc" HOSTCC="ccache gcc" \
			W=1 $objs_here >"$cs_log" 2>&1 || cs_rc=$?
		echo "$cs_rc" | write_file "$f.rc" && mv -f -T "$cs_log" "$f" ||
			die "configs: cannot write $f (disk full?)"
		return 0
	fi
	config_row "$cs_name"
	# shellcheck disable=SC2086 # targets, a word each
	f=$(cached "$cs_side" "configs-$cs_name-$cf_key" $CONFIGS_TARGETS)
	[ ! -f "$f" ] || return 0
	checkout "$cs_side"
	mkdir -p "$(dirname "$f")"
	cs_o=$CDIR/obj/configs/$cs_name
	progress configs "$(printf %.12s "$cs_side") $cs_name: build (log: $f)"
	cs_cc="ccache gcc"
	case " $cf_args " in *" LLVM=1 "*) cs_cc="ccache clang" ;; esac
	cs_rc=0
	rm -f "$f.kconfig"
	# the log: a new file beside $f (lib.sh: tmp_beside), renamed in last;
	# the others written whole (write_file): no link at a name of the
	# cache is written through
	cs_log=$(tmp_beside "$f") || die "configs: cannot write in $(dirname "$f")"
	# shellcheck disable=SC2086 # make arguments, a word each
	if kconfig_fragment "$CT" "$cs_o" "$cf_frag" $cf_args >"$cs_log" 2>&1; then
		make -C "$CT" O="$cs_o" $cf_args CC="$cs_cc" HOSTCC="ccache gcc" -j"$JOBS" $CONFIGS_TARGETS \
			>>"$cs_log" 2>&1 || cs_rc=$?
	else
		# the configuration did not take: said, never a build that
		# "fails" alike on both sides and so finds nothing new
		cs_rc=$?
		{ grep -m 1 'config' "$cs_log" || echo "kconfig failed"; } | write_file "$f.kconfig"
	fi
	write_file "$f.page" page_size "$cs_o" || write_file "$f.page" true
	echo "$cs_rc" | write_file "$f.rc" && mv -f -T "$cs_log" "$f" ||
		die "configs: cannot write $f (disk full?)"
}

# config_findings SIDE NAME OBJ...: the normalised findings of NAME's
# build at SIDE, "NAME/file: severity: text" (the key compared with the
# parent's), and with .lines the same with the line: "... (line N)"; a
# build that fails without a compiler's word says so as an error
config_findings() {
	cf_side=$1 cf_n=$2
	shift 2
	config_side "$cf_side" "$cf_n" "$@"
	# (w1 builds in obj/gcc, the others in obj/configs/NAME)
	cf_o=$CDIR/obj/configs/$cf_n
	[ "$cf_n" != w1 ] || cf_o=$CDIR/obj/gcc
	tree_paths_out "$CT" "$cf_o" <"$f" | sed -e "s|$cf_o/||g" |
		awk -v n="$cf_n" -v rc="$(cat "$f.rc")" -v kc="$(cat "$f.kconfig" 2>/dev/null)" '
		/^[^ ]*:[0-9]+:[0-9]+: (warning|error): / || /^[^ ]*:[0-9]+: (warning|error): / {
			split($0, a, ":")
			msg = $0
			sub(/^[^ ]*:[0-9]+:([0-9]+:)? /, "", msg)
			print n "/" a[1] ": " msg "\t" n "/" a[1] ": " msg " (line " a[2] ")"
			errs += msg ~ /^error: /
			next
		}
		/(ld(\.lld)?|ld\.bfd): error: / || /undefined reference to / {
			msg = $0
			sub(/^.*(ld(\.lld)?|ld\.bfd): /, "", msg)
			print n "/link: " msg "\t" n "/link: " msg
			errs++
		}
		END {
			if (kc != "")
				print n "/kconfig: error: " kc "\t" n "/kconfig: error: " kc
			else if (rc != 0 && errs == 0)
				print n "/build: error: the build fails (make exit " rc ")\t" n "/build: error: the build fails (make exit " rc "), see configs.log"
		}' | LC_ALL=C sort -u
}

# configs_check: the check on the commit $c against its parent $p (the
# loop of checks.sh): $d/configs.{txt,parent,lines,log}, or
# $d/configs.skipped when the commit touches no shared header
configs_check() {
	# shellcheck disable=SC2086 # file names, a word each
	cc_shared=$(configs_shared $files | tr '\n' ' ' | sed 's/ $//')
	if [ "$CONFIGS" = none ]; then
		echo "configs: skipped: CONFIGS=none (make quick's default; shared headers touched: ${cc_shared:-none})" |
			tee "$d/configs.skipped" >&2
		: >"$d/configs.txt"
		return 1
	fi
	if [ -z "$cc_shared" ]; then
		echo "configs: not needed: $short touches no shared header (only: $(printf '%s' "$files" | tr '\n' ' '))" |
			tee "$d/configs.skipped" >&2
		: >"$d/configs.txt"
		return 1
	fi
	progress check "$short configs: shared headers touched: $cc_shared"
	: >"$d/configs.parent" && : >"$d/configs.txt" && : >"$d/configs.lines" && : >"$d/configs.log"
	for cc_n in $CONFIGS; do
		cf_args=
		[ "$cc_n" = w1 ] || config_row "$cc_n"
		if [ "$have_clang" = 0 ] && case " $cf_args " in *" LLVM=1 "*) true ;; *) false ;; esac; then
			echo "configs: $cc_n: skipped: clang or ld.lld is not installed (run 'make deps': clang lld llvm)" |
				tee -a "$d/configs.skipped" >&2
			continue
		fi
		for cc_side in "$p" "$c"; do
			# shellcheck disable=SC2086 # object lists, a word each
			config_findings "$cc_side" "$cc_n" $objs >"$d/configs.side" || return 2
			# a configuration the parent cannot take is the toolkit's
			# to fix (its fragment), not a finding of the commit
			[ "$cc_side" != "$p" ] || [ ! -f "$f.kconfig" ] ||
				die "configs: $cc_n: checks/configs' fragment does not take on the parent $(printf %.12s "$p"): $(cat "$f.kconfig") (log: $f)"
			{
				echo "# $cc_side $cc_n (make exit $(cat "$f.rc"); struct page: $(cat "$f.page" 2>/dev/null || echo -) bytes)"
				cat "$f"
			} >>"$d/configs.log"
			if [ "$cc_side" = "$c" ]; then
				cut -f1 "$d/configs.side" >>"$d/configs.txt"
				cut -f2 "$d/configs.side" >>"$d/configs.lines"
				[ ! -s "$f.page" ] || record "configs/$cc_n" struct_page_bytes count "$(cat "$f.page")" \
					--field config="$cc_n"
			else
				cut -f1 "$d/configs.side" >>"$d/configs.parent"
			fi
		done
		progress check "$short configs: $cc_n: $(grep -c "^$cc_n/" "$d/configs.txt" || true) finding(s)$([ ! -s "$f.page" ] || echo ", struct page $(cat "$f.page") bytes")"
	done
	rm -f "$d/configs.side"
	LC_ALL=C sort -o "$d/configs.txt" "$d/configs.txt"
	LC_ALL=C sort -o "$d/configs.parent" "$d/configs.parent"
}

