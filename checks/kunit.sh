#!/bin/sh
# kunit.sh: the kernel's memcpy (lib/memcpy_kunit.c) and usercopy
# (lib/usercopy_kunit.c) KUnit suites in QEMU, under each CPU variant of
# the KUNIT_CPUS table, for the given commits (default: the base and the
# series head).
#
#   kunit.sh [--results DIR] [COMMIT...]
#   kunit.sh --check    KUNIT_SUITES and KUNIT_VARIANTS checked and printed
#                       (checks.sh --check: the checks step's stamp);
#                       nothing runs
#
# KUNIT_SUITES='memcpy usercopy' and KUNIT_VARIANTS (names of KUNIT_CPUS)
# choose a subset.
#
# Each commit's kernel (tinyconfig + checks/kunit.config, ccache) is
# built once in out/checks/kunit/<commit>
# and booted by the tree's own tools/testing/kunit/kunit.py exec under
# every variant.  Results, written once by the producers (kunit-records,
# record-write), in the commit's results directory: --results DIR (one
# commit; make ci gives its own), else out/checks/kunit/<commit>:
# <variant>-<suite>.{log,json} and records.jsonl, one record per test case
# and variant.  Exit 1 when a test fails on a commit where it passes on
# the base, or when a run gives no results (build failure, crash,
# timeout).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
. "$TOP/build/kconfig.sh"
PROG=kunit
results='' check=''
if [ "${1:-}" = --results ]; then
	[ $# = 3 ] || usage_die "kunit.sh [--results DIR COMMIT | COMMIT...]: --results takes one commit"
	results=$2
	shift 2
elif [ "${1:-}" = --check ]; then
	[ $# = 1 ] || usage_die "kunit.sh --check: no commits"
	check=1
fi

# QEMU -cpu variants, one line each: name, -cpu value, what it exercises.
# A variant whose features QEMU's TCG drops (fsrm, in QEMU 7.2) is skipped
# with a record that says so (tcg_drops below), never run as another CPU.
KUNIT_CPUS='
erms        max               ERMS without FSRM: memcpy_orig below 512 B, REP MOVSB above
fsrm        max,+fsrm         ERMS and FSRM: REP MOVSB for all sizes
noerms      max,-erms         neither: memcpy_orig for all sizes
fsrm-noerms max,-erms,+fsrm   FSRM without ERMS
'
KUNIT_SUITES=${KUNIT_SUITES:-memcpy usercopy}
# KUNIT_VARIANTS='erms fsrm': only these lines of KUNIT_CPUS (default all)
KUNIT_VARIANTS=${KUNIT_VARIANTS:-}
for v in $KUNIT_VARIANTS; do
	printf '%s\n' "$KUNIT_CPUS" | awk -v v="$v" '$1 == v { f = 1 } END { exit !f }' ||
		usage_die "KUNIT_VARIANTS: '$v' is not a variant of KUNIT_CPUS ($(printf '%s\n' "$KUNIT_CPUS" | awk 'NF { printf "%s ", $1 }'))"
done
# (a limit, not a result: a run cut by it is an error, not a figure)
KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-300}
case $KUNIT_TIMEOUT in '' | *[!0-9]* | 0*) usage_die "KUNIT_TIMEOUT: '$KUNIT_TIMEOUT' is not a number of seconds, 1 or more" ;; esac
if [ -n "$check" ]; then
	echo "kunit_suites $KUNIT_SUITES kunit_variants $KUNIT_VARIANTS"
	exit 0
fi

CDIR=$OUT/checks
CT=${CHECKS_TREE:-$CDIR/tree}
KFRAG=$TOP/checks/kunit.config
JOBS=${JOBS:-$(nproc)}
command -v qemu-system-x86_64 >/dev/null || die "qemu: qemu-system-x86_64 is not installed: run 'make deps'"
command -v python3 >/dev/null || die "python3: not installed (kunit.py needs it): run 'make deps'"
tool_built kunit-records record-write
[ -e "$CT/.git" ] || die "setup: no checks worktree $CT: run 'make checks' first"
checks_tree_lock "$CT" "KUnit of ${*:-the base and the head}"
[ -z "$(git -C "$CT" status --porcelain --untracked-files=no)" ] ||
	die "setup: $CT has local changes: discard them (git -C $CT checkout -f)"

# per-commit build directories from one worktree: as in build/build.sh,
# the directory stays out of ccache's hash so unchanged files hit
ccache_share "$CT" "$CDIR"

base=$(base_commit)
# default: the base and the series head only
[ $# -gt 0 ] || set -- base head
commits=$(commit_list "$@" | uniq) || exit 1

# build COMMIT: the KUnit kernel in out/checks/kunit/<commit>, once
build() {
	c=$1 o=$CDIR/kunit/$1
	# the compiler and the QEMU that runs it are of the stamp too
	stamp="$c $(sha256sum <"$KFRAG" | cut -d' ' -f1) $(tool_versions gcc qemu-system-x86_64 | sha256sum | cut -c1-12)"
	if stamp_fresh "$o/stamp" "$stamp" && [ -f "$o/arch/x86/boot/bzImage" ]; then
		progress "kunit $(printf %.12s "$c")" "kernel up to date: $o"
		return 0
	fi
	git -C "$CT" checkout -q --detach "$c" || die "checkout: cannot check out $c in $CT"
	rm -rf "$o" && mkdir -p "$o"
	progress "kunit $(printf %.12s "$c")" "building the KUnit kernel (log: $o/build.log)"
	kconfig_fragment "$CT" "$o" "$KFRAG" >"$o/build.log" 2>&1 || {
		tail -n 20 "$o/build.log" >&2
		return 1
	}
	make -C "$CT" O="$o" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" bzImage >>"$o/build.log" 2>&1 || {
		tail -n 20 "$o/build.log" >&2
		return 1
	}
	# the kernel is of $c only if the tree stayed at $c, unchanged,
	# while it was built
	[ "$(git -C "$CT" rev-parse HEAD)" = "$c" ] &&
		[ -z "$(git -C "$CT" status --porcelain --untracked-files=no)" ] ||
		die "checkout: $CT left $(printf %.12s "$c") or changed while its KUnit kernel was built: not recorded; run again"
	stamp_write "$o/stamp" "$stamp"
}

# tcg_drops CPU: QEMU's warning when its TCG (what kunit.py's QEMU runs)
# silently leaves out a feature CPU asks for: QEMU 7.2 has no FSRM, so
# max,+fsrm boots as plain max and the variant would measure nothing new.
tcg_drops() {
	echo quit | timeout 30 qemu-system-x86_64 -machine pc -accel tcg -cpu "$1" \
		-nodefaults -display none -monitor stdio -S 2>&1 |
		grep -o "TCG doesn't support requested feature: [^ ]*" | head -n 1
}

# record NAME VALUE FIELD...: one record of the commit $c into $rec
record() {
	rec_case=$1 rec_metric=$2
	shift 2
	"$BIN/record-write" --to "$rec" --suite checks --case "$rec_case" --metric "$rec_metric" \
		--unit count --commit "$c" "$@" 1 || die_rc $? "records: $rec: cannot be written"
}

failed=0
for c in $commits; do
	short=$(printf %.12s "$c")
	o=$CDIR/kunit/$c
	d=${results:-$o}
	rec=$d/records.jsonl
	start=$(date +%s) nresults=0
	if ! build "$c"; then
		warn "$short: the KUnit kernel does not build (log: $o/build.log)"
		mkdir -p "$d" && rm -f "$rec"
		record kunit/build error --error "the KUnit kernel does not build: $o/build.log"
		failed=$((failed + 1))
		continue
	fi
	progress "kunit $short" "kernel ready in $(( $(date +%s) - start ))s"
	mkdir -p "$d"
	# $o is kept while its kernel is up to date: each file of it written
	# here is removed first or written whole (write_file), so that no
	# link left at its name is written through (kunit.py opens --json
	# itself; kunit-records adds to --to and --failures, O_NOFOLLOW)
	rm -f "$rec" "$o/failures.tmp"
	: >"$o/failures.tmp"
	while read -r name cpu what; do
		[ -n "$name" ] || continue
		case " ${KUNIT_VARIANTS:-$name} " in *" $name "*) ;; *) continue ;; esac
		dropped=$(tcg_drops "$cpu")
		if [ -n "$dropped" ]; then
			warn "$short: variant $name (-cpu $cpu) skipped: QEMU: $dropped"
			record "kunit/variant/$name" skipped --field cpu_variant="$name" \
				--field qemu_cpu="$cpu" --field reason="QEMU: $dropped"
			continue
		fi
		for s in $KUNIT_SUITES; do
			progress "kunit $short" "$s under -cpu $cpu ($what)"
			rc=0
			rm -f "$d/$name-$s.json" "$d/$name-$s.log" "$d/$name-$s.err"
			# exec boots the kernel built above; it never rebuilds it
			python3 "$CT/tools/testing/kunit/kunit.py" exec --arch=x86_64 \
				--build_dir="$o" --timeout="$KUNIT_TIMEOUT" \
				--qemu_args="-cpu $cpu" --json="$d/$name-$s.json" "$s" \
				>"$d/$name-$s.log" 2>&1 || rc=$?
			# kunit.py's JSON, one record per test case, written once
			if [ ! -s "$d/$name-$s.json" ] ||
			   ! counts=$("$BIN/kunit-records" --commit "$c" --cpu-variant "$name" \
				--qemu-cpu "$cpu" --to "$rec" --failures "$o/failures.tmp" \
				"$d/$name-$s.json" 2>"$d/$name-$s.err"); then
				warn "$short: $s under -cpu $cpu gave no results (exit $rc, log: $d/$name-$s.log; $(head -n 1 "$d/$name-$s.err" 2>/dev/null))"
				record "kunit/$s" error --field cpu_variant="$name" \
					--error "no results (exit $rc): $d/$name-$s.log"
				failed=$((failed + 1))
				continue
			fi
			progress "kunit $short" "$s -cpu $cpu: ${counts% *} passed, ${counts#* } failed"
			nresults=$((nresults + ${counts% *} + ${counts#* }))
		done
	done <<EOT
$KUNIT_CPUS
EOT
	# failures new against the base (same case, same variant)
	write_file "$o/failures.txt" sort "$o/failures.tmp" && rm -f "$o/failures.tmp" ||
		die "results: cannot write $o/failures.txt (disk full?)"
	if [ "$c" != "$base" ]; then
		bf=$CDIR/kunit/$base/failures.txt
		if [ -f "$bf" ]; then
			write_file "$o/new-failures.txt" comm -13 "$bf" "$o/failures.txt"
		else
			write_file "$o/new-failures.txt" cat "$o/failures.txt"
		fi || die "results: cannot write $o/new-failures.txt (disk full?)"
		if [ -s "$o/new-failures.txt" ]; then
			warn "$short: KUnit failures new against the base:"
			sed 's/^/  /' "$o/new-failures.txt" >&2
			failed=$((failed + 1))
		fi
	fi
	progress "kunit $short" "done in $(( $(date +%s) - start ))s: $nresults results, $(wc -l <"$o/failures.txt") failure(s) ($rec)"
done
[ $failed = 0 ] || die "verdict: $failed KUnit problem(s), see the warnings above"
