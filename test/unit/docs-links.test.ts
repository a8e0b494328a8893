/**
 * The editor's Docs links (node settings, credential screen) open pages of this package: a docs/ file on the
 * repository's web view named in package.json, never a #anchor (n8n appends its tracking query to the link, which would
 * end up inside the fragment). Each page the links name exists, and the README links every page of docs/.
 */
import * as fs from 'fs';
import * as path from 'path';

import { MessagingGatewayApi } from '../../credentials/MessagingGatewayApi.credentials';
import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { MessagingGatewayTrigger } from '../../nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const repoWebUrl = String(pkg.repository.url).replace(/^git\+/, '').replace(/\.git$/, '');
const docsBase = `${repoWebUrl}/blob/main/docs/`;

function codex(node: string): { resources: Record<string, Array<{ url: string }>> } {
	return JSON.parse(fs.readFileSync(path.join(root, 'nodes', node, `${node}.node.json`), 'utf8'));
}

const links: Array<[string, string | undefined]> = [
	['credential', new MessagingGatewayApi().documentationUrl],
	['action node', new MessagingGateway().description.documentationUrl],
	['trigger', new MessagingGatewayTrigger().description.documentationUrl],
	...['MessagingGateway', 'MessagingGatewayTrigger'].flatMap((node) =>
		Object.entries(codex(node).resources).flatMap(([kind, entries]) =>
			entries.map((entry): [string, string] => [`${node}.node.json ${kind}`, entry.url]),
		),
	),
];

describe('Docs links', () => {
	it('the repository is the package’s own, and homepage and bugs point into it', () => {
		expect(repoWebUrl).toMatch(/^https:\/\/github\.com\/[^/]+\/n8n-nodes-messaging-gateway$/);
		expect(pkg.homepage.startsWith(repoWebUrl)).toBe(true);
		expect(pkg.bugs.url).toBe(`${repoWebUrl}/issues`);
	});

	it.each(links)('%s opens a docs page of this package without an anchor', (_where, url) => {
		expect(url).toBeDefined();
		expect(url!.startsWith(docsBase)).toBe(true);
		expect(url).not.toContain('#');
		const page = url!.slice(docsBase.length);
		expect(fs.existsSync(path.join(root, 'docs', page))).toBe(true);
	});

	it('the README links every page of docs/', () => {
		const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
		const pages = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
		expect(pages.length).toBeGreaterThan(0);
		expect(pages.filter((page) => !readme.includes(`](docs/${page}`))).toEqual([]);
	});
});
