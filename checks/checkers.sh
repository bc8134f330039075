# checks/checkers.sh: one function a check of the CHECKS table
# (checks/checks.sh), check_<name>.  Each judges the commit $c against its
# parent $p (files: the files it touches; objs: their objects) and writes
# into the commit's results $d: <name>.txt, the commit's findings,
# normalised and sorted; for a file-level check <name>.parent, its
# parent's, compared without line numbers; <name>.log, the tool's output;
# <name>.skipped, why it (or part of it) did not run.  A check that has
# nothing to compare (it did not run, or it recorded its own outcome)
# sets check_next=skip.  Called with set -e on: a failure ends the run.
# Sourced by checks/checks.sh; POSIX sh.
# shellcheck disable=SC2154 # c, p, d, name, files, objs, short, have_clang: checks.sh's, set for the commit
# shellcheck disable=SC2034 # check_next: checks.sh reads it

# checkpatch.pl --strict of the commit's own tree on its patch
check_checkpatch() {
	checkout "$c"
	(cd "$CT" && perl scripts/checkpatch.pl --strict --terse --show-types \
		--no-summary "$d/patch.mbox") >"$d/$name.log" 2>&1 || true
	# "patch.mbox:12: WARNING:TYPE: msg" -> "TYPE: msg"
	sed -nE 's|^[^:]*:[0-9]+: ((ERROR\|WARNING\|CHECK):[A-Z_]+: .*)$|patch: \1|p' \
		"$d/$name.log" >"$d/$name.txt"
}

check_changelog() {
	rc=0
	"$BIN/changelog-lint" "$d/patch.mbox" >"$d/$name.log" 2>&1 || rc=$?
	[ $rc -le 1 ] || die_rc $rc "changelog: changelog-lint failed (exit $rc): see $d/$name.log"
	sed -nE 's|^[^:]*:[0-9]+: ([a-z-]+: .*)$|patch: \1|p' "$d/$name.log" >"$d/$name.txt"
}

# sparse on the objects of the touched C files (a header's through its
# includers: objects_of)
check_sparse() {
	# shellcheck disable=SC2086 # object and file lists, a word each
	cobjs=$(for o in $objs; do [ -z "$(kgit ls-tree "$c" "${o%.o}.c")" ] || echo "$o"; done)
	if [ -z "$cobjs" ]; then
		echo "sparse: skipped: $short touches no C file (only: $files)" | tee "$d/$name.skipped" >&2
		: >"$d/$name.txt"
		check_next=skip
		return
	fi
	# shellcheck disable=SC2086 # object and file lists, a word each
	run_sparse_side "$p" $cobjs
	# shellcheck disable=SC2086 # object and file lists, a word each
	run_sparse_side "$c" $cobjs
	# shellcheck disable=SC2086 # object and file lists, a word each
	compiler_outputs sparse "" $cobjs
}

# coccinelle's results of the touched files, both sides (cocci_run ran
# every rule on them before the checks began)
check_cocci() {
	for side in "$p" "$c"; do
		for f in $files; do
			case $f in *.c | *.h) cocci_findings "$side" "$f" ;; esac
		done | LC_ALL=C sort >"$d/$name.$([ "$side" = "$c" ] && echo txt || echo parent)"
	done
	[ ! -s "$CDIR/cocci-missing" ] || die "cocci: $(head -n 1 "$CDIR/cocci-missing")"
	cp "$d/$name.txt" "$d/$name.log"
	[ ! -s "$CDIR/cocci-skipped" ] || cp "$CDIR/cocci-skipped" "$d/$name.skipped"
}

# an LLVM=1 build of the touched objects, both sides
check_clang() {
	if [ "$have_clang" = 0 ]; then
		echo "clang: skipped: clang or ld.lld is not installed (apt-get install clang lld)" |
			tee "$d/$name.skipped" >&2
		check_next=skip
		return
	fi
	if [ -z "$objs" ]; then
		echo "clang: skipped: $short touches no file with an object (only: $files)" |
			tee "$d/$name.skipped" >&2
		check_next=skip
		return
	fi
	# shellcheck disable=SC2086 # object and file lists, a word each
	run_clang_side "$p" $objs
	# shellcheck disable=SC2086 # object and file lists, a word each
	run_clang_side "$c" $objs
	# shellcheck disable=SC2086 # object and file lists, a word each
	compiler_outputs clang "touched objects only, not a whole kernel" $objs
}

# the configs matrix of a touched shared header (checks/configs.sh)
check_configs() {
	rc=0
	configs_check || rc=$?
	[ "$rc" != 2 ] || die "configs: the findings of $short could not be written (disk full?)"
	[ "$rc" = 0 ] || check_next=skip
}

# the measured path's machine code, the guest's build against Debian's
# configuration (checks/codegen.sh)
check_codegen() {
	if [ "$KCONFIG" = tiny ]; then
		echo "codegen: skipped: KCONFIG=$KCONFIG is no distro kernel's build (tinyconfig at -Os): nothing to hold against Debian's (make checks KCONFIG=distro)" |
			tee "$d/$name.skipped" >&2
		: >"$d/$name.txt"
		check_next=skip
		return
	fi
	run_codegen "$c"
	# shellcheck disable=SC2086 # the objects, a word each
	cp "$(cached "$c" "codegen-$DEBIAN_KEY" $CODEGEN_OBJS)" "$d/$name.log"
	grep -v '^#' "$d/$name.log" | LC_ALL=C sort >"$d/$name.txt" || true
}
