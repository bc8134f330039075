# ci/step-run.sh: one step of one commit: its inputs and stamp, its
# attempt directory renamed in whole, its outcome ($RUN_DIR/COMMIT.STEP)
# and its log.  Sourced by ci/run.sh; reads the driver's globals (CI_OUT,
# RUN_DIR, commits, n, bg_vm, T0, T_START).  POSIX sh.
# shellcheck disable=SC2034,SC2154 # the driver's globals (n, key, fn, up_now: ci/run.sh, lib.sh), and ow/osec set for the caller

# outcome_of COMMIT STEP: sets ow and osec, the word and seconds of the
# step's outcome in this run (outcome_write); false when there is none.
# A read, no process: the tables ask it for every commit and step.
outcome_of() {
	ow='' osec=''
	read -r ow osec 2>/dev/null <"$RUN_DIR/$1.$2" || [ -n "$ow" ]
}

# short_of ID: sets short, its first 12 characters (printf %.12s), no
# process
short_of() {
	case $1 in
	????????????*) short=${1%"${1#????????????}"} ;;
	*) short=$1 ;;
	esac
}

# inputs STEP COMMIT: sets inputs, what the step's result on the commit
# depends on, and hash, their sha256 (what its stamp holds): the one
# reading of both for the plan and for run_step
inputs() {
	fn_of "$1"
	inputs=$("step_${fn}_inputs" "$2") ||
		die "$1: the inputs of $(printf %.12s "$2") cannot be read"
	hash=$(printf '%s\n' "$inputs" | sha256sum) && hash=${hash%% *}
}

# A step's outcome, for the summary, the estimate and the time table:
# $RUN_DIR/<commit>.<step>: "WORD SECONDS" (ok, same, skipped, FAIL)
outcome_write() {
	printf '%s %s\n' "$3" "$4" | write_file "$RUN_DIR/$1.$2" ||
		die "run: cannot write $RUN_DIR/$1.$2 (disk full?)"
}

# log_view LOG: the output of a step (stdin) into LOG and, indented, onto
# stderr, until the step's last word.  Ctrl-C (INT to the foreground
# group) and the TERM that stops the guest queue reach the view too: a
# view that died first would cut LOG before the step's last line (the
# "interrupted" one) and kill the step with SIGPIPE in its cleanup
# (bench-vm/run.sh: the NVDIMM files left in /dev/shm).  So both ignore
# them and end when the step has ended; tee -p writes on into LOG when
# stderr is gone (the sed of the view dead).
log_view() {
	(trap '' INT TERM HUP && exec tee -p "$1") |
		(trap '' INT TERM HUP && exec sed 's/^/    /') >&2
}

# run_step STEP COMMIT I PARENT: the step on the commit, unless its stamp
# says its inputs are those of its last good run; its outcome written.
# The step runs in a directory of its own, $CI_OUT/<commit>/.<step>.attempt
# (a dot: ci-report does not read it), and only a success replaces the
# results of the last good run (those with a stamp) in <step>/: renames,
# the stamp removed first, written last.  A step that fails, is skipped
# or is interrupted leaves the last good results and their stamp as they
# were, its attempt kept aside; with no good run to keep, the attempt
# becomes <step>/ (its partial or error records are the result).
run_step() {
	rs_s=$1 rs_c=$2 rs_i=$3 rs_parent=$4
	fn_of "$rs_s" && rs_f=$fn
	short_of "$rs_c" && rs_short=$short
	rs_dir=$CI_OUT/$rs_c/$rs_s
	rs_stamp=$CI_OUT/$rs_c/$rs_s.stamp
	inputs "$rs_s" "$rs_c"
	rs_inputs=$inputs rs_hash=$hash
	content_key "$rs_s" "$rs_c"
	rs_key=$key
	if stamp_fresh "$rs_stamp" "$rs_hash"; then
		short_of "$rs_hash"
		progress "$rs_i/$n $rs_short" "$rs_s: up to date (inputs $short)"
		outcome_write "$rs_c" "$rs_s" same 0
		rm_there "$CI_OUT/$rs_c/.$rs_s.superseded"
		# results made before keys were kept: their key is this one
		if [ -n "$rs_key" ] && [ ! -f "$rs_dir/key" ]; then
			printf '%s\n' "$rs_key" | write_file "$rs_dir/key" ||
				die "$rs_s: cannot write $rs_dir/key (disk full?)"
		fi
		line_of "$CI_OUT/.keys/$rs_s/$rs_key" ||
			key_write "$rs_s" "$rs_c" "$rs_key"
		rs_where=$rs_dir
		return 0
	fi
	# (made anew: the step writes its files there with a plain >)
	rs_new=$CI_OUT/$rs_c/.$rs_s.attempt
	rs_old=$CI_OUT/$rs_c/.$rs_s.old
	rm_there "$rs_new" "$rs_old" && mkdir -p "$rs_new" &&
		printf '%s\n' "$rs_inputs" >"$rs_new/inputs" &&
		{ [ -z "$rs_key" ] || printf '%s\n' "$rs_key" >"$rs_new/key"; } ||
		die "$rs_s: cannot make $rs_new (disk full?): the results of $rs_short are as they were"
	# kept, but made with other inputs than this run's: marked before the
	# step starts, so that a run killed in it (a power cut) leaves them
	# out of the report as well (a figure of another NS_SIZE beside its
	# parent's would be compared as if it were this run's); a success,
	# or a run that finds them up to date, removes the mark
	[ ! -f "$rs_stamp" ] || write_file "$CI_OUT/$rs_c/.$rs_s.superseded" true ||
		die "$rs_s: cannot write $CI_OUT/$rs_c/.$rs_s.superseded (disk full?)"
	rs_from=$(reuse_source "$rs_s" "$rs_key" "$rs_c") || rs_from=
	if [ -n "$rs_from" ]; then
		progress "$rs_i/$n $rs_short" "$rs_s: the same content as $(printf %.12s "$rs_from"): its results, reused (log: $rs_new/log)"
	else
		progress "$rs_i/$n $rs_short" "$rs_s: start (log: $rs_new/log)"
	fi
	uptime_s && rs_t=$up_now
	# no pipefail in POSIX sh: the status goes around the view.  A reuse
	# that fails (a record refused) says why, and the step runs.
	{
		rc=0
		if [ -z "$rs_from" ] || ! reuse_results "$rs_s" "$rs_from" "$rs_c" "$rs_new"; then
			[ -z "$rs_from" ] || {
				echo "reuse of $rs_from's results failed (above): running the step"
				find "$rs_new" -mindepth 1 ! -name inputs ! -name key -exec rm -rf {} + 2>/dev/null
				rs_from=
			}
			"step_${rs_f}_run" "$rs_c" "$rs_new" "$rs_parent" || rc=$?
		fi
		echo "$rc" >"$rs_new/rc"
	} 2>&1 | log_view "$rs_new/log"
	# (no rc: the step's group was killed before it wrote one, a failure)
	line_of "$rs_new/rc" && rc=$line || rc=1
	uptime_s && rs_t=$((up_now - rs_t))
	echo "$rs_t" >"$rs_new/seconds"
	rs_why=
	[ "$rc" != 3 ] || rs_why=$(cat "$rs_new/skipped" 2>/dev/null || echo "no reason given")
	rs_kept=
	if [ "$rc" = 0 ] || [ ! -f "$rs_stamp" ]; then
		# (stamp first: a kill in between leaves no stamp, never a stamp
		# of other results)
		rm_there "$rs_stamp" &&
			{ [ ! -e "$rs_dir" ] || mv "$rs_dir" "$rs_old"; } &&
			mv "$rs_new" "$rs_dir" && rm_there "$rs_old" &&
			rm_there "$CI_OUT/$rs_c/.$rs_s.superseded" ||
			die "$rs_s: moving $rs_new to $rs_dir failed (the reason is above)"
		rs_where=$rs_dir
	else
		# kept, marked superseded before the step started (above)
		rs_where=$rs_new
		line_of "$rs_stamp" || line=
		short_of "$line"
		rs_kept=" ($rs_dir keeps the last good results, inputs $short)"
	fi
	case $rc in
	0)
		stamp_write "$rs_stamp" "$rs_hash"
		key_write "$rs_s" "$rs_c" "$rs_key"
		if [ -f "$rs_dir/reused-from" ]; then
			outcome_write "$rs_c" "$rs_s" reused "$rs_t"
			line_of "$rs_dir/reused-from" || line=
			short_of "$line"
			progress "$rs_i/$n $rs_short" "$rs_s: reused from $short in ${rs_t}s"
		else
			outcome_write "$rs_c" "$rs_s" ok "$rs_t"
			progress "$rs_i/$n $rs_short" "$rs_s: ok in ${rs_t}s"
		fi ;;
	3)
		outcome_write "$rs_c" "$rs_s" skipped "$rs_t"
		progress "$rs_i/$n $rs_short" "$rs_s: skipped: $rs_why$rs_kept" ;;
	*)
		outcome_write "$rs_c" "$rs_s" FAIL "$rs_t"
		progress "$rs_i/$n $rs_short" "$rs_s: FAILED (exit $rc) after ${rs_t}s: see $rs_where/log$rs_kept" ;;
	esac
	[ -z "$rs_kept" ] ||
		progress "$rs_i/$n $rs_short" "$rs_s: its kept results are not in the report: this run's inputs are others"
}
