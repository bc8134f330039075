#!/bin/sh
# bench-vm in a VM: a small run (2 NVDIMMs of 1G, 3 rebinds) gives complete
# and sane records, leaves nothing behind; the initramfs is reproducible;
# --print-cmd shows the QEMU command without running it.
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
for t in bench-vm-agent bench-vm-collect bench-vm-report gen_init_cpio; do
	[ -x "$BENCH_VM_BIN/$t" ] || bail "$BENCH_VM_BIN/$t is not built: run 'make tools'"
done
plan 5

test_expect_success 'the initramfs is reproducible: same bytes twice, uid 0, mtime 0' '
	sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" a.cpio &&
	sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" b.cpio &&
	cmp a.cpio b.cpio && cpio -itv --quiet <a.cpio >list && cat list &&
	grep -q "^-rwxr-xr-x .* root  *root .* Jan  1  1970 init$" list &&
	! grep -v " root  *root .* Jan  1  1970 " list
'

if ! KERNEL=$(bench_vm_kernel); then
	test_skip "a 1G run: complete, sane records" "no kernel built: run 'make build' (or set BENCH_VM_KERNEL)"
	test_skip "--print-cmd" "no kernel built"
	test_skip "--pages" "no kernel built"
	test_skip "--cpu max,-erms" "no kernel built"
	done_testing
	exit
fi
diag "kernel: $KERNEL"

test_expect_success 'a 1G run: complete, sane records; nothing left running, the NVDIMM files gone' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=3 TIMEOUT=240 \
		$RUN --kernel "$KERNEL" --commit smoke --results res && cat res/records.jsonl &&
	for d in nd_pmem dax_pmem; do
		records_check res/records.jsonl "len(one(\"$d/first\", \"memmap_init_ms\")[\"samples\"]) == 1" &&
		records_check res/records.jsonl "len(one(\"$d/rebind\", \"memmap_init_ms\")[\"samples\"]) == 3" &&
		records_check res/records.jsonl "all(s >= 0 for s in one(\"$d/rebind\", \"memmap_init_ms\")[\"samples\"])" &&
		records_check res/records.jsonl "all(0 < s < 1e8 for s in one(\"$d/rebind\", \"bind_us\")[\"samples\"])" &&
		records_check res/records.jsonl "all(0 < s < 1e8 for s in one(\"$d/rebind\", \"unbind_us\")[\"samples\"])" &&
		records_check res/records.jsonl "len(set(one(\"$d/rebind\", \"pages\")[\"samples\"] + one(\"$d/first\", \"pages\")[\"samples\"])) == 1" &&
		records_check res/records.jsonl "0.9 * 262144 < one(\"$d/first\", \"pages\")[\"samples\"][0] <= 262144" || return 1
	done &&
	records_check res/records.jsonl "all(r[\"accel\"] in (\"kvm\", \"tcg\") and r[\"commit\"] == \"smoke\" and r[\"kernel\"] for r in recs)" &&
	records_check res/records.jsonl "all(\"erms\" in r[\"cpu\"][\"flags\"] and r[\"params\"][\"cpu_model\"] == \"max\" for r in recs)" &&
	records_check res/records.jsonl "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	records_check res/records.jsonl "0 < one(\"boot\", \"first_bind_ms\")[\"samples\"][0]" &&
	"$BENCH_VM_BIN/bench-vm-report" res/records.jsonl >rep && cat rep &&
	grep -Eq "^  Average of rebinds for dax_pmem driver: [0-9.]+ ms \(sd [0-9.]+, n 3\) \[(tcg|kvm)\]$" rep &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'

test_expect_success '--print-cmd: the QEMU command, quoted, one NVDIMM piece each, nothing run' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=2G $RUN --print-cmd --accel tcg --cpu max,+fsrm --kernel "$KERNEL" --results res >cmd &&
	cat cmd && [ ! -s res/agent.out ] &&
	grep -q "^mkdir -p .$SCRATCH/bench-vm\." cmd &&
	tail -n 1 cmd | grep -q "^.qemu-system-x86_64. .-name. .bench-vm." &&
	tail -n 1 cmd | grep -q " .-accel. .tcg. .-cpu. .max,+fsrm. " &&
	tail -n 1 cmd | grep -q " .-no-reboot. " &&
	[ "$(tail -n 1 cmd | grep -o "memory-backend-file,id=nvmem[01],share=on,mem-path=[^,]*,size=2147483648" | wc -l)" = 2 ] &&
	tail -n 1 cmd | grep -q "panic=-1 .*dyndbg=\"func memmap_init_zone_device +p\" -- rebinds=30" &&
	no_qemu_under "$SCRATCH"
'
test_expect_success '--pages: the module builds against the kernel, the digest of both devices comes back' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
		$RUN --pages --kernel "$KERNEL" --results res 2>err; rc=$?; cat err; [ $rc = 0 ] &&
	grep -q "pages: no commit id for" err && [ -f res/pages-module/bench_vm_pages.ko ] &&
	for d in nd_pmem dax_pmem; do
		records_check res/records.jsonl "one(\"$d/pages\", \"page_classes\")[\"samples\"][0] >= 1" &&
		records_check res/records.jsonl "[l for l in one(\"$d/pages\", \"page_classes\")[\"digest\"] if l.startswith(\"range start_pfn=\")]" || return 1
	done &&
	"$BENCH_VM_BIN/bench-vm-report" res/records.jsonl res/records.jsonl >rep && cat rep &&
	[ "$(grep -c "^  struct pages of .*: equal" rep)" = 2 ] &&
	records_check res/records.jsonl "[r for r in recs if r[\"case\"] == \"check/mmap\"] and [r for r in recs if r[\"case\"] == \"check/odirect\"]" &&
	no_qemu_under "$SCRATCH"
'
test_expect_success '--cpu max,-erms: the records carry the guest CPU without erms, and say so' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
		$RUN --cpu max,-erms --kernel "$KERNEL" --commit noerms --results res &&
	records_check res/records.jsonl "all(\"erms\" not in r[\"cpu\"][\"flags\"] and \" erms \" not in \" %s \" % r[\"params\"][\"guest_cpu_flags\"] for r in recs)" &&
	records_check res/records.jsonl "all(r[\"params\"][\"cpu_model\"] == \"max,-erms\" for r in recs)" &&
	no_qemu_under "$SCRATCH"
'
done_testing
