#!/bin/sh
# reproduce.sh: one claim's guest figures again, from the materials beside
# this script (make reproduce ID=... wrote them, from review/reproduce-
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
# Every field of metadata.json is a value, checked before anything boots
# (a commit is 40 hex digits, the settings as run.sh --check takes them),
# and the materials run from a directory of any name.
# Exit: 0 reproduced; 1 not reproduced or an error; 2 usage; 3 another
# QEMU version (before anything boots).
set -eu
# no pattern of a value names files: a field of metadata.json is split
# into its words (the model line, the agent's options), never expanded
set -f
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
# shown: a text of metadata.json as it is said on a terminal, its
# control characters dropped
shown() {
	get "$1" | tr -d '\000-\037\177'
}

# what the figures belong to: this QEMU build, these files
want=$(get run.qemu_version)
have=$("$QEMU" --version 2>/dev/null | head -n 1) || have=
if [ "$have" != "$want" ]; then
	rc=3
	die "qemu-version: $QEMU is '$have'; the records' runs were '$(shown run.qemu_version)': an icount figure belongs to one QEMU build (its translation of REP, of helpers, of devices), so these could not be compared as exact; install that version (Debian 12's qemu-system-x86) or set QEMU to it. Nothing was booted"
fi
(cd "$HERE" && sha256sum -c --quiet SHA256SUMS) >"$HERE/.sums.out" 2>&1 ||
	die "materials: $(grep -v '^sha256sum:' "$HERE/.sums.out" | head -n 3 | tr '\n' ' ')differ from SHA256SUMS: the directory was changed; make reproduce writes it anew"
rm -f "$HERE/.sums.out"

# Every field is a value, never a command: the runner's arguments are a
# list ("$@"), each field checked before anything boots.  A commit names
# the directories kernels/<commit> and run/<commit>: 40 hex digits, so
# that they are inside the materials; everything else is checked by the
# runner itself (run.sh --check: its own checks of every option, and
# nothing run), a refusal in its words.
commits=
for i in 0 1; do
	c=$(get "sides.$i.commit")
	case $c in
	*[!0-9a-f]*) c_ok= ;;
	*) c_ok=${#c} ;;
	esac
	[ "$c_ok" = 40 ] ||
		die "metadata: sides.$i.commit '$(shown "sides.$i.commit")' is not a commit id (40 hex digits): $M is not make reproduce's"
	case " $commits " in *" $c "*) ;; *) commits="$commits $c" ;; esac
done
# (one a line: a failed get ends the script)
accel=$(get run.accel)
clock=$(get run.clock)
cpu=$(get run.cpu)
ns_size=$(get run.ns_size)
rebinds=$(get run.rebinds)
mem_ns=$(get run.mem_ns)
guest_mem_mb=$(get run.guest_mem_mb)
kernel_args=$(get run.kernel_args)
agent_opts=$(get run.agent_opts)
model_line=$(get run.model)
# "none", "auto SHA", "cache SHA" or "cache ARGS SHA": the model and its
# arguments
# shellcheck disable=SC2086 # the words of the inputs' model line
set -- $model_line
[ $# -ge 1 ] && [ $# -le 3 ] ||
	die "metadata: run.model '$(shown run.model)' is not 'MODEL [ARGS] [SHA256]': $M is not make reproduce's"
model=$1 model_args=
[ $# -lt 3 ] || model_args=$2

# run_side COMMIT run|check: run.sh with the records' settings, its
# results in run/<commit>; check: its checks of them alone
run_side() {
	c=$1 mode=$2
	set -- env "GUEST_MEM_MB=$guest_mem_mb" "KERNEL_ARGS=$kernel_args" \
		"MODEL_ARGS=$model_args" "BENCH_VM_BIN=$HERE/bin" "OUT=$HERE/out" "QEMU=$QEMU" \
		sh "$HERE/bench-vm/run.sh" --accel "$accel" --clock "$clock" --cpu "$cpu" \
		--ns-size "$ns_size" --rebinds "$rebinds" --mem-ns "$mem_ns" --model "$model"
	for o in $agent_opts; do
		set -- "$@" --agent-opt "$o"
	done
	set -- "$@" --results "$HERE/run/$c" --kernel "$HERE/kernels/$c/arch/x86/boot/bzImage" \
		--commit "$c"
	if [ "$mode" = check ]; then
		"$@" --check >/dev/null ||
			die "metadata: bench-vm/run.sh refuses the settings of $c (above): $M is not make reproduce's. Nothing was booted"
		return 0
	fi
	quoted "$@"
	[ -n "$print_cmd" ] && return 0
	printf 'reproduce: booting %.12s (%s %s, %s, %s rebinds): its records in %s\n' "$c" \
		"$accel" "$clock" "$ns_size" "$rebinds" "$HERE/run/$c" >&2
	rc=0
	"$@" >"$HERE/run/$c.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { tail -n 5 "$HERE/run/$c.log" >&2; rc=1
		die "run: the guest of $c failed: $HERE/run/$c.log, $HERE/run/$c/"; }
}

# quoted WORD...: the words as one line that a shell reads back as them
# (a word of plain characters as it is, any other in single quotes)
quoted() {
	q_line=
	for q_w; do
		case $q_w in
		'' | *[!A-Za-z0-9_./:=,+@%-]*)
			q_w=$(printf '%sx' "$q_w" | sed "s/'/'\\\\''/g")
			q_w="'${q_w%x}'"
			;;
		esac
		q_line="$q_line${q_line:+ }$q_w"
	done
	printf '%s\n' "$q_line"
}

for c in $commits; do
	run_side "$c" check
done
printf 'reproduce: claim %s: %s\n' "$(shown claim.id)" "$(shown claim.what)" >&2
mkdir -p "$HERE/run" || die "run: cannot create $HERE/run"
for c in $commits; do
	run_side "$c" run
done
[ -z "$print_cmd" ] || exit 0
"$HERE/bin/ci-reproduce" verify "$M" "$HERE/run"
