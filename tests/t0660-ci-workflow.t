#!/bin/sh
# .github/workflows/ci.yml: it parses as YAML (python3's yaml module, else
# perl's core CPAN::Meta::YAML), has the jobs, the matrix of runner labels
# and the artifact upload, permissions and concurrency, a merge job that
# runs after failed CPUs but not after a cancel or failed tests, and every
# `make TARGET` and `sh SCRIPT` it runs exists here.  (tests/t0661 runs
# the merge job's steps in a fresh Debian 12 root.)
# test-parallel: its scratch directories only: no worktree, ref, build or guest of the run
. "$(dirname "$0")/lib.sh"
WF=$TOP/.github/workflows/ci.yml

test_expect_success 'ci.yml parses; push triggers it; jobs test, ci, merge' '
	yaml_dump "$WF" >dump && cat dump &&
	grep -q "^jobs/test/steps/[0-9]*/run	make test$" dump &&
	grep -q "^jobs/test/container	debian:12$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/run	make GATE_PCT=5$" dump &&
	grep -q "^jobs/merge/steps/[0-9]*/run	sh report/merge-job.sh results$" dump &&
	grep -q "^jobs/merge/if	\${{ !cancelled() && needs.ci.result != .skipped. }}$" dump &&
	grep -q "^permissions/contents	read$" dump &&
	grep -q "^concurrency/group	ci-\${{ github.ref }}$" dump &&
	grep -q "^concurrency/cancel-in-progress	\(True\|1\|true\)$" dump &&
	{ grep -q "^on/push	" dump || grep -q "^True/push	" dump; }
'

test_expect_success 'a matrix over CPU-family runner labels, records uploaded' '
	yaml_dump "$WF" >dump &&
	[ "$(grep -c "^jobs/ci/strategy/matrix/cpu/[0-9]*	" dump)" -ge 2 ] &&
	grep -q "^jobs/ci/runs-on/[0-9]*	self-hosted$" dump &&
	grep -q "^jobs/ci/runs-on/[0-9]*	\${{ matrix.cpu }}$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/uses	actions/upload-artifact@v4$" dump &&
	grep -q "^jobs/ci/steps/[0-9]*/with/path	.*out/ci/" dump
'

test_expect_success 'every make target (make -n) and sh script the workflow runs exists' '
	yaml_dump "$WF" >dump &&
	sed -n "s/^jobs\/.*\/run	\(sudo \)*make *//p" dump >targets && cat targets &&
	[ -s targets ] &&
	while read -r t rest; do
		case $t in ""|*=*) t=all ;; esac
		make -C "$TOP" -n "$t" $rest >/dev/null || { echo "make -n $t fails"; exit 1; }
	done <targets &&
	sed -n "s/^jobs\/.*\/run	sh \([^ ]*\).*/\1/p" dump >scripts && cat scripts &&
	[ -s scripts ] &&
	while read -r s; do
		[ -f "$TOP/$s" ] || { echo "the workflow runs $s, which is not here"; exit 1; }
	done <scripts
'
done_testing
