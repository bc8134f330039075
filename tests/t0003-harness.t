#!/bin/sh
# The harness itself (tests/lib.sh): a test sees none of the caller's
# variables; a sanitizer report fails the test that triggered it, even
# when the tool's failure was the expected one or its stderr was thrown
# away; a test file that runs another number of tests than it planned
# fails; a skip is listed at the end of the suite and fails under CI=true
# unless tests/ci-skips.txt lets it; make test-quick leaves out exactly the
# files that build a kernel or boot a guest, each by the tag in its header;
# a make that a test runs (OUT=$OUT BIN=$BIN) relinks none of the suite's
# tools, which the other lane may be running; a failed test's output is
# printed at the suite's end, where a CI log's tail shows it.
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"

# mini_suite BODY: a test file with BODY in a scratch copy of the harness;
# runs it, output in mini.out, exit status in mini.rc; off CI (CI unset,
# whatever runs this suite) unless MINI_CI=true
mini_suite() {
	mkdir -p mini/tests && cp "$TOP/tests/lib.sh" "$TOP/tests/run-suite.sh" "$TOP/tests/harness.pl" mini/tests/ &&
	printf '#!/bin/sh\n. "$(dirname "$0")/lib.sh"\n%s\n' "$1" >mini/tests/t.t &&
	rc=0 && env -u XCS_TEST_ENV -u CI ${MINI_CI:+CI=$MINI_CI} TEST_OUT="$SCRATCH/mini-out" \
		sh mini/tests/t.t >mini.out 2>&1 || rc=$?
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

test_expect_success 'a test file that runs fewer tests than planned fails; without a plan the harness counts it, and a file cut short has none; every file ends in done_testing' '
	mini_suite "plan 2
test_expect_success one true
done_testing" && [ "$(cat mini.rc)" = 1 ] && grep -q "^# planned 2 tests, ran 1" mini.out &&
	mini_suite "test_expect_success one true
test_expect_success two true
done_testing" && [ "$(cat mini.rc)" = 0 ] && [ "$(tail -n 1 mini.out)" = 1..2 ] &&
	[ "$(grep -c "^1\.\." mini.out)" = 1 ] &&
	mini_suite "test_expect_success one true
exit 0
done_testing" && ! grep -q "^1\.\." mini.out &&
	{ rc=0; prove mini/tests/t.t >prove.out 2>&1 || rc=$?; } && cat prove.out && [ $rc != 0 ] &&
	grep -q "No plan found" prove.out &&
	for f in "$TOP"/tests/t*.t; do
		[ "$(grep -v "^[[:space:]]*\(#.*\)\{0,1\}$" "$f" | tail -n 1)" = done_testing ] ||
			{ echo "$f: its last line is not done_testing"; return 1; }
	done
'
SKIP_BODY="plan 2
test_expect_success one true
test_skip \"needs a thing\" \"no thing here\"
done_testing"

test_expect_success 'a skip passes off CI and is listed, with its reason, before the suite summary' '
	mini_suite "$SKIP_BODY" && [ "$(cat mini.rc)" = 0 ] &&
	grep -qx "ok 2 - needs a thing # SKIP no thing here" mini.out &&
	rc=0 && (cd mini && env -u XCS_TEST_ENV -u CI TEST_OUT="$SCRATCH/suite-out" sh tests/run-suite.sh) >suite.out 2>&1 || rc=$?
	cat suite.out && [ $rc = 0 ] &&
	grep -qx "skipped: 1 test(s), and why:" suite.out &&
	grep -qx "  t.t 2 - needs a thing: no thing here" suite.out &&
	[ "$(tail -n 1 suite.out)" = "Result: PASS" ]
'

test_expect_success 'a failed test'"'"'s last lines of output are printed at the suite'"'"'s end, before the summary; a passing run prints none' '
	mini_suite "plan 2
test_expect_success passes \"echo quiet\"
test_expect_success \"fails loudly\" \"echo the-reason-it-failed; false\"
done_testing" && [ "$(cat mini.rc)" = 1 ] &&
	rc=0 && (cd mini && env -u XCS_TEST_ENV -u CI TEST_OUT="$SCRATCH/fail-out" sh tests/run-suite.sh) >fail.out 2>&1 || rc=$?
	cat fail.out && [ $rc = 1 ] &&
	sed -n "/^failed tests, the last lines/,/^Test Summary Report/p" fail.out >tail.out &&
	grep -qx "t.t 2 - fails loudly" tail.out && grep -qx "    the-reason-it-failed" tail.out &&
	! grep -q "quiet" tail.out && [ "$(tail -n 1 fail.out)" = "Result: FAIL" ] &&
	sed -i "s/; false//" mini/tests/t.t &&
	rc=0 && (cd mini && env -u XCS_TEST_ENV -u CI TEST_OUT="$SCRATCH/fail-out" sh tests/run-suite.sh) >pass.out 2>&1 || rc=$?
	cat pass.out && [ $rc = 0 ] && [ "$(tail -n 1 pass.out)" = "Result: PASS" ] &&
	! grep -q "^failed tests\|the-reason-it-failed" pass.out
'

test_expect_success 'under CI=true a skip fails, unless tests/ci-skips.txt lets that test skip' '
	MINI_CI=true mini_suite "$SKIP_BODY" && [ "$(cat mini.rc)" = 1 ] &&
	grep -q "^not ok 2 - needs a thing (would skip, but CI must run it: no thing here; tests/ci-skips.txt does not let it)" mini.out &&
	! grep -qi "^not ok 2 .*# *skip" mini.out &&
	printf "t.t: needs a thing\tthis machine has no thing\n" >mini/tests/ci-skips.txt &&
	rm -rf mini-out && MINI_CI=true mini_suite "$SKIP_BODY" && [ "$(cat mini.rc)" = 0 ] &&
	grep -qx "ok 2 - needs a thing # SKIP no thing here" mini.out
'
test_expect_success 'test-quick: a file that builds a kernel or boots a guest says so in its header, and no other does' '
	# the helpers and scripts that build or boot: bench-vm/testlib.sh, the
	# producers, the fresh root, make quick
	p="bench_vm_kernel|scripts/build\.sh|checks/checks\.sh|checks/kunit\.sh|fresh-root\.sh|BUILD=|make -C [^|]* quick" &&
	for f in "$TOP"/tests/*.t; do
		# (this file names the patterns)
		[ "${f##*/}" != t0003-harness.t ] || continue
		uses=0 tag=0
		grep -v "^[[:space:]]*#" "$f" | grep -Eq "$p" && uses=1
		grep -q "^# test-quick: no: [a-z]" "$f" && tag=1
		[ $uses = $tag ] || { echo "${f##*/}: builds or boots: $uses, tagged: $tag"; return 1; }
	done &&
	mkdir -p mini/tests && cp "$TOP/tests/lib.sh" "$TOP/tests/run-suite.sh" "$TOP/tests/harness.pl" mini/tests/ &&
	printf "#!/bin/sh\n. \"\$(dirname \"\$0\")/lib.sh\"\nplan 1\ntest_expect_success a true\ndone_testing\n" >mini/tests/t1-a.t &&
	{ printf "#!/bin/sh\n# test-quick: no: boots a guest\n"; sed 1d mini/tests/t1-a.t; } >mini/tests/t2-b.t &&
	(cd mini && TEST_QUICK=1 TEST_OUT=$SCRATCH/mini/out sh tests/run-suite.sh) >quick.out 2>&1; cat quick.out &&
	grep -Eq "^(\[[0-9:]*\] )?tests/t1-a.t \.+ ok +[0-9]+ ms" quick.out && ! grep -q "tests/t2-b.t \.\." quick.out &&
	grep -q "^  tests/t2-b.t: boots a guest$" quick.out && tail -n 1 quick.out | grep -q "^Result: PASS"
'
test_expect_success 'lanes: files without a test-parallel header run one after the other, in name order; a file with one names none of the shared state; the longest parallel file first' '
	# the worktree, the run'"'"'s results, the builds and guests: what the shared lane is for
	p="\\\$WORKTREE|\\\$\{WORKTREE|\\\$OUT/|bench_vm_kernel|scripts/build\.sh|checks/checks\.sh|checks/kunit\.sh|make -C [^|]* quick" &&
	for f in $(grep -l "^# test-parallel: [a-z]" "$TOP"/tests/*.t); do
		[ "${f##*/}" != t0003-harness.t ] || continue
		! grep -v "^[[:space:]]*#" "$f" | grep -Eq "$p" ||
			{ echo "${f##*/}: parallel, but uses the shared state: $(grep -v "^[[:space:]]*#" "$f" | grep -Em1 "$p")"; return 1; }
	done &&
	mkdir -p mini/tests && cp "$TOP/tests/lib.sh" "$TOP/tests/run-suite.sh" "$TOP/tests/harness.pl" mini/tests/ &&
	for n in s1 s2 s3; do
		printf "#!/bin/sh\n. \"\$(dirname \"\$0\")/lib.sh\"\nplan 1\ntest_expect_success a \"echo $n-start >>\\\$TEST_OUT/order; sleep 1; echo $n-end >>\\\$TEST_OUT/order\"\ndone_testing\n" >mini/tests/t-$n.t || return 1
	done &&
	{ printf "#!/bin/sh\n# test-parallel: its scratch only\n"; sed 1d mini/tests/t-s1.t | sed "s/s1-/p1-/g"; } >mini/tests/t-p1.t &&
	(cd mini && TEST_JOBS=2 TEST_OUT=$SCRATCH/mini/out sh tests/run-suite.sh) >lanes.out 2>&1; cat lanes.out mini/out/order &&
	[ "$(grep "^s" mini/out/order | tr "\n" " ")" = "s1-start s1-end s2-start s2-end s3-start s3-end " ] &&
	grep -qx p1-end mini/out/order && tail -n 1 lanes.out | grep -q "^Result: PASS" &&
	# the parallel files, longest first by the last prove.log (made up
	# here: p2 took longest); p3, which it does not time, first of all
	for n in p2 p3; do sed "s/p1-/$n-/g" mini/tests/t-p1.t >mini/tests/t-$n.t || return 1; done &&
	printf "[10:00:00] tests/t-p1.t .. ok       10 ms ( 0.00 usr )\n[10:00:01] tests/t-p2.t .. ok     9000 ms ( 0.00 usr )\n" >mini/out/prove.log &&
	: >mini/out/order &&
	(cd mini && TEST_JOBS=2 TEST_OUT=$SCRATCH/mini/out sh tests/run-suite.sh) >lanes.out 2>&1; cat lanes.out mini/out/order &&
	[ "$(grep "^p.-start" mini/out/order | tr "\n" " ")" = "p3-start p2-start p1-start " ] &&
	tail -n 1 lanes.out | grep -q "^Result: PASS"
'
test_expect_success 'the guests and checks lanes: side by side once the shared files before them passed; the shared files after them once both ended; neither names the other'"'"'s state' '
	# a lane file names none of the other lane'"'"'s state, and one that
	# starts ci/run.sh (its $OUT/.run.lock) takes the suite'"'"'s lock first
	nc() { grep -v "^[[:space:]]*#" "$1" | grep -Em1 "$2"; } &&
	for f in $(grep -l "^# test-lane: guests: " "$TOP"/tests/*.t); do
		! nc "$f" "checks/(checks|kunit|configs)\.sh|\\\$OUT/checks" ||
			{ echo "${f##*/}: guests lane, but uses the checks lane'"'"'s state: $(nc "$f" "checks/")"; return 1; }
	done &&
	for f in $(grep -l "^# test-lane: checks: " "$TOP"/tests/*.t); do
		! nc "$f" "scripts/build\.sh|bench-vm/run\.sh|bench_vm_kernel|--view (bench-vm|build)|-s (bench-vm|build|quick|ci) " ||
			{ echo "${f##*/}: checks lane, but builds or boots: $(nc "$f" "build|bench")"; return 1; }
	done &&
	for f in $(grep -l "^# test-lane: " "$TOP"/tests/*.t); do
		! nc "$f" "ci/run\.sh|make -C \"\\\$TOP\"[^|]* -s (checks|bench-vm|build|ci|quick|report)" ||
			grep -q "pipeline_lock" "$f" || { echo "${f##*/}: starts ci/run.sh without pipeline_lock"; return 1; }
	done &&
	rm -rf mini && mkdir -p mini/tests &&
	cp "$TOP/tests/lib.sh" "$TOP/tests/run-suite.sh" "$TOP/tests/harness.pl" mini/tests/ &&
	for n in a1 g1 g2 h1 z9; do
		case $n in g*) lane="# test-lane: guests: a guest" ;; h*) lane="# test-lane: checks: a check" ;; *) lane="#" ;; esac
		printf "#!/bin/sh
%s
. \"\$(dirname \"\$0\")/lib.sh\"\nplan 1\ntest_expect_success a \"echo $n-start >>\\\$TEST_OUT/order; sleep 2; echo $n-end >>\\\$TEST_OUT/order\"\ndone_testing\n" "$lane" >mini/tests/t-$n.t || return 1
	done &&
	(cd mini && TEST_JOBS=3 TEST_OUT=$SCRATCH/mini/out sh tests/run-suite.sh) >lanes.out 2>&1; cat lanes.out mini/out/order &&
	tail -n 1 lanes.out | grep -q "^Result: PASS" &&
	python3 - mini/out/order <<-\PY
	import sys
	o = [l.strip() for l in open(sys.argv[1])]
	at = {e: i for i, e in enumerate(o)}
	assert len(o) == 10, o
	# the shared file before them first, the lanes after it, side by side
	assert at["a1-end"] < min(at["g1-start"], at["h1-start"]), o
	assert at["h1-start"] < at["g1-end"] and at["g1-start"] < at["h1-end"], o
	# a lane in its order; the shared file after them last
	assert at["g1-end"] < at["g2-start"], o
	assert at["z9-start"] > max(at["g2-end"], at["h1-end"]), o
	PY
	# a lane that is none of the two (a typo) is refused, nothing run
	sed -i "s/^# test-lane: guests:/# test-lane: guest:/" mini/tests/t-g2.t && : >mini/out/order &&
	rc=0 && (cd mini && TEST_JOBS=3 TEST_OUT=$SCRATCH/mini/out sh tests/run-suite.sh) >typo.out 2>&1 || rc=$?
	cat typo.out && [ $rc = 2 ] && [ ! -s mini/out/order ] &&
	grep -q "t-g2.t: .# test-lane: guest.: no such lane (guests, checks)" typo.out
'
test_expect_success 'a make of the toolkit as the tests run it (their OUT, BIN and SANITIZE) finds the tools built: nothing compiled, no tool relinked' '
	ls -li --time-style=+%s.%N "$BIN" >before &&
	make -C "$TOP" -s --no-print-directory tools OUT="$OUT" BIN="$BIN" >out 2>&1 || { cat out; return 1; }
	cat out && [ ! -s out ] && ls -li --time-style=+%s.%N "$BIN" >after && diff before after
'
done_testing
