#!/bin/sh
# kasan.sh: a KASAN build of one commit (default: the series head) boots,
# binds nd_pmem, dax_pmem and dax_pmem on the map=mem namespace, and the
# struct pages (and pageblock flags) it gives equal those of the base's
# ordinary build.  Correctness only: a KASAN kernel's timings mean nothing,
# and none are reported.
#
#   kasan.sh [COMMIT]
# Environment:
#   KASAN_BASE=<commit>   whose struct pages must be equalled (the base)
#   NS_SIZE, REBINDS      of both runs [2G, 2]; the rest as bench-vm/run.sh
#
# The kernel is tinyconfig + bench-vm/kernel.config + bench-vm/kasan.config,
# built by scripts/build.sh into $OUT/kasan/build/<commit> (ccache, and the
# same worktree).  The base's ordinary build must exist (make build).  The
# guest boots with kasan.fault=panic: a KASAN report panics it, panic=-1
# ends QEMU and the run fails; the console is searched for "BUG: KASAN" as
# well.  Results: $OUT/kasan/{base,kasan}-<commit>/ (records, console),
# report.txt (the struct page comparison of bench-vm-report, no timings)
# and report-full.txt (all of its output).  Exit status 0 when
# the KASAN kernel ran clean and its struct pages equal the base's.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
PROG=kasan

NS_SIZE=${NS_SIZE:-2G}
REBINDS=${REBINDS:-2}
export NS_SIZE REBINDS
[ $# -le 1 ] || usage_die "kasan.sh [COMMIT]"
base=${KASAN_BASE:-$(base_commit)}
base=$(kgit rev-parse -q --verify "$base^{commit}") ||
	die "base: KASAN_BASE='$KASAN_BASE' is not a commit in $(kernel_repo)"
if [ $# = 1 ]; then
	commit=$(kgit rev-parse -q --verify "$1^{commit}") ||
		die "commit: '$1' is not a commit in $(kernel_repo)"
else
	commit=$(kgit rev-parse -q --verify "$REF_NS/series^{commit}") ||
		die "series: $REF_NS/series is not set: run 'make apply' first, or name a commit"
fi
[ -f "$OUT/build/$base/arch/x86/boot/bzImage" ] ||
	die "base: no build of $base in $OUT/build: run 'make build' (or 'sh scripts/build.sh $base')"

work=$OUT/kasan
mkdir -p "$work" || die "work: cannot create $work"
# one fragment for build.sh: the benchmark's, then KASAN's
frag=$work/kernel.config
cat "$TOP/bench-vm/kernel.config" "$TOP/bench-vm/kasan.config" >"$frag.tmp" &&
	mv "$frag.tmp" "$frag" || die "work: cannot write $frag"

progress kasan "build $(printf %.12s "$commit") with KASAN into $work/build"
OUT=$work BIN=$BIN WORKTREE=$WORKTREE FRAGMENT=$frag sh "$TOP/scripts/build.sh" "$commit" ||
	die "build: the KASAN kernel of $commit does not build: see $work/build/$commit/build.log"
kernel=$work/build/$commit/arch/x86/boot/bzImage
grep -qx CONFIG_KASAN=y "$work/build/$commit/.config" ||
	die "build: $work/build/$commit/.config has no CONFIG_KASAN=y"

# The base's ordinary kernel and the commit's KASAN kernel, digested alike;
# the module is built against each kernel's own build directory.
PAGES_CHECKOUT=1
export PAGES_CHECKOUT
rb=$work/base-$base
rk=$work/kasan-$commit
sh "$TOP/bench-vm/run.sh" --pages --results "$rb" "$base" ||
	die "base: the base kernel's run failed: see $rb"
# KASAN makes every access slower: a generous watchdog
KERNEL_ARGS=kasan.fault=panic TIMEOUT=${TIMEOUT:-1800} \
	sh "$TOP/bench-vm/run.sh" --pages --kernel "$kernel" --commit "$commit" --results "$rk" ||
	die "run: the KASAN kernel of $commit failed (a KASAN report panics it): see $rk/console.log"
! grep -n "BUG: KASAN" "$rk/console.log" ||
	die "run: KASAN reported a bug on $commit: see $rk/console.log"

rc=0
"$BIN/bench-vm-report" "$rb/records.jsonl" "$rk/records.jsonl" >"$work/report-full.txt" || rc=$?
# the comparison of the struct pages only: a KASAN kernel's timings mean
# nothing (they are in report-full.txt, for a look, never quoted)
{
	echo "KASAN build of $commit against the base $base: struct pages only (timings of a KASAN kernel mean nothing)"
	grep -E '^([0-9a-f]{12} \(kernel|  struct pages of |    first differing|  run failed|  error)' "$work/report-full.txt"
} >"$work/report.txt" || die "report: cannot write $work/report.txt"
cat "$work/report.txt"
[ "$rc" = 0 ] || die "report: the KASAN kernel's struct pages differ from the base's, or a run failed: see $work/report.txt"
equal=$(grep -c "^  struct pages of .*: equal" "$work/report.txt" || true)
want=$((2 + ${MEM_NS:-1}))
[ "$equal" = "$want" ] ||
	die "report: $equal devices compared equal, $want expected (MEM_NS=${MEM_NS:-1}): see $work/report.txt"
progress kasan "$(printf %.12s "$commit") with KASAN: booted, $equal devices bound and rebound, struct pages equal $(printf %.12s "$base")'s, no KASAN report"
