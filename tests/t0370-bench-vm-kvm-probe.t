#!/bin/sh
# The KVM probe runs once per host: its verdict is cached under what
# decides it (host kernel, QEMU version, /dev/kvm and who opens it), a
# second run reads it instead of probing, another QEMU or KVM_REPROBE=1
# probes again, and why KVM is not used is said once per run.  A fake
# QEMU that never boots stands for nested KVM (it also shows the boot
# watchdog: no hello within BOOT_TIMEOUT); no kernel is needed.  The
# probe's device is /dev/null (KVM_DEV), a read-write character device on
# every host, so the probe runs here whatever /dev/kvm is.  The fake also
# plays the other ways a probe ends (FAKE_QEMU_MODE): an abort under KVM
# as QEMU 7.2 gives on AMD EPYC hosts, a refusal of -accel kvm, a kernel
# it cannot load; each gets its own verdict and words, and a cache entry
# that is not whole is probed again.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-agent tool:bench-vm-collect tool:gen_init_cpio
# the probe boots a guest (the fake) on every host: KVM_DEV=/dev/null
kvm_rw=1

# fake: a QEMU that answers --version with FAKE_QEMU_VERSION, logs every
# other call to $SCRATCH/calls, passes the preflight (-S -qmp stdio: the
# machine set up, then quit) and never boots
fake() {
	cat >qemu <<-\EOF
	#!/bin/sh
	[ "$1" != --version ] || { echo "QEMU emulator version fake $FAKE_QEMU_VERSION"; exit 0; }
	echo "$*" >>"$SCRATCH/calls"
	case "${FAKE_QEMU_MODE:-}/$*" in
	abort/*"-accel kvm"*)
		echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
		echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion failed." >&2
		kill -ABRT $$ ;;
	refuse/*"-accel kvm"*)
		echo "Could not access KVM kernel module: Permission denied" >&2
		echo "qemu-system-x86_64: failed to initialize kvm: Permission denied" >&2
		exit 1 ;;
	badkernel/*)
		echo "qemu-system-x86_64: could not load kernel '\''bzImage'\''" >&2
		exit 1 ;;
	*" -S -qmp stdio")
		# the preflight: the machine set up, then quit, as QEMU does
		exit 0 ;;
	esac
	while :; do sleep 1; done
	EOF
	chmod +x qemu && : >bzImage && : >calls
}

# run N [ENV=V...]: run.sh with the fake, results in rN, stderr in errN
run() {
	n=$1
	shift
	env FAKE_QEMU_VERSION=1 QEMU="$SCRATCH/qemu" KVM_PROBE_CACHE="$SCRATCH/kvm" KVM_PROBE_TIMEOUT=1 KVM_DEV=/dev/null \
		BOOT_TIMEOUT=1 NVDIMM_DIR="$SCRATCH" NS_SIZE=512M BENCH_VM_RUN=one "$@" \
		sh "$TOP/bench-vm/run.sh" --kernel bzImage --build-id "$BUILD_ID" --commit probe --results "r$n" 2>"err$n"
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
	QEMU=$SCRATCH/qemu FAKE_QEMU_VERSION=1 KVM_PROBE_CACHE=$SCRATCH/kvm KVM_DEV=/dev/null NVDIMM_DIR=$SCRATCH NS_SIZE=512M \
		expect_fail sh "$TOP/bench-vm/run.sh" --accel kvm --kernel bzImage --build-id "$BUILD_ID" --commit probe --results r3 &&
	grep_err "accel: kvm was asked for but .*KVM_REPROBE=1 probes again" &&
	[ "$(probes)" = $kvm_rw ] && no_qemu_under "$SCRATCH"
'
# verdict: the one cached verdict file's path
# shellcheck disable=SC2010 # run.sh's own file names: hex, .console, .qemu.log, .said
verdict() {
	[ "$(ls kvm | grep -cv "\.")" = 1 ] && echo "$SCRATCH/kvm/$(ls kvm | grep -v "\.")"
}

test_expect_success 'each way a probe ends has its verdict and words: an abort under KVM, a refusal of -accel kvm (cached), a kernel QEMU cannot load (not cached)' '
	fake && run 1 FAKE_QEMU_MODE=abort && v=$(verdict) &&
	grep -q "accel: tcg: KVM is not used: QEMU aborted under -accel kvm before the guest ran (killed by SIGABRT (exit 134): .*failed to set MSR 0x10a.*kvm_buf_set_msrs" err1 &&
	! grep -q "did not say hello" err1 && [ "$(sed -n 1p "$v")" = tcg ] &&
	sed -n 2p "$v" | grep -q "^QEMU aborted under -accel kvm before the guest ran (killed by SIGABRT" &&
	rm -r kvm && run 2 FAKE_QEMU_MODE=refuse && v=$(verdict) &&
	grep -q "accel: tcg: KVM is not used: QEMU refused -accel kvm (exit 1: .*failed to initialize kvm" err2 &&
	[ "$(sed -n 1p "$v")" = tcg ] &&
	rm -r kvm && { rc=0; FAKE_QEMU_MODE=badkernel QEMU=$SCRATCH/qemu KVM_PROBE_CACHE=$SCRATCH/kvm KVM_DEV=/dev/null \
		NVDIMM_DIR=$SCRATCH NS_SIZE=512M sh "$TOP/bench-vm/run.sh" --kernel bzImage --build-id "$BUILD_ID" --commit probe --results r3 2>err3 || rc=$?; } &&
	cat err3 && [ $rc = 2 ] &&
	grep -q "accel: tcg: KVM is not used: QEMU did not start the probe guest (exit 1: .*could not load kernel.*): no verdict on KVM, nothing cached" err3 &&
	[ -z "$(ls kvm | grep -v "\.console$\|\.qemu\.log$")" ] &&
	run 4 && v=$(verdict) &&
	grep -q "did not say hello within 1s under -accel kvm (QEMU stopped by the timeout, exit 124" err4 &&
	no_qemu_under "$SCRATCH"
'

test_expect_success 'a cached verdict cut short or edited is not trusted: probed again, with a word of the cache; a whole one is used' '
	fake && run 1 && v=$(verdict) && cp "$v" whole && sed -n "4,\$p" whole >key &&
	for cut in "tcg" "tcg
" "kvm
a probe guest booted" "kvm" "junk
why
2026-12-01T00:00:00Z"; do
		printf "%s" "$cut" >"$v" && : >calls && run 2 &&
		grep -q "accel: the cached KVM verdict $v is not whole (cut short or edited): probing again" err2 &&
		[ "$(probes)" = 1 ] && [ "$(sed -n 1p "$v")" = tcg ] && [ -n "$(sed -n 2p "$v")" ] &&
		sed -n "4,\$p" "$v" | cmp -s - key ||
			{ echo "a cut cache was trusted or not made whole again: $cut"; return 1; }
	done &&
	: >calls && run 3 && [ "$(probes)" = 0 ] && ! grep -q "not whole" err3 &&
	sed "4s/.*/host kernel: another/" whole >"$v" && : >calls && run 4 && [ "$(probes)" = 1 ] &&
	no_qemu_under "$SCRATCH"
'

test_expect_success 'a whole cached kvm verdict that no longer holds: the preflight refusal names the cache and KVM_REPROBE=1' '
	fake && run 1 && v=$(verdict) && sed "1s/.*/kvm/" "$v" >v.new && mv v.new "$v" &&
	{ rc=0; FAKE_QEMU_MODE=abort QEMU=$SCRATCH/qemu FAKE_QEMU_VERSION=1 KVM_PROBE_CACHE=$SCRATCH/kvm KVM_DEV=/dev/null \
		NVDIMM_DIR=$SCRATCH NS_SIZE=512M sh "$TOP/bench-vm/run.sh" --kernel bzImage --build-id "$BUILD_ID" --commit probe --results r2 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] &&
	grep -q "options: QEMU cannot make this machine (.*-accel kvm (-accel kvm from the verdict cached in $v, probed .*: KVM_REPROBE=1 probes again))" err &&
	[ -z "$(ls -A r2 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'
done_testing
