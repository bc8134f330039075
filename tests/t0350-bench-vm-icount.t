#!/bin/sh
# bench-vm under QEMU's icount clock (-icount shift=0,sleep=off: the guest
# clock counts emulated instructions at 1 ns each): two boots of the
# series head's kernel (NVDIMMs of 8G, 3 rebinds) give identical memmap
# figures and identical bind times, and every record and report line
# says tcg-icount, with the caveats before the figures.  A property of the
# emulation, not a time: nothing here depends on how fast the host is.
# Identical, not close: run.sh keeps every host-timed input out of an
# icount guest (-seed, -rtc clock=vm, the agent port's ioeventfd=off);
# before it did, a bind time moved by a microsecond or two between boots
# (1 us of a 1.13 s bind at 100G, 2 us of a 10.6 ms one at 1G).
# test-quick: no: boots guests
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "two icount boots: identical memmap figures" "the report of icount runs"
	done_testing
	exit
fi
diag "kernel: $KERNEL"

# boots: the two runs, kept for the second test
BOOTS=$TEST_OUT/t0350-boots
rm -rf "$BOOTS"
mkdir -p "$BOOTS"

test_expect_success 'two icount boots of one kernel: memmap figures and bind times identical' '
	for r in a b; do
		NS_SIZE=8G REBINDS=3 \
			$RUN --accel tcg --clock icount --kernel "$KERNEL" --commit det --results "$BOOTS/$r" || return 1
	done &&
	grep -q " .-icount. .shift=0,sleep=off. .-seed. .1. .-rtc. .base=[0-9T:-]*,clock=vm. " "$BOOTS/a/qemu-cmd.txt" &&
	grep -q " .-device. .virtio-serial-pci,ioeventfd=off. " "$BOOTS/a/qemu-cmd.txt" &&
	python3 - "$BOOTS/a/records.jsonl" "$BOOTS/b/records.jsonl" <<-\PY
	import json, sys
	a, b = ({(r["case"], r["metric"]): r for r in map(json.loads, open(f))} for f in sys.argv[1:])
	assert all(r["accel"] == "tcg" and r["clock"] == "icount" for r in list(a.values()) + list(b.values()))
	assert not [k for k in a if k[1] == "error"], a
	n = 0
	for d in ("nd_pmem", "dax_pmem"):
	    for c in ("first", "rebind"):
	        k = ("%s/%s" % (d, c), "memmap_init_ms")
	        assert a[k]["samples"] == b[k]["samples"], (k, a[k]["samples"], b[k]["samples"])
	        assert len(a[k]["samples"]) == (1 if c == "first" else 3)
	        k = ("%s/%s" % (d, c), "bind_us")
	        for x, y in zip(a[k]["samples"], b[k]["samples"]):
	            print(k, x, y)
	            assert x == y, (k, x, y)
	            n += 1
	assert n == 8, n
	PY
'

test_expect_success 'the report of icount runs: every figure says tcg-icount, the caveats come first, no change between the boots' '
	[ -s "$BOOTS/b/records.jsonl" ] &&
	"$BENCH_VM_BIN/bench-vm-report" "$BOOTS/a/records.jsonl" "$BOOTS/b/records.jsonl" >rep && cat rep &&
	head -n 1 rep | grep -qx "tcg-icount: emulated instructions at 1 ns each, not hardware time." &&
	grep -q "every REP MOVS iteration counts as an instruction, MOVNTI" rep &&
	grep -q "no cache is modelled" rep && grep -q "A first binding costs what a" rep &&
	grep -q "^det (kernel .*) \[tcg-icount: emulated instructions at 1 ns each, not hardware time\]$" rep &&
	[ "$(grep -c "^  .*: [0-9.]* ms.* \[tcg-icount\]$" rep)" -ge 10 ] &&
	! grep -E "^  .*([0-9] ms|%|struct pages)" rep | grep -v "\[tcg-icount\]$" &&
	grep -qx "  Average of rebinds for nd_pmem driver: +0.0% \[tcg-icount\]" rep &&
	grep -qx "  First binding for dax_pmem driver: +0.0% \[tcg-icount\]" rep &&
	! grep "^  .* driver: [-+][0-9]" rep | grep -v ": +0.0% \[tcg-icount\]$" &&
	rm -rf "$BOOTS"
'
done_testing
