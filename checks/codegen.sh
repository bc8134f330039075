#!/bin/sh
# codegen.sh: is the code the guest kernel runs in the measured path the
# code a distro kernel runs?  Compares two builds of the same tree, Debian's
# own configuration (REF) and the guest's (GUEST): the machine code of the
# functions the series touches or calls in the measured path, with
# addresses and relocations normalised (checks/codegen-norm.awk), and the
# layout of struct page and its flags.  The codegen check of checks.sh
# runs it on every commit; bench-vm/README.md says why the guest's
# configuration is what it is.
#
#   codegen.sh code REF_O GUEST_O      the objects of OBJECTS below, in the
#                                      two build directories
#   codegen.sh layout REF_O GUEST_O SRC  struct page, its flags and the
#                                      zone structures, compiled with each
#                                      build's own flags for mm/mm_init.o
#                                      against the source tree SRC
#
# Findings on stdout, a line each, "<object or struct>: <what differs>",
# the first differing instruction of each function named with its index
# and offset; then "# not compared: ..." for the functions outside the
# objects that the path calls.  Exit 0: equal; 1: a difference; 2: usage,
# or an object missing or unreadable.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

# The measured path, as data: an object and the functions to start from
# (comma separated; "@callees": the functions of the objects above that
# this one defines; "*": all of it, alternatives included).  What the
# roots call in the same object is followed.
OBJECTS='
mm/mm_init.o               memmap_init_zone_device
mm/page_alloc.o            @callees
arch/x86/lib/usercopy_64.o __memcpy_flushcache,@callees
arch/x86/lib/memcpy_64.o   *
'

usage() {
	usage_die "codegen.sh code REF_O GUEST_O | codegen.sh layout REF_O GUEST_O SRC"
}

# norm O OBJ ROOTS: the object's normalised code (codegen-norm.awk)
norm() {
	[ -f "$1/$2" ] || {
		echo "$PROG: code: $1/$2 is missing: build it first (make -C <tree> O=$1 $2)" >&2
		return 2
	}
	objdump -d -r -w --no-show-raw-insn "$1/$2" >"$tmp/objdump" || {
		echo "$PROG: code: objdump cannot read $1/$2" >&2
		return 2
	}
	awk -v roots="$3" -f "$TOP/checks/codegen-norm.awk" "$tmp/objdump"
}

# first_diff OBJ REF GUEST: a line per function of REF whose code GUEST
# does not have alike: the first instruction that differs
first_diff() {
	awk -F '\t' -v obj="$1" '
	FILENAME == ARGV[2] && $1 == "F" { g[$2, $3] = $4; gn[$2] = $3 + 1; next }
	FILENAME == ARGV[2] && $1 == "O" { goff[$2, $3] = $4; next }
	FILENAME == ARGV[2] { next }
	$1 == "F" { r[$2, $3] = $4; if (!($2 in rn)) order[++nf] = $2; rn[$2] = $3 + 1; next }
	$1 == "O" { roff[$2, $3] = $4; next }
	END {
		bad = 0
		for (k = 1; k <= nf; k++) {
			f = order[k]
			if (!(f in gn)) {
				printf "%s: %s: in Debian'"'"'s build only (the guest'"'"'s inlines it or has none)\n", obj, f
				bad = 1
				continue
			}
			n = rn[f] < gn[f] ? rn[f] : gn[f]
			for (i = 0; i < n; i++)
				if (r[f, i] != g[f, i])
					break
			if (i < n) {
				printf "%s: %s: instruction %d (+%s) differs: Debian'"'"'s '"'"'%s'"'"', the guest'"'"'s '"'"'%s'"'"'\n",
					obj, f, i, roff[f, i], r[f, i], g[f, i]
				bad = 1
			} else if (rn[f] != gn[f]) {
				printf "%s: %s: %d instructions in Debian'"'"'s build, %d in the guest'"'"'s\n",
					obj, f, rn[f], gn[f]
				bad = 1
			}
			done[f] = 1
		}
		for (f in gn)
			if (!(f in done)) {
				printf "%s: %s: in the guest'"'"'s build only\n", obj, f
				bad = 1
			}
		exit bad
	}' "$2" "$3"
}

code() {
	rc=0
	: >"$tmp/callees"
	: >"$tmp/defined"
	: >"$tmp/path"
	while read -r obj roots; do
		[ -n "$obj" ] || continue
		callees=$(sort -u "$tmp/callees" | paste -sd, -)
		case $roots in
		*@callees*)
			roots=$(printf '%s' "$roots" | sed "s/@callees/$callees/; s/,,*/,/g; s/^,//; s/,\$//")
			[ -n "$roots" ] || continue
			;;
		esac
		norm "$REF" "$obj" "$roots" >"$tmp/ref" || return 2
		norm "$GUEST" "$obj" "$roots" >"$tmp/guest" || return 2
		# a root the object lacks is a finding when it was named, not
		# when it is one of the callees that every object is asked for
		for m in $(awk -F '\t' '$1 == "M" { print $2 }' "$tmp/ref" "$tmp/guest" | sort -u); do
			case ,$callees, in
			*",$m,"*) ;;
			*) echo "$obj: $m: not in the object"; rc=1 ;;
			esac
		done
		first_diff "$obj" "$tmp/ref" "$tmp/guest" || rc=1
		awk -F '\t' '$1 == "F"' "$tmp/ref" >>"$tmp/path"
		awk -F '\t' '$1 == "X" { print $3 }' "$tmp/ref" >>"$tmp/callees"
		awk -F '\t' '$1 == "F" { print $2 }' "$tmp/ref" >>"$tmp/defined"
		# aliases (memcpy is __memcpy) are defined as well
		nm --defined-only "$REF/$obj" | awk '{ print $NF }' >>"$tmp/defined"
	done <<EOF
$OBJECTS
EOF
	sort -u "$tmp/defined" >"$tmp/defined.sorted"
	left=$(sort -u "$tmp/callees" | grep -vxF -f "$tmp/defined.sorted" | paste -sd' ' - || true)
	[ -z "$left" ] || echo "# not compared (outside the objects above): $left"
	# what CPU mitigations can change on the path: its returns (return
	# thunks) and indirect branches (retpolines, ITS thunks)
	awk -F '\t' '$4 ~ /^ret/ || $4 ~ /__x86_return_thunk/ { r++ }
		$4 ~ /^(call|jmp) \*/ || $4 ~ /__x86_indirect_thunk/ { i++ }
		END { printf "# the path in Debian'"'"'s build: %d return sites, %d indirect branches\n", r, i }' "$tmp/path"
	return $rc
}

# The layout: sizes and offsets that the path's stores depend on, as each
# build's compiler sees them (kbuild's asm-offsets way: "->NAME VALUE"
# lines in the assembly).  A field a configuration lacks prints -1.
PROBE='#include <linux/mm.h>
#include <linux/mmzone.h>
#define X(n, v) asm volatile("\n.ascii \"->" #n " %c0\"" : : "i" ((long)(v)))
#define F(s, f) X(s##_##f, offsetof(struct s, f))
void xcs_layout(void)
{
	X(sizeof_page, sizeof(struct page));
	F(page, flags); F(page, lru); F(page, mapping); F(page, index);
	F(page, private); F(page, pgmap); F(page, zone_device_data);
	F(page, compound_head); F(page, _mapcount); F(page, _refcount);
#ifdef CONFIG_MEMCG
	F(page, memcg_data);
#else
	X(page_memcg_data, -1);
#endif
#if defined(WANT_PAGE_VIRTUAL)
	F(page, virtual);
#else
	X(page_virtual, -1);
#endif
#ifdef LAST_CPUPID_NOT_IN_PAGE_FLAGS
	F(page, _last_cpupid);
#else
	X(page__last_cpupid, -1);
#endif
	X(NR_PAGEFLAGS, NR_PAGEFLAGS);
	X(SECTIONS_PGSHIFT, SECTIONS_PGSHIFT); X(SECTIONS_WIDTH, SECTIONS_WIDTH);
	X(NODES_PGSHIFT, NODES_PGSHIFT); X(NODES_WIDTH, NODES_WIDTH);
	X(ZONES_PGSHIFT, ZONES_PGSHIFT); X(ZONES_WIDTH, ZONES_WIDTH);
	X(LAST_CPUPID_PGSHIFT, LAST_CPUPID_PGSHIFT); X(LAST_CPUPID_WIDTH, LAST_CPUPID_WIDTH);
	X(KASAN_TAG_WIDTH, KASAN_TAG_WIDTH);
	X(LRU_GEN_WIDTH, LRU_GEN_WIDTH); X(LRU_REFS_WIDTH, LRU_REFS_WIDTH);
	X(MAX_NR_ZONES, MAX_NR_ZONES);
	X(sizeof_zone, sizeof(struct zone));
	X(zone_zone_pgdat, offsetof(struct zone, zone_pgdat));
	X(sizeof_pglist_data, sizeof(struct pglist_data));
	X(pglist_data_node_id, offsetof(struct pglist_data, node_id));
	X(sizeof_dev_pagemap, sizeof(struct dev_pagemap));
	X(sizeof_vmem_altmap, sizeof(struct vmem_altmap));
}
'

# probe O SRC: "NAME VALUE" a line, compiled with O's own command line
# for mm/mm_init.o, its source tree replaced by SRC
probe() {
	pr_cmd=$(sed -n 's/^savedcmd_mm\/mm_init\.o := //p' "$1/mm/.mm_init.o.cmd" 2>/dev/null)
	pr_src=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile" 2>/dev/null)
	[ -n "$pr_cmd" ] && [ -n "$pr_src" ] || {
		echo "$PROG: layout: $1 has no build of mm/mm_init.o (its .cmd file): build it first" >&2
		return 2
	}
	pr_cmd=$(printf '%s\n' "$pr_cmd" | sed -e 's/-Wp,-MMD,[^ ]*//' -e "s|$pr_src/|$2/|g" \
		-e 's/ -c -o [^ ]* [^ ]*\.c *$/ -S -o - -x c -/')
	printf '%s' "$PROBE" | (cd "$1" && eval "$pr_cmd") 2>"$tmp/probe.err" |
		sed -n 's/^[[:space:]]*\.ascii[[:space:]]*"->\([A-Za-z0-9_]*\) \(-*[0-9]*\)"$/\1 \2/p' || true
}

layout() {
	probe "$REF" "$SRC" >"$tmp/ref.layout"
	probe "$GUEST" "$SRC" >"$tmp/guest.layout"
	for s in ref guest; do
		[ -s "$tmp/$s.layout" ] || {
			echo "$PROG: layout: the probe did not compile for the $s build: $(head -c 300 "$tmp/probe.err")" >&2
			return 2
		}
	done
	awk 'FILENAME == ARGV[1] { r[$1] = $2; order[++n] = $1; next }
		{ g[$1] = $2 }
		END {
			bad = 0
			for (i = 1; i <= n; i++) {
				k = order[i]
				if (r[k] != g[k]) {
					printf "layout: %s: Debian'"'"'s %s, the guest'"'"'s %s\n", k, r[k], (k in g) ? g[k] : "none"
					bad = 1
				}
			}
			exit bad
		}' "$tmp/ref.layout" "$tmp/guest.layout"
}

[ $# -ge 3 ] || usage
mode=$1 REF=$2 GUEST=$3
stage_make "${TMPDIR:-/tmp}" codegen "the scratch directory of a codegen check"
# shellcheck disable=SC2154 # stage_make (lib.sh: owner.sh) sets it
tmp=$run_dir
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
case $mode in
code)
	[ $# = 3 ] || usage
	code
	;;
layout)
	[ $# = 4 ] || usage
	SRC=$4
	layout
	;;
*) usage ;;
esac
