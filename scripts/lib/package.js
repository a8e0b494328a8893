'use strict';
/** Build and pack this package, and install the tarball into an n8n user folder the way a user's install does. */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, PACKAGE_NAME, log, run } = require('./util');
const { npmCli } = require('./install');

/** On a fresh clone the build tools are not installed yet: `npm ci` first, as a newcomer would. */
async function ensureDependencies() {
	if (fs.existsSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'))) return;
	log('Installing the package\'s dependencies (npm ci, first run only)...');
	await run(process.execPath, [npmCli(), 'ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: REPO_ROOT });
}

async function buildAndPack(outDir) {
	await ensureDependencies();
	const t0 = Date.now();
	log('Building the package (npm run build)...');
	await run(process.execPath, [npmCli(), 'run', 'build', '--silent'], { cwd: REPO_ROOT, quiet: true });
	fs.mkdirSync(outDir, { recursive: true });
	// --ignore-scripts: prepack would build a second time.
	const out = await run(process.execPath, [npmCli(), 'pack', '--ignore-scripts', '--json', '--pack-destination', outDir], {
		cwd: REPO_ROOT,
		capture: true,
	});
	const info = JSON.parse(out.slice(out.indexOf('[')))[0];
	const tarball = path.join(outDir, info.filename);
	log(`Packed ${info.filename} (${info.entryCount} files) in ${Math.round((Date.now() - t0) / 1000)} s`);
	return tarball;
}

/**
 * Unpack into `<userFolder>/.n8n/nodes/node_modules/<name>` and install its runtime dependencies there,
 * as n8n's community-package installer does.
 */
async function installIntoN8n(tarball, userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const dest = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.rmSync(dest, { recursive: true, force: true });
	fs.mkdirSync(dest, { recursive: true });
	if (!fs.existsSync(path.join(nodesDir, 'package.json'))) {
		fs.writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }) + '\n');
	}
	await run('tar', ['xzf', tarball, '-C', dest, '--strip-components=1']);
	await run(
		process.execPath,
		[npmCli(), 'install', '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-package-lock', '--prefer-offline', '--loglevel=error'],
		{ cwd: dest, quiet: true },
	);
	log(`Installed ${PACKAGE_NAME} into ${dest}`);
	return dest;
}

module.exports = { buildAndPack, installIntoN8n };
