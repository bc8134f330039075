#!/bin/sh
# A checkout without the kernel tree (the workflow's merge job only checks
# out and downloads results): every C tool of the toolkit builds, and
# make merge joins two result sets.  Only gen_init_cpio, the kernel's own
# program, waits for make kernel-tree.  (A clone of the toolkit's commits:
# uncommitted work is not in it.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"

test_expect_success 'a clone without the kernel tree: make tools, then make merge' '
	git clone -q "$TOP" tk && [ -z "$(ls -A tk/kernel-tree)" ] &&
	make -C tk tools OUT="$SCRATCH/o" >make.log 2>&1 || { cat make.log; false; } &&
	for t in ci-report ci-merge cost-fit copy-bench bench-vm-collect bench-vm-report \
		bench-vm-agent bench-vm-model.so bench-vm-model-test bench-vm-kmsg-test series-check \
		trailers-collect record-write record-reuse changelog-lint kunit-records ci-reproduce; do
		[ -e "o/bin/$t" ] || { echo "o/bin/$t was not built"; return 1; }
	done &&
	[ ! -e o/bin/gen_init_cpio ] &&
	make -C tk merge OUT="$SCRATCH/o" \
		RESULTS="results/2026-12-01-series-v2/vm-icount-100G results/2026-12-01-xeon-emerald-rapids-tcg-icount" \
		>merge.log 2>&1 || { cat merge.log; false; } &&
	grep -q "^| bench-vm.nd_pmem/rebind.memmap_init_ms (ms) | e9b351700f1f |" o/merge/merge.md
'

done_testing
