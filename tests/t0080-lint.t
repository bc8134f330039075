#!/bin/sh
# make lint: the shell is checked as the C is.  ShellCheck on every script
# of the toolkit and checkpatch.pl --strict on every C file pass; the
# ShellCheck settings still catch the bug class they are for; every
# finding silenced where it stands says why.
. "$(dirname "$0")/lib.sh"
command -v shellcheck >/dev/null || bail "shellcheck is not installed: run 'make deps'"
[ -f "$TOP/kernel-tree/scripts/checkpatch.pl" ] || bail "no kernel-tree/scripts/checkpatch.pl: t0005 imports the tree"
plan 4

test_expect_success 'make lint: shellcheck and checkpatch.pl find nothing' '
	make -C "$TOP" --no-print-directory -s lint >out 2>&1; rc=$?
	cat out && [ $rc = 0 ] && ! grep -E "^(ERROR|WARNING|CHECK):|SC[0-9]{4}" out
'

test_expect_success 'every script of the toolkit is in the list make lint checks' '
	make -C "$TOP" --no-print-directory -s print-shell-sources | tr " " "\n" | sed "/^$/d" | sort -u >listed &&
	(cd "$TOP" && { find scripts bench bench-vm checks ci tests -name "*.sh" -o -name "*.t"; echo .ci/run; } |
		sort -u) >all &&
	diff all listed
'

test_expect_success 'the tree'"'"'s shellcheck settings still catch an unquoted variable and an unused one' '
	cp "$TOP/.shellcheckrc" . &&
	printf "#!/bin/sh\nf=\$1\nrm \$f\nunused=1\n" >bad.sh &&
	{ rc=0; shellcheck -x bad.sh >log 2>&1 || rc=$?; } && cat log &&
	[ $rc = 1 ] && grep -q SC2086 log && grep -q SC2034 log
'

test_expect_success 'a finding silenced in a script says why, on the same line' '
	(cd "$TOP" && grep -n "^[[:space:]]*# shellcheck disable=" $(make --no-print-directory -s print-shell-sources)) >dis &&
	[ -s dis ] && ! grep -v "disable=SC[0-9,SC]* # [^ ]" dis
'
done_testing
