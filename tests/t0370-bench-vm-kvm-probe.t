#!/bin/sh
# The KVM probe runs once per host: its verdict is cached under what
# decides it (host kernel, QEMU version, /dev/kvm and who opens it), a
# second run reads it instead of probing, another QEMU or KVM_REPROBE=1
# probes again, and why KVM is not used is said once per run.  A fake
# QEMU that never boots stands for nested KVM (it also shows the boot
# watchdog: no hello within BOOT_TIMEOUT); no kernel is needed.
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
for t in bench-vm-agent bench-vm-collect gen_init_cpio; do
	[ -x "$BENCH_VM_BIN/$t" ] || bail "$BENCH_VM_BIN/$t is not built: run 'make tools'"
done
plan 3
# kvm_rw: 1 where run.sh gets as far as booting a probe guest
kvm_rw=0
[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && kvm_rw=1

# fake: a QEMU that answers --version with FAKE_QEMU_VERSION, logs every
# other call to $SCRATCH/calls and never boots
fake() {
	cat >qemu <<-\EOF
	#!/bin/sh
	[ "$1" != --version ] || { echo "QEMU emulator version fake $FAKE_QEMU_VERSION"; exit 0; }
	echo "$*" >>"$SCRATCH/calls"
	while :; do sleep 1; done
	EOF
	chmod +x qemu && : >bzImage && : >calls
}

# run N [ENV=V...]: run.sh with the fake, results in rN, stderr in errN
run() {
	n=$1
	shift
	env FAKE_QEMU_VERSION=1 QEMU="$SCRATCH/qemu" KVM_PROBE_CACHE="$SCRATCH/kvm" KVM_PROBE_TIMEOUT=1 \
		BOOT_TIMEOUT=1 NVDIMM_DIR="$SCRATCH" NS_SIZE=512M BENCH_VM_RUN=one "$@" \
		sh "$TOP/bench-vm/run.sh" --kernel bzImage --commit probe --results "r$n" 2>"err$n"
	rc=$?
	cat "err$n"
	[ $rc = 1 ] || { echo "run $n: exit $rc, expected 1 (the fake never boots)"; return 1; }
}

probes() {
	grep -c -- "-accel kvm" calls
}

test_expect_success 'a second run reads the cached verdict, does not probe, and points to the why said once' '
	fake && run 1 && run 2 &&
	[ "$(probes)" = $kvm_rw ] &&
	[ "$(ls kvm | grep -cv "\.")" = 1 ] && v=$SCRATCH/kvm/$(ls kvm | grep -v "\.") &&
	[ "$(sed -n 1p "$v")" = tcg ] &&
	grep -qx "qemu: QEMU emulator version fake 1" "$v" &&
	grep -qx "host kernel: $(uname -srvm)" "$v" && grep -q "^/dev/kvm: " "$v" &&
	grep -q "accel: tcg: KVM is not used: .*cached in $v" err1 &&
	grep -q "accel: tcg (KVM is not used: see above, or $v)" err2 &&
	! grep -q "probing KVM" err2 &&
	grep -q "watchdog: no hello from the agent 1s after QEMU started" err1 &&
	records_check r1/records.jsonl "one(\"run\", \"error\")[\"error\"].startswith(\"watchdog: no hello\")" &&
	no_qemu_under "$SCRATCH"
'

test_expect_success 'another QEMU version probes again; KVM_REPROBE=1 probes again; a new run says why again' '
	fake && run 1 && run 2 FAKE_QEMU_VERSION=2 &&
	[ "$(probes)" = $((2 * kvm_rw)) ] && [ "$(ls kvm | grep -cv "\.")" = 2 ] &&
	run 3 KVM_REPROBE=1 && [ "$(probes)" = $((3 * kvm_rw)) ] &&
	run 4 BENCH_VM_RUN=two && [ "$(probes)" = $((3 * kvm_rw)) ] &&
	grep -q "accel: tcg: KVM is not used: " err4 &&
	no_qemu_under "$SCRATCH"
'

test_expect_success '--accel kvm where the verdict is tcg: an error with the reason and the way out' '
	fake && run 1 && run 2 &&
	QEMU=$SCRATCH/qemu FAKE_QEMU_VERSION=1 KVM_PROBE_CACHE=$SCRATCH/kvm NVDIMM_DIR=$SCRATCH NS_SIZE=512M \
		expect_fail sh "$TOP/bench-vm/run.sh" --accel kvm --kernel bzImage --commit probe --results r3 &&
	grep_err "accel: kvm was asked for but .*KVM_REPROBE=1 probes again" &&
	[ "$(probes)" = $kvm_rw ] && no_qemu_under "$SCRATCH"
'
done_testing
