#!/bin/sh
# bench-vm without a VM: the agent's /dev/kmsg parser on fixtures, the
# collector turning agent lines into records (complete, failed, cut short,
# a number field that is not a whole number or is missing: named, the
# sample dropped, exit 1) and the report's changelog-shaped figures.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-kmsg-test tool:bench-vm-collect tool:bench-vm-report

test_expect_success 'kmsg parser: the memmap line, other lines, continuation lines, malformed input' '
	cat >in <<-\EOF &&
	7,1234,5678901,-;memmap_init_zone_device initialised 26214400 pages in 850ms
	6,1235,5678902,-;pmem0: detected capacity change from 0 to 1073741824
	7,9,1,c;memmap_init_zone_device initialised 512 pages in 0ms\n SUBSYSTEM=nd\n DEVICE=+nd:pfn0.0
	7,10,2,-,caller=T1;memmap_init_zone_device initialised 18446744073709551615 pages in 4294967295ms
	garbage without a semicolon
	7,11,3,-;memmap_init_zone_device initialised x pages in 1ms
	7,12,4,-;memmap_init_zone_device initialised 5 pages in 1s
	7,13,5,-;memmap_init_zone_device initialised 5 pages in 1ms trailing
	7,,5,-;memmap_init_zone_device initialised 5 pages in 1ms
	7,14,6,-;memmap_init_zone_device initialised
	EOF
	cat >want <<-\EOF &&
	memmap seq=1234 pages=26214400 ms=850
	other seq=1235
	memmap seq=9 pages=512 ms=0
	memmap seq=10 pages=18446744073709551615 ms=4294967295
	bad-record
	bad-memmap seq=11
	bad-memmap seq=12
	bad-memmap seq=13
	bad-record
	bad-memmap seq=14
	EOF
	"$BENCH_VM_BIN/bench-vm-kmsg-test" <in >got && diff -u want got
'

# agent_lines N: what an agent sends for a complete run with N rebinds
agent_lines() {
	printf "step\tname=hello\n"
	printf "cpu\tvendor=GenuineIntel\tfamily=6\tmodel=106\tstepping=6\tmodel_name=QEMU TCG CPU\tflags=fpu sse2 erms clwb\n"
	printf "hello\tkernel=6.12.117\tboot_us=812000\tns0_size=1073741824\tns1_size=1073741824\n"
	for drv in nd_pmem dax_pmem; do
		printf "step\tname=%s-binds\n" "$drv"
		i=0
		while [ $i -le "$1" ]; do
			case $i in 0) c=first ;; *) c=rebind ;; esac
			printf "sample\tdriver=%s\tcase=%s\tindex=%d\tpages=258048\tmemmap_ms=%d\tlines=1\tbind_us=%d\tunbind_us=%d\tboot_us=%d\n" \
				"$drv" "$c" "$i" $((10 + i)) $((11000 + i)) $((500 * (i > 0))) $((900000 + i * 20000))
			i=$((i + 1))
		done
	done
}

collect() {
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c0ffee --accel tcg --qemu-cpu max \
		--ns-size 1073741824 --rebinds 3 "$@"
}

test_expect_success 'collect: a complete run gives every sample, the CPU, the accel and the QEMU build, no error' '
	{ agent_lines 3; printf "done\n"; } >agent.out &&
	collect agent.out >rec.jsonl && cat rec.jsonl &&
	records_check rec.jsonl "one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"] == [11, 12, 13]" &&
	records_check rec.jsonl "one(\"dax_pmem/first\", \"memmap_init_ms\")[\"samples\"] == [10]" &&
	records_check rec.jsonl "one(\"dax_pmem/rebind\", \"unbind_us\")[\"samples\"] == [500, 500, 500]" &&
	records_check rec.jsonl "one(\"nd_pmem/first\", \"bind_us\")[\"unit\"] == \"us\"" &&
	records_check rec.jsonl "all(r[\"accel\"] == \"tcg\" and r[\"commit\"] == \"c0ffee\" and r[\"kernel\"] == \"6.12.117\" and r[\"cpu\"][\"flags\"] == [\"erms\", \"clwb\"] and r[\"params\"][\"qemu_cpu\"] == \"max\" for r in recs)" &&
	records_check rec.jsonl "all(r[\"clock\"] == \"wall\" and r[\"schema\"] == \"x86-copy-series/record/2\" for r in recs)" &&
	records_check rec.jsonl "one(\"boot\", \"first_bind_ms\")[\"samples\"] == [889]" &&
	records_check rec.jsonl "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	records_check rec.jsonl "all(\"qemu_version\" not in r[\"params\"] for r in recs)" &&
	collect --qemu-version "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)" \
		agent.out >q.jsonl &&
	records_check q.jsonl "all(r[\"params\"][\"qemu_version\"] == \"QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\" for r in recs)" &&
	rc=0 && collect --qemu-version "" agent.out >e.jsonl 2>err || rc=$? &&
	[ "$rc" = 2 ] && grep -q "usage: --qemu-version: empty" err
'

test_expect_success 'collect: a guest error becomes an error record, samples so far kept, exit 1' '
	{ agent_lines 1; printf "step\tname=devdax-setup\nerror\tstep=devdax-setup\tmsg=write 3145728 to align: Invalid argument\n"; } >agent.out &&
	expect_fail collect agent.out &&
	grep_err "guest: devdax-setup: write 3145728 to align: Invalid argument" &&
	records_check out "one(\"run\", \"error\")[\"error\"].startswith(\"guest: devdax-setup: \")" &&
	records_check out "len(one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 1"
'

test_expect_success 'collect: output cut short (no done, no error) is an error naming the last step' '
	agent_lines 2 | head -n 6 >agent.out &&
	expect_fail collect agent.out &&
	grep_err "guest: nd_pmem-binds: the agent stopped without .done. or an error" &&
	expect_fail collect --host-error "watchdog: QEMU killed after 9s" agent.out &&
	grep_err "watchdog: QEMU killed after 9s" && records_check out "one(\"run\", \"error\")[\"last_step\"] == \"nd_pmem-binds\""
'

test_expect_success 'report: the changelog lines per kernel, mean/sd/n from the samples, change in percent' '
	{ agent_lines 3; printf "done\n"; } >a.out && collect a.out >a.jsonl &&
	{ agent_lines 3; printf "done\n"; } | sed "s/memmap_ms=1\([0-9]\)/memmap_ms=\1/" >b.out &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit beef --accel tcg --qemu-cpu max b.out >b.jsonl &&
	"$BENCH_VM_BIN/bench-vm-report" a.jsonl b.jsonl >rep && cat rep &&
	grep -qx "  First binding for nd_pmem driver: 10.00 ms \[tcg\]" rep &&
	grep -qx "  Average of rebinds for nd_pmem driver: 12.00 ms (sd 1.00, n 3) \[tcg\]" rep &&
	grep -qx "  Average of rebinds for dax_pmem driver: 2.00 ms (sd 1.00, n 3) \[tcg\]" rep &&
	grep -qx "  Average of rebinds for dax_pmem driver: -83.3% \[tcg\]" rep &&
	grep -qx "  First binding for nd_pmem driver: -100.0% \[tcg\]" rep &&
	grep -q "^c0ffee (kernel 6.12.117, cpu max: erms,clwb) \[tcg: timings show relative change only\]$" rep
'

test_expect_success 'report: a failed run is reported and makes the exit status 1' '
	printf "error\tstep=port\tmsg=no port\n" >f.out && { collect f.out >f.jsonl; true; } &&
	expect_fail "$BENCH_VM_BIN/bench-vm-report" f.jsonl && grep -q "run failed: guest: port: no port" out
'
test_expect_success 'collect --status: hello, the samples and the last step so far, a line cut short not read' '
	printf "step\tname=hello\n" >s.out &&
	"$BENCH_VM_BIN/bench-vm-collect" --status s.out >st && echo "hello=0 samples=0 step=hello" | diff - st &&
	: >e.out && "$BENCH_VM_BIN/bench-vm-collect" --status e.out >st && echo "hello=0 samples=0 step=" | diff - st &&
	agent_lines 2 >s.out && printf "sample\tdriver=dax_pmem\tcase=rebind" >>s.out &&
	"$BENCH_VM_BIN/bench-vm-collect" --status s.out >st && echo "hello=1 samples=6 step=dax_pmem-binds" | diff - st &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --status missing.out && grep_err "read: missing.out: "
'

# (the guest has erms and clwb, not fsrm: agent_lines)
test_expect_success 'collect: every +feature and -feature of --qemu-cpu as the guest has it, else an error with QEMU'"'"'s warning' '
	{ agent_lines 1; printf "done\n"; } >c.out &&
	printf "qemu-system-x86_64: warning: TCG doesn'"'"'t support requested feature: CPUID.07H:EDX.fsrm [bit 4]\n" >qemu.log &&
	collect --qemu-cpu max,+erms,-fsrm,+clwb,model-id=x --qemu-log qemu.log c.out >ok.jsonl &&
	records_check ok.jsonl "not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	expect_fail collect --qemu-cpu max,+fsrm --qemu-log qemu.log c.out &&
	records_check out "one(\"run\", \"error\")[\"error\"] == \"cpu: -cpu max,+fsrm asked for +fsrm but the guest'"'"'s /proc/cpuinfo lacks fsrm (warning: TCG doesn'"'"'t support requested feature: CPUID.07H:EDX.fsrm [bit 4])\"" &&
	expect_fail collect --qemu-cpu max,-erms,+erm,+sse --host-error "watchdog: late" c.out &&
	records_check out "one(\"run\", \"error\")[\"error\"] == \"watchdog: late; cpu: -cpu max,-erms,+erm,+sse asked for -erms but the guest'"'"'s /proc/cpuinfo has erms; cpu: -cpu max,-erms,+erm,+sse asked for +erm but the guest'"'"'s /proc/cpuinfo lacks erm; cpu: -cpu max,-erms,+erm,+sse asked for +sse but the guest'"'"'s /proc/cpuinfo lacks sse\"" &&
	records_check out "len(one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"]) == 1"
'

# pages_lines W3: the digest lines of a devdax range whose tail class has
# word 3 (mapping) W3
pages_lines() {
	for l in "field 0 flags" "field 3 mapping" \
		"class 0 first_pfn=0x141200 count=503 w0=0xc000000000002040 w1=pgmap w3=0x0" \
		"class 1 first_pfn=0x141202 count=256530 w0=0xc000000000002000 w1=page-before|1 w3=$1" \
		"range start_pfn=0x141200 nr_pages=257536 words=8 classes=2 seq=d374666e76a3b316"; do
		printf "pages\tdriver=dax_pmem\tline=%s\n" "$l"
	done
}

test_expect_success 'report: struct pages equal to the first kernel, or the first differing pfn and field' '
	{ agent_lines 1; pages_lines 0xdead000000000400; printf "done\n"; } >a.out && collect a.out >a.jsonl &&
	records_check a.jsonl "one(\"dax_pmem/pages\", \"page_classes\")[\"samples\"] == [2]" &&
	# the same pages from another kernel (the same file twice counts once)
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit d00d --accel tcg --qemu-cpu max \
		--ns-size 1073741824 --rebinds 3 a.out >a2.jsonl &&
	"$BENCH_VM_BIN/bench-vm-report" a.jsonl a2.jsonl >rep && cat rep &&
	grep -q "^  struct pages of dax_pmem: equal (range start_pfn=0x141200 nr_pages=257536 .*) \[tcg\]$" rep &&
	grep -q "^  struct pages of nd_pmem: not compared (no digest: run with PAGES=1)" rep &&
	{ agent_lines 1; pages_lines 0x0; printf "done\n"; } >b.out &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit beef --accel tcg b.out >b.jsonl &&
	expect_fail "$BENCH_VM_BIN/bench-vm-report" a.jsonl b.jsonl && cat out &&
	grep -q "^  struct pages of dax_pmem: DIFFER from c0ffee \[tcg\]$" out &&
	grep -q "^    first differing pfn 0x141202, word 3 (mapping): c0ffee 0xdead000000000400, beef 0x0$" out
'
test_expect_success 'the clock: every record says icount or wall; the report labels icount figures and gives the caveats first' '
	{ agent_lines 3; printf "done\n"; } >a.out &&
	collect --clock icount a.out >i.jsonl &&
	records_check i.jsonl "all(r[\"clock\"] == \"icount\" and r[\"accel\"] == \"tcg\" for r in recs)" &&
	collect --clock wall a.out >w.jsonl && records_check w.jsonl "all(r[\"clock\"] == \"wall\" for r in recs)" &&
	{ rc=0; collect --clock tsc a.out >/dev/null 2>err || rc=$?; } && [ $rc = 2 ] &&
	grep -q "clock: .tsc. is not icount or wall" err &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit d00d --accel tcg --qemu-cpu max \
		--ns-size 1073741824 --rebinds 3 --clock icount a.out >i2.jsonl &&
	"$BENCH_VM_BIN/bench-vm-report" i.jsonl i2.jsonl >rep && cat rep &&
	head -n 1 rep | grep -qx "tcg-icount: emulated instructions at 1 ns each, not hardware time." &&
	grep -q "every REP MOVS iteration counts as an instruction, MOVNTI" rep &&
	grep -q "^c0ffee (kernel 6.12.117, cpu max: erms,clwb) \[tcg-icount: emulated instructions at 1 ns each, not hardware time\]$" rep &&
	grep -qx "  Average of rebinds for nd_pmem driver: 12.00 ms (sd 1.00, n 3) \[tcg-icount\]" rep &&
	grep -qx "  First binding for dax_pmem driver: +0.0% \[tcg-icount\]" rep &&
	! grep -E "^  .*([0-9] ms|%)" rep | grep -v "\[tcg-icount\]$" &&
	"$BENCH_VM_BIN/bench-vm-report" w.jsonl i.jsonl >rep && cat rep &&
	grep -q "^Change c0ffee vs c0ffee: (different accel or clock: not comparable)$" rep &&
	"$BENCH_VM_BIN/bench-vm-report" w.jsonl >rep && ! grep -q icount rep
'
test_expect_success 'collect: a sample field that is not a whole number, or missing, drops that sample, named, exit 1; a decimal is read exactly' '
	agent_lines 3 >base.out &&
	# the nd_pmem rebind of index 2: memmap_ms=12 made each bad value
	for bad in 12abc 12ms x "" 1e999 inf nan -inf; do
		{ sed "/driver=nd_pmem.*index=2/s/memmap_ms=12/memmap_ms=$bad/" base.out; printf "done\n"; } >agent.out &&
		grep -q "memmap_ms=$bad	" agent.out && expect_fail collect agent.out &&
		grep_err "agent.out: sample of nd_pmem/rebind: memmap_ms is not a number: $bad: the sample is dropped" &&
		records_check out "one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"] == [11, 13]" &&
		records_check out "one(\"nd_pmem/rebind\", \"bind_us\")[\"samples\"] == [11001, 11003]" || { echo "value: $bad"; return 1; }
	done &&
	{ sed "/driver=dax_pmem.*index=1/s/	bind_us=[0-9]*//" base.out; printf "done\n"; } >agent.out &&
	expect_fail collect agent.out && grep_err "sample of dax_pmem/rebind: bind_us is missing: the sample is dropped" &&
	records_check out "one(\"dax_pmem/rebind\", \"unbind_us\")[\"samples\"] == [500, 500]" &&
	{ sed "s/boot_us=812000/boot_us=812000x/" base.out; printf "done\n"; } >agent.out &&
	expect_fail collect agent.out && grep_err "hello: boot_us is not a number: 812000x" &&
	{ sed "/driver=nd_pmem.*index=2/s/memmap_ms=12/memmap_ms=12.5/" base.out; printf "done\n"; } >agent.out &&
	collect agent.out >rec.jsonl &&
	records_check rec.jsonl "one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"] == [11, 12.5, 13]" &&
	# a check and a synthetic copy: their bytes whole too
	{ cat base.out; printf "check\tdevice=dax1.0\twhat=mmap\tbytes=4096k\tresult=ok\ndone\n"; } >agent.out &&
	expect_fail collect agent.out && grep_err "agent.out: check of dax1.0: bytes is not a number: 4096k: the check is dropped" &&
	{ cat base.out; printf "synthetic\tkind=mov\twindow=2\ndone\n"; } >agent.out &&
	expect_fail collect agent.out && grep_err "agent.out: synthetic mov: bytes is missing: dropped"
'
test_expect_success 'collect: the hmm line (run.sh --hmm) gives hmm/load pages, memmap_init_ms and load_us with its pgmaps; a bad or second one is dropped, named' '
	{ agent_lines 1; printf "step\tname=hmm\nhmm\tprivate=2\tcoherent=2\tpages=262144\tlines=4\tmemmap_ms=31\tload_us=52000\twindow=5\ndone\n"; } >agent.out &&
	collect agent.out >rec.jsonl && cat rec.jsonl &&
	records_check rec.jsonl "one(\"hmm/load\", \"pages\")[\"samples\"] == [262144]" &&
	records_check rec.jsonl "one(\"hmm/load\", \"memmap_init_ms\")[\"samples\"] == [31]" &&
	records_check rec.jsonl "one(\"hmm/load\", \"load_us\")[\"unit\"] == \"us\"" &&
	records_check rec.jsonl "one(\"hmm/load\", \"pages\")[\"pgmaps\"] == {\"device_private\": 2, \"device_coherent\": 2}" &&
	"$BENCH_VM_BIN/bench-vm-report" rec.jsonl >rep && cat rep &&
	grep -qx "  Load of test_hmm.ko (pgmaps no owner marked for streaming): 262144 pages" rep &&
	! grep -q "Model window" rep &&
	sed "s/pages=262144/pages=2621x4/" agent.out >bad.out &&
	expect_fail collect bad.out && grep_err "bad.out: hmm: pages is not a number: 2621x4: dropped" &&
	records_check out "not [r for r in recs if r[\"case\"] == \"hmm/load\"]" &&
	sed "/^hmm/p" agent.out >two.out &&
	expect_fail collect two.out && grep_err "two.out: a second hmm line: dropped" &&
	records_check out "one(\"hmm/load\", \"pages\")[\"samples\"] == [262144]"
'
done_testing
