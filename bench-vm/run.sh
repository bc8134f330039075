#!/bin/sh
# run.sh: boot one kernel under QEMU with three emulated NVDIMMs and let
# the guest agent (bench-vm/agent/agent.c, PID 1) time the first binding
# and N rebinds of nd_pmem (fsdax, map=dev), dax_pmem (devdax, align=2M)
# and dax_pmem on devdax with map=mem (dax_pmem_mem; MEM_NS=0: without).
# The agent's lines come back on a virtio-serial port; bench-vm-collect
# turns them into records: $RESULTS/records.jsonl (doc/records.md).
#
#   run.sh [options] COMMIT       the kernel of out/build/COMMIT (full id)
#   run.sh [options] --kernel BZIMAGE [--commit ID]
#   run.sh [options] --check      check the options and variables below as
#                                 a run checks them, print those that decide
#                                 its results (a line each), run and write
#                                 nothing (ci/steps.sh: before any step runs,
#                                 and the inputs of its stamp)
# Options (environment in brackets):
#   --ns-size SIZE   each NVDIMM, QEMU size syntax [NS_SIZE=100G]
#   --rebinds N      rebinds per driver [REBINDS=30]
#   --cpu MODEL      QEMU -cpu, e.g. max, max,+fsrm, max,-erms [CPU=max]
#   --accel A        auto (KVM if a probe boots a guest, else TCG), kvm, tcg
#                    [ACCEL=auto]; the probe's verdict is cached per host
#                    (see kvm_verdict below) [KVM_REPROBE=1 probes again]
#   --clock C        the guest's clock: icount (TCG only: -icount
#                    shift=0,sleep=off, the clock counts emulated
#                    instructions at 1 ns each: exact, repeatable on any
#                    host, not hardware time), wall, or auto: icount under
#                    TCG, wall under KVM [CLOCK=auto]
#   --model M        none, or cache: QEMU loads bench-vm-model.so (TCG only,
#                    bench-vm/plugin) beside the clock: exact counts per
#                    bind of instructions, loads, stores, streaming stores,
#                    REP MOVS/STOS, fences and misses of a modelled L1d and
#                    LLC, est_cycles, per guest function (the kernel's
#                    System.map); or auto: cache where the guest runs
#                    under TCG with the icount clock, else none (make ci's
#                    default) [MODEL=none]; MODEL_ARGS=key=value,...
#                    sets the model's parameters (bench-vm/plugin/plugin.c)
#   --timeout S      the watchdog: QEMU is killed S seconds after the
#                    agent's hello [TIMEOUT]; before the hello it has
#                    BOOT_TIMEOUT seconds [120]
#   --results DIR    where records and logs go [out/bench-vm/<commit>]
#   --agent-opt K=V  an agent option (agent.c opts[]), repeatable
#   --mem-ns 0|1     1: a third NVDIMM, devdax with map=mem (its struct pages
#                    in guest RAM, without an altmap: the optimised vmemmap
#                    of compound pages), reported as dax_pmem_mem [MEM_NS=1]
#   --pages          after the binds, digest the devices' struct pages with
#                    bench-vm/pages built against the kernel's build dir,
#                    for bench-vm-report to compare between kernels [PAGES=1]
#   --print-cmd      print QEMU's command line, quoted, and do not run it
#                    (it writes the initramfs it names into DIR)
#   --print-clock    print the accelerator and the clock a run would get
#                    ("tcg icount", "kvm wall"...), probing KVM if its
#                    verdict is not cached, and run nothing else (ci/run.sh
#                    plans its schedule with it; it writes the initramfs
#                    into DIR)
# The NVDIMMs are sparse files in a private mktemp directory under
# NVDIMM_DIR (default /dev/shm, see below), removed afterwards, with QEMU's
# outputs; whatever happens, no QEMU is left running: timeout(1) and QEMU
# get SIGKILL when this script dies, SIGKILL included (the parent-death
# signal, bench-vm/pdeath.sh), and a run removes the NVDIMM directories
# of runs that are no longer alive (their .owner: pid, start time, boot).
#
# A run writes into DIR/.run.XXXXXX and replaces DIR's records and logs
# of the run before only once QEMU has ended (bench-vm/rundir.sh): a
# complete run; a failed one (guest error, watchdog); or one interrupted
# by INT, TERM, HUP or PIPE (the reader of its log gone), whose partial
# records end with an error record saying so.  A run that stops before
# QEMU starts, cannot write its records or logs (a full disk: an error naming the file), or is killed
# (SIGKILL) leaves DIR as it was.  Exit status: 0 when the agent
# finished, 1 otherwise (the records keep the partial samples and an error
# record), 2 for usage and for options that QEMU cannot take, 128+N when
# interrupted by signal N.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
. "$(dirname "$0")/rundir.sh"
# shellcheck disable=SC2034 # die and usage_die (scripts/lib.sh) name it
PROG=bench-vm
BENCH_VM_BIN=${BENCH_VM_BIN:-$BIN}
QEMU=${QEMU:-qemu-system-x86_64}

NS_SIZE=${NS_SIZE:-100G}
REBINDS=${REBINDS:-30}
CPU=${CPU:-max}
ACCEL=${ACCEL:-auto}
CLOCK=${CLOCK:-auto}
MODEL=${MODEL:-none}
MODEL_ARGS=${MODEL_ARGS:-}
TIMEOUT=${TIMEOUT:-}
# A guest under KVM or TCG says hello about a second after QEMU starts.
BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}
# The KVM probe: the same guest, so it also answers within a second or
# two when KVM works; where /dev/kvm opens but nested KVM never runs a
# guest, it waits this long once per host (the verdict is cached).
KVM_PROBE_TIMEOUT=${KVM_PROBE_TIMEOUT:-10}
KVM_PROBE_CACHE=${KVM_PROBE_CACHE:-$OUT/bench-vm/kvm-probe}
MEM_NS=${MEM_NS:-1}
# Guest RAM: with map=dev the struct pages live on the NVDIMMs, so the
# guest itself needs little (512M); the map=mem namespace's live in guest
# RAM, its size / 64 without the vmemmap optimisation (a quarter of that
# with it): GUEST_MEM_MB defaults to both.
GUEST_MEM_MB=${GUEST_MEM_MB:-}
# More kernel command line, before the agent's options (e.g. kasan.fault=panic)
KERNEL_ARGS=${KERNEL_ARGS:-}
PAGES=${PAGES:-}
# Where the NVDIMM files go.  tmpfs by default: on a disk filesystem the
# host writes back the 1.6 GB of struct pages of every 100G rebind, and the
# rebinds measured here took 5-13 s (sd/mean 0.45) instead of 1-1.5 s.
NVDIMM_DIR=${NVDIMM_DIR:-/dev/shm}

usage() {
	usage_die "run.sh [--ns-size SIZE] [--rebinds N] [--cpu MODEL] [--accel auto|kvm|tcg] [--clock auto|icount|wall] [--model none|cache|auto] [--timeout S] [--results DIR] [--agent-opt K=V]... [--mem-ns 0|1] [--pages] [--print-cmd | --print-clock] (COMMIT | --kernel BZIMAGE [--commit ID] | --check)"
}

commit='' kernel='' results='' agent_opts='' print_cmd='' print_clock='' check=''
while [ $# -gt 0 ]; do
	case $1 in
	--ns-size) NS_SIZE=${2?}; shift ;;
	--rebinds) REBINDS=${2?}; shift ;;
	--cpu) CPU=${2?}; shift ;;
	--accel) ACCEL=${2?}; shift ;;
	--clock) CLOCK=${2?}; shift ;;
	--model) MODEL=${2?}; shift ;;
	--timeout) TIMEOUT=${2?}; shift ;;
	--results) results=${2?}; shift ;;
	--kernel) kernel=${2?}; shift ;;
	--commit) commit=${2?}; shift ;;
	--agent-opt) agent_opts="$agent_opts ${2?}"; shift ;;
	--print-cmd) print_cmd=1 ;;
	--print-clock) print_clock=1 ;;
	--check) check=1 ;;
	--pages) PAGES=1 ;;
	--mem-ns) MEM_NS=${2?}; shift ;;
	-*) usage ;;
	*) [ -z "$commit" ] || usage; commit=$1 ;;
	esac
	shift
done
[ -n "$commit" ] || [ -n "$kernel" ] || [ -n "$check" ] || usage

# uint VAR WHAT MIN MAX: $VAR must be a decimal number from MIN to MAX; it
# is given back without leading zeros (the shell's arithmetic and the
# agent's strtoull read "010" as 8).
uint() {
	v=
	eval "v=\${$1:-}"
	case $v in '' | *[!0-9]*) usage_die "$2: '$v' is not a number${5:+ of $5}" ;; esac
	n=${v#"${v%%[!0]*}"}
	n=${n:-0}
	[ ${#n} -le 12 ] && [ "$n" -ge "$3" ] && [ "$n" -le "$4" ] ||
		usage_die "$2: '$v' is not from $3 to $4${5:+ $5}${6:+ ($6)}"
	eval "$1=\$n"
}
# flag VAR: empty, 0 or 1; anything else is a mistyped option, not "off"
flag() {
	v=
	eval "v=\${$1:-}"
	case $v in '' | 0 | 1) ;; *) usage_die "$1: '$v' is not 1 (on) or 0 or empty (off)" ;; esac
}
uint REBINDS --rebinds 0 1000000
flag PAGES
flag KVM_REPROBE
flag PAGES_CHECKOUT
# a -cpu argument: a model and its ,+feature ,-feature ,key=value words
case $CPU in '' | *[!a-zA-Z0-9_.,=+-]*) usage_die "--cpu: '$CPU' is not a QEMU -cpu argument (a model, then ,+feature ,-feature or ,key=value)" ;; esac
case $ACCEL in auto | kvm | tcg) ;; *) usage_die "--accel: '$ACCEL' is not auto, kvm or tcg" ;; esac
case $CLOCK in auto | icount | wall) ;; *) usage_die "--clock: '$CLOCK' is not auto, icount or wall" ;; esac
case $MODEL in none | cache | auto) ;; *) usage_die "--model: '$MODEL' is not none, cache or auto" ;; esac
[ "$ACCEL/$MODEL" != kvm/cache ] ||
	usage_die "--model cache needs TCG (a QEMU plugin sees only the instructions QEMU translates): use --accel tcg or auto"
case $MODEL_ARGS in *[!a-z0-9_=,KMG]*) usage_die "MODEL_ARGS: '$MODEL_ARGS': only key=value,... with [a-z0-9_] keys and numbers (K, M, G)" ;; esac
case $MEM_NS in 0 | 1) ;; *) usage_die "--mem-ns: '$MEM_NS' is not 0 or 1" ;; esac
case $KERNEL_ARGS in *[!a-zA-Z0-9_.,=:+\ -]*) usage_die "KERNEL_ARGS: '$KERNEL_ARGS': only words of [a-zA-Z0-9_.,=:+-]" ;; esac
[ "$ACCEL/$CLOCK" != kvm/icount ] ||
	usage_die "--clock icount needs TCG (QEMU counts instructions only when it emulates them): use --accel tcg or auto, or --clock wall"
case $agent_opts in *[!\ a-z0-9_=KMGx]*) usage_die "--agent-opt: only key=value with [a-z0-9_] keys and numbers" ;; esac

# SIZE in bytes, QEMU's suffixes (K, M, G, T: powers of 1024); status 3
# above 1P.  The bound comes before any arithmetic: the shell's is 64-bit
# and would wrap (16777216T is 2^64 bytes, which became 0), and 1P is
# beyond any guest's physical address space anyway.  What QEMU and the
# host can really take is asked of QEMU itself (the machine preflight).
to_bytes() {
	case $1 in
	*T) n=${1%T} s=40 ;;
	*G) n=${1%G} s=30 ;;
	*M) n=${1%M} s=20 ;;
	*K) n=${1%K} s=10 ;;
	*) n=$1 s=0 ;;
	esac
	case $n in '' | *[!0-9]*) return 1 ;; esac
	n=${n#"${n%%[!0]*}"}
	n=${n:-0}
	[ ${#n} -le 16 ] && [ "$n" -le $(((1 << 50) >> s)) ] || return 3
	echo $((n << s))
}
rc=0
ns_bytes=$(to_bytes "$NS_SIZE") || rc=$?
case $rc in
0) ;;
3) usage_die "--ns-size: '$NS_SIZE' is more than 1P (1024T), far beyond what QEMU can give a guest" ;;
*) usage_die "--ns-size: '$NS_SIZE' is not a size (digits, then K, M, G or T: e.g. 100G)" ;;
esac
# nd_pmem and dax_pmem need at least one 2 MiB-aligned 128 MiB memory
# section after the info block and the struct pages.
[ "$ns_bytes" -ge $((512 << 20)) ] || usage_die "--ns-size: '$NS_SIZE' is below 512M"
[ $((ns_bytes % (2 << 20))) = 0 ] ||
	usage_die "--ns-size: '$NS_SIZE' is not a multiple of 2M (the devdax align): e.g. $(((ns_bytes >> 21) << 1))M"
nr_nvdimms=$((2 + MEM_NS))
GUEST_MEM_MB=${GUEST_MEM_MB:-$((512 + MEM_NS * (ns_bytes >> 20) / 64))}
case $GUEST_MEM_MB in *[!0-9]*) usage_die "GUEST_MEM_MB: '$GUEST_MEM_MB' is not a number of MiB" ;; esac
# the guest's RAM: the kernel and the agent need some, and more than the
# host has is never there when the guest touches it
uint GUEST_MEM_MB GUEST_MEM_MB 128 "$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)" MiB "the host's memory"

# The watchdog's default, counted from the agent's hello: a generous
# per-bind allowance that scales with the namespace size (TCG writes the
# struct pages at a few GB/s at best, icount somewhat slower); a hung
# guest ends there, not never.
if [ -z "$TIMEOUT" ]; then
	TIMEOUT=$((120 + (REBINDS + 1) * nr_nvdimms * (ns_bytes >> 30) / 8))
fi
# 0 is refused: for timeout(1) a duration of 0 is no limit at all, and a
# watchdog of 0 none; 30 days is more than any run.
no_zero="for timeout(1) 0 means no limit: give the seconds"
uint TIMEOUT --timeout 1 2592000 seconds "$no_zero"
uint BOOT_TIMEOUT BOOT_TIMEOUT 1 2592000 seconds "$no_zero"
uint KVM_PROBE_TIMEOUT KVM_PROBE_TIMEOUT 1 3600 seconds "$no_zero"
[ -d "$NVDIMM_DIR" ] && [ -w "$NVDIMM_DIR" ] ||
	die "nvdimm: $NVDIMM_DIR is not a writable directory: set NVDIMM_DIR"
# the programs of a run, whatever its kernel: --check asks for them too,
# so that a missing tool stops make ci before its first step
for t in bench-vm-agent bench-vm-collect gen_init_cpio; do
	[ -x "$BENCH_VM_BIN/$t" ] || die "tools: $BENCH_VM_BIN/$t is missing: run 'make tools'"
done
command -v "$QEMU" >/dev/null || die "qemu: $QEMU is not installed: run 'make deps' (qemu-system-x86)"
[ "$MODEL" = none ] || [ -f "$BENCH_VM_BIN/bench-vm-model.so" ] ||
	die "tools: $BENCH_VM_BIN/bench-vm-model.so (--model cache) is missing: run 'make tools'"
# --check: all of the above is what a run can take; what decides its
# results besides the kernel, a line each (the model's plugin by its
# content: a rebuilt plugin counts anew)
if [ -n "$check" ]; then
	printf '%s\n' "ns_size $NS_SIZE" "rebinds $REBINDS" "cpu $CPU" "accel $ACCEL" "clock $CLOCK" \
		"mem_ns $MEM_NS" "guest_mem_mb $GUEST_MEM_MB" "kernel_args $KERNEL_ARGS" "pages ${PAGES:-0}" \
		"agent_opts$agent_opts" "nvdimm_dir $NVDIMM_DIR" \
		"qemu $QEMU $("$QEMU" --version 2>/dev/null | head -n 1)" \
		"model $MODEL${MODEL_ARGS:+ $MODEL_ARGS}$([ "$MODEL" = none ] ||
			sha256sum <"$BENCH_VM_BIN/bench-vm-model.so" | cut -c1-64 | sed 's/^/ /')"
	exit 0
fi

if [ -z "$kernel" ]; then
	kernel=$OUT/build/$commit/arch/x86/boot/bzImage
	[ -f "$kernel" ] || die "kernel: $kernel is missing: run 'make build' (or 'sh scripts/build.sh $commit')"
fi
[ -f "$kernel" ] || die "kernel: $kernel is missing"
kernel=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
# without a commit id, the kernel's build directory names it (out/build/<id>)
label=${commit:-$(basename "$(cd "$(dirname "$kernel")/../../.." && pwd)")}
results=${results:-$OUT/bench-vm/$label}

mkdir -p "$results" || die "results: cannot create the directory $results"
# absolute: QEMU, kbuild's M= and the printed command must not depend on
# the current directory
results=$(cd "$results" && pwd)
dest=$results

# QEMU's argv is built as one shell-quoted string from small per-device
# pieces (POSIX sh has no arrays): ARGV is eval'ed into "$@" to run and
# printed as is for --print-cmd.
ARGV=
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
arg() {
	for a; do
		ARGV="$ARGV $(quote "$a")"
	done
}

# qesc VALUE: VALUE inside a QEMU option list (-object, -chardev), where
# a comma ends the value unless it is doubled: a path with a comma would
# otherwise be cut there and the rest read as options
qesc() {
	printf '%s' "$1" | sed 's/,/,,/g'
}

piece_machine() {
	# nvdimm=on: the NFIT table that the kernel's ACPI_NFIT reads.
	# -nodefaults: no NIC (no network), no VGA, no default serial/monitor.
	arg "$QEMU" -name bench-vm -machine pc,nvdimm=on -nodefaults -no-user-config
	# -no-reboot: a guest reboot (panic=-1 below, a triple fault) ends
	# QEMU instead of booting again: a scripted boot ends deterministically.
	arg -no-reboot -display none -monitor none
}

# piece_accel ACCEL CLOCK: -icount shift=0 makes the guest clock advance
# 2^0 ns per emulated instruction, so every timing the guest takes is a
# count of the work it did: the same on every host, loaded or idle;
# sleep=off lets an idle guest jump to its next timer instead of waiting
# in real time.  The guest's two other inputs from the host are fixed
# with it, so that the whole boot, not only its timings, is the same
# every time (the model's per-bind counts are exact only so): -seed makes
# RDRAND (-cpu max has it) a seeded generator instead of the host's
# entropy, and -rtc base=,clock=vm starts the wall clock at one date and
# runs it on the guest's clock; both feed the kernel's random seeds
# (SLUB freelists, page-allocator state), which otherwise differ by a few
# instructions per bind between boots (measured: __slab_alloc_node,
# __rmqueue_pcplist).  -smp 1 either way (icount runs one vCPU thread
# anyway).
piece_accel() {
	arg -accel "$1"
	[ "$2" != icount ] ||
		arg -icount shift=0,sleep=off -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm
	arg -cpu "$CPU" -smp 1
}

piece_memory() {
	# maxmem/slots make room for the NVDIMMs in the hotplug area.
	arg -m "${GUEST_MEM_MB}M,slots=$nr_nvdimms,maxmem=$((GUEST_MEM_MB + nr_nvdimms * (ns_bytes >> 20)))M"
}

# piece_nvdimm N FILE: one NVDIMM on a sparse file; share=on so the
# guest's writes (the info block, the struct pages of map=dev) reach the
# file instead of private anonymous memory.
piece_nvdimm() {
	arg -object "memory-backend-file,id=nvmem$1,share=on,mem-path=$(qesc "$2"),size=$ns_bytes"
	arg -device "nvdimm,id=nvdimm$1,memdev=nvmem$1"
}

# The agent's channel: kernel messages go to the serial console, results
# to this port, so neither can corrupt the other.  ioeventfd=off: the
# guest's kick of the port is handled at once on the vCPU thread, not by
# QEMU's main loop when the host schedules it, whose interrupt would fall
# at a host-timed point of the guest (measured: the model's cache counts
# of the next bind moved by a few lines between boots).
piece_agent_port() {
	arg -device virtio-serial-pci,ioeventfd=off
	arg -chardev "file,id=agent,path=$(qesc "$1")"
	arg -device virtserialport,chardev=agent,name=bench-vm.agent
}

piece_console() {
	arg -chardev "file,id=console,path=$(qesc "$1")" -serial chardev:console
}

# piece_kernel AGENT_OPTS: panic=-1 reboots at once on a panic, which
# -no-reboot turns into QEMU's exit; loglevel=4 keeps the slow serial
# console quiet (the agent reads /dev/kmsg, which has everything); dyndbg=
# turns on memmap_init_zone_device()'s pr_debug from the first bind; after
# "--" come the agent's own options (its argv).  The i8042 options skip
# probing a keyboard and mouse nobody uses (0.2-0.5 s of a TCG boot here).
piece_kernel() {
	arg -kernel "$kernel" -initrd "$initrd"
	arg -append "console=ttyS0 loglevel=4 panic=-1 i8042.noaux=1 i8042.nokbd=1 i8042.nopnp=1 dyndbg=\"func memmap_init_zone_device +p\"${KERNEL_ARGS:+ $KERNEL_ARGS} -- $1"
}

# piece_model OUT: the store and cache model (bench-vm/plugin), its
# counts into OUT, the guest functions named from the kernel's System.map
# (out/build/<commit>/System.map) when there is one
piece_model() {
	sysmap=$(dirname "$kernel")/../../../System.map
	[ -f "$sysmap" ] || sysmap=
	arg -plugin "$(qesc "$BENCH_VM_BIN/bench-vm-model.so"),out=$(qesc "$1")${sysmap:+,symbols=$(qesc "$sysmap")}${MODEL_ARGS:+,$MODEL_ARGS}"
}

# build_argv ACCEL CLOCK DIR AGENT_OUT AGENT_OPTS
build_argv() {
	ARGV=
	piece_machine
	piece_accel "$1" "$2"
	[ "$MODEL" = none ] || [ "$1" != tcg ] || piece_model "$3/model.out"
	piece_memory
	piece_nvdimm 0 "$3/nvdimm0"
	piece_nvdimm 1 "$3/nvdimm1"
	[ "$MEM_NS" = 0 ] || piece_nvdimm 2 "$3/nvdimm2"
	piece_agent_port "$4"
	piece_console "$console"
	piece_kernel "$5"
}

qpid='' watcher='' tmp='' booted='' keep_stage=''
# stop_qemu: the watchdog, and the timeout(1) with the QEMU under it
stop_qemu() {
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
	if [ -n "$qpid" ]; then
		kill -TERM "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	qpid='' watcher=''
}
cleanup() {
	# nothing may outlive us: QEMU, the sparse files, and the results of
	# a run that did not reach its end (kept when an error names a file
	# in them); a worktree moved for the module build goes back
	stop_qemu
	if [ -n "${restore:-}" ]; then
		git -C "$srctree" checkout -q --detach "$restore" ||
			warn "pages: git checkout $restore (back) in $srctree failed: check it out by hand"
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
	[ "$results" = "$dest" ] || [ -n "$keep_stage" ] || rm -rf "$results"
}
# interrupted SIG: INT, TERM, HUP or PIPE to the runner.  Once QEMU has
# started, what arrived is kept with an error record saying so, in place
# of the results of the run before (finish, below); before that nothing
# was measured, and the results directory stays as it was.  PIPE: the
# reader of stderr is gone (a pipe to tee that died first): without the
# trap the shell would die of it in the middle of a message, before
# cleanup, and leave the NVDIMM files behind; its messages after that
# fail, and the cleanup runs all the same.
interrupted() {
	trap '' INT TERM HUP PIPE
	[ -n "$booted" ] || exit $((128 + $2))
	stop_qemu
	host_error="interrupted: bench-vm/run.sh got SIG$1 $(($(date +%s) - t0))s after QEMU started, QEMU stopped; partial results kept"
	finish
	die_rc $((128 + $2)) "run: $label interrupted by SIG$1: its partial records, with an error record saying so, are in $results/records.jsonl"
}
trap cleanup EXIT
trap 'interrupted INT 2' INT
trap 'interrupted TERM 15' TERM
trap 'interrupted HUP 1' HUP
trap 'interrupted PIPE 13' PIPE

# DIR: where the results end; results: where this run writes them, a
# directory of its own in DIR (--print-cmd: DIR itself)
if pid=$(run_busy "$dest" '.run.*'); then
	die "results: $dest is being written by another run (pid $pid): wait for it, or give another --results"
fi
runs_clean "$dest" '.run.*' "the unfinished results"
if [ -z "$print_cmd" ]; then
	run_dir_make "$dest" .run
	# shellcheck disable=SC2154 # run_dir_make (rundir.sh) sets it
	results=$run_dir
fi
initrd=$results/initramfs.cpio

# The struct page digest module, built against this kernel's own build
# directory (the one that holds bzImage): its struct page layout and
# symbols are that commit's.
module=
if [ "$PAGES" = 1 ]; then
	build_dir=$(cd "$(dirname "$kernel")/../../.." && pwd)
	[ -f "$build_dir/.config" ] && [ -f "$build_dir/Makefile" ] ||
		die "pages: $build_dir is not the kernel's build directory (no .config): the module needs it"
	grep -qx CONFIG_MODULES=y "$build_dir/.config" ||
		die "pages: $build_dir/.config lacks CONFIG_MODULES=y"
	srctree=$(cd "$build_dir/source" && pwd -P) ||
		die "pages: $build_dir/source (the kernel source of the build) is missing"
	# kbuild compiles the module with the headers of the source tree as it
	# is checked out now: they must be the commit's.  With
	# PAGES_CHECKOUT=1 (make bench-vm) the toolkit's worktree is moved to
	# the commit for the module build, as build.sh does, and moved back.
	restore=
	if [ -n "$commit" ] && git -C "$srctree" rev-parse -q --verify "$commit^{commit}" >/dev/null; then
		if ! git -C "$srctree" diff --quiet "$commit" -- include arch/x86/include; then
			[ "${PAGES_CHECKOUT:-}" = 1 ] ||
				die "pages: $srctree is not at $commit (its headers differ): check it out, or set PAGES_CHECKOUT=1"
			[ -z "$(git -C "$srctree" status --porcelain --untracked-files=no)" ] ||
				die "pages: $srctree has local changes: not checking out $commit there"
			restore=$(git -C "$srctree" rev-parse HEAD)
			git -C "$srctree" checkout -q --detach "$commit" ||
				die "pages: git checkout $commit in $srctree failed"
		fi
	else
		warn "pages: no commit id for $kernel: the module's headers are $srctree's as checked out"
	fi
	moddir=$results/pages-module
	rm -rf "$moddir"
	mkdir -p "$moddir" &&
		cp "$TOP/bench-vm/pages/Kbuild" "$TOP/bench-vm/pages/bench_vm_pages.c" "$moddir/" ||
		die "pages: cannot copy the module's sources into $moddir (the reason is above: a full disk?)"
	progress "$label" "pages: building bench_vm_pages.ko against $build_dir"
	# A bzImage-only build has neither Module.symvers nor scripts/module.lds
	# (make modules_prepare): name vmlinux.symvers and make module.lds in
	# the module's own directory, so the commit's build directory is only
	# read, never written.
	[ -f "$build_dir/vmlinux.symvers" ] ||
		die "pages: $build_dir/vmlinux.symvers is missing: the module cannot link"
	cp "$srctree/scripts/module.lds.S" "$moddir/" ||
		die "pages: cannot copy module.lds.S into $moddir (the reason is above)"
	rc=0
	{
		make -s -C "$build_dir" M="$moddir" module.lds &&
		make -s -C "$build_dir" M="$moddir" KBUILD_EXTRA_SYMBOLS="$build_dir/vmlinux.symvers" \
			ARCH_MODULE_LDS="$moddir/module.lds" modules
	} >"$results/pages-build.log" 2>&1 || rc=$?
	if [ -n "$restore" ]; then
		git -C "$srctree" checkout -q --detach "$restore" ||
			die "pages: git checkout $restore (back) in $srctree failed"
		restore=
	fi
	[ "${rc:-0}" = 0 ] || {
		keep_stage=1
		die "pages: building bench_vm_pages.ko against $build_dir failed: see $results/pages-build.log ($dest keeps the results of the run before)"
	}
	module=$moddir/bench_vm_pages.ko
	agent_opts="$agent_opts pages=1"
fi

[ "$MEM_NS" = 0 ] || agent_opts="$agent_opts mem_ns=1"
sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" "$initrd" ${module:+"$module"}

NVDIMM_DIR=$(cd "$NVDIMM_DIR" && pwd)
# the NVDIMM files of runs that died (SIGKILL: no trap ran) go now
runs_clean "$NVDIMM_DIR" 'bench-vm.*' "the NVDIMM files"
run_dir_make "$NVDIMM_DIR" bench-vm
# shellcheck disable=SC2154 # run_dir_make (rundir.sh) sets it
tmp=$run_dir
# QEMU's outputs live beside the NVDIMM files, on the filesystem that the
# preflight below measured: a full results disk cannot cut them (QEMU
# does not say when a chardev write fails), and the watchdog's word
# always reaches the runner.  They are copied to the results, checked.
agent_out=$tmp/agent.out
console=$tmp/console.log
# resolve_clock ACCEL: the clock of a run under ACCEL, and its model
# (MODEL=auto: the cache model where the guest is exact, TCG with icount)
resolve_clock() {
	case $CLOCK/$1 in
	auto/tcg) clock=icount ;;
	auto/kvm) clock=wall ;;
	icount/kvm) die "clock: icount was asked for but the guest runs under KVM (icount needs TCG): use --accel tcg or --clock wall" ;;
	*) clock=$CLOCK ;;
	esac
	[ "$MODEL" != auto ] || case $1/$clock in
		tcg/icount) MODEL=cache ;;
		*) MODEL=none ;;
	esac
}

if [ -n "$print_cmd" ]; then
	accel=$ACCEL
	[ "$accel" != auto ] || accel=tcg
	resolve_clock "$accel"
	build_argv "$accel" "$clock" "$tmp" "$agent_out" "rebinds=$REBINDS$agent_opts"
	rm -rf "$tmp"
	echo "# QEMU creates the NVDIMM files; make their directory first:"
	echo "mkdir -p $(quote "$tmp")"
	printf '%s\n' "${ARGV# }"
	exit 0
fi

# The KVM probe: KVM only when /dev/kvm really boots a guest, the agent
# with probe=1, which says hello and powers off.  What decides it is the
# host, not the kernel under test: its kernel, QEMU, /dev/kvm and who
# opens it.  So the verdict is cached under that key in KVM_PROBE_CACHE:
# one probe per host serves every kernel of a run and the runs after it,
# until one of them changes (KVM_REPROBE=1 probes again).  The probe's
# console and QEMU log are kept beside it.  KVM_DEV names the device the
# probe checks (the tests point it at a character device of their own).
KVM_DEV=${KVM_DEV:-/dev/kvm}
kvm_key() {
	printf 'host kernel: %s\n' "$(uname -srvm)"
	printf 'qemu: %s\n' "$("$QEMU" --version 2>/dev/null | head -n 1)"
	printf '/dev/kvm: %s\n' "$(stat -L -c '%F %t:%T mode %a uid %u gid %g' "$KVM_DEV" 2>/dev/null || echo absent)"
	printf 'user: %s\n' "$(id -u)"
}

# Every QEMU runs under timeout(1), which sends TERM, then KILL 5 s later;
# both die with this shell, whatever kills it: the parent-death signal,
# armed by setpriv and checked by pdeath.sh, on each link of the chain.
# pdeath.sh checks that its parent is this shell ($$), so the command is
# always a simple command of this shell, never one of a function run in
# the background, whose subshell would be the parent.
#
# run_probe SECONDS LOG: the probe's QEMU; sets rc (124: timed out).
run_probe() {
	limit=$1 log=$2
	eval "set -- $ARGV"
	PDEATH_PARENT=$$ setpriv --pdeathsig KILL sh "$PDEATH" timeout -k 5 "$limit" \
		setpriv --pdeathsig KILL sh "$PDEATH" "$@" </dev/null >"$log" 2>&1 &
	qpid=$!
	rc=0
	wait "$qpid" || rc=$?
	qpid=
}

# exit_words RC: "exit 1", "killed by SIGABRT (exit 134)"
exit_words() {
	if [ "$1" -gt 128 ] && sig=$(kill -l "$(($1 - 128))" 2>/dev/null); then
		echo "killed by SIG$sig (exit $1)"
	else
		echo "exit $1"
	fi
}

# kvm_probe BASE: boot the probe guest under KVM (BASE.console,
# BASE.qemu.log); false, with the reason in $why, when it does not boot.
# What happened decides the verdict and its words:
#   hello                 kvm
#   no hello in time      tcg: /dev/kvm opens but runs no guest (nested KVM)
#   QEMU died of a signal tcg: QEMU aborted under -accel kvm (seen on AMD
#    with KVM's words     EPYC hosts: "failed to set MSR 0x10a", then an
#                         assertion in kvm_buf_set_msrs, before any kernel
#                         is read)
#   QEMU failed, KVM's    tcg: QEMU refused -accel kvm ("Could not access
#    words in its log     KVM kernel module", ...)
#   anything else         no verdict, nothing cached (nocache=1): a QEMU
#                         that fails on what is not KVM's (a kernel it
#                         cannot load) says nothing about the host, and a
#                         guest that powers off without hello is the
#                         kernel's
kvm_probe() {
	[ -c "$KVM_DEV" ] && [ -r "$KVM_DEV" ] && [ -w "$KVM_DEV" ] || {
		why="$KVM_DEV is missing or not read-write"
		return 1
	}
	: >"$tmp/probe.out"
	main_console=$console
	console=$1.console
	: >"$console"
	# The probe asks about the host, not about this run's options: a -cpu,
	# a size or RAM that QEMU refuses must not be cached as "KVM does not
	# work" for every later run (they meet the machine preflight instead).
	run_cpu=$CPU run_ns_bytes=$ns_bytes run_mem=$GUEST_MEM_MB
	CPU=max ns_bytes=$((512 << 20)) GUEST_MEM_MB=512
	build_argv kvm wall "$tmp" "$tmp/probe.out" probe=1
	CPU=$run_cpu ns_bytes=$run_ns_bytes GUEST_MEM_MB=$run_mem
	progress "$label" "accel: probing KVM (a guest that says hello and powers off, ${KVM_PROBE_TIMEOUT}s at most)"
	run_probe "$KVM_PROBE_TIMEOUT" "$1.qemu.log"
	console=$main_console
	rm -f "$tmp/nvdimm0" "$tmp/nvdimm1" "$tmp/nvdimm2"
	grep -q '^hello' "$tmp/probe.out" && return 0
	said=$(grep -v '^[[:space:]]*$' "$1.qemu.log" | tail -n 2 | tr '\n' ' ' | sed 's/ *$//')
	see="see $1.qemu.log, $1.console"
	case $rc in
	124 | 137)
		why="a probe guest did not say hello within ${KVM_PROBE_TIMEOUT}s under -accel kvm (QEMU stopped by the timeout, exit $rc$([ -s "$1.console" ] || echo ', no console output'): /dev/kvm opens but runs no guest, as nested KVM does; $see)"
		;;
	0)
		nocache=1
		why="the probe guest powered off under -accel kvm without saying hello (the kernel's, not the host's: no verdict on KVM, nothing cached; $see)"
		;;
	*)
		if ! grep -qi kvm "$1.qemu.log"; then
			nocache=1
			why="QEMU did not start the probe guest ($(exit_words "$rc"): ${said:-no message}): no verdict on KVM, nothing cached"
		elif [ "$rc" -gt 128 ]; then
			why="QEMU aborted under -accel kvm before the guest ran ($(exit_words "$rc"): ${said:-no message}): KVM cannot run this guest on this host; $see"
		else
			why="QEMU refused -accel kvm ($(exit_words "$rc"): ${said:-no message}); $see"
		fi
		;;
	esac
	return 1
}

# cache_whole FILE KEY: FILE is a verdict as kvm_verdict writes it, whole:
# the verdict, a reason, an ISO time, then KEY line for line.  A file cut
# short (a full disk, a kill mid-write by an older run.sh) or edited is no
# verdict: it is probed again, never trusted with an empty reason.
cache_whole() {
	[ "$(sed -n 1p "$1")" = kvm ] || [ "$(sed -n 1p "$1")" = tcg ] || return 1
	[ -n "$(sed -n 2p "$1")" ] || return 1
	sed -n 3p "$1" | grep -qx '[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' || return 1
	[ "$(sed -n '4,$p' "$1")" = "$2" ] || return 1
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

# kvm_verdict: sets verdict (kvm or tcg), why, when, vfile and probed (1
# when this call probed), from the cache or a probe
kvm_verdict() {
	key=$(kvm_key)
	vfile=$KVM_PROBE_CACHE/$(printf '%s\n' "$key" | sha256sum | cut -c1-16)
	probed=
	if [ "${KVM_REPROBE:-}" != 1 ] && [ -f "$vfile" ]; then
		if cache_whole "$vfile" "$key"; then
			verdict=$(sed -n 1p "$vfile")
			why=$(sed -n 2p "$vfile")
			when=$(sed -n 3p "$vfile")
			return 0
		fi
		warn "accel: the cached KVM verdict $vfile is not whole (cut short or edited): probing again"
	fi
	mkdir -p "$KVM_PROBE_CACHE" || die "accel: cannot create $KVM_PROBE_CACHE"
	probed=1 nocache=
	if kvm_probe "$vfile"; then
		verdict=kvm why="a probe guest booted under -accel kvm"
	else
		verdict=tcg
	fi
	when=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	[ -z "$nocache" ] || return 0
	printf '%s\n%s\n%s\n%s\n' "$verdict" "$why" "$when" "$key" >"$vfile.$$" &&
		mv "$vfile.$$" "$vfile" || {
		rm -f "$vfile.$$"
		die "accel: cannot write the probe's verdict to $vfile"
	}
}

# say_why: why KVM is not used, in full once per run (BENCH_VM_RUN, set by
# bench.sh and ci/run.sh; one run.sh alone is a run of its own), a
# pointer to it for every other kernel
say_why() {
	run=${BENCH_VM_RUN:-run.sh-$$}
	if [ -n "${nocache:-}" ]; then
		progress "$label" "accel: tcg: KVM is not used: $why"
	elif [ -n "$probed" ] || [ "$(cat "$vfile.said" 2>/dev/null)" != "$run" ]; then
		progress "$label" "accel: tcg: KVM is not used: $why (probed $when; the verdict is cached in $vfile for this host kernel, QEMU and /dev/kvm: KVM_REPROBE=1 probes again)"
		printf '%s\n' "$run" >"$vfile.said" || die "accel: cannot write $vfile.said"
	else
		progress "$label" "accel: tcg (KVM is not used: see above, or $vfile)"
	fi
}

case $ACCEL in
auto)
	kvm_verdict
	accel=$verdict
	[ "$accel" = kvm ] || say_why
	;;
kvm)
	kvm_verdict
	[ "$verdict" = kvm ] ||
		die "accel: kvm was asked for but $why (probed $when, cached in $vfile: KVM_REPROBE=1 probes again)"
	accel=kvm
	;;
tcg) accel=tcg ;;
esac
[ "$MODEL/$accel" != cache/kvm ] ||
	die "model: --model cache needs TCG and KVM was chosen ($why): use --accel tcg"
resolve_clock "$accel"
if [ -n "$print_clock" ]; then
	rm -rf "$tmp"
	printf '%s %s\n' "$accel" "$clock"
	exit 0
fi
case $clock in
icount) clock_label="$accel-icount (emulated instructions at 1 ns each, not hardware time)" ;;
*) clock_label="$accel, wall clock$([ "$accel" != tcg ] || echo ' (TCG: relative change only)')" ;;
esac

# The machine preflight: QEMU sets up this very machine, stopped (-S), and
# quits on QMP's word, before anything boots.  What it cannot take, it
# says in its own words, and the run is refused (exit 2) without touching
# the results: NVDIMMs beyond the guest's physical address space (TCG
# gives 40 bits: 2 NVDIMMs of 400G fit, 3 do not), a -cpu model or
# feature it does not know, more guest RAM than it can map, an NVDIMM file
# larger than NVDIMM_DIR's filesystem allows.  The sparse files it made
# are removed.  A QEMU that does not answer within BOOT_TIMEOUT is no
# refusal: the boot's own watchdog deals with it.
build_argv "$accel" "$clock" "$tmp" "$agent_out" "rebinds=$REBINDS$agent_opts"
eval "set -- $ARGV"
rc=0
PDEATH_PARENT=$$ setpriv --pdeathsig KILL sh "$PDEATH" timeout -k 5 "$BOOT_TIMEOUT" \
	setpriv --pdeathsig KILL sh "$PDEATH" "$@" -S -qmp stdio >"$tmp/preflight.log" 2>&1 <<'QMP' || rc=$?
{"execute": "qmp_capabilities"}
{"execute": "quit"}
QMP
rm -f "$tmp"/nvdimm[0-9]
case $rc in
0) ;;
124 | 137) warn "preflight: QEMU did not set up the machine within ${BOOT_TIMEOUT}s (BOOT_TIMEOUT): booting without this check" ;;
*)
	why=$(grep -v '^{' "$tmp/preflight.log" | tail -n 3 | tr '\n' ' ' | sed 's/ *$//')
	# KVM chosen by a cached verdict that no longer holds: say where it came from
	from=
	[ "$ACCEL/$accel" != auto/kvm ] ||
		from=" (-accel kvm from the verdict cached in $vfile, probed $when: KVM_REPROBE=1 probes again)"
	usage_die "options: QEMU cannot make this machine (NVDIMMs of $NS_SIZE, ${GUEST_MEM_MB}M of RAM, -cpu $CPU, -accel $accel$from): ${why:-exit $rc, no message}: change NS_SIZE, GUEST_MEM_MB or CPU; $dest is unchanged"
	;;
esac

# Free-space preflight: the struct pages of map=dev (64 bytes per 4 KiB
# page, ~1.6% of each namespace) and the info blocks are really written to
# the sparse files.
# a struct page (64 bytes) per 4 KiB of each NVDIMM, 10% more, 64 MiB
need_kb=$((nr_nvdimms * ns_bytes * 11 / 655360 + 65536))
avail_kb=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] ||
	die "preflight: $NVDIMM_DIR has $((avail_kb >> 10)) MiB free, $nr_nvdimms NVDIMMs of $NS_SIZE need $((need_kb >> 10)) MiB: set NVDIMM_DIR or a smaller NS_SIZE"
# On tmpfs those pages are RAM: the host must have them too.
if [ "$(stat -f -c %T "$tmp")" = tmpfs ]; then
	mem_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	[ "$mem_kb" -ge "$((need_kb + (GUEST_MEM_MB << 10)))" ] ||
		die "preflight: $NVDIMM_DIR is tmpfs and the host has $((mem_kb >> 10)) MiB available, $((need_kb >> 10)) MiB needed: set NVDIMM_DIR to a disk directory or a smaller NS_SIZE"
fi

# watch WHY_FILE: the watchdog and the progress reporter of the run, in
# the background.  QEMU has BOOT_TIMEOUT seconds until the agent's hello,
# then TIMEOUT seconds for the rest, so how fast a machine boots never
# decides whether a run is cut; on expiry it writes why to WHY_FILE and
# sends TERM to timeout(1), which passes it to QEMU and sends KILL 5 s
# later (QEMU is killed even when WHY_FILE cannot be written).  Its sleep runs in the background so that the TERM which ends
# the watcher interrupts the wait and the sleep is not left behind.
watch() {
	sp=
	trap 'kill "$sp" 2>/dev/null; exit 0' TERM
	# (a log whose reader is gone must not end the watchdog: its
	# progress lines fail, it goes on)
	trap '' PIPE
	start=$(date +%s) hello='' n=0
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		if [ -z "$hello" ] && grep -q '^hello' "$agent_out"; then
			hello=$now
		fi
		why=
		if [ -z "$hello" ] && [ $((now - start)) -ge "$BOOT_TIMEOUT" ]; then
			why="watchdog: no hello from the agent ${BOOT_TIMEOUT}s after QEMU started (a kernel that does not boot: see $dest/console.log; or raise BOOT_TIMEOUT=); QEMU killed"
		elif [ -n "$hello" ] && [ $((now - hello)) -ge "$TIMEOUT" ]; then
			why="watchdog: QEMU killed ${TIMEOUT}s after the agent's hello (a hung guest, or raise TIMEOUT=); partial results kept"
		fi
		if [ -n "$why" ]; then
			printf '%s\n' "$why" >"$1" || true
			kill -TERM "$qpid" 2>/dev/null
			exit 0
		fi
		n=$((n + 1))
		if [ $((n % 15)) = 0 ]; then
			step=$(grep '^step' "$agent_out" | tail -n 1 | cut -f2 | cut -d= -f2)
			progress "$label" "$(grep -c '^sample' "$agent_out") samples, step ${step:-boot (no hello yet)}" || :
		fi
		sleep 1 &
		sp=$!
		wait "$sp"
	done
}

# finish: the records of what arrived (bench-vm-collect, with host_error),
# QEMU's outputs beside them, and all of it in place of the run before
# (results_commit); sets crc, collect's status, and results to DIR.  No
# signal stops it halfway.  A record or log that cannot be written (a full
# disk) is an error naming it, and DIR keeps the results of the run before.
finish() {
	trap '' INT TERM HUP PIPE
	crc=0
	model_out=
	[ "$MODEL" = none ] || model_out=$tmp/model.out
	qemu_version=$("$QEMU" --version 2>/dev/null | head -n 1)
	"$BENCH_VM_BIN/bench-vm-collect" --commit "$label" --accel "$accel" --clock "$clock" --qemu-cpu "$CPU" \
		${qemu_version:+--qemu-version "$qemu_version"} \
		--ns-size "$ns_bytes" --rebinds "$REBINDS" ${host_error:+--host-error "$host_error"} \
		${model_out:+--model "$model_out"} \
		--output "$results/records.jsonl" "$agent_out" 2>"$tmp/collect.err" || crc=$?
	if [ ! -f "$results/records.jsonl" ]; then
		cat "$tmp/collect.err" >&2
		die "results: the records of $label could not be written to $results/records.jsonl (see above): free space on $(df -P "$results" | awk 'NR == 2 { print $6 }'), or give --results elsewhere; $dest keeps the results of the run before"
	fi
	for f in agent.out console.log qemu.log watchdog.txt collect.err model.out; do
		[ ! -f "$tmp/$f" ] || cp "$tmp/$f" "$results/$f" ||
			die "results: copying $f to $results failed (the reason is above: a full disk?); $dest keeps the results of the run before"
	done
	files=$(ls "$results")
	put "$results/.bench-vm-files" <<EOF
$files
EOF
	results_commit "$results" "$dest" ||
		die "results: moving the results of $label from $results into $dest failed (the reason is above)"
	results=$dest
}

# No host-side prefault of the files: QEMU needs them at full size and
# its own mapping faults pages in on first touch anyway, so the first
# binding includes host page faults that rebinds do not (tried: fallocate
# of the struct page area changed nothing measurable at 8G).
: >"$agent_out"
: >"$console"
# The command kept beside the results names the initramfs where it will
# be, beside the records; the NVDIMM directory and QEMU's outputs were
# this run's (removed, as the files are).
initrd=$dest/initramfs.cpio
build_argv "$accel" "$clock" "$tmp" "$agent_out" "rebinds=$REBINDS$agent_opts"
kept_cmd=${ARGV# }
initrd=$results/initramfs.cpio
put "$results/qemu-cmd.txt" <<EOF
# QEMU creates the NVDIMM files; make their directory first:
mkdir -p $(quote "$tmp")
$kept_cmd
EOF
build_argv "$accel" "$clock" "$tmp" "$agent_out" "rebinds=$REBINDS$agent_opts"
progress "$label" "boot: $clock_label, cpu $CPU, $nr_nvdimms NVDIMMs of $NS_SIZE in $NVDIMM_DIR, $REBINDS rebinds, watchdog ${TIMEOUT}s after the agent's hello"
wd=$tmp/watchdog.txt
rm -f "$wd"
t0=$(date +%s)
eval "set -- $ARGV"
# the hard limit, should the watcher itself fail
hard=$((BOOT_TIMEOUT + TIMEOUT + 60))
booted=1
PDEATH_PARENT=$$ setpriv --pdeathsig KILL sh "$PDEATH" timeout -k 5 "$hard" \
	setpriv --pdeathsig KILL sh "$PDEATH" "$@" </dev/null >"$tmp/qemu.log" 2>&1 &
qpid=$!
watch "$wd" &
watcher=$!
rc=0
# (timeout(1) ends by the signal the watchdog sent it: the shell's
# "Terminated" note is noise, the watchdog's own words follow)
wait "$qpid" 2>/dev/null || rc=$?
qpid=
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
watcher=
wall=$(($(date +%s) - t0))

host_error=
if [ -s "$wd" ]; then
	host_error=$(cat "$wd")
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	host_error="watchdog: QEMU killed after ${hard}s, the hard limit (BOOT_TIMEOUT + TIMEOUT + 60); partial results kept"
elif [ "$rc" != 0 ]; then
	host_error="qemu: exited with status $rc: $(tail -n 3 "$tmp/qemu.log" | tr '\n' ' ')"
fi

# The CPU asked for is the CPU measured: every +feature / -feature of
# CPU must show (or not) in the guest's /proc/cpuinfo, or the figures
# would silently be of another CPU (QEMU 7.2's TCG drops +fsrm with only
# a warning).
guest_flags=$(grep '^cpu' "$agent_out" | tr '\t' '\n' | sed -n 's/^flags=//p')
if [ -n "$guest_flags" ]; then
	for f in $(printf '%s\n' "$CPU" | tr ',' ' '); do
		case $f in
		+*) want=${f#+} has=1 ;;
		-*) want=${f#-} has=0 ;;
		*) continue ;;
		esac
		case " $guest_flags " in *" $want "*) got=1 ;; *) got=0 ;; esac
		[ "$got" = "$has" ] && continue
		why=$(grep -m 1 "warning:.*$want" "$tmp/qemu.log" | sed 's/^[^:]*: //') || why=
		host_error="${host_error:+$host_error; }cpu: -cpu $CPU asked for $f but the guest's /proc/cpuinfo $([ "$has" = 1 ] && echo lacks || echo has) $want${why:+ ($why)}"
	done
fi

finish
# QEMU has ended and its results are in: a signal from here on ends the
# run, nothing more to keep (interrupted)
booted=
if [ "$crc" != 0 ]; then
	cat "$results/collect.err" >&2
	die "run: $label failed after ${wall}s ($accel, clock $clock): records in $results/records.jsonl, console in $results/console.log"
fi
progress "$label" "done in ${wall}s ($accel, clock $clock): $(grep -c '^sample' "$agent_out") samples in $results/records.jsonl"
