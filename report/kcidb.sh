#!/bin/sh
# report/kcidb.sh: make kcidb: a run's records as KCIDB v5.3 JSON
# (KernelCI's common results schema: report/out-kcidb.c says what goes
# where), validated offline against the schema kept in report/kcidb/.
#
#   kcidb.sh [SET]
# Without SET: the records of the run here (out/ci; CI_QUICK=1: out/quick),
# through make report's way (ci/run.sh --report-only); with SET, a
# committed result set's (report/report-set.sh).  The file goes to
# KCIDB_OUT (default $OUT/kcidb/kcidb.json), whole or not at all.
#
# A checkout is the base and the series' patches up to its commit
# (patchset_hash as KCIDB defines it: the sha256 of the patch files'
# sha256 lines) only where that is checked: the commit is in the kernel
# tree, its parent is the commit before it, and its diff is its patch
# file's (git patch-id).  From the first commit where that cannot be
# said, a checkout names its own commit, with no patchset, and this
# script says why.
# Exit: 0; 1 an error, a file that does not validate, or what the report
# itself exits 1 for (a regression over the gate: in the file as an
# issue); 2 usage.
set -eu
PROG=kcidb
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
kernel_settings_check
# shellcheck source=report-lib.sh
. "$TOP/report/report-lib.sh"

[ $# -le 1 ] || usage_die "make kcidb [RESULTS=<set>] [KCIDB_OUT=FILE] (one set: a directory of <commit>.jsonl files and commits.txt)"
set=${1:-}
SCHEMA=$TOP/report/kcidb/schema-v5.3.json
VALIDATE=$TOP/report/kcidb/validate.py
# Debian's python3-jsonschema is for Debian's python3, not another on PATH
PY=/usr/bin/python3
tool_built series-check
"$PY" -c 'import jsonschema' 2>/dev/null ||
	die "validate: $PY cannot import jsonschema: install Debian's python3-jsonschema ('make deps')"

if [ -n "$set" ]; then
	set=${set%/}
	commits=$set/commits.txt
	[ -f "$commits" ] || die "RESULTS: $set holds no commits.txt: not a result set (make report RESULTS= says more)"
else
	# (ci/run.sh's own rule)
	if [ -n "${CI_QUICK:-}" ]; then ci_out=${CI_OUT:-$OUT/quick}; else ci_out=${CI_OUT:-$OUT/ci}; fi
	commits=$ci_out/commits.txt
	[ -f "$commits" ] || die "records: $commits is missing: no run here to describe (run 'make' or 'make ci' first, or give RESULTS=<set>)"
fi

KCIDB_OUT=${KCIDB_OUT:-$OUT/kcidb/kcidb.json}
case $KCIDB_OUT in */) die "KCIDB_OUT: '$KCIDB_OUT' names a directory: name the file" ;; esac
kcidb_dir=$(dirname "$KCIDB_OUT")
mkdir -p "$kcidb_dir" || die "output: cannot create $kcidb_dir"
KCIDB_OUT=$(cd "$kcidb_dir" && pwd -P)/$(basename "$KCIDB_OUT")
stage_make "$kcidb_dir" kcidb "the patchsets of make kcidb"
trap 'rm -rf "$run_dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
KCIDB_PATCHSETS=$run_dir/patchsets.tsv
export KCIDB_OUT KCIDB_PATCHSETS

# applied_patches: the series' applied patch files, in order, one a line,
# as series-check (the one reader of patches/series) lists them
applied_patches() {
	ap_dir=${PATCHES:-$TOP/patches}
	ap_list=$("$BIN/series-check" "$ap_dir/series") ||
		die "patches: $ap_dir/series does not read (series-check, above)"
	printf '%s\n' "$ap_list" | awk -F '\t' -v d="$ap_dir" '$1 == "applied" { print d "/" $2 }'
}

# patch_id: the stable patch id of the diff on stdin
patch_id() {
	git patch-id --stable | awk '{ print $1; exit }'
}

# The checked patchsets: "COMMIT BASE SHA256 PATCH" (tabs), one per
# commit after the base, as far as each is checked
: >"$KCIDB_PATCHSETS"
tab=$(printf '\t')
base=$(awk -F '\t' 'NR == 1 { print $1 }' "$commits")
prev=$base
hashes=$run_dir/hashes
: >"$hashes"
applied_patches >"$run_dir/patches"
k=0
why=
total=$(awk -F '\t' -v b="$base" '$1 != b' "$commits" | wc -l)
while IFS=$tab read -r c subject; do
	[ "$c" != "$base" ] || continue
	k=$((k + 1))
	patch=$(sed -n "${k}p" "$run_dir/patches")
	if [ -z "$patch" ]; then
		why="$k: '$subject' has no applied patch of ${PATCHES:-patches}/series"
	elif ! kgit cat-file -e "$c^{commit}" 2>/dev/null; then
		why="$k: $c is not in the kernel tree (make kernel-tree apply, or KERNEL_TREE=)"
	elif [ "$(kgit rev-parse -q --verify "$c^" 2>/dev/null)" != "$prev" ]; then
		why="$k: the parent of $c is not the commit before it"
	elif [ "$(kgit show --format= "$c" | patch_id)" != "$(patch_id <"$patch")" ]; then
		why="$k: the diff of $c is not $(basename "$patch")'s (git patch-id): the set is of another version of the series"
	fi
	[ -z "$why" ] || break
	sha256sum "$patch" | cut -c-64 >>"$hashes"
	printf '%s\t%s\t%s\t%s\n' "$c" "$base" "$(sha256sum <"$hashes" | cut -c-64)" \
		"$(basename "$patch")" >>"$KCIDB_PATCHSETS"
	prev=$c
done <"$commits"
if [ -n "$why" ]; then
	warn "patchsets: from commit $why; from there on a checkout names its commit, with no patchset"
fi
progress kcidb "$(wc -l <"$KCIDB_PATCHSETS") of $total commits after the base checked against their patches"

before=$(inode_of "$KCIDB_OUT")
rc=0
if [ -n "$set" ]; then
	sh "$TOP/report/report-set.sh" "$set" || rc=$?
else
	sh "$TOP/ci/run.sh" --report-only || rc=$?
fi
kept=
[ -z "$before" ] || kept="; $KCIDB_OUT is an earlier run's, left whole"
[ "$(inode_of "$KCIDB_OUT")" != "$before" ] ||
	die "not written: the report exited $rc (the error is above)$kept"
"$PY" "$VALIDATE" "$SCHEMA" "$KCIDB_OUT" || die "$KCIDB_OUT does not validate (above): a fault of ci-report's KCIDB output (report/out-kcidb.c)"
[ "$rc" = 0 ] || printf '%s: the report exited %s (above); its gate regressions are the issues in %s\n' \
	"$PROG" "$rc" "$KCIDB_OUT" >&2
exit "$rc"
