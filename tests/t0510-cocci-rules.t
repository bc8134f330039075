#!/bin/sh
# checks/cocci/*.cocci: each semantic patch reports the lines of its
# positive test case (checks/cocci/tests/<rule>-pos.c) and nothing in its
# negative one; on the real series head, mm/mm_init.c is clean, and the
# same file with its closing fence removed is caught.
. "$(dirname "$0")/lib.sh"
command -v spatch >/dev/null || bail "spatch is not installed: run 'make deps'"
[ -f "$WORKTREE/.git" ] || bail "no worktree at $WORKTREE: t0005 sets it up"
HEAD=$(git -C "$WORKTREE" rev-parse -q --verify "$REF_NS/series") || bail "no series: t0030 applies it"
C=$TOP/checks/cocci
plan 5

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
nt_fence 9 19 24 25
nt_template 10 11
EOT

test_expect_success 'the series head: mm/mm_init.c and string_64.h pass every rule' '
	git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" >mm_init.c &&
	git -C "$WORKTREE" show "$HEAD:arch/x86/include/asm/string_64.h" >string_64.h &&
	for r in nt_size nt_fence nt_template; do
		got=$(cocci $r mm_init.c) && [ -z "$got" ] &&
		got=$(cocci $r string_64.h) && [ -z "$got" ] || return 1
	done
'

test_expect_success 'the series head without its closing fence: caught by nt_fence' '
	git -C "$WORKTREE" show "$HEAD:mm/mm_init.c" >mm_init.c &&
	n=$(grep -n "pageblock init may read" mm_init.c | cut -d: -f1) &&
	sed "$((n + 1))d" mm_init.c >nofence.c &&
	[ $(grep -c memcpy_nontemporal_fence nofence.c) = $(($(grep -c memcpy_nontemporal_fence mm_init.c) - 1)) ] &&
	got=$(cocci nt_fence nofence.c) && [ -n "$got" ] &&
	grep -q "memcpy_nontemporal() in memmap_init_zone_device() is not followed by a store fence" nt_fence.out &&
	grep -q "memmap_init_compound() leaves non-temporal stores unfenced and memmap_init_zone_device() returns" nt_fence.out
'
done_testing
