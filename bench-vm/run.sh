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
#   --build-id FILE  the kernel's build identity, named in every record
#                    [build-id.json of the kernel's build directory,
#                    which build/build.sh writes]
#   --agent-opt K=V  an agent option (agent.c opts[]), repeatable
#   --mem-ns 0|1     1: a third NVDIMM, devdax with map=mem (its struct pages
#                    in guest RAM, without an altmap: the optimised vmemmap
#                    of compound pages), reported as dax_pmem_mem [MEM_NS=1]
#   --pages          after the binds, digest the devices' struct pages with
#                    bench-vm/pages built against the kernel's build dir,
#                    for bench-vm-report to compare between kernels [PAGES=1]
#   GUEST_MITIGATIONS=icelake|cpu  the CPU mitigations the guest applies:
#                    on the measured path, those of the changelogs' Ice
#                    Lake (ITS return thunks), or the emulated CPU's
#                    [icelake]; each record names what it applied
#   --print-cmd      print QEMU's command line, quoted, and do not run it
#                    (it writes the initramfs it names into DIR)
#   --print-footprint  print "ns_kb N host_kb N": each NVDIMM's size and
#                    what the guest takes of the host's memory (its RAM and
#                    the struct pages on NVDIMM_DIR's tmpfs), in KiB, and
#                    run nothing (ci/run.sh: how many guests at once)
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
. "$(dirname "$0")/argv.sh"
. "$(dirname "$0")/kvm.sh"
. "$(dirname "$0")/pages.sh"
# shellcheck disable=SC2034 # die and usage_die (scripts/lib.sh) name it
PROG=bench-vm
BENCH_VM_BIN=${BENCH_VM_BIN:-$BIN}
QEMU=${QEMU:-qemu-system-x86_64}

# shellcheck source=defaults.sh
. "$(dirname "$0")/defaults.sh"
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
# The CPU mitigations the guest applies: icelake, those the changelogs'
# Ice Lake VM's kernel applies on the measured path, or cpu, those its
# kernel picks for the CPU QEMU gives it (TCG's -cpu max is an AMD family
# 15: no ITS, retpolines).  The measured path's functions have return
# sites and no indirect branch (the codegen check counts them): on Ice
# Lake (ITS, X86_BUG_ITS: arch/x86/kernel/cpu/common.c) every return goes
# through its_return_thunk, which indirect_target_selection=force asks
# of any CPU.  Indirect branches elsewhere stay as the CPU has them
# (retpolines under TCG; eIBRS and ITS thunks on Ice Lake).  Every record
# names what the guest applied (params.mitigations).
GUEST_MITIGATIONS=${GUEST_MITIGATIONS:-icelake}
PAGES=${PAGES:-}
# Where the NVDIMM files go.  tmpfs by default: on a disk filesystem the
# host writes back the 1.6 GB of struct pages of every 100G rebind, and the
# rebinds measured here took 5-13 s (sd/mean 0.45) instead of 1-1.5 s.
NVDIMM_DIR=${NVDIMM_DIR:-/dev/shm}

usage() {
	usage_die "run.sh [--ns-size SIZE] [--rebinds N] [--cpu MODEL] [--accel auto|kvm|tcg] [--clock auto|icount|wall] [--model none|cache|auto] [--timeout S] [--results DIR] [--agent-opt K=V]... [--mem-ns 0|1] [--pages] [--print-cmd | --print-clock] (COMMIT | --kernel BZIMAGE [--commit ID] [--build-id FILE] | --check)"
}

commit='' kernel='' results='' agent_opts='' print_cmd='' print_clock='' check='' print_footprint=''
build_id=''
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
	--build-id) build_id=${2?}; shift ;;
	--agent-opt) agent_opts="$agent_opts ${2?}"; shift ;;
	--print-cmd) print_cmd=1 ;;
	--print-clock) print_clock=1 ;;
	--print-footprint) print_footprint=1 ;;
	--check) check=1 ;;
	--pages) PAGES=1 ;;
	--mem-ns) MEM_NS=${2?}; shift ;;
	-*) usage ;;
	*) [ -z "$commit" ] || usage; commit=$1 ;;
	esac
	shift
done
[ -n "$commit" ] || [ -n "$kernel" ] || [ -n "$check" ] || [ -n "$print_footprint" ] || usage

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
case $GUEST_MITIGATIONS in
icelake) mitigation_args=indirect_target_selection=force ;;
cpu) mitigation_args= ;;
*) usage_die "GUEST_MITIGATIONS: '$GUEST_MITIGATIONS' is not icelake (the changelogs' CPU's, on the measured path) or cpu (the emulated CPU's)" ;;
esac
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
# What a guest takes of the host, the one model of it: the struct pages of
# map=dev (64 bytes per 4 KiB page, ~1.6% of each namespace) and the info
# blocks are really written to the sparse files, 10% more and 64 MiB
# (need_kb, on NVDIMM_DIR), and on tmpfs those are RAM beside the guest's
# own (host_kb).  The preflight checks both; ci/run.sh schedules its
# guests by host_kb (--print-footprint).
need_kb=$((nr_nvdimms * ns_bytes * 11 / 655360 + 65536))
host_kb=$((need_kb + (GUEST_MEM_MB << 10)))
if [ -n "$print_footprint" ]; then
	echo "ns_kb $((ns_bytes >> 10)) host_kb $host_kb"
	exit 0
fi

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
# results besides the kernel, a line each (the programs by their content,
# wherever BENCH_VM_BIN and GEN_INIT_CPIO take them from: a rebuilt agent,
# collector, initramfs writer or plugin counts anew)
if [ -n "$check" ]; then
	gic=${GEN_INIT_CPIO:-$BENCH_VM_BIN/gen_init_cpio}
	for t in "$BENCH_VM_BIN/bench-vm-agent" "$BENCH_VM_BIN/bench-vm-collect" "$gic"; do
		[ -f "$t" ] || die "tools: $t is missing: run 'make tools'"
		printf 'tool %s %s\n' "$(basename "$t")" "$(sha256sum <"$t" | cut -c1-64)"
	done
	printf '%s\n' "ns_size $NS_SIZE" "rebinds $REBINDS" "cpu $CPU" "accel $ACCEL" "clock $CLOCK" \
		"mem_ns $MEM_NS" "guest_mem_mb $GUEST_MEM_MB" "kernel_args $KERNEL_ARGS" "guest_mitigations $GUEST_MITIGATIONS" "pages ${PAGES:-0}" \
		"agent_opts$agent_opts" "nvdimm_dir $NVDIMM_DIR" \
		"qemu $QEMU $("$QEMU" --version 2>/dev/null | head -n 1)" \
		"model $MODEL${MODEL_ARGS:+ $MODEL_ARGS}$([ "$MODEL" = none ] ||
			sha256sum <"$BENCH_VM_BIN/bench-vm-model.so" | cut -c1-64 | sed 's/^/ /')"
	exit 0
fi

if [ -z "$kernel" ]; then
	kernel=$OUT/build/$commit/arch/x86/boot/bzImage
	[ -f "$kernel" ] || die "kernel: $kernel is missing: run 'make build' (or 'sh build/build.sh $commit')"
fi
[ -f "$kernel" ] || die "kernel: $kernel is missing"
kernel=$(cd "$(dirname "$kernel")" && pwd)/$(basename "$kernel")
# the build the kernel is of, named in every record: build/build.sh's
# build-id.json in the kernel's build directory, or --build-id FILE
build_id=${build_id:-$(dirname "$kernel")/../../../build-id.json}
[ -f "$build_id" ] ||
	die "kernel: no build identity for $kernel ($build_id is missing): build it with 'make build' (build/build.sh writes it), or name it: --build-id FILE"
build_id=$(realpath "$build_id")
# without a commit id, the kernel's build directory names it (out/build/<id>)
label=${commit:-$(basename "$(cd "$(dirname "$kernel")/../../.." && pwd)")}
results=${results:-$OUT/bench-vm/$label}

mkdir -p "$results" || die "results: cannot create the directory $results"
# absolute: QEMU, kbuild's M= and the printed command must not depend on
# the current directory
results=$(cd "$results" && pwd)
dest=$results

# agent_status FILE: what the agent has said in FILE so far, as
# bench-vm-collect reads it (the one parser of the agent's lines): sets
# hello (0 or 1), samples (a count) and step (the last one's name)
agent_status() {
	hello=0 samples=0 step=
	for as_w in $("$BENCH_VM_BIN/bench-vm-collect" --status "$1"); do
		case $as_w in
		hello=*) hello=${as_w#*=} ;;
		samples=*) samples=${as_w#*=} ;;
		step=*) step=${as_w#*=} ;;
		esac
	done
}

# guest_argv ACCEL CLOCK INITRD: ARGV (argv.sh) of this run's guest, its
# plugin included (--model cache, TCG only), the initramfs named INITRD:
# the run's own, or where it will be for the command kept beside the
# records
guest_argv() {
	ga_plugin=
	if [ "$MODEL" != none ] && [ "$1" = tcg ]; then
		# the guest functions named from the kernel's System.map
		# (out/build/<commit>/System.map) when there is one
		ga_sysmap=$(dirname "$kernel")/../../../System.map
		[ -f "$ga_sysmap" ] || ga_sysmap=
		ga_plugin="$(qesc "$BENCH_VM_BIN/bench-vm-model.so"),out=$(qesc "$tmp/model.out")${ga_sysmap:+,symbols=$(qesc "$ga_sysmap")}${MODEL_ARGS:+,$MODEL_ARGS}"
	fi
	qemu_argv qemu="$QEMU" accel="$1" clock="$2" cpu="$CPU" ns_bytes="$ns_bytes" \
		mem_mb="$GUEST_MEM_MB" nvdimms="$nr_nvdimms" dir="$tmp" agent="$agent_out" \
		console="$console" kernel="$kernel" initrd="$3" kernel_args="$mitigation_args${mitigation_args:+${KERNEL_ARGS:+ }}$KERNEL_ARGS" \
		agent_opts="rebinds=$REBINDS$agent_opts" plugin="$ga_plugin"
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

# the struct page digest module (pages.sh), and the agent's word for it
module=
if [ "$PAGES" = 1 ]; then
	pages_module
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
# (the rules: defaults.sh)
resolve_clock() {
	clock_of "$1" ||
		die "clock: icount was asked for but the guest runs under KVM (icount needs TCG): use --accel tcg or --clock wall"
	model_of "$1" "$clock"
	MODEL=$model
}

if [ -n "$print_cmd" ]; then
	accel=$ACCEL
	[ "$accel" != auto ] || accel=tcg
	resolve_clock "$accel"
	guest_argv "$accel" "$clock" "$initrd"
	rm -rf "$tmp"
	echo "# QEMU creates the NVDIMM files; make their directory first:"
	echo "mkdir -p $(quote "$tmp")"
	printf '%s\n' "${ARGV# }"
	exit 0
fi

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
guest_argv "$accel" "$clock" "$initrd"
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

# Free-space preflight: need_kb (above) on NVDIMM_DIR, and on tmpfs the
# host's memory for host_kb
avail_kb=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] ||
	die "preflight: $NVDIMM_DIR has $((avail_kb >> 10)) MiB free, $nr_nvdimms NVDIMMs of $NS_SIZE need $((need_kb >> 10)) MiB: set NVDIMM_DIR or a smaller NS_SIZE"
# On tmpfs those pages are RAM: the host must have them too.
if [ "$(stat -f -c %T "$tmp")" = tmpfs ]; then
	mem_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	[ "$mem_kb" -ge "$host_kb" ] ||
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
	start=$(date +%s) hello_at='' n=0
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		agent_status "$agent_out"
		if [ -z "$hello_at" ] && [ "$hello" = 1 ]; then
			hello_at=$now
		fi
		why=
		if [ -z "$hello_at" ] && [ $((now - start)) -ge "$BOOT_TIMEOUT" ]; then
			why="watchdog: no hello from the agent ${BOOT_TIMEOUT}s after QEMU started (a kernel that does not boot: see $dest/console.log; or raise BOOT_TIMEOUT=); QEMU killed"
		elif [ -n "$hello_at" ] && [ $((now - hello_at)) -ge "$TIMEOUT" ]; then
			why="watchdog: QEMU killed ${TIMEOUT}s after the agent's hello (a hung guest, or raise TIMEOUT=); partial results kept"
		fi
		if [ -n "$why" ]; then
			printf '%s\n' "$why" >"$1" || true
			kill -TERM "$qpid" 2>/dev/null
			exit 0
		fi
		n=$((n + 1))
		if [ $((n % 15)) = 0 ]; then
			progress "$label" "$samples samples, step ${step:-boot (no hello yet)}" || :
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
		--qemu-log "$tmp/qemu.log" --build "$build_id" \
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
guest_argv "$accel" "$clock" "$dest/initramfs.cpio"
put "$results/qemu-cmd.txt" <<EOF
# QEMU creates the NVDIMM files; make their directory first:
mkdir -p $(quote "$tmp")
${ARGV# }
EOF
guest_argv "$accel" "$clock" "$initrd"
# the accelerator and the clock this run got, for the pipeline's
# schedule (bench-vm-step.sh: step_bench_vm_ran_clock), read as a file,
# not from the records' JSON
put "$results/clock" <<EOF
$accel $clock
EOF
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

finish
# QEMU has ended and its results are in: a signal from here on ends the
# run, nothing more to keep (interrupted)
booted=
if [ "$crc" != 0 ]; then
	cat "$results/collect.err" >&2
	die "run: $label failed after ${wall}s ($accel, clock $clock): records in $results/records.jsonl, console in $results/console.log"
fi
agent_status "$agent_out"
progress "$label" "done in ${wall}s ($accel, clock $clock): $samples samples in $results/records.jsonl"
