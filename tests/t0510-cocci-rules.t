#!/bin/sh
# checks/cocci/*.cocci: each semantic patch reports the lines of its
# positive test case (checks/cocci/tests/<rule>-pos.c) and nothing in its
# negative one; on the real series head, mm/mm_init.c is clean, and the
# same file with its closing fence removed is caught at every call of the
# three static levels that leave their streaming stores unfenced.
# test-lane: checks: the checks worktree, its objects and KUnit kernels; no build.sh, no guest
. "$(dirname "$0")/lib.sh"
need cmd:spatch
need worktree
need series
HEAD=$SERIES_HEAD
C=$TOP/checks/cocci

# cocci RULE FILE: the lines spatch reports, sorted, one per line
cocci() {
	spatch -D report --very-quiet --no-show-diff --no-includes --include-headers \
		--sp-file "$C/$1.cocci" "$2" >"$SCRATCH/$1.out" 2>"$SCRATCH/$1.err" || {
		cat "$SCRATCH/$1.err"
		return 1
	}
	cat "$SCRATCH/$1.out" >&2
	sed -nE 's|^[^:]*:([0-9]+):.*|\1|p' "$SCRATCH/$1.out" | sort -n | paste -sd' ' -
}

# rule: expected lines of the positive case
while read -r rule lines; do
	test_expect_success "$rule: reports lines $lines of the positive case, nothing in the negative" '
		got=$(cocci $rule "$C/tests/$rule-pos.c") && echo "got: $got" &&
		[ "$got" = "$lines" ] &&
		got=$(cocci $rule "$C/tests/$rule-neg.c") && [ -z "$got" ]
	'
done <<EOT
nt_size 4 5
nt_fence 10 20 25 39 49
nt_template 10 11 31 61 62
EOT

test_expect_success 'the series head: mm/mm_init.c and string_64.h pass every rule' '
	git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" >mm_init.c &&
	git -C "$WORKTREE" show "$HEAD:arch/x86/include/asm/string_64.h" >string_64.h &&
	for r in nt_size nt_fence nt_template; do
		got=$(cocci $r mm_init.c) && [ -z "$got" ] &&
		got=$(cocci $r string_64.h) && [ -z "$got" ] || return 1
	done
'

# nofence ANCHOR: mm_init.c without the fence that follows the line
# matching ANCHOR (the fence is the line after that comment), in nofence.c
nofence() {
	n=$(grep -n "$1" mm_init.c | cut -d: -f1) && [ -n "$n" ] &&
	f=$(awk -v n="$n" "NR > n && /memcpy_nontemporal_fence\\(\\);/ { print NR; exit }" mm_init.c) &&
	[ -n "$f" ] && sed "${f}d" mm_init.c >nofence.c &&
	[ "$(grep -c memcpy_nontemporal_fence nofence.c)" = $(($(grep -c memcpy_nontemporal_fence mm_init.c) - 1)) ]
}

test_expect_success 'the series head without its closing fence: caught by nt_fence, at each call three levels up' '
	git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" >mm_init.c &&
	nofence "Order the streaming stores before the stores that publish" &&
	got=$(cocci nt_fence nofence.c) && [ -n "$got" ] &&
	grep -q "zone_device_copy_pages() leaves non-temporal stores unfenced and memmap_init_zone_device() returns" nt_fence.out &&
	grep -q "memmap_init_compound() leaves non-temporal stores unfenced and memmap_init_zone_device() returns" nt_fence.out &&
	grep -q "memmap_init_zone_device_order0() leaves non-temporal stores unfenced and memmap_init_zone_device() returns" nt_fence.out &&
	[ "$(wc -l <nt_fence.out)" = 3 ]
'
done_testing
