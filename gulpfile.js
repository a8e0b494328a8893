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
 * Our modules that stand for a library (a devDependency): each one's compiled file is replaced by a bundle of the
 * module with the library inlined, so the rest of the compiled code requires only relative paths and n8n-workflow.
 */
const BUNDLED_MODULES = ['nodes/gateway/libphonenumber.ts'];

task('build:bundle', () =>
	Promise.all(
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
			});
		}),
	),
);

// A stale file of an earlier build (a removed node, a test compiled by an older tsconfig) would otherwise be packed.
task('clean', (done) => {
	fs.rmSync(path.resolve('dist'), { recursive: true, force: true });
	done();
});

task('build', parallel('build:icons', 'build:bundle'));
