#!/bin/sh
# scripts/deps.list is the one list of what the toolkit needs: deps.sh
# installs it, deps-check.sh proves each name by a real use, deps-scan.sh
# fails when a script calls a program from a package the list lacks;
# a package counts as listed only by its whole name, never as a part of a
# listed, Essential or depended-on package's name.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"

test_expect_success 'every program the shell calls comes from a listed or an Essential package' '
	sh "$TOP/scripts/deps-scan.sh"
'

test_expect_success 'a program from an unlisted package is named, with file and line' '
	grep -v "^b4[[:space:]]" "$TOP/scripts/deps.list" >deps.list &&
	printf "#!/bin/sh\nset -eu\necho start\nb4 --version\n" >uses-b4.sh &&
	DEPS_LIST=$SCRATCH/deps.list expect_fail sh "$TOP/scripts/deps-scan.sh" uses-b4.sh &&
	grep_err "^uses-b4.sh:4: b4 \(b4\): not in scripts/deps.list"
'

# bc is no Essential package; xbc, bc-tools and libbcx contain its name,
# and apt (listed, installed) depends on libc6, which contains it too;
# prove's package perl is a part of the Essential perl-base's name
test_expect_success 'a package is listed by its whole name only: bc is not xbc, bc-tools, libc6' '
	dpkg-query -W -f "\${Essential}" bc | grep -qvx yes &&
	dpkg-query -W -f "\${Essential}" perl-base | grep -qx yes &&
	dpkg-query -W -f "\${Depends}" apt | tr "," "\n" | grep -q "^ *libc6\b" &&
	printf "apt apt\nnear xbc bc-tools libbcx perl-basex xperl\n" >deps.list &&
	printf "#!/bin/sh\nset -eu\nbc </dev/null\nprove --version\n" >uses.sh &&
	DEPS_LIST=$SCRATCH/deps.list expect_fail sh "$TOP/scripts/deps-scan.sh" uses.sh &&
	grep_err "^uses.sh:3: bc \(bc\): not in scripts/deps.list" &&
	grep_err "^uses.sh:4: prove \(perl\): not in scripts/deps.list" &&
	[ "$(wc -l <err)" = 2 ] &&
	printf "apt apt\ncalc bc\nperl perl\n" >deps.list &&
	DEPS_LIST=$SCRATCH/deps.list sh "$TOP/scripts/deps-scan.sh" uses.sh
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
