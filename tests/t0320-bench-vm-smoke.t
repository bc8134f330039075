#!/bin/sh
# bench-vm in a VM, on the series head's kernel (t0050 builds it; without
# it these tests fail): a small run (2 NVDIMMs of 1G, 3 rebinds, with the
# agent's busy task beside the binds, spin=1, which checked.sh debug-vm
# uses) gives complete and sane records with their accel and clock, and a
# preemption count per bind on the console, and leaves nothing behind; the initramfs is reproducible; --print-cmd shows the QEMU
# command without running it, -icount with the icount clock; the struct
# pages of two boots are digested and compared.
# test-quick: no: boots a guest
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-agent tool:bench-vm-collect tool:bench-vm-report tool:gen_init_cpio

test_expect_success 'the initramfs is reproducible: same bytes twice, uid 0, mtime 0' '
	sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" a.cpio &&
	sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" b.cpio &&
	cmp a.cpio b.cpio && cpio -itv --quiet <a.cpio >list && cat list &&
	grep -q "^-rwxr-xr-x .* root  *root .* Jan  1  1970 init$" list &&
	! grep -v " root  *root .* Jan  1  1970 " list
'

test_expect_success 'the initramfs takes modules by their names; a name that is not NAME.ko, or twice, is refused and nothing written' '
	mkdir m m2 && echo p >m/bench_vm_pages.ko && echo h >m/test_hmm.ko && echo x >m/x.o && echo d >m2/test_hmm.ko &&
	sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" c.cpio m/bench_vm_pages.ko m/test_hmm.ko &&
	cpio -itv --quiet <c.cpio >list && cat list &&
	grep -q "^-rw-r--r-- .* root  *root .* Jan  1  1970 bench_vm_pages.ko$" list &&
	grep -q "^-rw-r--r-- .* root  *root .* Jan  1  1970 test_hmm.ko$" list &&
	expect_fail sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" d.cpio m/x.o &&
	grep_err "module m/x.o: its name is not NAME.ko" &&
	expect_fail sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" d.cpio m/test_hmm.ko m2/test_hmm.ko &&
	grep_err "two modules named test_hmm.ko" && [ ! -e d.cpio ]
'

if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "a 1G run of the series head" "--print-cmd" "--clock" "--pages" "--cpu max,-erms"
	done_testing
	exit
fi
diag "kernel: $KERNEL"

test_expect_success 'a 1G run of the series head, spin=1: complete, sane records, the preemptions of each bind counted; nothing left running, the NVDIMM files gone' '
	[ "$KERNEL" = "$OUT/build/$(git -C "$WORKTREE" rev-parse "$REF_NS/series^{commit}")/arch/x86/boot/bzImage" ] &&
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=3 TIMEOUT=240 \
		$RUN --agent-opt spin=1 --kernel "$KERNEL" --commit smoke --results res && cat res/records.jsonl &&
	[ "$(grep -c "bench-vm-agent: preempted [0-9]* times while binding [a-z0-9.]* to \(nd_pmem\|dax_pmem\)" res/console.log)" = 12 ] &&
	for d in nd_pmem dax_pmem; do
		records_check res/records.jsonl "len(one(\"$d/first\", \"memmap_init_ms\")[\"samples\"]) == 1" &&
		records_check res/records.jsonl "len(one(\"$d/rebind\", \"memmap_init_ms\")[\"samples\"]) == 3" &&
		records_check res/records.jsonl "all(s >= 0 for s in one(\"$d/rebind\", \"memmap_init_ms\")[\"samples\"])" &&
		records_check res/records.jsonl "all(s > 0 for s in one(\"$d/rebind\", \"bind_us\")[\"samples\"])" &&
		records_check res/records.jsonl "all(s > 0 for s in one(\"$d/rebind\", \"unbind_us\")[\"samples\"])" &&
		records_check res/records.jsonl "len(set(one(\"$d/rebind\", \"pages\")[\"samples\"] + one(\"$d/first\", \"pages\")[\"samples\"])) == 1" &&
		records_check res/records.jsonl "0.9 * 262144 < one(\"$d/first\", \"pages\")[\"samples\"][0] <= 262144" || return 1
	done &&
	records_check res/records.jsonl "all(r[\"accel\"] in (\"kvm\", \"tcg\") and r[\"commit\"] == \"smoke\" and r[\"kernel\"] for r in recs)" &&
	records_check res/records.jsonl "all(r[\"clock\"] == {\"tcg\": \"icount\", \"kvm\": \"wall\"}[r[\"accel\"]] for r in recs)" &&
	records_check res/records.jsonl "all(\"erms\" in r[\"cpu\"][\"flags\"] and r[\"params\"][\"qemu_cpu\"] == \"max\" for r in recs)" &&
	records_check res/records.jsonl "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	records_check res/records.jsonl "0 < one(\"boot\", \"first_bind_ms\")[\"samples\"][0]" &&
	"$BENCH_VM_BIN/bench-vm-report" res/records.jsonl >rep && cat rep &&
	grep -Eq "^  Average of rebinds for dax_pmem driver: [0-9.]+ ms \(sd [0-9.]+, n 3\) \[(tcg-icount|kvm)\]$" rep &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'

test_expect_success '--print-cmd: the QEMU command, quoted, one NVDIMM piece each, nothing run' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=2G $RUN --print-cmd --accel tcg --clock wall --cpu max,+fsrm --kernel "$KERNEL" --results res >cmd &&
	cat cmd && [ ! -s res/agent.out ] &&
	grep -q "^mkdir -p .$SCRATCH/bench-vm\." cmd &&
	tail -n 1 cmd | grep -q "^.qemu-system-x86_64. .-name. .bench-vm." &&
	tail -n 1 cmd | grep -q " .-accel. .tcg. .-cpu. .max,+fsrm. " &&
	tail -n 1 cmd | grep -q " .-no-reboot. " &&
	[ "$(tail -n 1 cmd | grep -o "memory-backend-file,id=nvmem[01],share=on,mem-path=[^,]*,size=2147483648" | wc -l)" = 2 ] &&
	tail -n 1 cmd | grep -q "panic=-1 .*dyndbg=\"func memmap_init_zone_device +p\" indirect_target_selection=force -- rebinds=30" &&
	no_qemu_under "$SCRATCH"
'

test_expect_success '--clock: icount by default under TCG (-icount shift=0,sleep=off), wall under KVM; icount on KVM is a usage error' '
	NVDIMM_DIR=$SCRATCH $RUN --print-cmd --accel tcg --kernel "$KERNEL" --results res >cmd && cat cmd &&
	tail -n 1 cmd | grep -q " .-accel. .tcg. .-icount. .shift=0,sleep=off. .-seed. .1. .-rtc. .base=2026-01-01T00:00:00,clock=vm. .-cpu. .max. " &&
	NVDIMM_DIR=$SCRATCH $RUN --print-cmd --accel tcg --clock icount --kernel "$KERNEL" --results res >cmd &&
	tail -n 1 cmd | grep -q " .-icount. .shift=0,sleep=off. " &&
	NVDIMM_DIR=$SCRATCH $RUN --print-cmd --accel kvm --kernel "$KERNEL" --results res >cmd &&
	tail -n 1 cmd | grep -q " .-accel. .kvm. .-cpu. " && ! grep -q " .-icount. \| .-seed. \| .-rtc. " cmd &&
	NVDIMM_DIR=$SCRATCH CLOCK=wall $RUN --print-cmd --accel tcg --kernel "$KERNEL" --results res >cmd &&
	! grep -q " .-icount. " cmd &&
	{ rc=0; $RUN --print-cmd --accel kvm --clock icount --kernel "$KERNEL" --results res 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] && grep -q "clock icount needs TCG" err &&
	{ rc=0; $RUN --print-cmd --clock rdtsc --kernel "$KERNEL" --results res 2>err || rc=$?; } &&
	[ $rc = 2 ] && grep -q "is not auto, icount or wall" err &&
	no_qemu_under "$SCRATCH"
'

# Two boots, each digesting the struct pages: the report compares the
# digests of two runs (not a run with itself), so struct pages that
# depended on the boot would show as a difference.
test_expect_success '--pages: the module builds against the kernel; two boots give equal digests of both devices' '
	for r in a b; do
		NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
			$RUN --pages --kernel "$KERNEL" --results $r 2>err; rc=$?; cat err; [ $rc = 0 ] || return 1
	done &&
	grep -q "pages: no commit id for" err && [ -f a/pages-module/bench_vm_pages.ko ] &&
	for d in nd_pmem dax_pmem; do
		for r in a b; do
			records_check $r/records.jsonl "one(\"$d/pages\", \"page_classes\")[\"samples\"][0] >= 1" &&
			records_check $r/records.jsonl "[l for l in one(\"$d/pages\", \"page_classes\")[\"digest\"] if l.startswith(\"range start_pfn=\")]" || return 1
		done
	done &&
	! cmp -s a/records.jsonl b/records.jsonl &&
	"$BENCH_VM_BIN/bench-vm-report" a/records.jsonl b/records.jsonl >rep && cat rep &&
	grep -q "^  struct pages of nd_pmem: equal" rep && grep -q "^  struct pages of dax_pmem: equal" rep &&
	! grep -q "DIFFER\|not compared" rep &&
	records_check a/records.jsonl "[r for r in recs if r[\"case\"] == \"check/mmap\"] and [r for r in recs if r[\"case\"] == \"check/odirect\"]" &&
	no_qemu_under "$SCRATCH"
'
test_expect_success '--cpu max,-erms: the records carry the guest CPU without erms, and say so' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
		$RUN --cpu max,-erms --kernel "$KERNEL" --commit noerms --results res &&
	records_check res/records.jsonl "all(\"erms\" not in r[\"cpu\"][\"flags\"] and \" erms \" not in \" %s \" % r[\"params\"][\"guest_cpu_flags\"] for r in recs)" &&
	records_check res/records.jsonl "all(r[\"params\"][\"qemu_cpu\"] == \"max,-erms\" for r in recs)" &&
	no_qemu_under "$SCRATCH"
'
done_testing
