#!/bin/sh
# Ctrl-C of ci/run.sh while a guest runs in the background (bench-vm,
# icount, in the guest queue) and a build in the foreground: the guest is
# stopped with its runner, its NVDIMM directory (and owner file) is gone
# from NVDIMM_DIR at once, not at the next run, and the step's log ends
# with bench-vm/run.sh's "interrupted" line: the view of the log (tee)
# dies with nobody's signal, so run.sh does not die of SIGPIPE before its
# cleanup.  A real guest (2 NVDIMMs of 512M, TCG), the build faked.
# test-quick: no: boots a guest
# test-lane: guests: the head's kernel, build.sh's builds, bench-vm's outputs; not the checks worktree
. "$(dirname "$0")/lib.sh"
. "$TOP/bench-vm/testlib.sh"
need tool:ci-report tool:record-write tool:bench-vm-agent tool:bench-vm-collect tool:gen_init_cpio
# it starts ci/run.sh (on $OUT, as the other lane's tests do)
pipeline_lock

title='Ctrl-C with a guest in the background: no QEMU left, its NVDIMM directory removed, the step log ends with the interrupted line'
if ! KERNEL=$(bench_vm_kernel); then
	no_kernel "$title"
	done_testing
	exit
fi
diag "kernel: $KERNEL"

test_expect_success "$title" '
	git init -q repo && for n in 1 2; do
		echo $n >repo/f && git -C repo add f &&
		git -C repo -c user.name=T -c user.email=t@example.org commit -q -m "x: commit $n" || return 1
	done &&
	git -C repo update-ref "$REF_NS/base" HEAD~1 && git -C repo update-ref "$REF_NS/series" HEAD &&
	C1=$(git -C repo rev-parse HEAD~1) && mkdir nv && : >ack &&
	cat >steps.sh <<-EOS &&
	CI_ALL_STEPS="build bench-vm"
	KERNEL=$KERNEL
	EOS
	cat >>steps.sh <<-\EOS || return 1
	# the kinds of the real steps: the guest runs in the queue, beside the
	# second build
	step_build_kind() { echo kernel; }
	step_bench_vm_kind() { echo guest; }
	step_build_inputs() { echo "commit $1"; }
	# the second build runs until the Ctrl-C
	step_build_run() {
		echo $$ >"$SCRATCH/driver.pid"
		[ "$1" = "$(git -C "$SCRATCH/repo" rev-parse HEAD~1)" ] || while :; do sleep 0.1; done
	}
	step_bench_vm_inputs() { echo "commit $1"; }
	step_bench_vm_run() {
		NVDIMM_DIR=$SCRATCH/nv sh "$TOP/bench-vm/run.sh" --kernel "$KERNEL" --commit "$1" --ns-size 512M \
			--rebinds 3 --mem-ns 0 --accel tcg --clock icount --results "$2"
	}
	EOS
	{
		n=0
		until grep -qs "^sample" nv/bench-vm.*/agent.out || [ $n -gt 1200 ]; do sleep 0.1; n=$((n + 1)); done
		kill -INT -"$(cat driver.pid)"
	} &
	helper=$!
	rc=0
	KERNEL_TREE=$SCRATCH/repo CI_STEPS_FILE=$SCRATCH/steps.sh CI_OUT=$SCRATCH/ci GATE_ACK=$SCRATCH/ack \
		CLOCK=icount setsid -w sh "$TOP/ci/run.sh" >ci.out 2>ci.err || rc=$?
	wait $helper
	log=ci/$C1/.bench-vm.attempt/log
	# the guest'"'"'s runner ends after the driver: its last line, then nothing left
	n=0
	until grep -qs "interrupted by SIGTERM" "$log" && [ -z "$(ls -A nv)" ] || [ $n -gt 300 ]; do
		sleep 0.1; n=$((n + 1))
	done
	cat ci.err "$log"; ls -lA nv
	[ $rc = 130 ] && [ -z "$(ls -A nv)" ] && gone=1 && no_qemu_under "$SCRATCH/nv" &&
	tail -n 1 "$log" | grep -q "^bench-vm: run: $C1 interrupted by SIGTERM: its partial records" &&
	[ ! -e "ci/$C1/bench-vm.stamp" ]
'
done_testing
