# report/report-lib.sh: the report of a set of records, made one way for a
# run here (ci/run.sh, make report) and for a committed set
# (report/report-set.sh, make report RESULTS=<set>).  Sourced after
# scripts/lib.sh; reads GATE_PCT, GATE_PCT_TCG, GATE_PCT_ICOUNT, GATE_ACK,
# GATE_ONLY, COSTS, CEILINGS and PATCHES, and from make kcidb (report/kcidb.sh)
# KCIDB_OUT and KCIDB_PATCHSETS.

# The gate's settings, their defaults here only ('-': given empty, they
# are refused by the caller's check, not taken as the default; ':-': make
# exports GATE_ACK and GATE_ONLY empty when they are not given)
GATE_PCT=${GATE_PCT-5}
# TCG with a wall clock: boots drift apart by 10-18% here (doc/measurements.md)
GATE_PCT_TCG=${GATE_PCT_TCG-25}
GATE_PCT_ICOUNT=${GATE_PCT_ICOUNT-1}
GATE_ACK=${GATE_ACK:-$TOP/ci/gate-ack.txt}
GATE_ONLY=${GATE_ONLY:-bench-vm/*/rebind/memmap_init_ms}

# report_make DEST COMMITS SERIES RECORD...: ci-report of the RECORDs
# (result directories or .jsonl files) of the commits COMMITS lists
# ("ID<TAB>SUBJECT", base first; SERIES: the whole series, what a gate
# acknowledgement may name) into DEST: report.txt, report.md,
# report.json and plots/, drawn by gnuplot; report.txt printed.  Sets
# rrc (ci-report's exit), made (empty when no new report.txt was
# written: the files in DEST are the last whole ones) and plots_ok
# (empty when a plot could not be drawn).
# shellcheck disable=SC2034 # rrc, made, plots_ok: the caller's
report_make() {
	rm_dest=$1 rm_commits=$2 rm_series=$3
	shift 3
	rm_n=$#
	# the options after the records for now (the records are the
	# caller's words), split on blanks, but no pathname expansion of the
	# globs; moved in front of them below
	set -f
	for g in $GATE_ONLY; do set -- "$@" --gate-only "$g"; done
	set +f
	# The CPUs' cost tables (make costs; lib/costs.h): every one in
	# results/ and the newest in $OUT/costs, or COSTS='FILE...' (none: no
	# prediction; a list split on blanks: a path with one is given by a
	# link to it)
	if [ -z "${COSTS:-}" ]; then
		rm_newest=
		for t in "$OUT"/costs/run-*/cost-table.jsonl; do [ ! -f "$t" ] || rm_newest=$t; done
		for t in "$TOP"/results/*/cost-table.jsonl; do [ ! -f "$t" ] || set -- "$@" --costs "$t"; done
		[ -z "$rm_newest" ] || set -- "$@" --costs "$rm_newest"
	elif [ "$COSTS" != none ]; then
		set -f
		for t in $COSTS; do
			[ -f "$t" ] || die "COSTS: '$t' is not a file (a cost-table.jsonl of make costs, or none; a list split on blanks)"
			set -- "$@" --costs "$t"
		done
		set +f
	fi
	# This CPU's measured ceilings for the claims' limits: the
	# records of the newest make costs here, or CEILINGS=FILE (none: none)
	case ${CEILINGS:-} in
	'')
		rm_newest=
		for t in "$OUT"/costs/run-*/records.jsonl; do [ ! -f "$t" ] || rm_newest=$t; done
		[ -z "$rm_newest" ] || set -- "$@" --ceilings "$rm_newest"
		;;
	none) ;;
	*)
		[ -f "$CEILINGS" ] || die "CEILINGS: '$CEILINGS' is not a file (make costs' records.jsonl, or none)"
		set -- "$@" --ceilings "$CEILINGS"
		;;
	esac
	rm_i=0
	while [ "$rm_i" -lt "$rm_n" ]; do
		set -- "$@" "$1"
		shift
		rm_i=$((rm_i + 1))
	done
	progress report "ci-report: $rm_dest/report.txt, report.md, report.json, plots/"
	# ci-report writes its files aside and renames them in when all are
	# whole: a report that could not be made leaves the last one as it
	# was.  A new report.txt is a new file (inode) whatever the clock's
	# resolution.
	rm_before=$(inode_of "$rm_dest/report.txt")
	rrc=0
	"$BIN/ci-report" --commits "$rm_commits" --text "$rm_dest/report.txt" \
		--markdown "$rm_dest/report.md" --json "$rm_dest/report.json" --plots "$rm_dest/plots" \
		${KCIDB_OUT:+--kcidb "$KCIDB_OUT" --kcidb-patchsets "$KCIDB_PATCHSETS"} \
		--gate-pct "$GATE_PCT" --gate-pct-tcg "$GATE_PCT_TCG" --gate-pct-icount "$GATE_PCT_ICOUNT" \
		${GATE_ACK:+--gate-ack "$GATE_ACK"} --gate-series "$rm_series" \
		--series "${PATCHES:-$TOP/patches}/series" \
		"$@" || rrc=$?
	made=$(inode_of "$rm_dest/report.txt")
	[ "$made" != "$rm_before" ] || made=
	plots_ok=1
	if [ -z "$made" ]; then
		plots_ok=
	elif command -v gnuplot >/dev/null; then
		cat "$rm_dest/report.txt"
		for gp in "$rm_dest"/plots/*.gp; do
			[ -f "$gp" ] || continue
			(cd "$rm_dest/plots" && gnuplot "$(basename "$gp")") 2>"$gp.err" || {
				warn "plots: gnuplot failed on $gp: $(head -n 3 "$gp.err" | tr '\n' ' ')"
				plots_ok=
			}
		done
	else
		cat "$rm_dest/report.txt"
		warn "plots: gnuplot is not installed (Debian gnuplot-nox; run 'make deps'): the scripts are in $rm_dest/plots, no images"
		plots_ok=
	fi
}

# set_report_dir SET: the directory of a committed set's report:
# REPORT_OUT, else $OUT/report/<the set's path below results/, / as ->
set_report_dir() {
	if [ -n "${REPORT_OUT:-}" ]; then
		printf '%s\n' "$REPORT_OUT"
		return
	fi
	srd_name=$(realpath -m --relative-to="$TOP/results" "$1")
	case $srd_name in ../* | /*) srd_name=$(basename "$1") ;; esac
	srd_name=$(printf '%s' "$srd_name" | tr '/' '-')
	case $srd_name in '' | . | *[!A-Za-z0-9._+-]*) die "RESULTS: '$1' gives no name of [A-Za-z0-9._+-] for its report directory (set REPORT_OUT=DIR)" ;; esac
	printf '%s\n' "$OUT/report/$srd_name"
}

# report_check: the gate's settings, each refused by name (exit 2) before
# anything is written
report_check() {
	for rc_v in GATE_PCT GATE_PCT_TCG GATE_PCT_ICOUNT; do percent "$rc_v"; done
	[ -r "$GATE_ACK" ] || die "gate: GATE_ACK: $GATE_ACK is not a readable file (the maintainers' acknowledgements, default ci/gate-ack.txt)"
}

# percent VAR: a non-negative decimal number, all of its text (5, 2.5):
# the gate's threshold; "-1", "0x10", "1e" or "" would be no threshold
percent() {
	pv=
	eval "pv=\${$1}"
	case $pv in
	'' | . | *[!0-9.]* | *.*.*)
		usage_die "$1: '$pv' is not a percent: a non-negative decimal number, e.g. 5 or 2.5" ;;
	esac
}

# inode_of FILE: its inode number, empty when there is none
inode_of() {
	# shellcheck disable=SC2012 # ls -i: the one portable way to an inode
	ls -i "$1" 2>/dev/null | awk '{ print $1 }'
}
