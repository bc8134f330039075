# checks/findings.sh: a finding's severity (the CHECKS table's errors
# column), its record, and the lists of new findings and new errors of the
# commit.  Sourced by checks/checks.sh; POSIX sh.
# shellcheck disable=SC2154 # c, d, CHECKS: checks.sh's, set for the commit

# severity_of CHECK FINDING: error or warning, by the CHECKS table's errors
# column of CHECK.  codegen's are all errors: a guest whose measured code
# is not a distro kernel's measures another binary, every figure of it
# would be.  The kernel's coccinelle rules say ERROR or WARNING, ours
# error or warning.
severity_of() {
	so_rule=$(printf '%s\n' "$CHECKS" | awk -v n="$1" '$1 == n { print $3 }')
	case $so_rule:$2 in
	all:*) echo error ;;
	ERROR:*": ERROR"[:\ !]* | ERROR:*": error"[:\ !]*) echo error ;;
	error:*": error: "* | error+types:*": error: "*) echo error ;;
	error+types:*"address space"* | error+types:*"different base types"*) echo error ;;
	ERROR:* | error:* | error+types:*) echo warning ;;
	*) die "checks: '$1' has no errors rule in the CHECKS table ('$so_rule')" ;;
	esac
}

# record CASE METRIC UNIT SAMPLE FIELD...: one record of the commit $c
# into $d/records.jsonl.tmp (renamed in when the commit is checked)
# (with the build of the commit that make build made, when there is one:
# the configuration sparse, clang and codegen checked it in)
record() {
	r_case=$1 r_metric=$2 r_unit=$3 r_sample=$4
	shift 4
	r_build=$(cat "$OUT/build/$c/build-id.json" 2>/dev/null || true)
	"$BIN/record-write" --to "$d/records.jsonl.tmp" --suite checks --case "$r_case" \
		--metric "$r_metric" --unit "$r_unit" --commit "$c" \
		${r_build:+--json "build=$r_build"} "$@" "$r_sample" ||
		die_rc $? "records: $d/records.jsonl cannot be written"
}

# with_lines NEW LINES: the findings of NEW (compared without lines) as
# LINES has them, "<finding> (line N)"
with_lines() {
	# (FILENAME, not NR == FNR: NEW is empty when nothing is new)
	awk 'FILENAME == ARGV[1] { want[$0] = 1; next }
		{ k = $0; sub(/ \(line [0-9]+\)$/, "", k); if (k in want) { print; delete want[k] } }
		END { for (k in want) print k }' "$1" "$2" | LC_ALL=C sort
}

# finding_records CHECK NEW FILE: a record per finding of FILE (NEW: true,
# the commit adds it; false, its parent has it too); the new errors go
# to $d/new-errors, every new finding to $d/new-findings
finding_records() {
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		sev=$(severity_of "$1" "$f")
		record "$1/${f%%: *}" finding count 1 --field check="$1" --field severity="$sev" \
			--json new="$2" --field message="$f"
		[ "$2" = true ] || continue
		echo "$1: $f" >>"$d/new-findings"
		[ "$sev" = warning ] || echo "$1: $f" >>"$d/new-errors"
	done <"$3"
}
