# bench/bench-step.sh: the host benchmark step of the pipeline (ci/run.sh,
# its list in ci/steps.sh): bench/run.sh on one commit's copy routines.
# Kind "host-bench": real time on the host, so every commit's runs last,
# alone, once nothing else of the run is left (CI_SCHEDULE=overlap);
# its constants: ci/steps.sh's table.

# make bench (ci/run.sh --view bench): the base and the head unless
# COMMITS=; before the series is applied there is no head: make
# bench-diffs measures the base with the seed diffs instead
step_bench_commits() {
	kgit rev-parse -q --verify "$REF_NS/series^{commit}" >/dev/null || {
		echo "$PROG: series: $REF_NS/series is not set: run 'make apply', give COMMITS=..., or measure the base with the seed diffs: make bench-diffs" >&2
		return 1
	}
	echo base head
}

# step_bench_report DIR...: where each commit's tables and records are
# (its tables were shown as it ran)
step_bench_report() {
	for bh_d; do
		bh_c=${bh_d%/*}
		printf '%.12s: %s, %s\n' "${bh_c##*/}" "$bh_d/tables.txt" "$bh_d/records.jsonl"
	done
}

# bench/run.sh --check: BENCH_ARGS as copy-bench parses them, then the
# options and the versions of the compiler and perf
step_bench_check() {
	BENCH_ARGS=$BENCH_ARGS sh "$TOP/bench/run.sh" --check
}

step_bench_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_bench?ci/run.sh: step_bench_check did not run}"
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash "$TOP/bench/bench-step.sh" "$BIN/copy-bench" $(scripts_of "$TOP/bench/run.sh") \
		$(find "$TOP/bench/kernel" "$TOP/bench/shim" -type f 2>/dev/null | LC_ALL=C sort)
}

# the copy routines are built from the commit's files
step_bench_content() {
	echo "tree $(tree_of "$1")"
}

step_bench_run() {
	COMMITS=$1 BENCH_ARGS=$BENCH_ARGS sh "$TOP/bench/run.sh" --results "$2"
}

