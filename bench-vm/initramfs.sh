#!/bin/sh
# initramfs.sh: the bench-vm initramfs, written as data and reproducibly
# (uid/gid 0, mtime 0) by the kernel's own usr/gen_init_cpio: no root, no
# host files' owners or times leak in.  The static agent is /init and the
# only program; it mounts /proc, /sys and devtmpfs itself.
#
#   initramfs.sh AGENT OUTPUT.cpio [MODULE.ko]...
# Each MODULE.ko becomes /MODULE.ko, which the agent loads when asked:
# bench_vm_pages.ko (the struct page digest, pages=1), test_hmm.ko
# (hmm=1).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
# shellcheck disable=SC2034 # die (scripts/lib.sh) names it
PROG=bench-vm-initramfs
GEN_INIT_CPIO=${GEN_INIT_CPIO:-${BENCH_VM_BIN:-$BIN}/gen_init_cpio}

[ $# -ge 2 ] || usage_die "initramfs.sh AGENT OUTPUT.cpio [MODULE.ko]..."
agent=$1 out=$2
shift 2
names=
for m; do
	[ -f "$m" ] || die "initramfs: module $m is missing"
	n=$(basename "$m")
	case $n in *.ko) ;; *) n=; esac
	case ${n%.ko} in '' | *[!a-z0-9_]*) die "initramfs: module $m: its name is not NAME.ko, NAME of [a-z0-9_]" ;; esac
	case " $names " in *" $n "*) die "initramfs: two modules named $n" ;; esac
	names="$names $n"
done
[ -x "$GEN_INIT_CPIO" ] || die "initramfs: $GEN_INIT_CPIO is missing: run 'make tools'"
[ -x "$agent" ] || die "initramfs: agent $agent is missing: run 'make tools'"
# The agent runs before any library could be found: it must be static.
if readelf -l "$agent" | grep -q 'program interpreter'; then
	die "initramfs: $agent is dynamically linked: it must be static (PID 1 of an initramfs without libraries)"
fi

# The files go in by names of their own, links in a directory of their
# own that gen_init_cpio runs in: its list is words, and a path with a
# blank (a reproducer's materials anywhere) would be cut there, one with
# a newline would add an entry of its own.
abs() {
	printf '%s/%s' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")"
}
stage_make "${TMPDIR:-/tmp}" bench-vm-initramfs "the scratch directory of an initramfs"
# shellcheck disable=SC2154 # stage_make (lib.sh: owner.sh) sets it
files=$run_dir
trap 'rm -rf "$files"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ln -s "$(abs "$agent")" "$files/init" || die "initramfs: cannot link the agent in $files"
for m; do
	ln -s "$(abs "$m")" "$files/$(basename "$m")" || die "initramfs: cannot link $m in $files"
done
gic=$(abs "$GEN_INIT_CPIO")

list=$out.list
# One entry a line: type, path, (source,) mode, uid, gid (usr/gen_init_cpio.c).
# /dev/console exists before devtmpfs is mounted, so the kernel can open
# PID 1's stdin/stdout/stderr on it.
{
	cat <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0555 0 0
dir /sys 0555 0 0
file /init init 0755 0 0
LIST
	for m; do echo "file /$(basename "$m") $(basename "$m") 0644 0 0"; done
} | cat >"$list" || {
	rm -f "$list"
	die "initramfs: writing $list failed (the reason is above: a full disk?)"
}
# gen_init_cpio writes with stdio and never checks the flush at its exit,
# so a full disk would give a cut archive and exit 0: its output goes
# through cat, which reports a failed write, and its own status comes
# back on fd 3.
abs_list=$(abs "$list")
rc=$( { { (cd "$files" && "$gic" -t 0 "$abs_list") || echo "gen_init_cpio exit $?" >&3; } |
	cat >"$out.tmp" || echo "write" >&3; } 3>&1)
case $rc in
'') mv "$out.tmp" "$out" || { rm -f "$out.tmp"; die "initramfs: cannot rename $out.tmp to $out"; } ;;
*write*)
	rm -f "$out.tmp"
	die "initramfs: writing $out.tmp failed (the reason is above: a full disk?)"
	;;
*)
	rm -f "$out.tmp"
	die "initramfs: $GEN_INIT_CPIO $list failed ($rc)"
	;;
esac
