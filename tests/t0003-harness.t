#!/bin/sh
# The harness itself (tests/lib.sh): a test sees none of the caller's
# variables; a sanitizer report fails the test that triggered it, even
# when the tool's failure was the expected one or its stderr was thrown
# away; a test file that runs another number of tests than it planned
# fails.
. "$(dirname "$0")/lib.sh"
plan 4

# mini_suite BODY: a test file with BODY in a scratch copy of the harness;
# runs it, output in mini.out, exit status in mini.rc
mini_suite() {
	mkdir -p mini/tests && cp "$TOP/tests/lib.sh" mini/tests/ &&
	printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\n%s\n' "$1" >mini/tests/t.t &&
	rc=0 && env -u XCS_TEST_ENV TEST_OUT="$SCRATCH/mini-out" sh mini/tests/t.t >mini.out 2>&1 || rc=$?
	echo "$rc" >mini.rc && cat mini.out
}

test_expect_success 'a test sees none of the variables make exports (SEND, COMMITS, KERNEL_TREE, ...)' '
	SEND=1 COMMITS=deadbeef KERNEL_TREE=/nonexistent NS_SIZE=1T GATE_PCT=99 CI_STEPS=bench \
	mini_suite "plan 1
test_expect_success env \"env >\$TEST_OUT/env.txt\"
done_testing" && [ "$(cat mini.rc)" = 0 ] &&
	! grep -E "^(SEND|COMMITS|KERNEL_TREE|NS_SIZE|GATE_PCT|CI_STEPS)=" mini-out/env.txt &&
	grep -q "^PATH=" mini-out/env.txt
'

test_expect_success 'an ASan report fails the test, even when the tool was expected to fail quietly' '
	printf "#include <stdlib.h>\nint main(int c, char **v) { char *p = malloc(4); p[c + 3] = 1; free(p); return 1; }\n" >bad.c &&
	gcc -g $(make -s -C "$TOP" --no-print-directory print-sanitize-cflags) -o bad bad.c &&
	mini_suite "plan 1
test_expect_success \"fails quietly\" \"$SCRATCH/bad 2>/dev/null; [ \\\$? != 0 ]\"
done_testing" && [ "$(cat mini.rc)" = 1 ] &&
	grep -q "^not ok 1 - fails quietly" mini.out && grep -q "heap-buffer-overflow" mini.out
'

test_expect_success 'a UBSan error stops the tool and fails the test, its stderr thrown away' '
	printf "int main(int c, char **v) { int x = 0x7fffffff; (void)v; return (x + c) == 5; }\n" >ub.c &&
	gcc -g $(make -s -C "$TOP" --no-print-directory print-sanitize-cflags) -o ub ub.c &&
	mini_suite "plan 1
test_expect_success \"overflows\" \"$SCRATCH/ub >/dev/null 2>&1 || true\"
done_testing" && [ "$(cat mini.rc)" = 1 ] &&
	grep -q "^not ok 1 - overflows" mini.out && grep -q "AddressSanitizer: ILL .*ub.c:1 in main" mini.out
'

test_expect_success 'a test file that runs fewer tests than planned fails' '
	mini_suite "plan 2
test_expect_success one true
done_testing" && [ "$(cat mini.rc)" = 1 ] && grep -q "^# planned 2 tests, ran 1" mini.out
'
done_testing
