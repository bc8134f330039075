#!/bin/sh
# fresh-root.sh: a minimal Debian 12 root, as a new user's machine is
# before they install anything, to prove that 'make deps' installs every
# package the toolkit needs (tests/t0001, make test-fresh).
#
#   fresh-root.sh base            make the root's tarball once (mmdebstrap
#                                 --variant=apt from this machine's own apt
#                                 sources and settings), or reuse it
#   fresh-root.sh run MODE CMD    a new root from that tarball, the toolkit
#                                 in /src, CMD run there by sh as root;
#                                 the root is removed afterwards
# CMD runs after README's first step on a bare machine (apt-get install
# make git), in /src, which holds, by MODE, 'tree': the files of this
# working tree, uncommitted ones too, without kernel-tree/; 'clone': a git
# clone of HEAD, as CI makes.
#
# Environment: FRESH_ROOT_CACHE=DIR (default $OUT/fresh-root) holds the
# tarball and the downloaded .debs, so a second run needs the archive only
# for 'apt-get update'; FRESH_ROOT_MAX_AGE=DAYS (default 7) before the
# tarball is made again; FRESH_ROOT_KEEP=1 keeps the root of 'run' (as root.XXXXXX.kept);
# FRESH_ROOT_COPY=DIR is copied into the root as /copy (make reproduce's
# materials: tests/t0700 runs its reproduce.sh there).
# Exit: CMD's status; 77 when no root can be made here (not root, no
# mmdebstrap, the archive unreachable), with the reason on stderr; 2 usage.
set -eu
. "$(dirname "$0")/lib.sh"
PROG=fresh-root

CACHE=${FRESH_ROOT_CACHE:-$OUT/fresh-root}
MAX_AGE=${FRESH_ROOT_MAX_AGE:-7}
SUITE=bookworm
TARBALL=$CACHE/$SUITE-apt.tar

usage() {
	usage_die "fresh-root.sh base | run tree|clone CMD"
}

# cannot WHY: no root can be made here; tests skip on 77
cannot() {
	printf '%s: cannot make a fresh root here: %s\n' "$PROG" "$*" >&2
	exit 77
}

# apt's own words for an archive it cannot reach
network_error() {
	grep -q -E 'Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|Could not connect|Network is unreachable|Connection (refused|timed out|failed)' "$1"
}

preflight() {
	# a root inside a root (make test-fresh runs the suite in one, and
	# its tests ask for roots of their own) is not made: the outer root's
	# make deps is the proof those tests want
	[ ! -f /fresh-root.cmd ] ||
		cannot "this is a fresh root already (make test-fresh), whose make deps is the proof: no root is made inside it"
	[ "$(id -u)" = 0 ] || cannot "not root (mmdebstrap and chroot need it)"
	command -v mmdebstrap >/dev/null || cannot "mmdebstrap is not installed: run 'make deps'"
	command -v unshare >/dev/null || cannot "unshare (util-linux) is missing"
}

# The machine's own apt: its sources (never a mirror name of ours) and the
# settings that make its archive reachable (proxies, Check-Valid-Until).
apt_args() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -s "$f" ] && grep -q -v -E '^[[:space:]]*(#|$)' "$f" && printf '%s\n' "$f"
	done
	for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] && grep -q '^[[:space:]]*Acquire' "$f" && printf -- '--aptopt=%s\n' "$f"
	done
	return 0
}

base() {
	preflight
	mkdir -p "$CACHE"
	# one maker at a time: the tests that ask for roots (t0001, t0661,
	# t0701) run side by side, and two would write one $TARBALL.tmp; the
	# lock ends with its descriptor, or with the process
	exec 9>>"$CACHE/base.lock"
	flock 9 || die "base: cannot lock $CACHE/base.lock"
	base_locked
	exec 9>&-
}

base_locked() {
	if [ -f "$TARBALL" ] && [ -z "$(find "$TARBALL" -mtime +"$MAX_AGE")" ]; then
		progress base "reusing $TARBALL (made $(date -u -r "$TARBALL" +%F); FRESH_ROOT_MAX_AGE=$MAX_AGE days)"
		return 0
	fi
	args=$(apt_args)
	printf '%s\n' "$args" | grep -q -v -e '^--aptopt' ||
		cannot "this machine has no apt sources (/etc/apt/sources.list*)"
	progress base "mmdebstrap --variant=apt $SUITE from this machine's apt sources"
	rc=0
	# (removed first: the cache's files are made anew, a link left at
	# their names not written through)
	rm -f "$TARBALL.tmp" "$CACHE/mmdebstrap.log"
	# shellcheck disable=SC2046 # one word per file (apt names them without blanks)
	mmdebstrap --variant=apt --mode=root --format=tar --quiet $(printf '%s\n' "$args" | grep '^--') \
		"$SUITE" "$TARBALL.tmp" $(printf '%s\n' "$args" | grep -v '^--') \
		>"$CACHE/mmdebstrap.log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		rm -f "$TARBALL.tmp"
		network_error "$CACHE/mmdebstrap.log" &&
			cannot "Debian's archive is not reachable: $(grep -m 1 -E 'resolv|fetch|connect|unreachable' "$CACHE/mmdebstrap.log")"
		tail -n 20 "$CACHE/mmdebstrap.log" >&2
		die "base: mmdebstrap failed (exit $rc): see $CACHE/mmdebstrap.log"
	fi
	mv -f -T "$TARBALL.tmp" "$TARBALL"
	progress base "made $TARBALL ($(du -m "$TARBALL" | cut -f1) MiB)"
}

# put_toolkit MODE ROOT: the toolkit where CMD finds it
put_toolkit() {
	case $1 in
	tree)
		mkdir -p "$2/src"
		# tracked and new files, not kernel-tree (a gitlink: its files are
		# the pinned kernel, which make kernel-tree imports)
		git -C "$TOP" ls-files -z --cached --others --exclude-standard |
			tr '\0' '\n' | grep -v -x kernel-tree | while read -r f; do
				[ -f "$TOP/$f" ] && printf '%s\n' "$f"
			done | tar -C "$TOP" --no-recursion -T - -cf - | tar -C "$2/src" -xf -
		;;
	clone)
		[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
			warn "clone: the working tree has uncommitted changes: the fresh root tests HEAD without them"
		mkdir -p "$2/mnt/origin"
		;;
	*) usage ;;
	esac
}

run() {
	mode=$1
	shift
	[ $# -gt 0 ] || usage
	preflight
	base
	# owned (.owner): a run killed outright leaves a whole root (its
	# mounts ended with its namespace), which the next one removes
	stage_make "$CACHE" root "a fresh root"
	root=$run_dir
	keep=${FRESH_ROOT_KEEP:-}
	# The root's mounts live in a private mount namespace that ends with
	# the unshare below, whatever kills it: the rm -rf that follows never
	# sees a mounted /dev or /proc (and stays on one file system anyway).
	trap '[ -n "$keep" ] || rm -rf --one-file-system "$root"' EXIT
	trap 'exit 1' INT TERM HUP
	progress run "extracting the root into $root"
	tar -C "$root" -xf "$TARBALL"
	# (the root's own may be a link, to a path of the host's: replaced)
	rm -f "$root/etc/resolv.conf"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# The machine's local CA certificates, as its resolver and apt proxy:
	# what its network needs (a TLS-inspecting egress proxy, for the npm
	# registry), not a package.  ca-certificates, installed by make deps,
	# adds them to the root's store (update-ca-certificates).
	for f in /usr/local/share/ca-certificates/*.crt; do
		[ -f "$f" ] || continue
		mkdir -p "$root/usr/local/share/ca-certificates" &&
			cp "$f" "$root/usr/local/share/ca-certificates/" ||
			die "run: cannot copy $f into the root"
	done
	mkdir -p "$CACHE/debs"
	put_toolkit "$mode" "$root"
	if [ -n "${FRESH_ROOT_COPY:-}" ]; then
		[ -d "$FRESH_ROOT_COPY" ] || die "run: FRESH_ROOT_COPY: $FRESH_ROOT_COPY is not a directory"
		cp -a "$FRESH_ROOT_COPY" "$root/copy"
	fi
	printf '%s\n' "$*" >"$root/fresh-root.cmd"
	# README's first step on a bare machine, then the toolkit in /src
	{
		echo 'set -eu'
		echo 'export DEBIAN_FRONTEND=noninteractive'
		echo 'apt-get update -q >/dev/null'
		echo 'apt-get install -y -q --no-install-recommends make git >/dev/null'
		[ "$mode" = tree ] || echo 'git clone -q /mnt/origin /src'
		echo 'cd /src'
		echo 'exec sh /fresh-root.cmd'
	} >"$root/fresh-root.sh"
	progress run "running in the fresh root ($mode): $*"
	rc=0
	unshare --mount --propagation private --fork sh -eu -c '
		r=$1 cache=$2 top=$3
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
		mount --bind "$cache/debs" "$r/var/cache/apt/archives"
		if [ -d "$r/mnt/origin" ]; then
			mount --bind "$top" "$r/mnt/origin"
			mount -o remount,bind,ro "$r/mnt/origin"
		fi
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root TERM=dumb LANG=C.UTF-8 sh /fresh-root.sh
	' fresh-root "$root" "$CACHE" "$TOP" || rc=$?
	# a kept root is the user's now: a name no later run takes for a
	# dead run's stage (stage_make removes root.XXXXXX only)
	if [ -n "$keep" ]; then
		mv "$root" "$root.kept" && rm -f "$root.kept/.owner" ||
			die "run: cannot rename the kept root $root to $root.kept"
		progress run "kept the root: $root.kept"
	fi
	return $rc
}

case ${1:-} in
base) [ $# = 1 ] || usage; base ;;
run) shift; [ $# -ge 2 ] || usage; run "$@" ;;
*) usage ;;
esac
