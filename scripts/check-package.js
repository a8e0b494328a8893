#!/usr/bin/env node
'use strict';
/**
 * `node scripts/check-package.js`: what `npm pack` would put in the tarball, checked after a build. It must hold every
 * node and credential package.json names, their codex files (*.node.json) and icons, and nothing that is not shipped
 * code: no test, benchmark, script, example or source TypeScript file. Every package whose code a bundle in dist
 * inlined (esbuild marks each inlined module with a `// node_modules/<package>/...` line) must have its licence files
 * in dist/THIRD_PARTY_LICENSES, word for word, and that file must be packed. Prints the file count and size; exits 1
 * on the first list of problems.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { npmCli } = require('./lib/install');

const REPO_ROOT = path.resolve(__dirname, '..');
const pkg = require(path.join(REPO_ROOT, 'package.json'));

// --ignore-scripts: prepack would build again; this checks the build that is there.
const out = execFileSync(process.execPath, [npmCli(), 'pack', '--dry-run', '--json', '--ignore-scripts'], {
	cwd: REPO_ROOT,
	encoding: 'utf8',
	stdio: ['ignore', 'pipe', 'inherit'],
});
const [packed] = JSON.parse(out);
const files = packed.files.map((f) => f.path);
const problems = [];

const LICENSES = 'dist/THIRD_PARTY_LICENSES';
const allowedOutsideDist = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', LICENSES]);
for (const file of files) {
	// n8n-node build copies every .png/.svg of the tree into dist (test screenshots too): only these folders ship.
	if (!/^dist\/(credentials|nodes|icons)\/|^dist\/index\./.test(file) && !allowedOutsideDist.has(file)) {
		problems.push(`not shipped code: ${file}`);
	}
	if (/^dist\/(test|bench|scripts|examples)\//.test(file) || /\.(test|bench|e2e)\.[jt]s$/.test(file)) {
		problems.push(`test or benchmark file: ${file}`);
	}
	if (file.endsWith('.ts') && !file.endsWith('.d.ts')) problems.push(`TypeScript source: ${file}`);
}

const required = [...pkg.n8n.credentials, ...pkg.n8n.nodes];
for (const node of pkg.n8n.nodes) required.push(node.replace(/\.js$/, '.json'));
required.push(pkg.main, 'dist/icons/messagingGateway.svg', 'dist/icons/messagingGateway.dark.svg');
for (const file of required) {
	if (!files.includes(file)) problems.push(`missing: ${file}`);
}

// Bundled code ships with its licence notice: each inlined package's licence files, as its own package holds them.
const bundled = new Set();
for (const file of files.filter((f) => f.endsWith('.js'))) {
	const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
	for (const [, name] of text.matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)) bundled.add(name);
}
if (bundled.size > 0 && !files.includes(LICENSES)) problems.push(`missing: ${LICENSES} (bundled: ${[...bundled].join(', ')})`);
const notices = fs.existsSync(path.join(REPO_ROOT, LICENSES)) ? fs.readFileSync(path.join(REPO_ROOT, LICENSES), 'utf8') : '';
for (const name of bundled) {
	const dir = path.dirname(require.resolve(`${name}/package.json`, { paths: [REPO_ROOT] }));
	const licenceFiles = fs.readdirSync(dir).filter((f) => /^(licen[cs]e|notice|copying)/i.test(f));
	if (licenceFiles.length === 0) problems.push(`bundled ${name} has no licence file to ship`);
	for (const licenceFile of licenceFiles) {
		if (!notices.includes(fs.readFileSync(path.join(dir, licenceFile), 'utf8').trim())) {
			problems.push(`${LICENSES} lacks ${name}'s ${licenceFile}`);
		}
	}
}

if (problems.length) {
	console.error(`${packed.filename}: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
	process.exit(1);
}
console.log(`${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(0)} kB packed, ${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked; no test or benchmark file; licence notices of ${bundled.size} bundled package(s): ${[...bundled].join(', ') || 'none'}`);
