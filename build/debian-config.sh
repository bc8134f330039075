#!/bin/sh
# debian-config.sh: Debian's own amd64 kernel configuration of the pinned
# version, the reference of the codegen check (checks/codegen.sh): prints
# its path, fetching it once into $OUT/debian-config/<version>/.
#
#   debian-config.sh [--check]   --check: print the path and what it
#                                 is (package, sha256); fetch nothing
#
# It is taken from a package of exactly the pinned version, downloaded
# (apt-get download) and unpacked with dpkg-deb -x into $OUT, never
# installed: installing linux-config-6.12 or a headers package would pull
# the newest linux-source-6.12 and replace the pinned tarball.  Debian
# keeps only the newest linux-config-6.12 in its archive, and a headers
# package per kernel ABI, each with the same .config: linux-config-6.12
# is tried first, then linux-headers-<version>+deb<N>-amd64.  The
# provenance (package, version, the .deb's sha256) is written beside it.
# DEBIAN_CONFIG=FILE: a configuration you have (offline); it must be of
# the pinned kernel version.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"
PROG=debian-config

check=''
case ${1:-} in
'') ;;
--check) check=1 ;;
*) usage_die "debian-config.sh [--check]" ;;
esac

dir=$OUT/debian-config/$PIN_VERSION
cfg=$dir/config

# verify FILE: a configuration of the pinned kernel version, for x86
verify() {
	grep -qx "# Linux/x86 $PIN_KVER Kernel Configuration" "$1" ||
		die "config: $1 is not an x86 configuration of Linux $PIN_KVER (its header: '$(sed -n 3p "$1")'): the codegen check compares builds of the pinned kernel"
}

if [ -n "${DEBIAN_CONFIG:-}" ]; then
	[ -f "$DEBIAN_CONFIG" ] || die "config: DEBIAN_CONFIG='$DEBIAN_CONFIG' is not a file"
	verify "$DEBIAN_CONFIG"
	realpath "$DEBIAN_CONFIG"
	exit 0
fi
if [ -f "$cfg" ] && [ -f "$dir/source" ]; then
	verify "$cfg"
	[ -z "$check" ] || sed 's/^/# /' "$dir/source"
	echo "$cfg"
	exit 0
fi
[ -z "$check" ] || die "config: Debian's configuration of $PIN_VERSION is not fetched yet ($cfg)"

# the package names of the pin: linux-config-6.12, and the headers of the
# ABI: 6.12.117-1~deb12u1 -> linux-headers-6.12.117+deb12-amd64
series=${PIN_PACKAGE#linux-source-}
deb=$(printf '%s\n' "$PIN_VERSION" | sed -n 's/.*~deb\([0-9][0-9]*\)u[0-9]*$/\1/p')
[ -n "$deb" ] || die "config: cannot read Debian's release from the pinned version '$PIN_VERSION'"
abi="${PIN_KVER}+deb$deb"

mkdir -p "$OUT" || die "config: cannot create $OUT"
stage_make "$OUT" .debian-config "the download of a Debian config"
tmp=$run_dir
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

tried=''
for pkg in "linux-config-$series" "linux-headers-$abi-amd64"; do
	progress debian-config "downloading $pkg=$PIN_VERSION (not installed: unpacked into $dir)"
	# _apt cannot write to our directory: apt-get says so and downloads
	# as root, which is what we want here
	if ! (cd "$tmp" && apt-get download -q "$pkg=$PIN_VERSION") >"$tmp/apt.log" 2>&1; then
		tried="$tried $pkg=$PIN_VERSION ($(grep -m 1 '^E:' "$tmp/apt.log" || tail -n 1 "$tmp/apt.log"))"
		continue
	fi
	debfile=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$debfile" "$tmp/x" || die "config: dpkg-deb -x $debfile failed"
	case $pkg in
	linux-config-*)
		f="$tmp/x/usr/src/linux-config-$series/config.amd64_none_amd64.xz"
		[ -f "$f" ] && xz -dc "$f" >"$tmp/config" ||
			die "config: $pkg has no config.amd64_none_amd64.xz"
		;;
	*)
		f="$tmp/x/usr/src/linux-headers-$abi-amd64/.config"
		[ -f "$f" ] && cp "$f" "$tmp/config" || die "config: $pkg has no .config"
		;;
	esac
	verify "$tmp/config"
	printf 'package %s\nversion %s\ndeb_sha256 %s\nconfig_sha256 %s\n' "$pkg" "$PIN_VERSION" \
		"$(sha256sum <"$debfile" | cut -d' ' -f1)" "$(sha256sum <"$tmp/config" | cut -d' ' -f1)" \
		>"$tmp/source"
	mkdir -p "$dir" && mv "$tmp/config" "$dir/config.new" && mv "$tmp/source" "$dir/source" &&
		mv "$dir/config.new" "$cfg" || die "config: cannot write $dir (disk full?)"
	progress debian-config "$cfg: from $pkg $PIN_VERSION"
	echo "$cfg"
	exit 0
done
die "config: Debian's configuration of $PIN_VERSION is in none of the archive's packages:$tried; run 'apt-get update', or give one: DEBIAN_CONFIG=<the config-$PIN_KVER+deb$deb-amd64 of that version>"
