#!/bin/sh
# MAINTAINERS covers every tracked path of the project (F: a file, or a
# directory ending in '/'), and every section has M:, L: and S: lines.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"

test_expect_success 'every tracked file has a MAINTAINERS entry' '
	sed -n "s/^F:[[:space:]]*//p" "$TOP/MAINTAINERS" >patterns &&
	git -C "$TOP" ls-files >files &&
	[ -s files ] &&
	awk "NR == FNR { p[++n] = \$0; next }
	     { for (i = 1; i <= n; i++)
		 if (\$0 == p[i] || (p[i] ~ /\/\$/ && index(\$0, p[i]) == 1)) next
	       print \"no MAINTAINERS entry: \" \$0; bad = 1 }
	     END { exit bad }" patterns files
'

# check_sections FILE: after the two paragraphs of title and preamble,
# every paragraph is a section: a title line of any characters, then
# "X:<tab>" fields only, among them M:, L: and S: (the kernel's format)
check_sections() {
	awk "BEGIN { RS = \"\"; FS = \"\\n\" }
	     NR <= 2 { next }
	     {
		n++; m = l = st = 0
		for (i = 2; i <= NF; i++) {
			if (\$i !~ /^[A-Z]:\t/) { print \"not a field in \" \$1 \": \" \$i; bad = 1 }
			if (\$i ~ /^M:/) m = 1; if (\$i ~ /^L:/) l = 1; if (\$i ~ /^S:/) st = 1
		}
		if (!(m && l && st)) { print \"incomplete section: \" \$1; bad = 1 }
	     }
	     END { print n \" sections\"; exit bad || !n }" "$1"
}

test_expect_success 'every section names a maintainer, a list and a status' '
	check_sections "$TOP/MAINTAINERS"
'

test_expect_success 'a section without a list is found, whatever its title holds' '
	awk "/^HOST MICROBENCHMARKS/ { s = 1 } s && /^L:/ { s = 0; next } { print }" "$TOP/MAINTAINERS" >M &&
	! cmp -s M "$TOP/MAINTAINERS" && ! check_sections M >out && cat out &&
	grep -q "^incomplete section: HOST MICROBENCHMARKS (THE TREE.S COPY ROUTINES" out
'
done_testing
