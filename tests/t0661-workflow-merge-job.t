#!/bin/sh
# The workflow's merge job, run as its container would run it: its steps,
# read from .github/workflows/ci.yml in order, in a fresh minimal Debian 12
# root (scripts/fresh-root.sh: the working tree without kernel-tree/, as
# the checkout without submodules), with the actions it uses
# stood in for (checkout: that tree; download-artifact: the ci jobs'
# artifacts, one directory each; upload-artifact: its path must be there).
# First with no artifact (every ci job stopped early): nothing installed or
# merged, and the job passes; then with one CPU's records: make deps-merge
# installs what make merge needs and the table is made.  A step this test
# cannot stand in for fails it: a job that cannot run fails here first.
# Skips, with the reason, where no root can be made (t0001).
# test-quick: no: a fresh Debian root from the archive (mmdebstrap)
# test-parallel: its own root and scratch; the shared root cache (out/test/fresh-root)
. "$(dirname "$0")/lib.sh"
WF=$TOP/.github/workflows/ci.yml
SET=$TOP/results/2026-12-05-series-v3-distro/vm-icount-100G
FRESH_ROOT_CACHE=${FRESH_ROOT_CACHE:-$TEST_OUT/fresh-root}
export FRESH_ROOT_CACHE

# job_script: the merge job's steps as one sh script; its $1 is the
# directory of the artifacts the download step finds
job_script() {
	python3 - dump <<-\EOP
	import collections, sys
	steps = collections.defaultdict(dict)
	for line in open(sys.argv[1]):
	    path, _, val = line.rstrip("\n").partition("\t")
	    p = path.split("/")
	    if p[:3] == ["jobs", "merge", "steps"]:
	        steps[int(p[3])]["/".join(p[4:])] = val
	out = ["set -e", "art=$1", "cd /src"]
	for i in sorted(steps):
	    s = steps[i]
	    use = s.get("uses")
	    if "if" in s:
	        sys.exit(f"step {i}: its if: ({s['if']}) is not stood in for here: teach t0661")
	    if "run" in s:
	        out.append(s["run"])
	    elif use == "actions/checkout@v4":
	        out.append(": checkout: /src is the tree, without kernel-tree/")
	    elif use == "actions/download-artifact@v4" and s.get("with/pattern") == "ci-*":
	        d = s["with/path"]
	        # each artifact of the pattern in a directory of its name
	        out.append(f'rm -rf {d} && mkdir -p {d} && cp -R "$art"/. {d}/')
	    elif use == "actions/upload-artifact@v4" and s.get("with/if-no-files-found") == "ignore":
	        out.append(f': upload: {s["with/path"]}, when there')
	    else:
	        sys.exit(f"step {i}: {dict(s)} is not stood in for here: teach t0661 what it does")
	print("\n".join(out))
	EOP
}

LOG=$TEST_OUT/t0661
rm -rf "$LOG" && mkdir -p "$LOG" || bail "cannot make $LOG"

test_expect_success 'the merge job: a bare debian:12 container, steps this test can stand in for' '
	yaml_dump "$WF" >dump &&
	grep -q "^jobs/merge/container	debian:12$" dump &&
	grep -q "^jobs/merge/runs-on	ubuntu-latest$" dump &&
	job_script >"$LOG/job.sh" && cat "$LOG/job.sh" &&
	grep -q "^sh report/merge-job.sh results$" "$LOG/job.sh"
'

C=$LOG/copy
[ -s "$LOG/job.sh" ] || bail "no job script: test 1 says why"
rm -rf "$C" && mkdir -p "$C/none" "$C/artifacts/ci-amd-epyc" && cp "$LOG/job.sh" "$C/job.sh" &&
	cp -R "$SET/." "$C/artifacts/ci-amd-epyc/" || bail "cannot make the root's inputs in $C"
rc=0
FRESH_ROOT_COPY=$C sh "$TOP/scripts/fresh-root.sh" run tree '
	sh /copy/job.sh /copy/none >/tmp/none.log 2>&1 || { cat /tmp/none.log; echo "job without records: failed"; exit 1; }
	cat /tmp/none.log
	[ ! -e out/merge ] && ! dpkg -s libgsl-dev >/dev/null 2>&1 && echo "job without records: ok"
	sh /copy/job.sh /copy/artifacts >/tmp/recs.log 2>&1 || { tail -n 40 /tmp/recs.log; echo "job with records: failed"; exit 1; }
	tail -n 5 /tmp/recs.log
	cut -f1 results/ci-amd-epyc/commits.txt >/tmp/want
	grep -o "^| bench-vm.nd_pmem/rebind.bind_us (us) | [0-9a-f]* |" out/merge/merge.md |
		cut -d" " -f5 >/tmp/got
	cut -c1-12 /tmp/want | cmp -s - /tmp/got && echo "job with records: ok, a row per commit"
' >"$LOG/run.log" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
	test_skip "the merge job without records, in a fresh root" "$(tail -n 1 "$LOG/run.log")"
	test_skip "the merge job with a CPU's records, in a fresh root" "$(tail -n 1 "$LOG/run.log")"
	done_testing
	exit
fi
if grep -qx "job without records: ok" "$LOG/run.log" && grep -q "nothing to merge: no ci job uploaded records into results" "$LOG/run.log"; then
	test_result ok "the merge job without records, in a fresh root: nothing installed or merged, it passes"
else
	test_result fail "the merge job without records, in a fresh root (exit $rc)" "$LOG/run.log"
fi
if grep -qx "job with records: ok, a row per commit" "$LOG/run.log"; then
	test_result ok "the merge job with a CPU's records, in a fresh root: make deps-merge, then the table, a row per commit"
else
	test_result fail "the merge job with a CPU's records, in a fresh root (exit $rc)" "$LOG/run.log"
fi
done_testing
