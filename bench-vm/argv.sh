# bench-vm/argv.sh: QEMU's command line of a bench-vm guest, from its
# arguments alone (no global of run.sh is read), for bench-vm/run.sh: the
# run, its preflight, the command it keeps and prints, and the KVM probe
# (kvm.sh) each ask for their own.  Source it after scripts/lib.sh.
#
#   qemu_argv KEY=VALUE...      sets ARGV, one shell-quoted string (POSIX
#                               sh has no arrays): eval "set -- $ARGV" to
#                               run it, print it as is to show it
#     qemu=PROG accel=kvm|tcg clock=icount|wall cpu=MODEL ns_bytes=N
#     mem_mb=N nvdimms=N dir=DIR (the NVDIMM files DIR/nvdimm<i>)
#     agent=FILE console=FILE kernel=BZIMAGE initrd=FILE, all needed;
#     kernel_args=WORDS agent_opts=WORDS plugin=SPEC (QEMU's -plugin
#     argument, already escaped), may be empty
#   quote WORD                  WORD in single quotes, for the shell
#   qesc VALUE                  VALUE inside a QEMU option list

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

qemu_argv() {
	qa_qemu='' qa_accel='' qa_clock='' qa_cpu='' qa_ns_bytes='' qa_mem_mb='' qa_nvdimms=''
	qa_dir='' qa_agent='' qa_console='' qa_kernel='' qa_initrd=''
	qa_kernel_args='' qa_agent_opts='' qa_plugin=''
	for qa; do
		case $qa in
		qemu=* | accel=* | clock=* | cpu=* | ns_bytes=* | mem_mb=* | nvdimms=* | dir=* | \
		agent=* | console=* | kernel=* | initrd=* | kernel_args=* | agent_opts=* | plugin=*)
			eval "qa_${qa%%=*}=\${qa#*=}" ;;
		*) die "qemu_argv: '$qa' is not KEY=VALUE of a known key" ;;
		esac
	done
	for qa in qemu accel clock cpu ns_bytes mem_mb nvdimms dir agent console kernel initrd; do
		eval "[ -n \"\$qa_$qa\" ]" || die "qemu_argv: no $qa="
	done
	ARGV=
	# nvdimm=on: the NFIT table that the kernel's ACPI_NFIT reads.
	# -nodefaults: no NIC (no network), no VGA, no default serial/monitor.
	arg "$qa_qemu" -name bench-vm -machine pc,nvdimm=on -nodefaults -no-user-config
	# -no-reboot: a guest reboot (panic=-1 below, a triple fault) ends
	# QEMU instead of booting again: a scripted boot ends deterministically.
	arg -no-reboot -display none -monitor none

	# -icount shift=0 makes the guest clock advance 2^0 ns per emulated
	# instruction, so every timing the guest takes is a count of the work
	# it did: the same on every host, loaded or idle; sleep=off lets an
	# idle guest jump to its next timer instead of waiting in real time.
	# The guest's two other inputs from the host are fixed with it, so that
	# the whole boot, not only its timings, is the same every time (the
	# model's per-bind counts are exact only so): -seed makes RDRAND (-cpu
	# max has it) a seeded generator instead of the host's entropy, and
	# -rtc base=,clock=vm starts the wall clock at one date and runs it on
	# the guest's clock; both feed the kernel's random seeds (SLUB
	# freelists, page-allocator state), which otherwise differ by a few
	# instructions per bind between boots (measured: __slab_alloc_node,
	# __rmqueue_pcplist).  -smp 1 either way (icount runs one vCPU thread
	# anyway).
	arg -accel "$qa_accel"
	[ "$qa_clock" != icount ] ||
		arg -icount shift=0,sleep=off -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm
	arg -cpu "$qa_cpu" -smp 1
	# the store and cache model (bench-vm/plugin), TCG only
	[ -z "$qa_plugin" ] || arg -plugin "$qa_plugin"

	# maxmem/slots make room for the NVDIMMs in the hotplug area.
	arg -m "${qa_mem_mb}M,slots=$qa_nvdimms,maxmem=$((qa_mem_mb + qa_nvdimms * (qa_ns_bytes >> 20)))M"
	# one NVDIMM a sparse file; share=on so the guest's writes (the info
	# block, the struct pages of map=dev) reach the file instead of private
	# anonymous memory
	qa_i=0
	while [ "$qa_i" -lt "$qa_nvdimms" ]; do
		arg -object "memory-backend-file,id=nvmem$qa_i,share=on,mem-path=$(qesc "$qa_dir/nvdimm$qa_i"),size=$qa_ns_bytes"
		arg -device "nvdimm,id=nvdimm$qa_i,memdev=nvmem$qa_i"
		qa_i=$((qa_i + 1))
	done

	# The agent's channel: kernel messages go to the serial console,
	# results to this port, so neither can corrupt the other.
	# ioeventfd=off: the guest's kick of the port is handled at once on the
	# vCPU thread, not by QEMU's main loop when the host schedules it, whose
	# interrupt would fall at a host-timed point of the guest (measured: the
	# model's cache counts of the next bind moved by a few lines between
	# boots).
	arg -device virtio-serial-pci,ioeventfd=off
	arg -chardev "file,id=agent,path=$(qesc "$qa_agent")"
	# the port's name: AGENT_PORT of agent/protocol.h
	arg -device virtserialport,chardev=agent,name=bench-vm.agent
	arg -chardev "file,id=console,path=$(qesc "$qa_console")" -serial chardev:console

	# panic=-1 reboots at once on a panic, which -no-reboot turns into
	# QEMU's exit; loglevel=4 keeps the slow serial console quiet (the
	# agent reads /dev/kmsg, which has everything); dyndbg= turns on
	# memmap_init_zone_device()'s pr_debug from the first bind; after "--"
	# come the agent's own options (its argv).  The i8042 options skip
	# probing a keyboard and mouse nobody uses (0.2-0.5 s of a TCG boot).
	# nokaslr: a distro kernel (KCONFIG=distro) is relocatable and would
	# put itself at a random address, and the model names the functions
	# of each bind by System.map's addresses; its code is the same at
	# any address (PC-relative), so nothing measured changes.
	arg -kernel "$qa_kernel" -initrd "$qa_initrd"
	arg -append "console=ttyS0 loglevel=4 panic=-1 nokaslr i8042.noaux=1 i8042.nokbd=1 i8042.nopnp=1 dyndbg=\"func memmap_init_zone_device +p\"${qa_kernel_args:+ $qa_kernel_args} -- $qa_agent_opts"
}
