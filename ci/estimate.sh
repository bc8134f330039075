# ci/estimate.sh: the plan's seconds per step (an earlier run of the same
# inputs and settings, a commit of the same subject, the step's typical
# figure), why a step is stale, and the time left.  Sourced by ci/run.sh.
# POSIX sh.
# shellcheck disable=SC2154 # the driver's globals (n, fn, inputs, ow, short, up_now: ci/run.sh, step-run.sh, lib.sh)

# typical_seconds STEP COMMIT I: the seconds a step takes on this project's
# 2-core machine, for the estimate when no earlier run of it is known: the
# step's own reckoning (step_<name>_typical COMMIT I), else its constant
# (ci/steps.sh), else a minute
typical_seconds() {
	fn_of "$1" && ts_f=step_${fn}_typical
	if command -v "$ts_f" >/dev/null; then
		"$ts_f" "$2" "$3"
	else
		ts_s=$(step_const "$1" typical)
		echo "${ts_s:-60}"
	fi
}

# settings_of: the lines of a step's inputs (stdin) that are settings
# (NS_SIZE's "ns_size 100G", ...): not its commit, a file's or a tool's hash
settings_of() {
	awk '$1 != "commit" && $1 != "tool" && $1 != "missing" && !(NF == 2 && $1 ~ /^[0-9a-f]+$/)' | sort
}

# ran_seconds COMMIT STEP: sets rsec, the seconds of COMMIT's last good
# run of STEP when the step ran there (not results reused from another
# commit, or a build linked from one: seconds that say nothing of a run)
# with the settings it has now ($inputs: 30 rebinds take longer than 5)
ran_seconds() {
	rsec=
	[ -f "$CI_OUT/$1/$2.stamp" ] && [ ! -e "$CI_OUT/$1/$2/reused-from" ] || return 1
	[ "$(settings_of <"$CI_OUT/$1/$2/inputs" 2>/dev/null)" = "$(printf '%s\n' "$inputs" | settings_of)" ] ||
		return 1
	read -r rsec 2>/dev/null <"$CI_OUT/$1/$2/seconds" || return 1
	case $rsec in '' | *[!0-9]*) rsec= && return 1 ;; esac
	# a build linked from another commit's: built-from (build/build.sh)
	[ ! -e "$CI_OUT/$1/$2/built-from" ] || { rsec= && return 1; }
}

# prior_seconds COMMIT STEP: sets rsec from the newest other commit of
# COMMIT's subject ($CI_OUT/.subjects) whose STEP ran (ran_seconds)
prior_seconds() {
	rsec=
	ps_s=$(awk -F '\t' -v c="$1" '$1 == c { print substr($0, length($1) + 2); exit }' "$CI_OUT/.subjects" 2>/dev/null)
	[ -n "$ps_s" ] || return 1
	for ps_c in $(awk -F '\t' -v c="$1" -v s="$ps_s" '$1 != c && substr($0, length($1) + 2) == s { print $1 }' \
		"$CI_OUT/.subjects" | tac); do
		! ran_seconds "$ps_c" "$2" || return 0
	done
	return 1
}

# stale_why STEP COMMIT: why the step of the commit runs, from the inputs
# inputs() read against those of its last good run: the first line that
# differs ("build/build.sh changed", "settings: kconfig distro")
stale_why() {
	sw_old=$CI_OUT/$2/$1/inputs
	if [ ! -f "$CI_OUT/$2/$1.stamp" ] || [ ! -f "$sw_old" ]; then
		echo "never run"
		return
	fi
	printf '%s\n' "$inputs" | awk -v old="$sw_old" '
		BEGIN { while ((getline l < old) > 0) had[l] = 1 }
		!($0 in had) {
			if (NF == 2 && $1 ~ /^[0-9a-f]+$/) print $2 " changed"
			else if ($1 == "missing") print $2 " is missing"
			else print "now " $0
			found = 1; exit
		}
		END { if (!found) print "an input is gone" }'
}

# plan_lines: the plan, "COMMIT STEP SECONDS RUN KIND WHY" a line: which steps will run (RUN 1:
# their stamps are stale, as run_step sees them) and what each is
# expected to take: its last good run's seconds, else those of the
# commit it replaces (the same subject), else typical ones (a failed
# run's say nothing: it may have failed at once; nor do a reuse's)
plan_lines() {
	i=0
	for c in $commits; do
		i=$((i + 1))
		for s in $CI_STEPS; do
			inputs "$s" "$c"
			content_key "$s" "$c"
			if stamp_fresh "$CI_OUT/$c/$s.stamp" "$hash"; then
				e="0 0" why="up to date"
			elif rsrc=$(reuse_source "$s" "$key" "$c"); then
				e="1 1" why="reused: the same content as $(printf %.12s "$rsrc")"
			else
				why=$(stale_why "$s" "$c")
				if ran_seconds "$c" "$s" || prior_seconds "$c" "$s"; then
					e="$rsec 1"
				else
					e="$(typical_seconds "$s" "$c" "$i") 1"
				fi
			fi
			kind_of "$s"
			printf '%s %s %s %s %s\n' "$c" "$s" "$e" "$kind" "$why"
		done
	done
}

# plan_print: the plan, as --plan shows it without running anything: per
# commit and step, whether it runs and why, its expected seconds (the
# last good run's, else those of the commit of the same subject it
# replaces, else typical ones); then the estimate of the whole
plan_print() {
	awk '{ why = $0; for (i = 1; i <= 5; i++) sub(/^[^ ]+ /, "", why)
		printf "%.12s %-9s %-8s %s\n", $1, $2, $4 == 1 ? ("~" $3 "s") : "-", why }' "$RUN_DIR/plan"
	bg_vm=1
	[ "$CI_SCHEDULE" != serial ] && [ "$CLOCK" != wall ] && [ "$ACCEL" != kvm ] || bg_vm=0
	printf '%s, schedule %s: about %s (earlier runs'"'"' step times, else typical ones)\n' \
		"$(awk '$4 == 1 { r++ } END { printf "%d of %d steps to run", r, NR }' "$RUN_DIR/plan")" \
		"$CI_SCHEDULE" "$(left)"
}

# left: the estimate of what is left, from the plan and the outcomes
left() {
	awk -v dir="$RUN_DIR" -v overlap="$bg_vm" '
		{
			f = dir "/" $1 "." $2
			if ((getline line < f) > 0) { close(f); next }
			close(f)
			if ($5 == "guest") vm += $3; else if ($5 == "host-bench") hb += $3; else fg += $3
		}
		END {
			t = (overlap == 1) ? (fg > vm ? fg : vm) : fg + vm
			t += hb
			printf "%d min %02d s", int(t / 60), t % 60
		}' "$RUN_DIR/plan"
}

# ran_eta COMMIT STEP I: after a step that ran (not one up to date),
# the time spent so far and the estimate of what is left
ran_eta() {
	! outcome_of "$1" "$2" || [ "$ow" != same ] || return 0
	short_of "$1" && uptime_s
	progress "$3/$n $short" "spent $(( (up_now - T_START) / 60 )) min, about $(left) left (earlier runs' step times, else typical ones)"
}
