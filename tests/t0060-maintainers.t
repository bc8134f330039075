#!/bin/sh
# MAINTAINERS covers every tracked path of the project (F: a file, or a
# directory ending in '/'), and every section has M:, L: and S: lines.
. "$(dirname "$0")/lib.sh"
plan 2

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

test_expect_success 'every section names a maintainer, a list and a status' '
	awk "/^[A-Z0-9][A-Z0-9 ,()-]+\$/ && !/^List/ { if (s) check(); s = \$0; m = l = st = 0; next }
	     /^M:/ { m = 1 } /^L:/ { l = 1 } /^S:/ { st = 1 }
	     function check() { if (!(m && l && st)) { print \"incomplete section: \" s; bad = 1 } }
	     END { if (s) check(); exit bad }" "$TOP/MAINTAINERS"
'
done_testing
