#!/bin/sh
# report/merge-job.sh: the workflow's merge job (.github/workflows/ci.yml),
# after the CPUs' ci jobs: make merge of the records they uploaded into
# DIR (an artifact a directory), when there are any.  None (every ci job
# stopped before its upload, and said why): said, nothing installed or
# made, exit 0.  Else the packages make merge needs (make deps-merge), then
# make merge RESULTS=DIR.  tests/t0661 runs the job's steps, this among
# them, in a fresh Debian 12 root.
#
#   merge-job.sh DIR
set -eu
PROG=merge-job
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

[ $# = 1 ] || usage_die "merge-job.sh DIR (the ci jobs' artifacts)"
if [ ! -d "$1" ] || [ -z "$(find "$1" -name '*.jsonl' -type f | head -n 1)" ]; then
	progress merge "nothing to merge: no ci job uploaded records into $1"
	exit 0
fi
dir=$(cd "$1" && pwd) || die "inputs: cannot enter $1"
make -C "$TOP" --no-print-directory deps-merge
make -C "$TOP" --no-print-directory merge RESULTS="$dir"
