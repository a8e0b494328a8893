// The build steps that `tsc` (and n8n's `n8n-node build`) leave to the package: the node and credential icons and the
// nodes' codex files (*.node.json), copied next to the compiled code, where n8n looks for them.
const fs = require('fs');
const path = require('path');
const { task, src, dest, series } = require('gulp');

task('build:icons', () =>
	src(['icons/*.svg', 'nodes/**/*.svg', 'credentials/**/*.svg', 'nodes/**/*.json'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist'))),
);

// A stale file of an earlier build (a removed node, a test compiled by an older tsconfig) would otherwise be packed.
task('clean', (done) => {
	fs.rmSync(path.resolve('dist'), { recursive: true, force: true });
	done();
});

task('build', series('build:icons'));
