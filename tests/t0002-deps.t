#!/bin/sh
# scripts/deps.list is the one list of what the toolkit needs: deps.sh
# installs it, deps-check.sh proves each name by a real use, deps-scan.sh
# fails when a script calls a program from a package the list lacks.
. "$(dirname "$0")/lib.sh"
plan 6

test_expect_success 'every program the shell calls comes from a listed or an Essential package' '
	sh "$TOP/scripts/deps-scan.sh"
'

test_expect_success 'a program from an unlisted package is named, with file and line' '
	grep -v "^b4[[:space:]]" "$TOP/scripts/deps.list" >deps.list &&
	printf "#!/bin/sh\nset -eu\necho start\nb4 --version\n" >uses-b4.sh &&
	DEPS_LIST=$SCRATCH/deps.list expect_fail sh "$TOP/scripts/deps-scan.sh" uses-b4.sh &&
	grep_err "^uses-b4.sh:4: b4 \(b4\): not in scripts/deps.list"
'

test_expect_success 'deps-check: every name of the list has a check, and each passes here' '
	sh "$TOP/scripts/deps-check.sh" >out && cat out &&
	[ "$(grep -c "^ok " out)" = "$(awk "!/^#/ && NF" "$TOP/scripts/deps.list" | wc -l)" ]
'

test_expect_success 'deps-check: a name without a check fails, naming it' '
	{ cat "$TOP/scripts/deps.list"; echo "frobnicate frobnicate-tools"; } >deps.list &&
	DEPS_LIST=$SCRATCH/deps.list expect_fail sh "$TOP/scripts/deps-check.sh" make frobnicate &&
	grep -q "^not ok 2 - frobnicate: deps-check.sh has no check_frobnicate" out
'

test_expect_success 'deps-check: a program that is there but does not work fails its check' '
	mkdir bin && printf "#!/bin/sh\nexit 0\n" >bin/gnuplot && chmod +x bin/gnuplot &&
	PATH=$SCRATCH/bin:$PATH expect_fail sh "$TOP/scripts/deps-check.sh" gnuplot &&
	grep -q "^not ok 1 - gnuplot: draws a PNG and an SVG" out
'

test_expect_success 'deps.sh as a user: the exact apt-get command for what is missing, exit 1' '
	{ cat "$TOP/scripts/deps.list"; echo "none x86-copy-series-no-such-package"; } >deps.list &&
	chmod 644 deps.list && chmod 755 "$SCRATCH" &&
	DEPS_LIST=$SCRATCH/deps.list expect_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh "$TOP/scripts/deps.sh" &&
	grep_err "run as root: apt-get update && apt-get install -y --no-install-recommends x86-copy-series-no-such-package$"
'
done_testing
