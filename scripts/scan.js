#!/usr/bin/env node
// n8n's verification scan on what would be published: `npm pack` the built package, check the tarball's contents,
// then lint the unpacked tarball and the source tree with the scanner's own rules. @n8n/scan-community-package only
// scans packages fetched from the registry by name, so this calls its exported analysis on the local pack, with the
// same file sets it uses (compiled .js + package.json of the tarball; package.json + nodes/ + credentials/ sources).
// Exit code 1 on any error or warning. Run after `npm run build`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { createRequire } = require('module');

const root = path.resolve(__dirname, '..');

/** The scanner lives in scripts/scan with its own lockfile (see the note in its package.json). */
function installScanner() {
	const toolDir = path.join(__dirname, 'scan');
	const scannerDir = path.join(toolDir, 'node_modules', '@n8n', 'scan-community-package');
	if (!fs.existsSync(scannerDir)) {
		// Its dependencies' install scripts insist on pnpm; nothing in the scanner needs them.
		execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: toolDir, stdio: 'inherit' });
	}
	return scannerDir;
}

function packTarball(into) {
	const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
		cwd: root,
		encoding: 'utf8',
	});
	const [info] = JSON.parse(out);
	const unpacked = path.join(into, 'package');
	execFileSync('tar', ['-xzf', path.join(into, info.filename), '-C', into]);
	return { info, unpacked };
}

/** What n8n's verification asks of the tarball itself: the build, the documents, and nothing to install. */
function checkTarball({ info, unpacked }) {
	const problems = [];
	const files = info.files.map((file) => file.path);
	for (const required of ['package.json', 'README.md', 'LICENSE']) {
		if (!files.includes(required)) problems.push(`the tarball has no ${required}`);
	}
	if (!files.some((file) => file.startsWith('dist/'))) problems.push('the tarball has no dist/');
	const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
	if (Object.keys(manifest.dependencies ?? {}).length > 0) {
		problems.push(`package.json has runtime dependencies: ${Object.keys(manifest.dependencies).join(', ')}`);
	}
	for (const entry of [...manifest.n8n.credentials, ...manifest.n8n.nodes]) {
		if (!files.includes(entry)) problems.push(`the tarball lacks ${entry}, named in package.json's n8n section`);
	}
	return { problems, fileCount: files.length, size: info.size };
}

async function main() {
	const scannerDir = installScanner();
	const scanner = await import(path.join(scannerDir, 'scanner', 'scanner.mjs'));
	const { ESLint } = createRequire(path.join(scannerDir, 'package.json'))('eslint');
	const glob = createRequire(path.join(scannerDir, 'package.json'))('fast-glob');

	// The scanner's analyzePackage, with the counts it does not return (it passes a package with warnings).
	async function lint(label, dir, patterns) {
		const eslint = new ESLint({
			cwd: dir,
			allowInlineConfig: false,
			overrideConfigFile: true,
			overrideConfig: await scanner.buildScanConfig(),
		});
		const files = glob.sync(patterns, {
			cwd: dir,
			absolute: true,
			ignore: ['node_modules/**', '**/package-lock.json'],
		});
		const results = await eslint.lintFiles(files);
		const errors = results.reduce((sum, r) => sum + r.errorCount, 0);
		const warnings = results.reduce((sum, r) => sum + r.warningCount, 0);
		const verdict = await scanner.analyzePackage(dir, patterns);
		const report = (await eslint.loadFormatter('stylish')).format(results);
		console.log(`${label}: ${files.length} files, ${errors} errors, ${warnings} warnings (scanner verdict: ${verdict.passed ? 'passed' : 'failed'})`);
		if (report.trim()) console.log(report);
		return errors + warnings;
	}

	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-scan-'));
	try {
		if (!fs.existsSync(path.join(root, 'dist'))) throw new Error('no dist/: run `npm run build` first');
		const pack = packTarball(work);
		const tarball = checkTarball(pack);
		console.log(`tarball ${pack.info.filename}: ${tarball.fileCount} files, ${tarball.size} bytes`);
		for (const problem of tarball.problems) console.log(`  error  ${problem}`);

		let findings = tarball.problems.length;
		findings += await lint('tarball (compiled .js and package.json)', pack.unpacked, ['**/*.js', 'package.json']);
		findings += await lint('source (package.json, nodes/, credentials/)', root, scanner.SOURCE_FILE_PATTERNS);
		if (findings > 0) {
			console.log(`n8n package scan: FAILED (${findings} findings)`);
			process.exitCode = 1;
		} else {
			console.log('n8n package scan: no finding (0 errors, 0 warnings)');
		}
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
