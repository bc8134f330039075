#!/bin/sh
# reproduce.sh: one claim's guest figures again, from the materials beside
# this script (make reproduce ID=... wrote them, from scripts/reproduce-
# claim.sh of x86-copy-series): boots each side's kernel under QEMU as
# the records' run did and compares its samples with the record's:
# under the icount clock (-icount shift=0,sleep=off: emulated instructions
# at 1 ns each, not hardware time) every sample must be equal.
#
#   sh reproduce.sh              run and compare; results in ./run/<commit>/
#   sh reproduce.sh --print-cmd  the commands it would run, and nothing else
#
# Needs: qemu-system-x86 (the version metadata.json names: an icount
# figure belongs to one QEMU build), libjson-c5 and libgsl27 (the tools
# in bin/), util-linux (setpriv) and coreutils.  QEMU=PROG for another
# binary; NVDIMM_DIR (default /dev/shm) holds the sparse NVDIMM files.
# Exit: 0 reproduced; 1 not reproduced or an error; 2 usage; 3 another
# QEMU version (before anything boots).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
M=$HERE/metadata.json
QEMU=${QEMU:-qemu-system-x86_64}
LANG=C LC_ALL=C
export LANG LC_ALL

die() {
	printf 'reproduce: %s\n' "$*" >&2
	exit "${rc:-1}"
}

print_cmd=
case ${1:-} in
'') ;;
--print-cmd) print_cmd=1 ;;
*) printf 'reproduce: usage: sh reproduce.sh [--print-cmd]\n' >&2; exit 2 ;;
esac

# the programs, then the libraries of the tools, by the packages that have them
for p in "$QEMU" setpriv timeout sha256sum awk; do
	command -v "$p" >/dev/null ||
		die "programs: $p is not installed: apt-get install qemu-system-x86 util-linux coreutils mawk"
done
missing=$(ldd "$HERE/bin/bench-vm-collect" "$HERE/bin/ci-reproduce" 2>/dev/null |
	awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
[ -z "$missing" ] || die "libraries: $missing not found: apt-get install libjson-c5 libgsl27"
get() {
	"$HERE/bin/ci-reproduce" get "$M" "$1"
}

# what the figures belong to: this QEMU build, these files
want=$(get run.qemu_version)
have=$("$QEMU" --version 2>/dev/null | head -n 1) || have=
if [ "$have" != "$want" ]; then
	rc=3
	die "qemu-version: $QEMU is '$have'; the records' runs were '$want': an icount figure belongs to one QEMU build (its translation of REP, of helpers, of devices), so these could not be compared as exact; install that version (Debian 12's qemu-system-x86) or set QEMU to it. Nothing was booted"
fi
(cd "$HERE" && sha256sum -c --quiet SHA256SUMS) >"$HERE/.sums.out" 2>&1 ||
	die "materials: $(grep -v '^sha256sum:' "$HERE/.sums.out" | head -n 3 | tr '\n' ' ')differ from SHA256SUMS: the directory was changed; make reproduce writes it anew"
rm -f "$HERE/.sums.out"

accel=$(get run.accel) clock=$(get run.clock)
# "auto SHA", "cache ARGS SHA" or "none": the model and its arguments
# shellcheck disable=SC2046 # the words of the inputs' model line
set -- $(get run.model)
model=$1 model_args=
[ $# -lt 3 ] || model_args=$2
agent_opts=$(get run.agent_opts)
set --
for o in $agent_opts; do
	set -- "$@" --agent-opt "$o"
done

# run_side COMMIT [--agent-opt K=V]...: run.sh with the records'
# settings, its results in run/<commit>
run_side() {
	c=$1
	shift
	cmd="GUEST_MEM_MB='$(get run.guest_mem_mb)' KERNEL_ARGS='$(get run.kernel_args)' MODEL_ARGS='$model_args' BENCH_VM_BIN='$HERE/bin' OUT='$HERE/out' QEMU='$QEMU' sh '$HERE/bench-vm/run.sh' --accel $accel --clock $clock --cpu '$(get run.cpu)' --ns-size $(get run.ns_size) --rebinds $(get run.rebinds) --mem-ns $(get run.mem_ns) --model $model $* --results '$HERE/run/$c' --kernel '$HERE/kernels/$c/arch/x86/boot/bzImage' --commit $c"
	printf '%s\n' "$cmd"
	[ -n "$print_cmd" ] && return 0
	printf 'reproduce: booting %.12s (%s %s, %s, %s rebinds): its records in %s\n' "$c" \
		"$accel" "$clock" "$(get run.ns_size)" "$(get run.rebinds)" "$HERE/run/$c" >&2
	rc=0
	eval "$cmd" >"$HERE/run/$c.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { tail -n 5 "$HERE/run/$c.log" >&2; rc=1
		die "run: the guest of $c failed: $HERE/run/$c.log, $HERE/run/$c/"; }
}

printf 'reproduce: claim %s: %s\n' "$(get claim.id)" "$(get claim.what)" >&2
mkdir -p "$HERE/run" || die "run: cannot create $HERE/run"
done_c=
for i in 0 1; do
	c=$(get "sides.$i.commit")
	case " $done_c " in *" $c "*) continue ;; esac
	run_side "$c" "$@"
	done_c="$done_c $c"
done
[ -z "$print_cmd" ] || exit 0
"$HERE/bin/ci-reproduce" verify "$M" "$HERE/run"
