#!/bin/sh
# bench-vm under bad input and interruptions: options that
# cannot be honoured are refused before anything is written (a watchdog
# of 0, sizes that overflow 64 bits or that QEMU cannot give a guest,
# mistyped numbers and flags); every write is checked (bench-vm-collect,
# initramfs.sh, run.sh on a full results filesystem); the results of a
# run replace the last run's only at its end, never mixed with them
# (SIGKILL mid-boot, Ctrl-C during the binds, make bench-vm TERMed); QEMU dies
# with its runner, SIGKILL included, and the next run removes what a
# dead run left.  VM runs: 2 NVDIMMs of 512M, one rebind or three, TCG.
# test-quick: no: boots guests
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:bench-vm-agent tool:bench-vm-collect tool:bench-vm-report tool:gen_init_cpio

# a small tmpfs is the full disk of these tests: root only
MOUNT_OK=
probe=$TEST_OUT/.t0390-mount
mkdir -p "$probe"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4k tmpfs "$probe" 2>/dev/null; then
	umount "$probe" && MOUNT_OK=1
fi
rmdir "$probe"
NO_MOUNT="cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN): no full filesystem to write to"

# tmpfs DIR SIZE: a tmpfs at DIR, unmounted when the test body ends
# shellcheck disable=SC2064 # DIR now, as given
tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" &&
		trap "umount \"$1\"" EXIT
}

# fill DIR: DIR's filesystem full
fill() {
	dd if=/dev/zero of="$1/fill" bs=64k 2>/dev/null
	[ "$(df -Pk "$1" | awk "NR == 2 { print \$4 }")" = 0 ]
}

# previous_run DIR COPY: DIR holds the results of an earlier run as
# run.sh leaves them (records of commit "before", its logs and the list
# of them), beside a file of another tool's (ci/run.sh keeps its inputs
# and log there); COPY is a copy to compare with
previous_run() {
	mkdir -p "$1" &&
	printf "hello\tkernel=6.12.117\tboot_us=1000\nsample\tdriver=nd_pmem\tcase=first\tindex=0\tpages=1\tmemmap_ms=7\tlines=1\tbind_us=9\tunbind_us=0\tboot_us=2000\ndone\n" >"$1/agent.out" &&
	echo "the previous run" >"$1/console.log" &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit before --accel tcg --output "$1/records.jsonl" "$1/agent.out" &&
	printf "agent.out\nconsole.log\nrecords.jsonl\n" >"$1/.bench-vm-files" &&
	echo "ci inputs" >"$1/inputs" &&
	rm -rf "$2" && cp -a "$1" "$2"
}

# as_before DIR COPY: DIR's files are those of COPY, nothing of a run of
# its own beside them
as_before() {
	for f in agent.out console.log records.jsonl .bench-vm-files inputs; do
		cmp "$2/$f" "$1/$f" || return 1
	done
	# shellcheck disable=SC2010 # our own file names
	[ "$(ls -A "$1" | grep -v "^\.run\.")" = "$(ls -A "$2")" ] || { ls -A "$1"; return 1; }
}

# wait_for GLOB REGEX: a file of GLOB has a line matching REGEX (60 s)
wait_for() {
	i=0
	while [ $i -lt 300 ]; do
		# shellcheck disable=SC2086 # GLOB is a pattern
		grep -qs -- "$2" $1 && return 0
		sleep 0.2
		i=$((i + 1))
	done
	echo "wait_for: nothing in $1 matched /$2/ within 60 s"
	return 1
}

# gone DIR: within 3 s nothing running names DIR (QEMU, timeout(1));
# what still does is killed, so that a failure leaves nothing behind
gone() {
	i=0
	while [ $i -lt 15 ]; do
		no_qemu_under "$1" >/dev/null && return 0
		sleep 0.2
		i=$((i + 1))
	done
	no_qemu_under "$1"
	# shellcheck disable=SC2046 # one pid a word
	kill $(pgrep -f -- "$1/") 2>/dev/null
	return 1
}

test_expect_success 'options: a watchdog of 0, sizes that overflow 64 bits, mistyped numbers and flags: refused (exit 2), nothing written' '
	: >bzImage &&
	for o in "--timeout 0" "--timeout 000" "--timeout -1" "--timeout 99999999999999999999" \
		"--rebinds 1e3" "--rebinds 99999999999" "--ns-size 16777216T" "--ns-size 18446744073709551616" \
		"--ns-size 17179869184G" "--ns-size 99999999999999999999999K" "--ns-size 2P" "--ns-size 1.5G" \
		"--ns-size 100g" "--ns-size 513M" "--ns-size 256M" "--cpu max;reboot" "--accel xen"; do
		# shellcheck disable=SC2086 # one option and its value
		{ rc=0; NVDIMM_DIR=$SCRATCH $RUN $o --kernel bzImage --results res 2>err || rc=$?; } &&
		cat err && [ $rc = 2 ] && grep -q "^bench-vm: usage: " err && [ ! -e res ] ||
			{ echo "not refused: $o"; return 1; }
	done &&
	for e in TIMEOUT=0 BOOT_TIMEOUT=0 KVM_PROBE_TIMEOUT=0 BOOT_TIMEOUT=2m REBINDS=-1 NS_SIZE=0 NS_SIZE=1P \
		GUEST_MEM_MB=0 GUEST_MEM_MB=100000000 PAGES=yes KVM_REPROBE=true PAGES_CHECKOUT=2 CPU=max/x \
		CLOCK=tsc ACCEL=KVM; do
		{ rc=0; env "$e" NVDIMM_DIR=$SCRATCH $RUN --kernel bzImage --results res 2>err || rc=$?; } &&
		cat err && [ $rc = 2 ] && grep -q "^bench-vm: usage: " err && [ ! -e res ] ||
			{ echo "not refused: $e"; return 1; }
	done &&
	{ $RUN --timeout 0 --kernel bzImage 2>err; [ $? = 2 ]; } &&
	grep -q "timeout: .0. is not from 1 to .* (for timeout(1) 0 means no limit" err &&
	{ $RUN --ns-size 16777216T --kernel bzImage 2>err; [ $? = 2 ]; } && grep -q "is more than 1P" err &&
	{ GUEST_MEM_MB=100000000 $RUN --kernel bzImage 2>err; [ $? = 2 ]; } && grep -q "the host.s memory" err &&
	[ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ]
'

test_expect_success 'options: numbers without their leading zeros (not octal), NVDIMM_DIR absolute, a comma in a path doubled for QEMU' '
	: >bzImage && mkdir "a,b" &&
	NVDIMM_DIR=a,b $RUN --print-cmd --accel tcg --rebinds 010 --timeout 0100 --kernel bzImage --build-id "$BUILD_ID" --results res >cmd &&
	cat cmd && tail -n 1 cmd | grep -q -- "-- rebinds=10[ '\'']" &&
	tail -n 1 cmd | grep -q "mem-path=$SCRATCH/a,,b/bench-vm\.[^/]*/nvdimm0,size=" &&
	tail -n 1 cmd | grep -q "path=$SCRATCH/a,,b/bench-vm\.[^/]*/agent.out" &&
	[ -z "$(ls -A a,b)" ]
'

test_expect_success 'a kernel QEMU cannot load: refused by the machine preflight (exit 2), the results untouched, no KVM verdict cached from it (a QEMU that aborts under KVM first: that verdict, in its own words)' '
	: >bzImage && previous_run res res.before &&
	{ rc=0; NVDIMM_DIR=$SCRATCH KVM_PROBE_CACHE=$SCRATCH/cache KVM_REPROBE=1 $RUN --kernel bzImage --build-id "$BUILD_ID" --results res 2>err || rc=$?; } &&
	cat err && [ $rc = 2 ] && grep -q "options: QEMU cannot make this machine .*could not load kernel" err &&
	as_before res res.before && [ -z "$(ls -d "$SCRATCH"/bench-vm.* 2>/dev/null)" ] &&
	! grep -q "did not say hello" err &&
	if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		# Two kinds of host: QEMU reads the kernel first and fails on it
		# (Intel here: no verdict, nothing cached), or it aborts under
		# KVM before it reads any kernel (AMD EPYC here: a verdict of
		# the host, cached with its reason)
		if grep -q "accel: tcg: KVM is not used: QEMU aborted under -accel kvm before the guest ran (killed by SIG[A-Z]* (exit 1[0-9][0-9]): " err; then
			v=$(ls cache | grep -v "\.") && [ "$(echo "$v" | wc -l)" = 1 ] &&
			[ "$(sed -n 1p "cache/$v")" = tcg ] &&
			sed -n 2p "cache/$v" | grep -q "^QEMU aborted under -accel kvm before the guest ran (killed by SIG"
		else
			grep -q "accel: tcg: KVM is not used: QEMU did not start the probe guest (exit 1: .*could not load kernel.*): no verdict on KVM, nothing cached" err &&
			[ -z "$(ls cache | grep -v "\.console$\|\.qemu\.log$")" ]
		fi
	fi
'

agent_ok() {
	printf "hello\tkernel=6.12.117\tboot_us=1000\n"
	for d in nd_pmem dax_pmem; do
		for c in first rebind rebind; do
			printf "sample\tdriver=%s\tcase=%s\tindex=0\tpages=1\tmemmap_ms=7\tlines=1\tbind_us=9\tunbind_us=1\tboot_us=2000\n" $d $c
		done
	done
	printf "check\tdevice=dax1.0\twhat=mmap\tbytes=4096\tresult=ok\ndone\n"
}

if [ -n "$MOUNT_OK" ]; then
test_expect_success 'bench-vm-collect: every write checked: a full disk names the file, exit 1, no file cut in the middle of a line' '
	agent_ok >a.out &&
	{ rc=0; "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c a.out >/dev/full 2>err || rc=$?; } &&
	cat err && [ $rc = 1 ] && grep -q "^bench-vm-collect: write: stdout: No space left on device$" err &&
	tmpfs fs 4k &&
	{ rc=0; "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c --output fs/r.jsonl a.out 2>err || rc=$?; } &&
	cat err && [ $rc = 1 ] && grep -q "^bench-vm-collect: write: fs/r.jsonl: No space left on device$" err &&
	[ ! -e fs/r.jsonl ] &&
	"$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c --output r.jsonl a.out && records_check r.jsonl "len(recs) == 17" &&
	{ rc=0; "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c --output r.jsonl a.out 2>err || rc=$?; } &&
	[ $rc = 1 ] && grep -q "write: r.jsonl: File exists" err && records_check r.jsonl "len(recs) == 17"
'
else
	test_skip 'bench-vm-collect: every write checked' "$NO_MOUNT"
fi

test_expect_success 'bench-vm-collect: output cut in the middle of its last line: that line is not read, the error says so' '
	{ agent_ok | head -n 3; printf "sample\tdriver=nd_pmem\tcase=rebind\tindex=1\tpages=1\tmemmap_ms=1"; } >a.out &&
	expect_fail "$BENCH_VM_BIN/bench-vm-collect" --build "$BUILD_ID" --commit c --output r.jsonl a.out &&
	grep_err "the agent stopped without .done. or an error \(its output ends in the middle of a line\)" &&
	records_check r.jsonl "one(\"nd_pmem/rebind\", \"memmap_init_ms\")[\"samples\"] == [7]"
'

if [ -n "$MOUNT_OK" ]; then
test_expect_success 'initramfs.sh on a full filesystem: the file named, exit 1, nothing half-written left' '
	tmpfs fs 256k &&
	expect_fail sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" fs/i.cpio &&
	grep_err "No space left on device" && grep_err "initramfs: writing fs/i.cpio.tmp failed" &&
	[ ! -e fs/i.cpio ] && [ ! -e fs/i.cpio.tmp ] &&
	fill fs &&
	expect_fail sh "$TOP/bench-vm/initramfs.sh" "$BENCH_VM_BIN/bench-vm-agent" fs/j.cpio &&
	grep_err "initramfs: writing fs/j.cpio.list failed" && [ ! -e fs/j.cpio ] && [ ! -e fs/j.cpio.list ]
'
else
	test_skip 'initramfs.sh on a full filesystem' "$NO_MOUNT"
fi

# rundir.sh alone: its functions with die and progress of their own
cat >"$TEST_OUT/t0390-rundir.sh" <<EOF
set -eu
die() { echo "rundir: \$*" >&2; exit 1; }
progress() { echo "\$1: \$2" >&2; }
TOP=$TOP
. "\$TOP/bench-vm/rundir.sh"
"\$@"
EOF
# shellcheck disable=SC2034 # used by the test bodies
RUNDIR="sh $TEST_OUT/t0390-rundir.sh"

test_expect_success 'rundir.sh: a dead or recycled owner, another boot, an old directory nobody names: removed; a live one kept, and a new one whose owner file is being written; the results replaced, the old records first' '
	boot=$(cat /proc/sys/kernel/random/boot_id) && mkdir p || return 1
	sh -c "exit 0" &
	dead=$!
	wait $dead
	sleep 60 &
	live=$!
	start=$(sed "s/.*) //" /proc/$live/stat | cut -d" " -f20) &&
	mkdir p/bench-vm.dead p/bench-vm.live p/bench-vm.recycled p/bench-vm.reboot p/bench-vm.new p/bench-vm.old p/bench-vm.busy p/bench-vm.making &&
	: >p/bench-vm.making/.owner &&
	echo "$dead $start $boot" >p/bench-vm.dead/.owner &&
	echo "$live $start $boot" >p/bench-vm.live/.owner &&
	echo "$live $((start + 1)) $boot" >p/bench-vm.recycled/.owner &&
	echo "$live $start 00000000-0000-0000-0000-000000000000" >p/bench-vm.reboot/.owner &&
	touch -d "1 hour ago" p/bench-vm.old p/bench-vm.busy || return 1
	sh -c "sleep 60" "$SCRATCH/p/bench-vm.busy/nvdimm0" &
	busy=$!
	$RUNDIR runs_clean "$SCRATCH/p" "bench-vm.*" "the NVDIMM files" 2>err; rc=$?
	kill $live $busy; wait $live $busy; cat err &&
	[ $rc = 0 ] && [ "$(ls p | tr "\n" " ")" = "bench-vm.busy bench-vm.live bench-vm.making bench-vm.new " ] &&
	grep -q "removed $SCRATCH/p/bench-vm.recycled: the NVDIMM files of a dead run (run $live, no longer alive)" err &&
	grep -q "removed $SCRATCH/p/bench-vm.old: the NVDIMM files of a dead run (no owner file" err &&
	{ $RUNDIR run_busy "$SCRATCH/p" "bench-vm.*"; [ $? = 1 ]; } &&
	mkdir src dst && for f in records.jsonl agent.out pages-build.log; do echo old >dst/$f; done &&
	printf "records.jsonl\nagent.out\npages-build.log\n" >dst/.bench-vm-files && echo ci >dst/inputs &&
	for f in records.jsonl agent.out console.log; do echo new >src/$f; done &&
	printf "agent.out\nconsole.log\nrecords.jsonl\n" >src/.bench-vm-files &&
	$RUNDIR results_commit "$SCRATCH/src" "$SCRATCH/dst" && [ ! -e src ] &&
	[ "$(ls dst | tr "\n" " ")" = "agent.out console.log inputs records.jsonl " ] &&
	[ "$(cat dst/records.jsonl dst/agent.out dst/console.log dst/inputs | tr "\n" " ")" = "new new new ci " ] &&
	mkdir src2 && echo new >src2/records.jsonl && echo records.jsonl >src2/.bench-vm-files &&
	rm dst/.bench-vm-files && echo old >dst/watchdog.txt &&
	$RUNDIR results_commit "$SCRATCH/src2" "$SCRATCH/dst" &&
	[ "$(ls dst | tr "\n" " ")" = "inputs records.jsonl " ]
'

if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "options QEMU cannot take" "SIGKILL mid-boot" "Ctrl-C during the binds" \
		"a full results filesystem" "make bench-vm TERMed"
	done_testing
	exit
fi
diag "kernel: $KERNEL"

test_expect_success 'options QEMU cannot take (NVDIMMs beyond the guest address space, an unknown -cpu feature or model): exit 2 before the boot, the results as they were' '
	previous_run res res.before && mkdir nv &&
	for o in "--ns-size 600G" "--cpu max,+nosuchfeature" "--cpu nosuchmodel"; do
		# shellcheck disable=SC2086 # one option and its value
		{ rc=0; NVDIMM_DIR=$SCRATCH/nv MEM_NS=0 GUEST_MEM_MB=512 $RUN $o --accel tcg --kernel "$KERNEL" --results res 2>err || rc=$?; } &&
		cat err && [ $rc = 2 ] && grep -q "^bench-vm: usage: options: QEMU cannot make this machine" err &&
		as_before res res.before && [ -z "$(ls -A nv res | grep "^\.run\|^bench-vm")" ] ||
			{ echo "not refused as it should: $o"; return 1; }
	done &&
	NVDIMM_DIR=$SCRATCH/nv MEM_NS=0 GUEST_MEM_MB=512 $RUN --ns-size 600G --accel tcg --kernel "$KERNEL" --results res 2>err;
	grep -q "phys-bits too low" err && no_qemu_under "$SCRATCH"
'

# The guest of the killed run hangs after its hello (agent option hang=1),
# its watchdog far away: a QEMU that outlived its runner would be seen.
test_expect_success 'SIGKILL of the runner mid-boot: no QEMU left, the results as they were; the next run removes what it left and replaces the results at its end' '
	previous_run res res.before && mkdir nv || return 1
	NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=1 MEM_NS=0 TIMEOUT=600 $RUN --accel tcg --agent-opt hang=1 \
		--kernel "$KERNEL" --commit killed --results res 2>err.1 &
	runner=$!
	wait_for "nv/bench-vm.*/.owner" . && i=0 &&
	while [ ! -e nv/bench-vm.*/qemu.log ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done &&
	sleep 2 && pgrep -af -- "$SCRATCH/nv/bench-vm" | grep -q qemu-system &&
	kill -KILL $runner && { wait $runner; true; } && gone "$SCRATCH/nv" && cat err.1 &&
	as_before res res.before && ls -d nv/bench-vm.* res/.run.* &&
	NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=1 MEM_NS=0 $RUN --accel tcg --kernel "$KERNEL" --commit next --results res 2>err &&
	cat err && grep -q "removed $SCRATCH/nv/bench-vm\.[^:]*: the NVDIMM files of a dead run (run $runner, no longer alive)" err &&
	grep -q "removed $SCRATCH/res/\.run\.[^:]*: the unfinished results of a dead run (run $runner, no longer alive)" err &&
	[ -z "$(ls -A nv)" ] && [ -z "$(ls -d res/.run.* 2>/dev/null)" ] &&
	records_check res/records.jsonl "all(r[\"commit\"] == \"next\" for r in recs) and not [r for r in recs if r[\"metric\"] == \"error\"]" &&
	grep -q "^done" res/agent.out && cmp res.before/inputs res/inputs && no_qemu_under "$SCRATCH"
'

# ctrl_c_after GLOB REGEX: once a file of GLOB matches REGEX, SIGINT to
# the process group of the run that owns res/.run.* (what Ctrl-C does)
ctrl_c_after() {
	wait_for "$1" "$2" && p=$(cut -d" " -f1 res/.run.*/.owner) &&
	kill -INT "-$(awk "{ print \$5 }" /proc/"$p"/stat)"
}

test_expect_success 'Ctrl-C during the binds: exit 130; the partial records with an error record saying so replace the old ones, with their own logs; the report reads one run' '
	previous_run res res.before && mkdir nv || return 1
	ctrl_c_after "nv/bench-vm.*/agent.out" "^sample" &
	helper=$!
	{ rc=0; NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=3 MEM_NS=0 setsid -w $RUN --accel tcg --kernel "$KERNEL" \
		--commit cut --results res 2>err || rc=$?; } && wait $helper && cat err && [ $rc = 130 ] &&
	grep -q "run: cut interrupted by SIGINT: its partial records, with an error record saying so, are in $SCRATCH/res/records.jsonl" err &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"error\"].startswith(\"interrupted: bench-vm/run.sh got SIGINT\")" &&
	records_check res/records.jsonl "all(r[\"commit\"] == \"cut\" for r in recs) and one(\"nd_pmem/first\", \"memmap_init_ms\")" &&
	grep -q "^hello" res/agent.out && ! grep -q "^done" res/agent.out && ! cmp -s res.before/console.log res/console.log &&
	grep -q "^mkdir -p .$SCRATCH/nv/bench-vm\." res/qemu-cmd.txt && grep -q " .-initrd. .$SCRATCH/res/initramfs.cpio. " res/qemu-cmd.txt &&
	cmp res.before/inputs res/inputs && [ -z "$(ls -A nv)" ] && [ -z "$(ls -d res/.run.* 2>/dev/null)" ] &&
	expect_fail "$BENCH_VM_BIN/bench-vm-report" res/records.jsonl && cat out &&
	grep -q "^  run failed: interrupted: bench-vm/run.sh got SIGINT" out && grep -q "^cut (kernel" out &&
	! grep -q "^before" out && gone "$SCRATCH/nv"
'

# fillbin DIR FS: the tools, with a bench-vm-collect that fills FS first:
# the results filesystem is full just when the records are written
fillbin() {
	mkdir "$1" && for t in bench-vm-agent gen_init_cpio bench-vm-report; do
		ln -s "$BENCH_VM_BIN/$t" "$1/$t" || return 1
	done &&
	printf "#!/bin/sh\ndd if=/dev/zero of=%s/fill bs=64k 2>/dev/null\nexec %s/bench-vm-collect \"\$@\"\n" "$2" "$BENCH_VM_BIN" >"$1/bench-vm-collect" &&
	chmod +x "$1/bench-vm-collect"
}

if [ -n "$MOUNT_OK" ]; then
test_expect_success 'a full results filesystem, from the start or when the records are written: an error naming the file, exit 1, no "done"; the results as they were' '
	tmpfs fs 4m && previous_run fs/res res.before && mkdir nv && fill fs &&
	NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=1 MEM_NS=0 expect_fail $RUN --accel tcg --kernel "$KERNEL" --commit full --results fs/res &&
	grep_err "No space left on device" && grep_err "run: writing $SCRATCH/fs/res/\.run\.[^ ]*/\.owner failed" &&
	as_before fs/res res.before && [ -z "$(ls -A nv)" ] && [ -z "$(ls -d fs/res/.run.* 2>/dev/null)" ] &&
	rm fs/fill && fillbin bin "$SCRATCH/fs" &&
	BENCH_VM_BIN=$SCRATCH/bin NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=1 MEM_NS=0 \
		expect_fail $RUN --accel tcg --kernel "$KERNEL" --commit full --results fs/res &&
	grep_err "^bench-vm-collect: write: $SCRATCH/fs/res/\.run\.[^ ]*/records.jsonl: No space left on device$" &&
	grep_err "results: the records of full could not be written to .*: free space on $SCRATCH/fs, or give --results elsewhere; $SCRATCH/fs/res keeps the results of the run before" &&
	! grep -q "done in" "$SCRATCH/err" &&
	as_before fs/res res.before && python3 -c "import json, sys; [json.loads(l) for l in open(sys.argv[1])]" fs/res/records.jsonl &&
	[ -z "$(ls -A nv)" ] && [ -z "$(ls -d fs/res/.run.* 2>/dev/null)" ] && no_qemu_under "$SCRATCH"
'
else
	test_skip 'a full results filesystem' "$NO_MOUNT"
fi

test_expect_success 'make bench-vm TERMed during its guest: the last good results and their stamp as they were, the attempt kept with its error record; options refused change nothing' '
	pipeline_lock &&
	head=$(git -C "$WORKTREE" rev-parse "$REF_NS/series^{commit}") && mkdir nv &&
	v="CI_OUT=$SCRATCH/ci NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M MEM_NS=0 ACCEL=tcg CI_COMMITS=$head" &&
	env $v REBINDS=1 sh "$TOP/ci/run.sh" --view bench-vm >rep 2>err || { cat err; return 1; }
	d=$SCRATCH/ci/$head && cp -a "$d/bench-vm" before && cp "$d/bench-vm.stamp" stamp.before || return 1
	env $v REBINDS=3 sh "$TOP/ci/run.sh" --view bench-vm >rep 2>err &
	view=$!
	wait_for "nv/bench-vm.*/agent.out" "^sample" && kill -TERM $view && { rc=0; wait $view || rc=$?; } &&
	cat err rep && [ $rc = 143 ] && [ ! -s rep ] &&
	diff -r before "$d/bench-vm" && cmp stamp.before "$d/bench-vm.stamp" &&
	gone "$SCRATCH/nv" && [ -z "$(ls -A nv)" ] &&
	records_check "$d/.bench-vm.attempt/records.jsonl" "one(\"run\", \"error\")[\"error\"].startswith(\"interrupted: bench-vm/run.sh got SIGTERM\")" &&
	{ rc=0; env $v NS_SIZE=1x sh "$TOP/ci/run.sh" --view bench-vm 2>err || rc=$?; } && cat err && [ $rc = 2 ] &&
	grep -q "check: the bench-vm step refuses its variables (above): nothing ran, every result is as it was" err &&
	diff -r before "$d/bench-vm" && cmp stamp.before "$d/bench-vm.stamp"
'

# The reader of run.sh's stderr (the tee of ci/run.sh's step log) dies
# first, then run.sh gets TERM (a TERM to the whole process group): its
# messages fail, but its cleanup runs; it died of SIGPIPE before.
test_expect_success 'TERM after the reader of its stderr died: the NVDIMM directory removed, the partial records kept, no QEMU left' '
	mkdir nv && mkfifo log || return 1
	NVDIMM_DIR=$SCRATCH/nv NS_SIZE=512M REBINDS=3 MEM_NS=0 $RUN --accel tcg --kernel "$KERNEL" \
		--commit piped --results res 2>log &
	runner=$!
	sed -n "/boot: /q" log &&
	wait_for "nv/bench-vm.*/agent.out" "^sample" && kill -TERM $runner && { wait $runner; true; } &&
	gone "$SCRATCH/nv" && [ -z "$(ls -A nv)" ] && [ -z "$(ls -d res/.run.* 2>/dev/null)" ] &&
	records_check res/records.jsonl "one(\"run\", \"error\")[\"error\"].startswith(\"interrupted: bench-vm/run.sh got SIGTERM\")"
'
done_testing
