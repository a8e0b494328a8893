// The build steps that `tsc` (and n8n's `n8n-node build`) leave to the package: the node and credential icons and the
// nodes' codex files (*.node.json) next to the compiled code, where n8n looks for them; and the libraries the node uses
// bundled into dist, because the package has no runtime dependencies.
const fs = require('fs');
const path = require('path');
const { task, src, dest, parallel } = require('gulp');
const esbuild = require('esbuild');

task('build:icons', () =>
	src(['icons/*.svg', 'nodes/**/*.svg', 'credentials/**/*.svg', 'nodes/**/*.json'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist'))),
);

/**
 * Our modules that wrap a library (a devDependency): each one's compiled file is replaced by a bundle of the module
 * with the library inlined, so the rest of the compiled code requires only relative paths and n8n-workflow. Such a
 * module imports no other module of ours (a bundle would inline a second copy of it): the build checks that.
 */
const BUNDLED_MODULES = ['nodes/gateway/phone.ts'];

/** Where the licence notices of the bundled packages ship (package.json `files`; scripts/check-package.js checks it). */
const THIRD_PARTY_LICENSES = 'dist/THIRD_PARTY_LICENSES';

task('build:bundle', async () => {
	const results = await Promise.all(
		BUNDLED_MODULES.map((entry) => {
			const outfile = path.resolve('dist', entry.replace(/\.ts$/, '.js'));
			// The compiler's source map describes the file the bundle replaces.
			fs.rmSync(`${outfile}.map`, { force: true });
			return esbuild.build({
				entryPoints: [entry],
				outfile,
				bundle: true,
				platform: 'node',
				format: 'cjs',
				target: 'node20',
				// Every package the module imports is inlined; an import that does not resolve fails the build, not n8n.
				packages: 'bundle',
				legalComments: 'eof',
				logLevel: 'warning',
				metafile: true,
			});
		}),
	);
	const inputs = results.flatMap((result) => Object.keys(result.metafile.inputs));
	const ours = inputs.filter((input) => !input.includes('node_modules/') && !BUNDLED_MODULES.includes(input));
	if (ours.length > 0) throw new Error(`A bundled module imports other modules of ours, which the bundle would copy: ${ours.join(', ')}`);
	fs.writeFileSync(path.resolve(THIRD_PARTY_LICENSES), thirdPartyLicenses(inputs));
});

/**
 * The licence files of every package whose code a bundle inlined (MIT and the like require the notice to ship with
 * the code): each package's name, version and licence field, then each of its LICENSE / LICENCE / NOTICE / COPYING files.
 */
function thirdPartyLicenses(bundledInputs) {
	const packageDirs = new Set();
	for (const input of bundledInputs) {
		const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'));
		if (match) packageDirs.add(match[1]);
	}
	const sections = [...packageDirs].sort().map((dir) => {
		const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
		const files = fs.readdirSync(dir).filter((name) => /^(licen[cs]e|notice|copying)/i.test(name)).sort();
		if (files.length === 0) throw new Error(`${pkg.name} is bundled into dist but has no licence file to ship`);
		const texts = files.map((name) => `--- ${name}\n\n${fs.readFileSync(path.join(dir, name), 'utf8').trim()}\n`);
		return `=== ${pkg.name}@${pkg.version} (${pkg.license})\n\n${texts.join('\n')}`;
	});
	return `Third-party code bundled into this package's dist folder, with its licence notices.\n\n${sections.join('\n')}`;
}

// A stale file of an earlier build (a removed node, a test compiled by an older tsconfig) would otherwise be packed.
task('clean', (done) => {
	fs.rmSync(path.resolve('dist'), { recursive: true, force: true });
	done();
});

task('build', parallel('build:icons', 'build:bundle'));
