// Copies the node and credential icons next to the compiled code, where n8n looks for them.
const path = require('path');
const { task, src, dest } = require('gulp');

task('build:icons', () =>
	src(['icons/*.svg', 'nodes/**/*.svg', 'credentials/**/*.svg', 'nodes/**/*.json'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist'))),
);
