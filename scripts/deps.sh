#!/bin/sh
# deps.sh: install the Debian packages the toolkit needs: every package of
# scripts/deps.list, and the pinned kernel source (scripts/pin.conf).
#
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -eu
. "$(dirname "$0")/lib.sh"

PKGS=$(deps_packages) || exit 1

missing=""
for p in $PKGS; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
have=$(dpkg-query -W -f '${Version}' "$PIN_PACKAGE" 2>/dev/null || true)
[ "$have" = "$PIN_VERSION" ] || missing="$missing $PIN_PACKAGE=$PIN_VERSION"

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
# An old package list may not know the pinned version: update first.
apt-get update -q >/dev/null || die "deps: apt-get update failed: is Debian's archive reachable?"
$cmd || die "deps: '$cmd' failed (see above)"
