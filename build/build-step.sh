# build/build-step.sh: the build step of the pipeline (ci/run.sh, its
# list in ci/steps.sh): one commit's kernel by build/build.sh, its build
# records (result, seconds, warnings).  Kind "kernel": the guests' kernel,
# built in the foreground, one guest at most beside it (its constants:
# ci/steps.sh's table).

# build.sh --check: its variables checked, then what decides a build
# besides the commit (the fragment's hash, the compiler, the targets):
# run once by ci/run.sh, which keeps what it printed in CI_SETTINGS_build
step_build_check() {
	sh "$TOP/build/build.sh" --check
}

step_build_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_build?ci/run.sh: step_build_check did not run}"
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash "$TOP/build/build-step.sh" $(scripts_of "$TOP/build/build.sh") "$BIN/record-write"
}

# a kernel that does not build is a result (an error record), not a
# failed step; a record that cannot be written fails it
step_build_run() {
	c=$1 dir=$2 rc=0
	sh "$TOP/build/build.sh" --results "$dir" "$c" || rc=$?
	[ -f "$dir/records.jsonl" ] || {
		echo "$PROG: build: build/build.sh wrote no $dir/records.jsonl (exit $rc)" >&2
		return "$(( rc ? rc : 1 ))"
	}
	return $rc
}

# step_build_typical COMMIT I: its seconds on this project's 2-core
# machine when no earlier run is known (doc/measurements.md): a
# build of a tree built already is linked (build/build.sh); the first
# commit is built whole, the others walk from the commit built before in
# the same directory: a header rebuilds what includes it, a .c file its
# object and the link
step_build_typical() {
	if grep -qsx "tree $(tree_of "$1")" "$OUT"/build/*/stamp; then
		echo 2
	elif [ "$2" = 1 ]; then
		# cold, idle, 2 cores: distro 1,082 s, tiny about 450
		case ${KCONFIG:-distro} in tiny) echo 450 ;; *) echo 1080 ;; esac
	elif kgit diff-tree --no-commit-id --name-only -r "$1" |
		grep -Eq '^(include|arch/[^/]+/include)/|\.h$'; then
		# walked: a header most objects include (patch 5, distro:
		# 1,249 objects in 815 s, tests beside it)
		case ${KCONFIG:-distro} in tiny) echo 350 ;; *) echo 820 ;; esac
	else
		# walked: the objects it changes and the link (distro 58-79 s)
		echo 70
	fi
}

# step_build_report DIR...: make build's table, a line a commit (the
# commit of each results directory $CI_OUT/<commit>/build): built or
# not, seconds, warnings and those new against its parent, from its
# build directory out/build/<commit>
step_build_report() {
	printf '%-12s %-6s %6s %5s %5s  %s\n' commit result secs warn new subject
	for br_d; do
		br_c=${br_d%/*}
		br_c=${br_c##*/}
		br_o=$OUT/build/$br_c
		printf '%-12s %-6s %6s %5s %5s  %s%s\n' "$(printf %.12s "$br_c")" \
			"$(cat "$br_o/result" 2>/dev/null || echo none)" \
			"$(cat "$br_o/seconds" 2>/dev/null || echo -)" \
			"$(build_lines_of "$br_o/warnings.txt")" "$(build_lines_of "$br_o/new-warnings.txt")" \
			"$(kgit log -1 --format=%s "$br_c")" \
			"$([ ! -f "$br_o/reused-from" ] || printf ' (build of %.12s)' "$(cat "$br_o/reused-from")")"
	done
}

# build_lines_of FILE: its number of lines, "-" when there is none
build_lines_of() {
	if [ -f "$1" ]; then wc -l <"$1"; else echo -; fi
}
