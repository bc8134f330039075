#!/bin/sh
# deps.sh [NAME...]: install the Debian packages the toolkit needs: every
# package of scripts/deps.list, or those of the NAMEs given (make
# deps-merge: what make merge alone needs, in the workflow's merge job).  The pinned kernel source (series/pin.conf) is not
# installed: the import downloads its package when the installed one is
# not the pinned version (series/kernel-tree.sh: pin_tarball), so that a
# repin never upgrades or downgrades a package of the system.
#
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -eu
. "$(dirname "$0")/lib.sh"

PKGS=$(deps_packages "$@") || exit 1

missing=""
for p in $PKGS; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ -z "$missing" ]; then
	progress deps "all packages present"
	exit 0
fi
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	die "deps: missing packages:$missing; run as root: apt-get update && $cmd"
fi
progress deps "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# An old package list may not know a package: update first.
apt-get update -q >/dev/null || die "deps: apt-get update failed: is Debian's archive reachable?"
$cmd || die "deps: '$cmd' failed (see above)"
