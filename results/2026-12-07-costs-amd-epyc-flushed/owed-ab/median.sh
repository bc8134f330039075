#!/bin/sh
# median.sh FILE: the median and worst |error| of every replica pass (in
# sample and out of it) in a cost-fit text: the error is the first signed
# percentage of a pass's line.
awk '/^  template-/ && /sample/ {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[-+][0-9.]+%$/) {
			v = substr($i, 1, length($i) - 1) + 0
			print (v < 0 ? -v : v)
			break
		}
}' "$1" | sort -g | awk -v f="$1" '{ a[NR] = $1 }
END { print f ": " NR " passes, |error| median " a[int((NR + 1) / 2)] "%, worst " a[NR] "%" }'
