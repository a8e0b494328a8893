/**
 * Comments in shipped code (nodes/, credentials/) cite only files the repository holds: a maintainer who reads
 * "see docs/gateway.md" must find it. A cited file is a word ending in .md, .ts, .js or .json inside a comment; a path
 * must end the path of some file of the repository (`gateway/phone.ts`, `actions/media/mediaFromUrl.ts`), a bare
 * name must be the name of one.
 */
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git']);

function filesUnder(dir: string): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		if (SKIP.has(entry.name)) return [];
		const full = path.join(dir, entry.name);
		return entry.isDirectory() ? filesUnder(full) : [full];
	});
}

const repositoryFiles = filesUnder(root);
const names = new Set(repositoryFiles.map((file) => path.basename(file)));

/** The text of every // and /* comment of a TypeScript source (string contents are not comments). */
function commentsOf(source: string): string[] {
	return [...source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g)].map((match) => match[0]);
}

/** File names cited in a comment: `docs/gateway.md`, `spec.ts`, `../gateway/errors.ts`, `package.json`. */
function citedFiles(comment: string): string[] {
	return [...comment.matchAll(/(?<![\w/.@-])((?:\.{1,2}\/)?[\w@-]+(?:[./][\w@-]+)*\.(?:md|ts|js|json))(?![\w/])/g)].map((match) => match[1]);
}

function exists(cited: string, fromFile: string): boolean {
	if (!cited.includes('/')) return names.has(cited);
	if (cited.startsWith('.')) return fs.existsSync(path.resolve(path.dirname(fromFile), cited));
	return repositoryFiles.some((file) => file.endsWith(`${path.sep}${cited}`));
}

const shipped = ['nodes', 'credentials'].flatMap((dir) => filesUnder(path.join(root, dir))).filter((file) => file.endsWith('.ts'));

it('finds the comments of shipped code (the check reads something)', () => {
	expect(shipped.length).toBeGreaterThan(20);
	const cited = shipped.flatMap((file) => commentsOf(fs.readFileSync(file, 'utf8')).flatMap(citedFiles));
	expect(cited).toContain('docs/gateway.md');
});

it('every file a comment in nodes/ or credentials/ cites is in the repository', () => {
	const missing = shipped.flatMap((file) =>
		commentsOf(fs.readFileSync(file, 'utf8'))
			.flatMap(citedFiles)
			.filter((cited) => !exists(cited, file))
			.map((cited) => `${path.relative(root, file)}: ${cited}`),
	);
	expect(missing).toEqual([]);
});
