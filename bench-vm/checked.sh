#!/bin/sh
# checked.sh: a checked build of one commit (default: the series head)
# boots, binds nd_pmem, dax_pmem and dax_pmem on the map=mem namespace,
# and the struct pages (and pageblock flags) it gives equal those of the
# base's ordinary build.  Correctness only: a checked kernel's timings
# mean nothing, and none are reported.
#
#   checked.sh VARIANT [COMMIT]
# VARIANT, the fragment bench-vm/VARIANT.config on top of kernel.config:
#   kasan      generic KASAN, booted with kasan.fault=panic
#   debug-vm   DEBUG_VM (VM_BUG_ON, page_zone() of a streamed page read
#              back by set_pfnblock_flags_mask()), PREEMPT (full: the
#              template loops preemptible at any instruction) with
#              DEBUG_PREEMPT and DEBUG_ATOMIC_SLEEP, booted with
#              panic_on_warn=1 oops=panic; the agent runs a busy task
#              beside the binds (spin=1), so that the scheduler preempts
#              them, and counts each bind's preemptions: a run in which
#              none was preempted fails (the loops' preemption untested)
# Environment:
#   CHECKED_BASE=<commit> whose struct pages must be equalled (the base)
#   NS_SIZE, REBINDS      of both runs [2G, 2]; the rest as bench-vm/run.sh
#
# The kernel is the base's configuration (KCONFIG's fragments, default
# distro: build/kconfig.sh) + the variant's fragment, so that its struct
# pages have the base's layout (a tinyconfig KASAN kernel against a distro
# base differs in every page->flags), built by build/build.sh into
# $OUT/checked/VARIANT/build/
# <commit> (ccache, and the same worktree); every CONFIG_...=y of the
# fragment must be in its .config.  The base's ordinary build must exist
# (make build).  A report (KASAN, BUG, WARNING, Oops) panics the guest,
# panic=-1 ends QEMU and the run fails; the console is searched for them
# as well.  Results: $OUT/checked/VARIANT/{base,checked}-<commit>/
# (records, console), report.txt (the struct page comparison of
# bench-vm-report, no timings) and report-full.txt (all of its output).
# Exit status 0 when the checked kernel ran clean and its struct pages
# equal the base's.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../build/kconfig.sh
. "$TOP/build/kconfig.sh"
kernel_settings_check
PROG=checked

NS_SIZE=${NS_SIZE:-2G}
REBINDS=${REBINDS:-2}
export NS_SIZE REBINDS
spin=
case ${1:-} in
kasan) args=kasan.fault=panic ;;
debug-vm) args="panic_on_warn=1 oops=panic" spin=1 ;;
*) usage_die "checked.sh kasan|debug-vm [COMMIT]" ;;
esac
variant=$1
shift
[ $# -le 1 ] || usage_die "checked.sh kasan|debug-vm [COMMIT]"
base=${CHECKED_BASE:-$(base_commit)}
base=$(kgit rev-parse -q --verify "$base^{commit}") ||
	die "base: CHECKED_BASE='$CHECKED_BASE' is not a commit in $(kernel_repo)"
if [ $# = 1 ]; then
	commit=$(kgit rev-parse -q --verify "$1^{commit}") ||
		die "commit: '$1' is not a commit in $(kernel_repo)"
else
	commit=$(kgit rev-parse -q --verify "$REF_NS/series^{commit}") ||
		die "series: $REF_NS/series is not set: run 'make apply' first, or name a commit"
fi
[ -f "$OUT/build/$base/arch/x86/boot/bzImage" ] ||
	die "base: no build of $base in $OUT/build: run 'make build' (or 'sh build/build.sh $base')"

work=$OUT/checked/$variant
mkdir -p "$work" || die "work: cannot create $work"
# one fragment for build.sh: the base's (KCONFIG's parts), then the
# variant's, a symbol of both taking the variant's value
kname=$(kconfig_name)
parts=$(kconfig_parts "$kname") || exit 2
frag=$work/kernel.config
# shellcheck disable=SC2086 # the parts: our paths, a word each
write_file "$frag" kconfig_merge $parts "$TOP/bench-vm/$variant.config" ||
	die "work: cannot write $frag"

progress checked "build $(printf %.12s "$commit") with $variant.config into $work/build"
OUT=$work BIN=$BIN WORKTREE=$WORKTREE FRAGMENT=$frag KCONFIG_NAME="$kname+$variant" \
	sh "$TOP/build/build.sh" "$commit" ||
	die "build: the $variant kernel of $commit does not build: see $work/build/$commit/build.log"
kernel=$work/build/$commit/arch/x86/boot/bzImage
# Kconfig drops what it cannot satisfy without a word: the variant must
# have every option its fragment asks for
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$TOP/bench-vm/$variant.config" |
	grep -vxF -f "$work/build/$commit/.config" || true)
[ -z "$missing" ] ||
	die "build: $work/build/$commit/.config lacks what $variant.config asks for: $(printf '%s\n' "$missing" | tr '\n' ' ')"

# The base's ordinary kernel and the commit's checked kernel, digested alike;
# the module is built against each kernel's own build directory.
PAGES_CHECKOUT=1
export PAGES_CHECKOUT
rb=$work/base-$base
rk=$work/checked-$commit
sh "$TOP/bench-vm/run.sh" --pages --results "$rb" "$base" ||
	die "base: the base kernel's run failed: see $rb"
# a checked kernel is slower: a generous watchdog
KERNEL_ARGS=$args TIMEOUT=${TIMEOUT:-1800} \
	sh "$TOP/bench-vm/run.sh" --pages ${spin:+--agent-opt spin=1} --kernel "$kernel" \
	--commit "$commit" --results "$rk" ||
	die "run: the $variant kernel of $commit failed (a report panics it): see $rk/console.log"
! grep -nE "BUG: |WARNING: |Oops|kernel BUG|sleeping function called" "$rk/console.log" ||
	die "run: the $variant kernel reported a bug on $commit (above): see $rk/console.log"

# spin=1: every bind's preemptions, as the agent counted them
preempt=
if [ -n "$spin" ]; then
	preempt=$(awk 'match($0, /bench-vm-agent: preempted [0-9]+ times while binding/) {
			k = substr($0, RSTART + 26) + 0; n++; t += k; if (k > 0) p++ }
		END { printf "%d of %d binds preempted, %d times in all", p, n, t }' "$rk/console.log")
	case $preempt in
	"0 of "*) die "run: no bind of the $variant kernel was preempted ($preempt): the loops' preemption went untested; see $rk/console.log" ;;
	esac
fi

rc=0
write_file -k "$work/report-full.txt" "$BIN/bench-vm-report" "$rb/records.jsonl" "$rk/records.jsonl" || rc=$?
# the comparison of the struct pages only: a checked kernel's timings mean
# nothing (they are in report-full.txt, for a look, never quoted)
checked_report() {
	echo "$variant build of $commit against the base $base: struct pages only (timings of a checked kernel mean nothing)"
	grep -E '^([0-9a-f]{12} \(kernel|  struct pages of |    first differing|  run failed|  error)' "$work/report-full.txt"
	[ -z "$preempt" ] || echo "preemption: $preempt (a busy task beside the binds, spin=1; the agent's count of each)"
}
write_file "$work/report.txt" checked_report || die "report: cannot write $work/report.txt"
cat "$work/report.txt"
[ "$rc" = 0 ] || die "report: the $variant kernel's struct pages differ from the base's, or a run failed: see $work/report.txt"
equal=$(grep -c "^  struct pages of .*: equal" "$work/report.txt" || true)
want=$((2 + ${MEM_NS:-1}))
[ "$equal" = "$want" ] ||
	die "report: $equal devices compared equal, $want expected (MEM_NS=${MEM_NS:-1}): see $work/report.txt"
progress checked "$(printf %.12s "$commit") with $variant.config: booted, $equal devices bound and rebound, struct pages equal $(printf %.12s "$base")'s, no report"
