# bench-vm/guest.sh: the guest run of bench-vm/run.sh, a function a job:
# what the agent said so far (agent_status), the QEMU command line
# (guest_argv), stopping QEMU and cleaning up on exit or a signal
# (stop_qemu, cleanup, interrupted), the clock and model (resolve_clock),
# the watchdog (watch) and the records of what arrived (finish).  Sourced
# by bench-vm/run.sh; they read its variables (results, dest, tmp, qpid,
# watcher, ...) when called.  POSIX sh.
# shellcheck disable=SC2154,SC2034 # run.sh's variables, read and set for it (crc)

# agent_status FILE: what the agent has said in FILE so far, as
# bench-vm-collect reads it (the one parser of the agent's lines): sets
# hello (0 or 1), samples (a count) and step (the last one's name)
agent_status() {
	hello=0 samples=0 step=
	for as_w in $("$BENCH_VM_BIN/bench-vm-collect" --status "$1"); do
		case $as_w in
		hello=*) hello=${as_w#*=} ;;
		samples=*) samples=${as_w#*=} ;;
		step=*) step=${as_w#*=} ;;
		esac
	done
}

# guest_argv ACCEL CLOCK INITRD: ARGV (argv.sh) of this run's guest, its
# plugin included (--model cache, TCG only), the initramfs named INITRD:
# the run's own, or where it will be for the command kept beside the
# records
guest_argv() {
	ga_plugin=
	if [ "$MODEL" != none ] && [ "$1" = tcg ]; then
		# the guest functions named from the kernel's System.map
		# (out/build/<commit>/System.map) when there is one
		ga_sysmap=$(dirname "$kernel")/../../../System.map
		[ -f "$ga_sysmap" ] || ga_sysmap=
		ga_plugin="$(qesc "$BENCH_VM_BIN/bench-vm-model.so"),out=$(qesc "$tmp/model.out")${ga_sysmap:+,symbols=$(qesc "$ga_sysmap")}${MODEL_ARGS:+,$MODEL_ARGS}"
	fi
	qemu_argv qemu="$QEMU" accel="$1" clock="$2" cpu="$CPU" ns_bytes="$ns_bytes" \
		mem_mb="$GUEST_MEM_MB" nvdimms="$nr_nvdimms" dir="$tmp" agent="$agent_out" \
		console="$console" kernel="$kernel" initrd="$3" kernel_args="$mitigation_args${mitigation_args:+${KERNEL_ARGS:+ }}$KERNEL_ARGS" \
		agent_opts="rebinds=$REBINDS$agent_opts" plugin="$ga_plugin"
}

# stop_qemu: the watchdog, and the timeout(1) with the QEMU under it
stop_qemu() {
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
	if [ -n "$qpid" ]; then
		kill -TERM "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	qpid='' watcher=''
}
cleanup() {
	# nothing may outlive us: QEMU, the sparse files, and the results of
	# a run that did not reach its end (kept when an error names a file
	# in them); a worktree moved for the module build goes back
	stop_qemu
	if [ -n "${restore:-}" ]; then
		git -C "$srctree" checkout -q --detach "$restore" ||
			warn "pages: git checkout $restore (back) in $srctree failed: check it out by hand"
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
	[ "$results" = "$dest" ] || [ -n "$keep_stage" ] || rm -rf "$results"
}
# interrupted SIG: INT, TERM, HUP or PIPE to the runner.  Once QEMU has
# started, what arrived is kept with an error record saying so, in place
# of the results of the run before (finish, below); before that nothing
# was measured, and the results directory stays as it was.  PIPE: the
# reader of stderr is gone (a pipe to tee that died first): without the
# trap the shell would die of it in the middle of a message, before
# cleanup, and leave the NVDIMM files behind; its messages after that
# fail, and the cleanup runs all the same.
interrupted() {
	trap '' INT TERM HUP PIPE
	[ -n "$booted" ] || exit $((128 + $2))
	stop_qemu
	host_error="interrupted: bench-vm/run.sh got SIG$1 $(($(date +%s) - t0))s after QEMU started, QEMU stopped; partial results kept"
	finish
	die_rc $((128 + $2)) "run: $label interrupted by SIG$1: its partial records, with an error record saying so, are in $results/records.jsonl"
}

# resolve_clock ACCEL: the clock of a run under ACCEL, and its model
# (MODEL=auto: the cache model where the guest is exact, TCG with icount)
# (the rules: defaults.sh)
resolve_clock() {
	clock_of "$1" ||
		die "clock: icount was asked for but the guest runs under KVM (icount needs TCG): use --accel tcg or --clock wall"
	model_of "$1" "$clock"
	MODEL=$model
}

# watch WHY_FILE: the watchdog and the progress reporter of the run, in
# the background.  QEMU has BOOT_TIMEOUT seconds until the agent's hello,
# then TIMEOUT seconds for the rest, so how fast a machine boots never
# decides whether a run is cut; on expiry it writes why to WHY_FILE and
# sends TERM to timeout(1), which passes it to QEMU and sends KILL 5 s
# later (QEMU is killed even when WHY_FILE cannot be written).  Its sleep runs in the background so that the TERM which ends
# the watcher interrupts the wait and the sleep is not left behind.
watch() {
	sp=
	trap 'kill "$sp" 2>/dev/null; exit 0' TERM
	# (a log whose reader is gone must not end the watchdog: its
	# progress lines fail, it goes on)
	trap '' PIPE
	start=$(date +%s) hello_at='' n=0
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		agent_status "$agent_out"
		if [ -z "$hello_at" ] && [ "$hello" = 1 ]; then
			hello_at=$now
		fi
		why=
		if [ -z "$hello_at" ] && [ $((now - start)) -ge "$BOOT_TIMEOUT" ]; then
			why="watchdog: no hello from the agent ${BOOT_TIMEOUT}s after QEMU started (a kernel that does not boot: see $dest/console.log; or raise BOOT_TIMEOUT=); QEMU killed"
		elif [ -n "$hello_at" ] && [ $((now - hello_at)) -ge "$TIMEOUT" ]; then
			why="watchdog: QEMU killed ${TIMEOUT}s after the agent's hello (a hung guest, or raise TIMEOUT=); partial results kept"
		fi
		if [ -n "$why" ]; then
			printf '%s\n' "$why" >"$1" || true
			kill -TERM "$qpid" 2>/dev/null
			exit 0
		fi
		n=$((n + 1))
		if [ $((n % 15)) = 0 ]; then
			progress "$label" "$samples samples, step ${step:-boot (no hello yet)}" || :
		fi
		sleep 1 &
		sp=$!
		wait "$sp"
	done
}

# finish: the records of what arrived (bench-vm-collect, with host_error),
# QEMU's outputs beside them, and all of it in place of the run before
# (results_commit); sets crc, collect's status, and results to DIR.  No
# signal stops it halfway.  A record or log that cannot be written (a full
# disk) is an error naming it, and DIR keeps the results of the run before.
finish() {
	trap '' INT TERM HUP PIPE
	crc=0
	model_out=
	[ "$MODEL" = none ] || model_out=$tmp/model.out
	qemu_version=$("$QEMU" --version 2>/dev/null | head -n 1)
	"$BENCH_VM_BIN/bench-vm-collect" --commit "$label" --accel "$accel" --clock "$clock" --qemu-cpu "$CPU" \
		${qemu_version:+--qemu-version "$qemu_version"} \
		--ns-size "$ns_bytes" --rebinds "$REBINDS" ${host_error:+--host-error "$host_error"} \
		--qemu-log "$tmp/qemu.log" --build "$build_id" \
		${model_out:+--model "$model_out"} \
		--output "$results/records.jsonl" "$agent_out" 2>"$tmp/collect.err" || crc=$?
	if [ ! -f "$results/records.jsonl" ]; then
		cat "$tmp/collect.err" >&2
		die "results: the records of $label could not be written to $results/records.jsonl (see above): free space on $(df -P "$results" | awk 'NR == 2 { print $6 }'), or give --results elsewhere; $dest keeps the results of the run before"
	fi
	for f in agent.out console.log qemu.log watchdog.txt collect.err model.out; do
		[ ! -f "$tmp/$f" ] || cp "$tmp/$f" "$results/$f" ||
			die "results: copying $f to $results failed (the reason is above: a full disk?); $dest keeps the results of the run before"
	done
	files=$(ls "$results")
	put "$results/.bench-vm-files" <<EOF
$files
EOF
	results_commit "$results" "$dest" ||
		die "results: moving the results of $label from $results into $dest failed (the reason is above)"
	results=$dest
}
