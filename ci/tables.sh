# ci/tables.sh: the run's tables from the outcomes: the summary (a word
# per commit and step) and where the time went.  Sourced by ci/run.sh.
# POSIX sh.
# shellcheck disable=SC2154 # commits, bg_vm: ci/run.sh's; up_now: lib.sh's uptime_s

# the summary and the time table, from the outcomes (lib.sh:
# write_file: each written whole, a link at its name replaced)
summary_table() {
	printf '%-12s' commit
	for s in $CI_STEPS; do printf ' %-10s' "$s"; done
	echo
	for c in $commits; do
		printf '%-12.12s' "$c"
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" || ow=lost
			printf ' %-10s' "$ow"
		done
		echo
	done
}
times_table() {
	echo "Where the time went (seconds; 0: up to date; schedule $CI_SCHEDULE, ${GUEST_STEP:-guests} in the background: $([ "$bg_vm" = 1 ] && echo yes || echo no)):"
	printf '%-12s' commit
	for s in $CI_STEPS; do printf ' %9s' "$s"; done
	echo
	for c in $commits; do
		printf '%-12.12s' "$c"
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" || osec=-
			printf ' %9s' "$osec"
		done
		echo
	done
	printf '%-12s' total
	for s in $CI_STEPS; do
		tt=0
		for c in $commits; do
			outcome_of "$c" "$s" || continue
			case $osec in '' | *[!0-9]*) ;; *) tt=$((tt + osec)) ;; esac
		done
		printf ' %9s' "$tt"
	done
	echo
	uptime_s && echo "wall clock: $((up_now - T_START)) s"
}

# tables_write: after the steps, the time table ($times_last, and
# times.txt when the run did work: did_work), the failed and skipped
# steps (failed, skipped: "COMMIT:STEP" words) and the summary ($summary,
# also on stderr)
tables_write() {
	write_file "$times_last" times_table ||
		die "run: cannot write $times_last (disk full?)"
	# times.txt: the last run that did work; a rerun with every step
	# up to date (a table of zeros) leaves it and has times-last.txt only
	did_work=
	for c in $commits; do
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" && [ "$ow" = same ] || did_work=1
		done
	done
	if [ -z "$view" ] && { [ -n "$did_work" ] || [ ! -f "$CI_OUT/times.txt" ]; }; then
		write_file "$CI_OUT/times.txt" cat "$times_last" ||
			die "run: cannot write $CI_OUT/times.txt (disk full?)"
	fi
	for c in $commits; do
		for s in $CI_STEPS; do
			outcome_of "$c" "$s" || ow=lost
			short_of "$c"
			case $ow in
			skipped) skipped="$skipped $short:$s" ;;
			FAIL | lost) failed="$failed $short:$s" ;;
			esac
		done
	done
	write_file "$summary" summary_table || die "run: cannot write $summary (disk full?)"
	cat "$summary" >&2
}
