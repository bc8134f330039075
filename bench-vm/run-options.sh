# bench-vm/run-options.sh: the options and settings of bench-vm/run.sh,
# each checked before anything runs (usage_die: exit 2, nothing
# touched); --check prints what decides a run's results besides the
# kernel, --print-footprint what a guest takes of the host, and both
# exit here.  Sourced by bench-vm/run.sh after its defaults; POSIX sh.
# shellcheck disable=SC2154,SC2034 # run.sh's variables, read and set for it (mitigation_args)

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
flag HMM
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
		${HMM:+"hmm $HMM"} "agent_opts$agent_opts" "nvdimm_dir $NVDIMM_DIR" \
		"qemu $QEMU $("$QEMU" --version 2>/dev/null | head -n 1)" \
		"model $MODEL${MODEL_ARGS:+ $MODEL_ARGS}$([ "$MODEL" = none ] ||
			sha256sum <"$BENCH_VM_BIN/bench-vm-model.so" | cut -c1-64 | sed 's/^/ /')"
	exit 0
fi
