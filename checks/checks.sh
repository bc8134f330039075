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
. "$TOP/build/kconfig.sh"
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

# The checks, one line each, a function each (checks/checkers.sh:
# check_<name>): name; scope (patch: the mail; file: each touched file,
# against the parent; build: the commit's kernel, every finding counts);
# errors, which findings fail the commit (all; ERROR: those the tool
# marks ERROR or error; error: the compiler's "error:"; error+types:
# those, and sparse's address-space and base-type mismatches; the rest
# are warnings, checks/findings.sh); and what runs.
CHECKS='
checkpatch patch ERROR       scripts/checkpatch.pl --strict on git format-patch -1
changelog  patch all         changelog-lint: subject, Signed-off-by chain, 75 columns, asm numbers
sparse     file  error+types sparse (make C=2 CHECK=sparse) on the touched .c files, commit .config
cocci      file  ERROR       scripts/coccinelle (MODE=report) and checks/cocci/*.cocci on the touched files
clang      file  error       LLVM=1 build of the touched objects only (not a whole kernel)
configs    file  error       a touched shared header: whole builds (i386, arm64; x86_64 without ZONE_DEVICE, with KMSAN, with a 96-byte struct page) and W=1
codegen    build all         the machine code of the measured path and the layout of struct page, the guest build against the configuration of Debian (checks/codegen.sh)
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
. "$TOP/checks/configs.sh"
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

# the checks' parts: what sparse, clang and codegen build; coccinelle's
# runs; a function a check; the findings' severity and records
# shellcheck source=objects.sh
. "$TOP/checks/objects.sh"
# shellcheck source=cocci-run.sh
. "$TOP/checks/cocci-run.sh"
# shellcheck source=checkers.sh
. "$TOP/checks/checkers.sh"
# shellcheck source=findings.sh
. "$TOP/checks/findings.sh"

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
	# (the errors column is severity_of's)
	while read -r name scope _ what; do
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
		check_next=findings
		"check_$name"
		[ "$check_next" = findings ] || continue
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
