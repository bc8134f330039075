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
#   hmm        DEVICE_PRIVATE and the kernel's lib/test_hmm.c as a module,
#              run with the store model (MODEL=cache); after the binds the
#              agent loads test_hmm.ko in a model window (run.sh --hmm):
#              two DEVICE_PRIVATE and two DEVICE_COHERENT pgmaps of 256
#              MiB, which no owner marks for streaming.  Their window must
#              have no streaming store while the binds' windows (fsdax and
#              devdax, marked) have some: a commit where the binds do not
#              stream (before the series' 6/7) fails, the check telling
#              nothing apart there.  The base is built with hmm.config
#              too, and a private and a coherent chunk's struct pages
#              must equal the base's as the devices' must
#   kmsan      KMSAN, built with clang (LLVM=1), booted with
#              kmsan.panic=1 no5lvl acpi=noirq in GUEST_MEM_MB=20480,
#              two NVDIMMs of 512M (NS_SIZE, MEM_NS=0: KMSAN's
#              metadata, below); the base is built with kmsan.config
#              too (its struct page is 80 bytes); both kernels with
#              bench-vm/kmsan-iounmap.patch (a fix to KMSAN's unmap of
#              ioremap metadata, which never returns here without it)
#              and kmsan-nvdimm-prompt.patch (NVDIMM_KMSAN, without
#              which no memmap is on the device) on top, as commits of
#              their own under $REF_NS/checked/
# Environment:
#   CHECKED_BASE=<commit> whose struct pages must be equalled (the base)
#   NS_SIZE, REBINDS      of both runs [2G (kmsan: 512M), 2]; the rest as
#                         bench-vm/run.sh
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
# equal the base's (hmm: and its streaming stores were where they belong).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck source=../build/kconfig.sh
. "$TOP/build/kconfig.sh"
kernel_settings_check
PROG=checked

# alike: the base is built with the variant's fragment too (its struct
# pages differ from the ordinary build's, or it has more of them)
spin='' hmm='' model=none llvm='' alike='' fixes=''
case ${1:-} in
kasan) args=kasan.fault=panic ;;
debug-vm) args="panic_on_warn=1 oops=panic" spin=1 ;;
hmm) args="panic_on_warn=1 oops=panic" hmm=1 model=cache alike=1 ;;
# KMSAN's metadata takes two thirds of the guest's memory, and each
# NVDIMM's raw namespace, which nd_pmem ioremaps at boot, four times its
# size more (kmsan_ioremap_page_range(): two order-1 pages for each page):
# 20 GiB for two NVDIMMs of 512M (the smallest run.sh takes).  A third,
# map=mem, runs out of memory after the first bind (2026-12-07).  With
# 5-level paging (TCG's -cpu max has LA57) its kernel, the base's too,
# faults in kmsan_unpoison_memory() under irqentry_enter() until the IRQ
# stack's guard page: no5lvl.
# ACPI's _PRT runs past the AML loop timeout in a KMSAN kernel, which
# then has no interrupt for the virtio port (no MSI in the guest's
# configuration): acpi=noirq routes it from the BIOS's table.  Unmapping
# that namespace's metadata is quadratic in 6.12's KMSAN, and leaks it,
# and NVDIMM_KMSAN (a memmap on the device with struct page above 64
# bytes) has no prompt: both kernels get the two patches (their messages
# say why)
kmsan) args="kmsan.panic=1 no5lvl acpi=noirq" llvm=1 alike=1 fixes="kmsan-iounmap kmsan-nvdimm-prompt"
	GUEST_MEM_MB=${GUEST_MEM_MB:-20480} NS_SIZE=${NS_SIZE:-512M} MEM_NS=${MEM_NS:-0}
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-1500}
	export MEM_NS BOOT_TIMEOUT
	;;
*) usage_die "checked.sh kasan|debug-vm|hmm|kmsan [COMMIT]" ;;
esac
[ -z "${GUEST_MEM_MB:-}" ] || export GUEST_MEM_MB
NS_SIZE=${NS_SIZE:-2G}
REBINDS=${REBINDS:-2}
export NS_SIZE REBINDS
variant=$1
shift
[ $# -le 1 ] || usage_die "checked.sh kasan|debug-vm|hmm|kmsan [COMMIT]"
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

# with_fixes COMMIT: the id of COMMIT with each of $fixes (patches in
# bench-vm/, in order) applied on top, a commit each, the last under
# $REF_NS/checked/ (fixed author and date: the same COMMIT and patches
# give the same ids, and so the same builds)
with_fixes() {
	wf_commit=$1
	wf_idx=$work/fix.index
	for wf_name in $fixes; do
		wf_patch=$TOP/bench-vm/$wf_name.patch
		rm -f "$wf_idx"
		GIT_INDEX_FILE=$wf_idx kgit read-tree "$wf_commit" &&
			GIT_INDEX_FILE=$wf_idx kgit apply --cached "$wf_patch" ||
			die "fix: $wf_patch does not apply to $wf_commit"
		wf_tree=$(GIT_INDEX_FILE=$wf_idx kgit write-tree) ||
			die "fix: cannot write the tree of $wf_commit with $wf_patch"
		rm -f "$wf_idx"
		wf_commit=$(sed -n 1p "$wf_patch" | GIT_AUTHOR_NAME=x86-copy-series \
			GIT_AUTHOR_EMAIL=checked@x86-copy-series GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
			GIT_COMMITTER_NAME=x86-copy-series GIT_COMMITTER_EMAIL=checked@x86-copy-series \
			GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' kgit commit-tree "$wf_tree" -p "$wf_commit") ||
			die "fix: cannot commit $wf_patch"
	done
	kgit update-ref "$REF_NS/checked/$variant-$1" "$wf_commit" ||
		die "fix: cannot set $REF_NS/checked/$variant-$1"
	progress checked "$(printf %.12s "$1") + $fixes = $(printf %.12s "$wf_commit")" >&2
	printf '%s\n' "$wf_commit"
}

work=$OUT/checked/$variant
mkdir -p "$work" || die "work: cannot create $work"
if [ -n "$fixes" ]; then
	base=$(with_fixes "$base") || exit 1
	commit=$(with_fixes "$commit") || exit 1
fi
# one fragment for build.sh: the base's (KCONFIG's parts), then the
# variant's, a symbol of both taking the variant's value
kname=$(kconfig_name)
parts=$(kconfig_parts "$kname") || exit 2
frag=$work/kernel.config
# shellcheck disable=SC2086 # the parts: our paths, a word each
write_file "$frag" kconfig_merge $parts "$TOP/bench-vm/$variant.config" ||
	die "work: cannot write $frag"

# build_variant COMMIT: COMMIT with the variant's fragment, in $work/build
build_variant() {
	progress checked "build $(printf %.12s "$1") with $variant.config into $work/build"
	OUT=$work BIN=$BIN WORKTREE=$WORKTREE FRAGMENT=$frag KCONFIG_NAME="$kname+$variant" BUILD_LLVM=$llvm \
		sh "$TOP/build/build.sh" "$1" ||
		die "build: the $variant kernel of $1 does not build: see $work/build/$1/build.log"
}
build_variant "$commit"
kernel=$work/build/$commit/arch/x86/boot/bzImage
# Kconfig drops what it cannot satisfy without a word: the variant must
# have every option its fragment asks for
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=[ym]$' "$TOP/bench-vm/$variant.config" |
	grep -vxF -f "$work/build/$commit/.config" || true)
[ -z "$missing" ] ||
	die "build: $work/build/$commit/.config lacks what $variant.config asks for: $(printf '%s\n' "$missing" | tr '\n' ' ')"

# The base's ordinary kernel and the commit's checked kernel, digested alike;
# the module is built against each kernel's own build directory.  hmm: the
# base has test_hmm's chunks too, kmsan's struct page is larger: the base
# is built with the variant's fragment as well (alike), and hmm's chunks'
# struct pages are compared like the devices'.
PAGES_CHECKOUT=1
export PAGES_CHECKOUT
rb=$work/base-$base
rk=$work/checked-$commit
base_kernel=$OUT/build/$base/arch/x86/boot/bzImage
# a base built alike boots as the checked kernel does (kmsan: no5lvl)
base_args=
if [ -n "$alike" ]; then
	build_variant "$base"
	base_kernel=$work/build/$base/arch/x86/boot/bzImage
	base_args=$args
fi
KERNEL_ARGS=$base_args TIMEOUT=${TIMEOUT:-1800} \
	sh "$TOP/bench-vm/run.sh" --pages ${hmm:+--hmm} --kernel "$base_kernel" --commit "$base" --results "$rb" ||
	die "base: the base kernel's run failed: see $rb"
# a checked kernel is slower: a generous watchdog
KERNEL_ARGS=$args TIMEOUT=${TIMEOUT:-1800} \
	sh "$TOP/bench-vm/run.sh" --pages ${spin:+--agent-opt spin=1} ${hmm:+--hmm} --model "$model" \
	--kernel "$kernel" --commit "$commit" --results "$rk" ||
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
	grep -E '^([0-9a-f]{12} \(kernel|  struct pages of |    first differing|  run failed|  error|  Model window of |  Load of test_hmm|    [^ ].*: [0-9]+ streaming, )' "$work/report-full.txt"
	[ -z "$preempt" ] || echo "preemption: $preempt (a busy task beside the binds, spin=1; the agent's count of each)"
}
write_file "$work/report.txt" checked_report || die "report: cannot write $work/report.txt"
cat "$work/report.txt"
[ "$rc" = 0 ] || die "report: the $variant kernel's struct pages differ from the base's, or a run failed: see $work/report.txt"
equal=$(grep -c "^  struct pages of .*: equal" "$work/report.txt" || true)
want=$((2 + ${MEM_NS:-1}))
# hmm: test_hmm's private and coherent chunks as well
[ -z "$hmm" ] || want=$((want + 2))
[ "$equal" = "$want" ] ||
	die "report: $equal devices compared equal, $want expected (MEM_NS=${MEM_NS:-1}): see $work/report.txt"
# hmm: the load's window has no streaming store; the binds' windows of
# the same boot, pgmaps their owners marked, have some (the control)
if [ -n "$hmm" ]; then
	load=$(grep "^  Model window of the load of test_hmm.ko: " "$work/report.txt") ||
		die "hmm: no model window of the load of test_hmm.ko in $work/report.txt"
	case $load in
	*": 0 streaming, "*) ;;
	*) die "hmm: the DEVICE_PRIVATE and DEVICE_COHERENT pgmaps of test_hmm.ko got streaming stores (no owner marked them): $load" ;;
	esac
	# a line per device and case, each with the fewest of its windows
	binds=$(grep -c "^  Model window of the .* driver: " "$work/report.txt" || true)
	unstreamed=$(grep "^  Model window of the .* driver: .*(fewest 0)" "$work/report.txt" || true)
	[ "$binds" -ge $((2 + ${MEM_NS:-1})) ] ||
		die "hmm: $binds lines of bind windows in $work/report.txt, fewer than the devices"
	[ -z "$unstreamed" ] ||
		die "hmm: at $(printf %.12s "$commit") a bind of a marked pgmap did not stream (below): the check tells nothing apart there (a commit before the series' 6/7?)
$unstreamed"
	progress checked "hmm: test_hmm.ko's 4 pgmaps: no streaming store; every bind window of the marked devices: streaming stores"
fi
progress checked "$(printf %.12s "$commit") with $variant.config: booted, $equal devices bound and rebound, struct pages equal $(printf %.12s "$base")'s, no report"
