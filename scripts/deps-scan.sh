#!/bin/sh
# deps-scan.sh: every program that the toolkit's shell calls must come from
# a package of scripts/deps.list or from an Essential package (which every
# Debian root has), or a fresh machine's 'make deps' would not install it.
#
# The scan reads the words in command position of every tracked shell
# script, test and Makefile (after '|', ';', '&&', '$(', 'then', ...), keeps
# those that name a program on this machine's PATH, and asks dpkg which
# package owns it.  It prints one line per program that breaks the rule,
# "file:line: program (package): not in scripts/deps.list", and exits 1
# when there is any.  A word that is no program here (a shell function, a
# typo) is not its business: the fresh-root run of the tests finds those.
#
#   deps-scan.sh [FILE...]   default: the tracked shell of the toolkit
set -eu
. "$(dirname "$0")/lib.sh"
PROG=deps-scan

command -v dpkg-query >/dev/null || die "scan: dpkg-query is missing: this check needs a Debian host"
if [ $# = 0 ]; then
	cd "$TOP"
	# shellcheck disable=SC2046 # one word per file
	set -- $(git ls-files '*.sh' '*.t' '*.mk' Makefile .ci/run)
fi
# its files in a directory of mktemp's: none at a name of a shared TMPDIR
# that a link could wait at (deps-scan.$$ was one)
stage_make "${TMPDIR:-/tmp}" deps-scan "the scratch directory of a deps-scan"
scan_dir=$run_dir
trap 'rm -rf "$scan_dir"' EXIT
scan=$scan_dir/scan

# Words that the scan finds in prose (messages, case labels, heredocs)
# and that happen to name a program; none of them is run.
PROSE='file kvm size w wall dir see open'

listed=$(deps_packages | sort -u)
DEBIAN_PATH=/usr/sbin:/usr/bin:/sbin:/bin
# Essential packages, and the packages a --variant=apt root adds (apt).
essential=$(dpkg-query -W -f '${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }')

awk '
# the first word of a segment that is not an assignment or a keyword
function emit(seg,   n, w, i, k) {
	n = split(seg, w, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		if (w[i] == "" || w[i] ~ /^[A-Za-z_][A-Za-z0-9_]*=/)
			continue
		if (w[i] ~ /^(if|then|do|else|elif|while|until|!|exec|time|command|-v|nice|env|xargs|@|\$\(Q\))$/)
			continue
		if (w[i] == "timeout") {
			print "timeout", FILENAME ":" FNR
			while (i < n && w[i + 1] ~ /^(-k|-s|[0-9]+|\$[A-Za-z_{}]+|"\$[A-Za-z_{}]+")$/)
				i++
			continue
		}
		k = w[i]
		gsub(/^["'\''(\\@]+|["'\'')\\]+$/, "", k)
		sub(/^\$\(Q\)/, "", k)
		if (k ~ /^[a-z][a-z0-9._+-]*$/)
			print k, FILENAME ":" FNR
		return
	}
}
{
	line = $0
	sub(/(^|[ \t])#.*/, "", line)
	# arithmetic, and double-quoted words that run nothing, are no commands
	gsub(/\$\(\([^)]*\)\)/, "0", line)
	out = ""
	while (match(line, /"[^"]*"/)) {
		q = substr(line, RSTART, RLENGTH)
		out = out substr(line, 1, RSTART - 1) (q ~ /\$\(|`/ ? q : "\"\"")
		line = substr(line, RSTART + RLENGTH)
	}
	line = out line
	gsub(/\|\||&&|\$\(|`/, ";", line)
	gsub(/[|(){}]/, ";", line)
	n = split(line, seg, ";")
	for (j = 1; j <= n; j++)
		emit(seg[j])
}' "$@" >"$scan.all" || die "scan: cannot read the scripts: $*"
sort -k1,1 -u "$scan.all" >"$scan"

# The programs: "WORD WHERE PATH" for each word that names one where a
# Debian package would put it (not pyenv's or /usr/local's)
bad=0
while read -r word where; do
	case " $PROSE " in *" $word "*) continue ;; esac
	if ! path=$(PATH=$DEBIAN_PATH command -v "$word" 2>/dev/null); then
		other=$(command -v "$word" 2>/dev/null) || continue
		case $other in /*) ;; *) continue ;; esac	# a builtin or a function
		echo "$where: $word ($other): not from a Debian package: a fresh machine lacks it" >&2
		bad=1
		continue
	fi
	case $path in /*) ;; *) continue ;; esac	# a builtin
	printf '%s %s %s\n' "$word" "$where" "$path"
done <"$scan" >"$scan.progs" || die "scan: cannot write $scan.progs (disk full?)"

# Who owns each, one dpkg -S for all ("PACKAGE PATH", the first package
# of a path shared by several): the path, and for usrmerge (dpkg knows
# /bin/cat and /sbin/depmod, PATH gives /usr/...) the path without /usr
# and the file the path links to.  A path nobody owns is no error here.
# shellcheck disable=SC2046 # a path a word, no blanks in PATH's directories
dpkg -S $(awk '{ p = $3; print p; sub(/^\/usr/, "", p); print p }' "$scan.progs" | sort -u) \
	$(awk '{ print $3 }' "$scan.progs" | xargs -r readlink -f | sort -u) 2>/dev/null |
	grep -v '^diversion by' | sed -n 's/^\([^,:]*\).*: \(\/.*\)$/\1 \2/p' >"$scan.owners"
# a binary package built from a listed one (gcc-12 for build-essential's
# gcc, clang-14 for clang): accepted when a listed package depends on it
# shellcheck disable=SC2086,SC2020 # package names a word each; tr maps , and | to newlines
dpkg-query -W -f '${Pre-Depends},${Depends}\n' $listed 2>/dev/null | tr ',|' '\n\n' |
	sed 's/^ *//; s/[ :(].*//' | sort -u >"$scan.depended"
printf '%s\n' "$essential" >"$scan.essential"
printf '%s\n' "$listed" >"$scan.listed"

awk -v owners="$scan.owners" -v ok_files="$scan.essential $scan.listed $scan.depended" '
BEGIN {
	while ((getline l < owners) > 0) {
		split(l, f, " ")
		if (!(f[2] in owner))
			owner[f[2]] = f[1]
	}
	n = split(ok_files, okf, " ")
	for (i = 1; i <= n; i++)
		while ((getline l < okf[i]) > 0)
			if (l != "")
				ok[l] = 1
}
{
	word = $1; where = $2; path = $3; nousr = path
	sub(/^\/usr/, "", nousr)
	real = path
	cmd = "readlink -f \"" path "\""
	cmd | getline real
	close(cmd)
	pkg = path in owner ? owner[path] : nousr in owner ? owner[nousr] : real in owner ? owner[real] : ""
	if (pkg == "") {
		printf "%s: %s (%s): no Debian package owns it: install it from a package of scripts/deps.list\n", where, word, path
		bad = 1
	} else if (!(pkg in ok)) {
		printf "%s: %s (%s): not in scripts/deps.list: add '\''%s %s'\'' there\n", where, word, pkg, word, pkg
		bad = 1
	}
}
END { exit bad }' "$scan.progs" >&2 || bad=1
exit $bad
