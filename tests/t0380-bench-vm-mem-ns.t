#!/bin/sh
# bench-vm's third namespace, devdax with map=mem (MEM_NS=1, the default),
# on the series head's kernel: QEMU gets a third NVDIMM and guest RAM for
# its struct pages; the run times and digests it as dax_pmem_mem, and its
# memmap init writes the optimised vmemmap (fewer struct pages than
# map=dev); the digest covers the pageblock flags, and the report catches
# a difference there; MEM_NS=0 and a missing third NVDIMM behave.
# test-quick: no: boots a guest
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-agent tool:bench-vm-collect tool:bench-vm-report tool:gen_init_cpio
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "--print-cmd" "a 1G run" "--pages" "mem_ns=1 without a third NVDIMM"
	done_testing
	exit
fi

test_expect_success '--print-cmd: three NVDIMMs, slots=3, guest RAM for the map=mem memmap; MEM_NS=0: two' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=64G $RUN --print-cmd --accel tcg --kernel "$KERNEL" --results res >cmd &&
	cat cmd && [ "$(tail -n 1 cmd | grep -o "memory-backend-file,id=nvmem[012],share=on" | wc -l)" = 3 ] &&
	tail -n 1 cmd | grep -q " .-m. .1536M,slots=3,maxmem=198144M. " &&
	tail -n 1 cmd | grep -q -- "-- rebinds=30 mem_ns=1.$" &&
	NVDIMM_DIR=$SCRATCH NS_SIZE=64G MEM_NS=0 $RUN --print-cmd --accel tcg --kernel "$KERNEL" --results res >cmd &&
	[ "$(tail -n 1 cmd | grep -o "memory-backend-file,id=nvmem[012],share=on" | wc -l)" = 2 ] &&
	tail -n 1 cmd | grep -q " .-m. .512M,slots=2,maxmem=131584M. " && ! grep -q mem_ns cmd &&
	{ rc=0; $RUN --print-cmd --mem-ns 2 --kernel "$KERNEL" --results res 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] && grep -q "mem-ns: .2. is not 0 or 1" err && no_qemu_under "$SCRATCH"
'

test_expect_success 'a 1G run: dax_pmem_mem timed like the others, its optimised vmemmap writes fewer struct pages' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=2 TIMEOUT=240 \
		$RUN --kernel "$KERNEL" --commit memns --results res && cat res/agent.out &&
	records_check res/records.jsonl "len(one(\"dax_pmem_mem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 2" &&
	records_check res/records.jsonl "all(s > 0 for s in one(\"dax_pmem_mem/rebind\", \"unbind_us\")[\"samples\"])" &&
	records_check res/records.jsonl "one(\"check/mmap-mem\", \"verified_bytes\")[\"device\"].startswith(\"dax2.\")" &&
	records_check res/records.jsonl "one(\"check/mmap\", \"verified_bytes\")[\"device\"].startswith(\"dax1.\")" &&
	records_check res/records.jsonl "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	if records_check res/records.jsonl "recs[0][\"clock\"] == \"icount\""; then
		records_check res/records.jsonl "one(\"dax_pmem_mem/rebind\", \"memmap_init_ms\")[\"samples\"][0] < 0.6 * one(\"dax_pmem/rebind\", \"memmap_init_ms\")[\"samples\"][0]"
	fi &&
	"$BENCH_VM_BIN/bench-vm-report" res/records.jsonl >rep && cat rep &&
	grep -Eq "^  Average of rebinds for dax_pmem_mem driver: [0-9.]+ ms \(sd [0-9.]+, n 2\)" rep &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'

# Two boots, the digests of both compared; then the same records with one
# pageblock flag changed, as a kernel that left a pageblock without its
# migratetype would give: the report must say so.
test_expect_success '--pages: dax_pmem_mem digested (compound classes, pageblock flags), equal in two boots; a changed pageblock flag fails the report' '
	for r in a b; do
		NVDIMM_DIR=$SCRATCH NS_SIZE=1G REBINDS=1 TIMEOUT=240 \
			$RUN --pages --kernel "$KERNEL" --results $r 2>err; rc=$?; cat err; [ $rc = 0 ] || return 1
	done &&
	for d in nd_pmem dax_pmem dax_pmem_mem; do
		records_check a/records.jsonl "[l for l in one(\"$d/pages\", \"page_classes\")[\"digest\"] if l.startswith(\"pageblock flags=0x1 \")]" &&
		records_check a/records.jsonl "[l for l in one(\"$d/pages\", \"page_classes\")[\"digest\"] if l.startswith(\"range \") and \" pageblocks=\" in l and \" pb_seq=\" in l]" || return 1
	done &&
	records_check a/records.jsonl "[l for l in one(\"dax_pmem_mem/pages\", \"page_classes\")[\"digest\"] if l.startswith(\"class \") and \"w1=page-before|1\" in l]" &&
	"$BENCH_VM_BIN/bench-vm-report" a/records.jsonl b/records.jsonl >rep && cat rep &&
	[ "$(grep -c "^  struct pages of .*: equal" rep)" = 3 ] &&
	# the second boot with one pageblock flag changed (a changed copy of
	# the first would share its other records, which count once)
	sed "/\"case\":\"dax_pmem_mem\/pages\"/ s/\"pageblock flags=0x1 first_pfn=\([^ ]*\) count=\([0-9]*\)\"/\"pageblock flags=0x0 first_pfn=\1 count=1\",\"pageblock flags=0x1 first_pfn=\1 count=\2\"/" \
		b/records.jsonl >c.jsonl && ! cmp -s b/records.jsonl c.jsonl &&
	expect_fail "$BENCH_VM_BIN/bench-vm-report" a/records.jsonl c.jsonl && cat out &&
	grep -q "^  struct pages of dax_pmem_mem: DIFFER" out &&
	[ "$(grep -c "^  struct pages of .*: equal" out)" = 2 ] && no_qemu_under "$SCRATCH"
'

test_expect_success 'mem_ns=1 without a third NVDIMM: the guest says so, exit 1' '
	NVDIMM_DIR=$SCRATCH NS_SIZE=1G TIMEOUT=120 MEM_NS=0 \
		expect_fail $RUN --kernel "$KERNEL" --commit err --results res2 --agent-opt mem_ns=1 &&
	grep_err "guest: hello: no /sys/bus/nd/devices/namespace2.0: mem_ns=1 needs a third NVDIMM" &&
	no_qemu_under "$SCRATCH"
'
done_testing
