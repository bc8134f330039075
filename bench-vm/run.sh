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
#   --hmm            after the binds, load the commit's lib/test_hmm.c in a
#                    model window: two DEVICE_PRIVATE and two
#                    DEVICE_COHERENT pgmaps, which no owner marked for
#                    streaming (agent.c, hmm=1); the kernel needs
#                    CONFIG_DEVICE_PRIVATE (bench-vm/hmm.config) [HMM=1]
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
. "$TOP/bench-vm/rundir.sh"
. "$TOP/bench-vm/argv.sh"
. "$TOP/bench-vm/kvm.sh"
. "$TOP/bench-vm/modules.sh"
# the run's parts: its QEMU, watchdog, signals and records
# shellcheck source=guest.sh
. "$TOP/bench-vm/guest.sh"
# shellcheck disable=SC2034 # die and usage_die (scripts/lib.sh) name it
PROG=bench-vm
BENCH_VM_BIN=${BENCH_VM_BIN:-$BIN}
QEMU=${QEMU:-qemu-system-x86_64}

# shellcheck source=defaults.sh
. "$TOP/bench-vm/defaults.sh"
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
HMM=${HMM:-}
# Where the NVDIMM files go.  tmpfs by default: on a disk filesystem the
# host writes back the 1.6 GB of struct pages of every 100G rebind, and the
# rebinds measured here took 5-13 s (sd/mean 0.45) instead of 1-1.5 s.
NVDIMM_DIR=${NVDIMM_DIR:-/dev/shm}

usage() {
	usage_die "run.sh [--ns-size SIZE] [--rebinds N] [--cpu MODEL] [--accel auto|kvm|tcg] [--clock auto|icount|wall] [--model none|cache|auto] [--timeout S] [--results DIR] [--agent-opt K=V]... [--mem-ns 0|1] [--pages] [--hmm] [--print-cmd | --print-clock] (COMMIT | --kernel BZIMAGE [--commit ID] [--build-id FILE] | --check)"
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
	--hmm) HMM=1 ;;
	--mem-ns) MEM_NS=${2?}; shift ;;
	-*) usage ;;
	*) [ -z "$commit" ] || usage; commit=$1 ;;
	esac
	shift
done
[ -n "$commit" ] || [ -n "$kernel" ] || [ -n "$check" ] || [ -n "$print_footprint" ] || usage

# the options, each checked; --check and --print-footprint answer there
# shellcheck source=run-options.sh
. "$TOP/bench-vm/run-options.sh"

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

qpid='' watcher='' tmp='' booted='' keep_stage=''
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

# the guest's modules (modules.sh), and the agent's word for each
modules=
if [ "$PAGES" = 1 ]; then
	pages_module
	agent_opts="$agent_opts pages=1"
fi
if [ "$HMM" = 1 ]; then
	hmm_module
	agent_opts="$agent_opts hmm=1"
fi

[ "$MEM_NS" = 0 ] || agent_opts="$agent_opts mem_ns=1"
# the modules: a line each (a results path may have blanks)
old_ifs=$IFS
IFS='
'
# shellcheck disable=SC2086 # split at newlines only
sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" "$initrd" $modules
IFS=$old_ifs

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
