# bench-vm/testlib.sh: what the bench-vm tests (tests/t03*.t) share.
# Source it after tests/lib.sh.
#
#   KERNEL=$(bench_vm_kernel) || test_skip ...   a bootable bzImage
#   no_qemu_under DIR                            no process mentions DIR
#   records_check FILE 'python expression'       assert on the records
BENCH_VM_BIN=$BIN
export BENCH_VM_BIN
RUN="sh $TOP/bench-vm/run.sh"

# A kernel that built: $BENCH_VM_KERNEL, else the base's or any commit's
# under out/build (make build) or the tests' own builds (t0050).
bench_vm_kernel() {
	if [ -n "${BENCH_VM_KERNEL:-}" ]; then
		printf '%s\n' "$BENCH_VM_KERNEL"
		return 0
	fi
	base=$(git -C "$TOP/kernel-tree" rev-parse -q --verify refs/x86-copy-series/base) || base=none
	for d in "$TOP/out/build/$base" "$TOP"/out/build/* "$TEST_OUT"/build/*; do
		if [ -f "$d/arch/x86/boot/bzImage" ] && [ "$(cat "$d/result" 2>/dev/null)" = ok ]; then
			printf '%s\n' "$d/arch/x86/boot/bzImage"
			return 0
		fi
	done
	return 1
}

# no_qemu_under DIR: nothing still running was started with DIR in its
# command line (the runner's private NVDIMM directory lives under DIR).
no_qemu_under() {
	if pgrep -af -- "$1" | grep -v pgrep; then
		echo "still running under $1"
		return 1
	fi
	return 0
}

# records_check FILE EXPR: EXPR, a Python expression over `recs` (the
# list of records) and `one(case, metric)`, is true.
records_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
def one(case, metric):
    m = [r for r in recs if r["case"] == case and r["metric"] == metric]
    assert len(m) == 1, "%d records %s %s" % (len(m), case, metric)
    return m[0]
ok = eval(sys.argv[2])
if not ok:
    print("records_check failed: " + sys.argv[2])
    sys.exit(1)
PY
}
