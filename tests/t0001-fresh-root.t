#!/bin/sh
# A fresh Debian 12 gets everything from 'make deps': in a minimal root
# (mmdebstrap --variant=apt, from this machine's own apt sources), after
# README's first step (apt-get install make git), 'make deps' installs the
# packages of scripts/deps.list, and every dependency of that list does one
# real thing there (scripts/deps-check.sh: a dry run of git send-email, b4
# am of an mbox, a clang+lld link, a QEMU guest, ...).  Skips, with the
# reason, where no root can be made: not root, no mmdebstrap, the archive
# unreachable.  The root tarball and the .debs are cached in
# out/test/fresh-root, so a second run downloads little.
# test-quick: no: a fresh Debian root from the archive (mmdebstrap)
# test-parallel: its own root and its caches (out/test/fresh-root, out/test/t0001), a clone of HEAD
. "$(dirname "$0")/lib.sh"
DEPS=$TOP/scripts/deps.list
n=$(awk '!/^#/ && NF' "$DEPS" | wc -l)
# the download cache stays in the suite's own scratch area, between runs
FRESH_ROOT_CACHE=${FRESH_ROOT_CACHE:-$TEST_OUT/fresh-root}
export FRESH_ROOT_CACHE

skip_all() {
	test_skip "a minimal Debian 12 root" "$1"
	test_skip "make deps in it" "$1"
	i=0
	while [ $i -lt "$n" ]; do i=$((i + 1)); test_skip "dependency $i of scripts/deps.list" "$1"; done
	done_testing
	exit
}

LOG=$TEST_OUT/t0001
mkdir -p "$LOG"
rc=0
sh "$TOP/scripts/fresh-root.sh" base >"$LOG/base.log" 2>&1 || rc=$?
[ "$rc" != 77 ] || skip_all "$(tail -n 1 "$LOG/base.log")"
[ "$rc" = 0 ] && test_result ok "a minimal Debian 12 root (mmdebstrap --variant=apt, this machine's apt sources)" ||
	test_result fail "a minimal Debian 12 root (mmdebstrap --variant=apt)" "$LOG/base.log"

rc=0
sh "$TOP/scripts/fresh-root.sh" run tree \
	'make deps >/tmp/deps.log 2>&1 || { tail -n 40 /tmp/deps.log; echo "make deps failed"; exit 1; }; echo "make deps: ok"; sh scripts/deps-check.sh' \
	>"$LOG/run.log" 2>&1 || rc=$?
[ "$rc" != 77 ] || skip_all "$(tail -n 1 "$LOG/run.log")"
if grep -qx 'make deps: ok' "$LOG/run.log"; then
	test_result ok "make deps in the fresh root installs the packages of scripts/deps.list"
else
	test_result fail "make deps in the fresh root (exit $rc)" "$LOG/run.log"
fi
# one test per dependency, as deps-check.sh decided it in the root
i=0
for name in $(awk '!/^#/ && NF { print $1 }' "$DEPS"); do
	i=$((i + 1))
	line=$(grep -E "^(not )?ok $i - " "$LOG/run.log" | head -n 1)
	case $line in
	"ok $i - $name:"*) test_result ok "fresh root: ${line#ok "$i" - }" ;;
	"not ok $i - "*)
		sed -n "/^not ok $i - /,/^\(not \)\?ok /p" "$LOG/run.log" | sed '$d' >"$LOG/$name.log"
		test_result fail "fresh root: ${line#not ok "$i" - }" "$LOG/$name.log" ;;
	*) test_result fail "fresh root: $name: deps-check.sh gave no result (see $LOG/run.log)" "$LOG/run.log" ;;
	esac
done
done_testing
