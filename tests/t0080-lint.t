#!/bin/sh
# make lint: the shell is checked as the C is.  ShellCheck on every script
# of the toolkit and checkpatch.pl --strict on every C file pass; the
# ShellCheck settings still catch the bug class they are for; every
# finding silenced where it stands says why; actionlint checks the
# workflows, and finds a wrong expression and an undeclared runner label.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
need cmd:shellcheck
[ -f "$TOP/kernel-tree/scripts/checkpatch.pl" ] || bail "no kernel-tree/scripts/checkpatch.pl: t0005 imports the tree"

test_expect_success 'make lint: shellcheck and checkpatch.pl find nothing' '
	make -C "$TOP" --no-print-directory -s lint >out 2>&1; rc=$?
	cat out && [ $rc = 0 ] && ! grep -E "^(ERROR|WARNING|CHECK):|SC[0-9]{4}" out
'

test_expect_success 'every script of the toolkit is in the list make lint checks' '
	make -C "$TOP" --no-print-directory -s print-shell-sources | tr " " "\n" | sed "/^$/d" | sort -u >listed &&
	(cd "$TOP" && { find . \( -path ./out -o -path ./kernel-tree -o -path ./.git \) -prune -o \
		\( -name "*.sh" -o -name "*.t" \) -print | sed "s|^\./||"; echo .ci/run; } | sort -u) >all &&
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
test_expect_success 'actionlint: the workflow passes; a wrong expression, an unknown runner label and a misspelt input of actions/checkout@v4 are found' '
	sh "$TOP/scripts/actionlint.sh" &&
	printf "on: push\njobs:\n  a:\n    runs-on: [self-hosted, amd-zen4, amd-zen9]\n    steps:\n      - run: echo \${{ github.nope }}\n      - uses: actions/checkout@v4\n        with:\n          submodulez: false\n" >bad.yml &&
	{ rc=0; sh "$TOP/scripts/actionlint.sh" bad.yml >log 2>&1 || rc=$?; } && cat log &&
	[ $rc = 1 ] && [ "$(grep -c "^bad.yml:" log)" = 3 ] &&
	grep -q "^bad.yml:4:[0-9]*: label \"amd-zen9\" is unknown.* \[runner-label\]$" log &&
	grep -q "^bad.yml:6:[0-9]*: property \"nope\" is not defined.* \[expression\]$" log &&
	grep -q "^bad.yml:9:[0-9]*: input \"submodulez\" is not defined in action \"actions/checkout@v4\".* \[action\]$" log
'
done_testing
