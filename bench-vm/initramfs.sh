#!/bin/sh
# initramfs.sh: the bench-vm initramfs, written as data and reproducibly
# (uid/gid 0, mtime 0) by the kernel's own usr/gen_init_cpio: no root, no
# host files' owners or times leak in.  The static agent is /init and the
# only program; it mounts /proc, /sys and devtmpfs itself.
#
#   initramfs.sh AGENT OUTPUT.cpio [MODULE.ko]
# MODULE.ko (the struct page digest, bench-vm/pages) becomes
# /bench_vm_pages.ko, which the agent loads when asked (pages=1).
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
PROG=bench-vm-initramfs
GEN_INIT_CPIO=${GEN_INIT_CPIO:-${BENCH_VM_BIN:-$OUT/bin}/gen_init_cpio}

[ $# = 2 ] || [ $# = 3 ] || usage_die "initramfs.sh AGENT OUTPUT.cpio [MODULE.ko]"
agent=$1 out=$2 module=${3:-}
[ -z "$module" ] || [ -f "$module" ] || die "initramfs: module $module is missing"
[ -x "$GEN_INIT_CPIO" ] || die "initramfs: $GEN_INIT_CPIO is missing: run 'make tools'"
[ -x "$agent" ] || die "initramfs: agent $agent is missing: run 'make tools'"
# The agent runs before any library could be found: it must be static.
if readelf -l "$agent" | grep -q 'program interpreter'; then
	die "initramfs: $agent is dynamically linked: it must be static (PID 1 of an initramfs without libraries)"
fi

list=$out.list
# One entry a line: type, path, (source,) mode, uid, gid (usr/gen_init_cpio.c).
# /dev/console exists before devtmpfs is mounted, so the kernel can open
# PID 1's stdin/stdout/stderr on it.
cat >"$list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0555 0 0
dir /sys 0555 0 0
file /init $agent 0755 0 0
LIST
[ -z "$module" ] || echo "file /bench_vm_pages.ko $module 0644 0 0" >>"$list"
"$GEN_INIT_CPIO" -t 0 "$list" >"$out.tmp" || {
	rm -f "$out.tmp"
	die "initramfs: $GEN_INIT_CPIO $list failed"
}
mv "$out.tmp" "$out"
