# bench-vm/kvm.sh: the KVM probe of bench-vm/run.sh and its verdict,
# cached per host.  Sourced by run.sh after argv.sh; it reads run.sh's
# QEMU, KVM_PROBE_TIMEOUT, KVM_PROBE_CACHE, KVM_REPROBE, label, and, for
# the probe guest, kernel, initrd, tmp and nr_nvdimms; run_probe keeps
# QEMU's pid in qpid for run.sh's cleanup.
#
#   kvm_verdict    sets verdict (kvm or tcg), why, when, vfile, probed
#   say_why        says why KVM is not used, in full once per run

# shellcheck disable=SC2154 # run.sh's variables, named above
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
	# the cache's console and QEMU log, made anew: QEMU opens the console
	# itself, and a link left at either name is removed, not written
	# through
	rm -f "$1.console" "$1.qemu.log"
	: >"$1.console"
	# The probe asks about the host, not about this run's options: a -cpu,
	# a size or RAM that QEMU refuses must not be cached as "KVM does not
	# work" for every later run (they meet the machine preflight instead).
	qemu_argv qemu="$QEMU" accel=kvm clock=wall cpu=max ns_bytes=$((512 << 20)) mem_mb=512 \
		nvdimms="$nr_nvdimms" dir="$tmp" agent="$tmp/probe.out" console="$1.console" \
		kernel="$kernel" initrd="$initrd" agent_opts=probe=1
	progress "$label" "accel: probing KVM (a guest that says hello and powers off, ${KVM_PROBE_TIMEOUT}s at most)"
	run_probe "$KVM_PROBE_TIMEOUT" "$1.qemu.log"
	rm -f "$tmp"/nvdimm[0-9]
	agent_status "$tmp/probe.out"
	[ "$hello" = 0 ] || return 0
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
	printf '%s\n%s\n%s\n%s\n' "$verdict" "$why" "$when" "$key" | write_file "$vfile" ||
		die "accel: cannot write the probe's verdict to $vfile"
}

# say_why: why KVM is not used, in full once per run (BENCH_VM_RUN, set by
# ci/run.sh and its views; one run.sh alone is a run of its own), a
# pointer to it for every other kernel
say_why() {
	run=${BENCH_VM_RUN:-run.sh-$$}
	if [ -n "${nocache:-}" ]; then
		progress "$label" "accel: tcg: KVM is not used: $why"
	elif [ -n "$probed" ] || [ "$(cat "$vfile.said" 2>/dev/null)" != "$run" ]; then
		progress "$label" "accel: tcg: KVM is not used: $why (probed $when; the verdict is cached in $vfile for this host kernel, QEMU and /dev/kvm: KVM_REPROBE=1 probes again)"
		printf '%s\n' "$run" | write_file "$vfile.said" || die "accel: cannot write $vfile.said"
	else
		progress "$label" "accel: tcg (KVM is not used: see above, or $vfile)"
	fi
}
