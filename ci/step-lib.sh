# ci/step-lib.sh: the helpers a step's file may call (ci/steps.sh names
# them): files_hash for its inputs, scripts_of for the toolkit files a
# script names, skip for a step that has nothing to do.  Sourced by
# ci/run.sh before the steps file; POSIX sh.

# Helpers for the step definitions.
# sha256 of files (missing ones say so), for the inputs: "HASH PATH" a
# line in the order given, PATH relative to the toolkit; one sha256sum
# for all (a step's inputs are read for every commit of a run)
files_hash() {
	# (NUL-separated: a path with a blank, under OUT or CI_OUT, is one;
	# only plain files: a FIFO would hang sha256sum)
	for f in "$@"; do
		[ ! -f "$f" ] || printf '%s\0' "$f"
	done | xargs -0 -r sha256sum | awk -v top="$TOP/" '
		BEGIN { n = ARGC - 1; for (i = 1; i <= n; i++) { want[i] = ARGV[i]; delete ARGV[i] } }
		# a name with a backslash or a newline: sha256sum starts the line
		# with a backslash and writes them \\ and \n
		{
			l = $0; esc = substr(l, 1, 1) == "\\"
			if (esc) l = substr(l, 2)
			f = substr(l, 67)
			if (esc) { gsub(/\\\\/, "\001", f); gsub(/\\n/, "\n", f); gsub(/\001/, "\\", f) }
			sum[f] = substr(l, 1, 64)
		}
		END {
			for (i = 1; i <= n; i++) {
				f = want[i]; r = f
				if (index(f, top) == 1) r = substr(f, length(top) + 1)
				if (f in sum) printf "%s %s\n", sum[f], r; else printf "missing %s\n", r
			}
		}' "$@"
}

# scripts_of SCRIPT...: each SCRIPT and every file it names as "$TOP/X"
# or "$(dirname "$0")/X" (what it sources, runs, copies or reads: a
# fragment, a module's source), transitively through the shell scripts
# among them; sorted, a path a line.  The files of a step's inputs are
# found from its scripts, never from a list kept beside them that drifts
# (lib.sh's pin.conf, rundir.sh's owner.sh and checks.sh's kernel.config
# were missing).  A line that says "# not an input" names a file that
# decides nothing a step keeps (deps.list); a directory is the step's to
# list (find).  A level of the search at a time: one realpath, one awk.
# A run asks it the same for every commit: its first answer is kept in
# $SO_MEMO (the run's directory) for the rest of the run.
scripts_of() {
	so_k=$* so_m=
	if [ -n "${SO_MEMO:-}" ]; then
		while :; do
			case $so_k in
			*/*) so_m=$so_m${so_k%%/*}% so_k=${so_k#*/} ;;
			*) so_m=$SO_MEMO/$so_m$so_k && break ;;
			esac
		done
		if [ -f "$so_m" ]; then
			while IFS= read -r so_l; do printf '%s\n' "$so_l"; done <"$so_m"
			return
		fi
	fi
	so_todo=$* so_seen=
	while [ -n "$so_todo" ]; do
		so_new=
		# shellcheck disable=SC2086 # a path a word, no blanks in our paths
		for so_f in $(realpath -m $so_todo); do
			case " $so_seen " in *" $so_f "*) continue ;; esac
			[ -f "$so_f" ] || continue
			so_seen="$so_seen $so_f"
			case $so_f in *.sh) so_new="$so_new $so_f" ;; esac
		done
		so_todo=
		[ -n "$so_new" ] || break
		# shellcheck disable=SC2086 # as above
		so_todo=$(awk -v top="$TOP" '
			/^[[:space:]]*#/ || /# not an input/ { next }
			{
				l = $0
				while (match(l, /\$TOP\/[A-Za-z0-9_.\/-]+|\$\(dirname "\$0"\)\/[A-Za-z0-9_.\/-]+/)) {
					m = substr(l, RSTART, RLENGTH); l = substr(l, RSTART + RLENGTH)
					if (substr(m, 1, 5) == "$TOP/") { print top "/" substr(m, 6); continue }
					d = FILENAME; sub(/\/[^\/]*$/, "", d)
					print d "/" substr(m, index(m, ")/") + 2)
				}
			}' $so_new)
	done
	# shellcheck disable=SC2086 # as above
	so_seen=$(printf '%s\n' $so_seen | LC_ALL=C sort)
	printf '%s\n' "$so_seen"
	[ -z "$so_m" ] || { printf '%s\n' "$so_seen" >"$so_m.$$" && mv -f "$so_m.$$" "$so_m"; } 2>/dev/null ||
		rm -f "$so_m.$$"
}

skip() {
	printf '%s\n' "$2" >"$1/skipped"
	printf '%s: skipped: %s\n' "$PROG" "$2" >&2
	return 3
}

# fn_of STEP: sets fn, the shell name of a step ("bench-vm" ->
# "bench_vm"); no process (the loops ask it for every commit and step)
fn_of() {
	fn='' fo_r=$1
	while [ -n "$fo_r" ]; do
		fo_c=${fo_r%"${fo_r#?}"} fo_r=${fo_r#?}
		case $fo_c in [a-z0-9]) fn=$fn$fo_c ;; *) fn=${fn}_ ;; esac
	done
}

# step_const STEP FIELD: a constant of the step (kind, needs, commits,
# typical), as its step_<name>_<field> function says it when its file has
# one (a figure that varies, a fake step file), else as the steps file's
# table CI_STEP_TABLE has it ('-': nothing; ',' between words); nothing
# when neither says.  False when the function fails.
step_const() {
	fn_of "$1"
	if command -v "step_${fn}_$2" >/dev/null; then
		"step_${fn}_$2"
		return
	fi
	# read by the shell, no awk: the plan and the loop ask it for every
	# commit and step
	case $2 in
	kind) sc_n=2 ;; needs) sc_n=3 ;; commits) sc_n=4 ;; typical) sc_n=5 ;; *) return 0 ;;
	esac
	sc_ifs=$IFS
	IFS='
'
	case $- in *f*) sc_f= ;; *) sc_f=1 && set -f ;; esac
	for sc_l in ${CI_STEP_TABLE:-}; do
		IFS=$sc_ifs
		# shellcheck disable=SC2086 # the row's fields, split on blanks
		set -- "$1" "$sc_n" $sc_l
		[ $# -ge 3 ] && [ "$3" = "$1" ] || continue
		shift $(($2 + 1))
		[ $# -gt 0 ] && [ "$1" != - ] || break
		sc_v=$1 sc_o=
		while :; do
			case $sc_v in
			*,*) sc_o=$sc_o${sc_v%%,*}' ' sc_v=${sc_v#*,} ;;
			*) sc_o=$sc_o$sc_v && break ;;
			esac
		done
		printf '%s\n' "$sc_o"
		break
	done
	IFS=$sc_ifs
	[ -z "$sc_f" ] || set +f
}
