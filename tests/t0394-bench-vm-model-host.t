#!/bin/sh
# bench-vm's store and cache model (bench-vm/plugin) on the host, no
# guest: the model on known inputs without QEMU; QEMU 7.2 loading the
# plugin and refusing bad arguments; run.sh's option and argv; collect's
# records and errors.  (t0395 counts in guests; make coverage runs this
# file.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
PLUGIN=$BENCH_VM_BIN/bench-vm-model.so

test_result "$("$BENCH_VM_BIN/bench-vm-model-test" >"$TEST_OUT/t0394-model-test.log" 2>&1 &&
	echo ok || echo fail)" 'the model without QEMU: instruction classes, LRU, the synthetic copies, System.map' \
	"$TEST_OUT/t0394-model-test.log"

# qemu_plugin ARGS: QEMU loads the plugin with ARGS, set up and quit by QMP
qemu_plugin() {
	printf '%s\n' '{"execute": "qmp_capabilities"}' '{"execute": "quit"}' |
		timeout 60 qemu-system-x86_64 -M none -display none -accel tcg -icount shift=0,sleep=off \
			-plugin "$PLUGIN,$1" -S -qmp stdio >qemu.out 2>qemu.err
}

test_expect_success 'QEMU loads the plugin (API version 1) and refuses what it cannot model' '
	qemu_plugin "out=$SCRATCH/m.out,l1d_size=32K,l1d_ways=8" &&
	grep -q "^model	name=cache	l1d_size=32768	l1d_ways=8	llc_size=16777216	llc_ways=16	line=64	" m.out &&
	grep -qx "end	windows=0	bad_markers=0	write=ok" m.out &&
	! qemu_plugin "out=$SCRATCH/m2.out,bogus=1" && cat qemu.err &&
	grep -q "bench-vm-model: args: .bogus=1. is not KEY=VALUE of a known key" qemu.err &&
	! qemu_plugin "out=$SCRATCH/m2.out,l1d_size=33K" && cat qemu.err &&
	grep -q "bench-vm-model: model: L1d (l1d_size, l1d_ways): .*not a power of two" qemu.err &&
	! qemu_plugin "l1d_ways=8" && grep -q "out=FILE is missing" qemu.err &&
	! qemu_plugin "out=$SCRATCH/m2.out,symbols=$SCRATCH/none" &&
	grep -q "bench-vm-model: symbols: .*/none: cannot open it" qemu.err &&
	! qemu_plugin "out=$SCRATCH/m2.out,l1d_size=99999999999G" &&
	grep -q "bench-vm-model: args: .l1d_size=99999999999G. is not KEY=VALUE" qemu.err &&
	! printf "%s\n" "{\"execute\": \"qmp_capabilities\"}" "{\"execute\": \"quit\"}" |
		timeout 60 qemu-system-x86_64 -M pc -smp 2 -display none -accel tcg -icount shift=0,sleep=off \
			-plugin "$PLUGIN,out=$SCRATCH/m2.out" -S -qmp stdio >qemu.out 2>qemu.err &&
	grep -q "bench-vm-model: install: the guest has 2 vCPUs: the model counts one (-smp 1)" qemu.err
'

test_expect_success 'run.sh --model: bad values are usage errors; cache puts the plugin and System.map in the argv, auto where icount' '
	mkdir -p b/arch/x86/boot && : >b/arch/x86/boot/bzImage && cp "$BUILD_ID" b/ &&
	echo "ffffffff81000000 T _text" >b/System.map &&
	rc=0 && $RUN --model bogus --kernel b/arch/x86/boot/bzImage 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "model: .bogus. is not none, cache or auto" err &&
	rc=0 && $RUN --accel kvm --model cache --kernel b/arch/x86/boot/bzImage 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "model cache needs TCG" err &&
	rc=0 && MODEL_ARGS="l1d_size=32K;x" $RUN --model cache --kernel b/arch/x86/boot/bzImage 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "MODEL_ARGS: " err &&
	MODEL_ARGS=l1d_size=32K,l1d_ways=8 $RUN --model cache --accel tcg --print-cmd \
		--results r --kernel b/arch/x86/boot/bzImage >cmd && cat cmd &&
	grep -q " .-plugin. .[^ ]*/bench-vm-model.so,out=[^ ]*/model.out,symbols=$SCRATCH/b/arch/x86/boot/../../../System.map,l1d_size=32K,l1d_ways=8. " cmd &&
	$RUN --check >c.none && MODEL=cache $RUN --check >c.cache &&
	MODEL=cache MODEL_ARGS=l1d_size=32K $RUN --check >c.args &&
	grep -qx "model none" c.none && grep -qx "model cache [0-9a-f]\{64\}" c.cache &&
	grep -qx "model cache l1d_size=32K [0-9a-f]\{64\}" c.args &&
	$RUN --accel tcg --print-cmd --results r --kernel b/arch/x86/boot/bzImage >cmd &&
	! grep -q -- -plugin cmd &&
	# auto (make ci): the model where the guest is TCG with icount, else none
	MODEL=auto $RUN --accel tcg --print-cmd --results r --kernel b/arch/x86/boot/bzImage >cmd &&
	grep -q " .-plugin. .[^ ]*/bench-vm-model.so,out=" cmd &&
	MODEL=auto CLOCK=wall $RUN --accel tcg --print-cmd --results r --kernel b/arch/x86/boot/bzImage >cmd &&
	! grep -q -- -plugin cmd
'

test_expect_success 'bench-vm-collect --model: records with the model and its label; a missing window or end, unpaired markers, a short write are errors' '
	printf "hello\tkernel=k\tboot_us=1\tns0_size=1\tns1_size=1\nsample\tdriver=nd_pmem\tcase=first\tindex=0\tpages=2\tmemmap_ms=3\tlines=1\tbind_us=4\tunbind_us=0\tboot_us=5\twindow=1\nsynthetic\tkind=mov\tbytes=64\twindow=2\ndone\n" >agent.out &&
	{
		printf "model\tname=cache\tl1d_size=49152\tllc_size=16777216\n" &&
		for w in 1 2; do
			printf "window\tseq=$w\tinsns=1$w\tloads=2\tstores=3\tnt_stores=0\tnt_bytes=0\trep_iters=0\trep_bytes=0\tsfences=0\tmfences=0\tl1d_load_misses=0\tl1d_store_misses=1\tllc_load_misses=0\tllc_store_misses=1\tllc_writebacks=0\tnt_rereads=0\trep_starts=0\towed_writebacks=0\test_cycles=9$w\n" &&
			printf "func\tseq=$w\trank=1\tname=f$w\tinsns=1$w\test_cycles=9$w\n" || return 1
		done &&
		printf "end\twindows=2\tbad_markers=0\twrite=ok\n"
	} >model.out &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --clock icount --model model.out agent.out >rec &&
	records_check rec "one(\"nd_pmem/first\", \"insns\")[\"samples\"] == [11] and one(\"synthetic/mov\", \"est_cycles\")[\"samples\"] == [92] and one(\"nd_pmem/first\", \"est_cycles\")[\"functions\"] == [[{\"rank\": 1, \"name\": \"f1\", \"insns\": 11, \"est_cycles\": 91}]] and all(r[\"model\"] == \"cache\" and r[\"model_label\"] == \"model: write-allocate, streaming stores bypass; not hardware time\" and r[\"model_params\"][\"llc_size\"] == 16777216 for r in recs if r[\"metric\"] in (\"insns\", \"est_cycles\")) and not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	grep -v "^end" model.out >cut.out &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model cut.out agent.out >rec &&
	grep_err "model: cut.out ends without its end line" &&
	sed "s/window=2/window=3/" agent.out >a3.out &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model model.out a3.out >rec &&
	grep_err "model: no counts for window 3 of the agent" &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model none.out agent.out >rec &&
	grep_err "model: none.out cannot be read" &&
	# markers the plugin could not pair: its counts are of no window
	sed "s/bad_markers=0/bad_markers=1/" model.out >marks.out &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model marks.out agent.out >rec &&
	grep_err "model: marks.out: windows opened inside a window or closed outside one" &&
	sed "s/write=ok/write=short/" model.out >short.out &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model short.out agent.out >rec &&
	grep_err "model: the plugin could not write all of short.out" &&
	for v in inf nan 0x10 -1 1e; do
		# a value no count can be: an error of the model, and the
		# records of the binds are kept
		sed "s/insns=12/insns=$v/" model.out >bad.out &&
		expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --model bad.out agent.out &&
		grep_err "model: a value of the plugin.s is not a number: .$v." &&
		records_check "$SCRATCH/out" "one(\"nd_pmem/first\", \"memmap_init_ms\")[\"samples\"] == [3]" ||
			{ echo "value $v"; return 1; }
	done
'

done_testing
