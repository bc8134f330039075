# Shared helpers for the x86-copy-series shell glue.  Source it; POSIX sh.
#
# Error format everywhere: "prog: step: what failed: why", on stderr,
# exit 1 for failures, 2 for usage.

LANG=C LC_ALL=C TZ=UTC
export LANG LC_ALL TZ

TOP=$(cd "$(dirname "$0")/.." && pwd)
PROG=${PROG:-$(basename "$0" .sh)}
OUT=${OUT:-$TOP/out}
# the C tools (make tools)
BIN=${BIN:-$OUT/bin}
# Every ref this toolkit writes in a kernel repository lives here, so a
# user's own branches and tags are never touched.
REF_NS=${REF_NS:-refs/x86-copy-series}

# shellcheck source=pin.conf
. "$TOP/scripts/pin.conf"

# Our git calls must not depend on the user's configuration (autocrlf,
# filters, hooks, signing) or they stop being deterministic.
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL

# The toolkit's external dependencies: name, then packages (tests give
# another list).
DEPS_LIST=${DEPS_LIST:-$TOP/scripts/deps.list}
# deps_packages: the packages of $DEPS_LIST, one a line
deps_packages() {
	[ -r "$DEPS_LIST" ] || die "deps: $DEPS_LIST is missing"
	awk '!/^#/ && NF { for (i = 2; i <= NF; i++) print $i }' "$DEPS_LIST"
}

die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

usage_die() {
	printf '%s: usage: %s\n' "$PROG" "$*" >&2
	exit 2
}

warn() {
	printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

T0=$(date +%s)
# progress STEP MSG: what is going on now, with the elapsed time
progress() {
	printf '[%4ss] %s: %s\n' "$(( $(date +%s) - T0 ))" "$1" "$2" >&2
}

# The kernel repository the toolkit works on: the pinned submodule, or the
# user's own clone (KERNEL_TREE=...), which is only ever used through a
# linked worktree and refs under $REF_NS.
kernel_repo() {
	if [ -n "${KERNEL_TREE:-}" ]; then
		printf '%s\n' "$KERNEL_TREE"
	else
		printf '%s\n' "$TOP/kernel-tree"
	fi
}

# The worktree where patches are applied and commits are checked out for
# building; never the user's own working tree.
WORKTREE=${WORKTREE:-$OUT/tree}

kgit() {
	git -C "$(kernel_repo)" "$@"
}

wgit() {
	git -C "$WORKTREE" "$@"
}

# The commit the series applies to.
base_commit() {
	kgit rev-parse --verify -q "$REF_NS/base^{commit}" ||
		die "base: $REF_NS/base is not set in $(kernel_repo): run 'make kernel-tree' first"
}

# commit_list [REV...]: the commit ids of REVs, one a line; with none, the
# base and every series commit, in order.  Use as
# commits=$(commit_list "$@") || exit 1
commit_list() {
	if [ $# -gt 0 ]; then
		for c in "$@"; do
			kgit rev-parse --verify -q "$c^{commit}" ||
				die "commits: '$c' is not a commit in $(kernel_repo)"
		done
	else
		b=$(base_commit) || exit 1
		h=$(kgit rev-parse -q --verify "$REF_NS/series") ||
			die "series: $REF_NS/series is not set: run 'make apply' first"
		echo "$b"
		kgit rev-list --reverse "$b..$h"
	fi
}

# Fixed committer identity and date: re-applying gives the same commit ids.
committer_env() {
	GIT_COMMITTER_NAME=$PIN_IDENT_NAME
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL
	GIT_COMMITTER_DATE=$PIN_DATE
	export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
}

# import_tarball DIR TARBALL VERSION SHA256 DATE: extract Debian's
# $PIN_PACKAGE source tarball into a new repository at DIR and commit it
# as one commit with the fixed identity, DATE and message of the pin, so
# that the same tarball always gives the same commit id.  The one import
# for kernel-tree.sh (the pin) and repin.sh (TO_DEBIAN): a re-pin's commit
# is the one a fresh clone's 'make kernel-tree' makes from the new pin.
import_tarball() {
	dir=$1 tarball=$2 version=$3 sha=$4 date=$5
	progress import "extracting $tarball"
	mkdir -p "$dir"
	xz -dc -T0 "$tarball" | tar -x --no-same-owner --strip-components=1 -C "$dir" ||
		die "import: extracting '$tarball' failed (disk full? see the message above)"
	progress import "committing $(find "$dir" -type f | wc -l) files"
	git -C "$dir" init -q -b import
	# Debian's top-level .gitignore ignores everything: force the add.
	git -C "$dir" add -f -A .
	GIT_AUTHOR_NAME=$PIN_IDENT_NAME GIT_AUTHOR_EMAIL=$PIN_IDENT_EMAIL \
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_NAME=$PIN_IDENT_NAME \
	GIT_COMMITTER_EMAIL=$PIN_IDENT_EMAIL GIT_COMMITTER_DATE=$date \
		git -C "$dir" commit -q --no-verify -m "Import $PIN_PACKAGE $version

Debian's $PIN_PACKAGE source ($PIN_TARBALL),
sha256 $sha, imported as one commit by x86-copy-series."
}
