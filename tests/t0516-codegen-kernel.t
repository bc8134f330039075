#!/bin/sh
# The codegen check on the pinned kernel (make checks, CHECKS_ONLY=codegen):
# the distro guest's measured path against Debian's own configuration of
# the pinned version (build/debian-config.sh, fetched with apt-get
# download): equal machine code and struct page layout at the base; the
# same guest at -Os (tinyconfig's optimisation, one line added to the
# guest's fragment) fails, naming memmap_init_zone_device() and its first
# differing instruction, and the layout check alone names what differs
# for tinyconfig.  KCONFIG=tiny skips the check, saying why.
# test-quick: no: builds the path's objects of the kernel in two configurations
# test-lane: checks: the checks worktree, its objects and KUnit kernels; no build.sh, no guest
. "$(dirname "$0")/lib.sh"

need worktree
BASE=$(git -C "$WORKTREE" rev-parse "$REF_NS/base")
CHECKS="sh $TOP/checks/checks.sh"

# merged FILE...: the fragments as guest_fragment merges them (a symbol
# set twice keeps its last value: distro.config's NR_CPUS over
# kernel.config's), so that every line of the result can take effect
merged() {
	awk '/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
		/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2 }
		s != "" { if (!(s in v)) order[++n] = s; v[s] = $0; s = "" }
		END { for (i = 1; i <= n; i++) print v[order[i]] }' "$@"
}

if debcfg=$(sh "$TOP/build/debian-config.sh" 2>"$TEST_OUT/codegen-config.err"); then
	test_expect_success 'the distro guest at the base: the same code and layout as Debian' '
		KCONFIG=distro KUNIT=0 CHECKS_ONLY=codegen $CHECKS --results res "$BASE" 2>err; rc=$?; cat err &&
		[ $rc = 0 ] && grep -q "^pass" res/verdict &&
		grep -q "^# not compared" res/codegen.log && ! grep -v "^#" res/codegen.log
	'

	test_expect_success 'the same guest at -Os fails, naming the function and the instruction' '
		{ merged "$TOP/build/kernel.config" "$TOP/build/distro.config" |
			grep -v "^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=" && echo CONFIG_CC_OPTIMIZE_FOR_SIZE=y; } >frag &&
		FRAGMENT=$SCRATCH/frag KUNIT=0 CHECKS_ONLY=codegen expect_fail $CHECKS --results res "$BASE" &&
		grep -q "^fail" res/verdict && cat res/codegen.txt &&
		grep -E "^mm/mm_init.o: memmap_init_zone_device: instruction [0-9]+ \(\+0x[0-9a-f]+\) differs: Debian.s .+, the guest.s .+" res/codegen.txt &&
		! grep -q "^layout:" res/codegen.txt &&
		grep -q "\"case\":\"codegen/mm/mm_init.o\"" res/records.jsonl
	'

	test_expect_success 'tinyconfig: the struct page layout differs too, named field by field' '
		FRAGMENT=$TOP/build/kernel.config KUNIT=0 CHECKS_ONLY=codegen expect_fail $CHECKS --results res "$BASE" &&
		cat res/codegen.txt &&
		grep -q "^layout: NR_PAGEFLAGS: Debian.s 24, the guest.s " res/codegen.txt &&
		grep -q "^layout: NODES_WIDTH: Debian.s 10, the guest.s 0$" res/codegen.txt
	'
else
	test_skip 'the distro guest at the base: the same code and layout as Debian' \
		"Debian's configuration cannot be fetched: $(tail -n 1 "$TEST_OUT/codegen-config.err")"
	test_skip 'the same guest at -Os fails, naming the function and the instruction' 'as above'
	test_skip 'tinyconfig: the struct page layout differs too, named field by field' 'as above'
fi

test_expect_success 'KCONFIG=tiny: skipped, and why' '
	KCONFIG=tiny KUNIT=0 CHECKS_ONLY=codegen $CHECKS --results res "$BASE" 2>err; rc=$?; cat err &&
	[ $rc = 0 ] && grep -q "codegen: skipped: KCONFIG=tiny is no distro kernel" res/verdict
'

done_testing
