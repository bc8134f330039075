# bench-vm/testlib.sh: what the bench-vm tests (tests/t03*.t) share.
# Source it after tests/lib.sh.
#
#   KERNEL=$(bench_vm_kernel) || { no_kernel 'title'...; done_testing; exit; }
#                                the series head's bzImage, as t0050 built
#                                it; without it every VM test fails
#   no_qemu_under DIR            no process mentions DIR
#   records_check FILE 'python expression'       assert on the records
BENCH_VM_BIN=$BIN
export BENCH_VM_BIN
# shellcheck disable=SC2034 # used by the tests that source this
RUN="sh $TOP/bench-vm/run.sh"

# bench_vm_kernel: the bzImage of the series head ($REF_NS/series in the
# tests' worktree), which t0050 builds into $OUT/build/<head>: the VM
# tests boot the series as it stands, never the base or a stale build of
# the user's.  Missing, it says why on stderr and fails.
bench_vm_kernel() {
	head=$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series^{commit}" 2>/dev/null) || {
		echo "no series head: $REF_NS/series is not set in $WORKTREE (t0005 and t0030 set it up)" >&2
		return 1
	}
	k=$OUT/build/$head/arch/x86/boot/bzImage
	if [ ! -f "$k" ] || [ "$(cat "$OUT/build/$head/result" 2>/dev/null)" != ok ]; then
		echo "no kernel of the series head $head: $k is missing or did not build (t0050 builds it)" >&2
		return 1
	fi
	printf '%s\n' "$k"
}

# no_kernel TITLE...: without the head's kernel the VM tests cannot run:
# each of them fails (in CI a missing kernel is a failure, not a pass)
no_kernel() {
	why=$(bench_vm_kernel 2>&1 >/dev/null)
	for t; do
		diag "$why"
		test_result fail "$t"
	done
}

# no_qemu_under DIR: nothing still running was started with DIR in its
# command line (the runner's private NVDIMM directory lives under DIR).
# Without pgrep nothing can be told, and that is a failure, not a pass.
no_qemu_under() {
	command -v pgrep >/dev/null || {
		echo "no_qemu_under: pgrep is missing (Debian procps): cannot tell what is still running"
		return 1
	}
	rc=0
	list=$(pgrep -af -- "$1") || rc=$?
	case $rc in
	0) ;;
	1) return 0 ;;
	*)
		echo "no_qemu_under: pgrep -af failed (exit $rc)"
		return 1
		;;
	esac
	if printf '%s\n' "$list" | grep -v pgrep; then
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
