#!/bin/sh
# coverage.sh: run test files against the C tools built with --coverage
# (make coverage builds them into $COV/bin first) and report which lines
# and branches of our C they ran.
#
#   COV=out/coverage [TESTS='tests/t0500-....t ...'] sh scripts/coverage.sh
#
# TESTS: the test files; by default those that exercise the C tools and
# build no kernel and boot no guest (DEFAULT_TESTS below; the suite's
# kernel-building, VM and timing tests would take most of an hour).  The
# tests run with BIN=$COV/bin and their own TEST_OUT ($COV/test) and refs
# (refs/x86-copy-series-test-coverage), as a second run of the suite would.
# Counters start from zero each run.  Writes into $COV:
#   prove.log      the tests' output
#   summary.txt    line and branch coverage per C file of lib/, ci/ and
#                  tools/, and per directory (all our C directories)
#   summary.json   gcovr's JSON summary of every file
#   html/index.html  gcovr's annotated sources
# Exit 1 when a test file failed (the report is written all the same) or
# the report cannot be made.
set -eu
. "$(dirname "$0")/lib.sh"
PROG=coverage

COV=${COV:-$OUT/coverage}
DEFAULT_TESTS='t0005-kernel-tree t0010-series-parse t0011-tools-errors t0030-apply t0070-export
t0071-range-diff t0072-repin t0073-trailers t0074-send t0075-write-errors
t0310-bench-vm-parse t0394-bench-vm-model-host t0396-bench-vm-model-user
t0400-bench-variants t0401-bench-selftest-guards
t0440-cost-fit t0500-changelog-lint t0610-ci-stats t0611-stats-reference
t0620-ci-report t0622-claims-series t0623-claims-lint t0626-ci-report-model
t0627-ci-report-predict t0645-kcidb t0646-html t0647-limits
t0630-ci-gate t0632-gate-inputs t0640-ci-merge t0642-merge-agree t0658-ci-reuse
t0680-records-read t0682-records-errors t0685-bench-vm-report t0700-reply'

cd "$TOP"
command -v gcovr >/dev/null ||
	die "report: gcovr is missing: run 'make deps' (or: apt-get install gcovr)"
[ -x "$COV/bin/series-check" ] && [ -n "$(find "$COV" -name '*.gcno' | head -n 1)" ] ||
	die "build: no instrumented tools in $COV/bin: run 'make coverage'"
tests=${TESTS:-}
if [ -z "$tests" ]; then
	for t in $DEFAULT_TESTS; do
		tests="$tests tests/$t.t"
	done
fi
for t in $tests; do
	[ -f "$t" ] || die "tests: '$t' is not a test file (TESTS=tests/tNNNN-name.t ...)"
done

find "$COV" -name '*.gcda' -exec rm -f {} + ||
	die "counters: cannot remove the old .gcda files under $COV"
# (the report's files and logs removed first: each is written anew, and
# a link left at one of their names is not written through)
rm -rf "$COV/html" "$COV/summary.txt" "$COV/summary.json" "$COV/prove.log" "$COV/gcovr.log"
mkdir -p "$COV/html" "$COV/test" || die "report: cannot create $COV/html"

start=$(date +%s)
# shellcheck disable=SC2086 # the test files, a word each
set -- $tests
progress coverage "running $# test files against $COV/bin (log: $COV/prove.log)"
rc=0
# shellcheck disable=SC2086 # the test files, a word each
BIN=$COV/bin TEST_OUT=$COV/test TEST_REF_NS=refs/x86-copy-series-test-coverage \
	prove $tests >"$COV/prove.log" 2>&1 || rc=$?
took=$(($(date +%s) - start))
failed=$(sed -n 's/^\(tests\/t[^ ]*\.t\) *(Wstat.*/\1/p' "$COV/prove.log" | tr '\n' ' ')

# every C file of ours that a tool was built from.  A counter file can
# hold a count gcov reads as negative (a forked child and its parent both
# writing it, seen in lib/mbox.c): gcovr then stops on a parse error, and
# with -j 2 it hangs instead of exiting.  Those lines are skipped, and the
# summary says how many.
gcovr --root "$TOP" --object-directory "$COV" -j 2 --gcov-ignore-parse-errors \
	-f "$TOP/lib/" -f "$TOP/series/" -f "$TOP/report/" -f "$TOP/review/" -f "$TOP/tools/" \
	-f "$TOP/checks/" \
	-f "$TOP/bench/" -f "$TOP/bench-vm/" \
	--html-details "$COV/html/index.html" --json-summary "$COV/summary.json" \
	>"$COV/gcovr.log" 2>&1 ||
	die "report: gcovr failed: $(tail -n 3 "$COV/gcovr.log" | tr '\n' ' ')"

python3 - "$COV/summary.json" "$took" "$tests" >"$COV/summary.txt" <<'PY' ||
import json, sys, textwrap

files = json.load(open(sys.argv[1]))["files"]


def pct(c, t):
    return "%5.1f%%" % (100.0 * c / t) if t else "    -"


def row(name, lc, lt, bc, bt):
    return "%-34s %6d/%-6d %s   %6d/%-6d %s" % (name, lc, lt, pct(lc, lt), bc, bt, pct(bc, bt))


tests = sys.argv[3].split()
print("C coverage of %d test files (they took %s s):" % (len(tests), sys.argv[2]))
print(textwrap.fill(" ".join(t.replace("tests/", "") for t in tests), 78, break_on_hyphens=False,
                    initial_indent="  ", subsequent_indent="  "))
print()
print("%-34s %13s %6s   %13s %6s" % ("file", "lines", "", "branches", ""))
dirs = {}
for f in sorted(files, key=lambda f: f["filename"]):
    name = f["filename"]
    d = name.split("/")[0] + "/"
    s = dirs.setdefault(d, [0, 0, 0, 0])
    k = (f["line_covered"], f["line_total"], f["branch_covered"], f["branch_total"])
    for i in range(4):
        s[i] += k[i]
    if d in ("lib/", "ci/", "tools/"):
        print(row(name, *k))
print()
print("per directory")
for d in sorted(dirs):
    print(row(d, *dirs[d]))
PY
	die "report: cannot summarize $COV/summary.json"
skipped=$(grep -c -i 'parse error\|negative' "$COV/gcovr.log" || true)
if [ "$skipped" != 0 ]; then
	printf '\n%s\n' "gcovr skipped $skipped line(s) of gcov output it could not parse (negative counts: see $COV/gcovr.log); the figures above leave them out" >>"$COV/summary.txt" ||
		die "report: cannot write $COV/summary.txt"
fi
cat "$COV/summary.txt"
progress coverage "tests took ${took}s; report: $COV/summary.txt, $COV/html/index.html"
[ "$rc" = 0 ] || die "tests: failed (the report counts what ran): ${failed:-see $COV/prove.log}"
