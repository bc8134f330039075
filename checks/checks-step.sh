# checks/checks-step.sh: the checks step of the pipeline (ci/run.sh, its
# list in ci/steps.sh): checks/checks.sh on one commit (and KUnit on the
# base and the head).  Kind "foreground" (the default): in its place.

# what checks read of a commit: its tree and its parent's (file-level
# checks compare the two), its mail (checkpatch and changelog-lint judge
# author and message), and whether it is the series head (KUnit runs on
# the base and the head); not its id
step_checks_content() {
	cp_p=$(kgit rev-parse -q --verify "$1^" || true)
	echo "tree $(tree_of "$1")"
	echo "parent-tree $([ -z "$cp_p" ] && echo none || tree_of "$cp_p")"
	echo "mail $(kgit log -1 --format='%an <%ae>%n%B' "$1" | sha256sum | cut -d' ' -f1)"
	echo "head $([ "$1" = "$(kgit rev-parse -q --verify "$REF_NS/series^{commit}" || true)" ] &&
		echo yes || echo no)"
}

# checks.sh --check: KUNIT, COCCI_SET, CHECKS_ONLY checked and printed,
# with the versions of the checkers and compilers
step_checks_check() {
	sh "$TOP/checks/checks.sh" --check
}

step_checks_inputs() {
	echo "commit $1"
	printf '%s\n' "${CI_SETTINGS_checks?ci/run.sh: step_checks_check did not run}"
	# every file of checks/ (this one too) but its make fragment, which
	# no check reads (the tools it builds are hashed as binaries), and
	# what checks.sh names elsewhere (the kernel fragment of its builds)
	# shellcheck disable=SC2046 # a file a word, no blanks in our paths
	files_hash $({ find "$TOP/checks" -type f ! -name "*.mk"; scripts_of "$TOP/checks/checks.sh"; } |
		LC_ALL=C sort -u) "$BIN/record-write" "$BIN/changelog-lint" "$BIN/kunit-records"
}

# step_checks_report DIR...: make checks's table, a line a commit
# (checks.sh's summary.txt in each results directory): verdict, new
# findings, errors
step_checks_report() {
	printf '%-12s %-7s %5s %5s  %s\n' commit verdict new errors subject
	for cr_d; do
		if [ -f "$cr_d/summary.txt" ]; then
			tail -n +2 "$cr_d/summary.txt"
		else
			cr_c=${cr_d%/*}
			printf '%-12s %-7s\n' "$(printf %.12s "${cr_c##*/}")" none
		fi
	done
}

step_checks_run() {
	sh "$TOP/checks/checks.sh" --results "$2" "$1"
}

# step_checks_typical COMMIT I: the base and the head build and run
# KUnit; the others check what they touch (doc/measurements.md);
# one that touches a shared header builds whole kernels, itself and its
# parent in five configurations (checks/configs.sh: 2959 s for patch 4
# with an empty cache here, seconds once its trees are cached), which
# only CHECKS_ONLY with configs, or empty (CI_SET=full), runs
# shellcheck disable=SC2154 # n: ci/run.sh's
step_checks_typical() {
	ct_t=50
	if [ "$2" = 1 ] || [ "$2" = "$n" ]; then ct_t=320; fi
	if [ "$2" != 1 ] && case " ${CHECKS_ONLY:-configs} " in *" configs "*) true ;; *) false ;; esac &&
		kgit diff-tree --no-commit-id --name-only -r "$1" |
		grep -Eq '^(include|arch/[^/]+/include)/.*\.h$'; then
		ct_t=$((ct_t + 3000))
	fi
	echo "$ct_t"
}
