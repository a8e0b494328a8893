/**
 * The saved workflows of test/workflows whose one gateway node follows the trigger, run in process (n8n-core's
 * execution context, the node's parameters exactly as saved, its saved typeVersion): each sends the requests of
 * test/workflows/expectations.ts. The e2e run (test/e2e/09-saved-workflows.e2e.ts) covers all of them in a real n8n.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { EXPECTED_REQUESTS, samePlace } from '../workflows/expectations';
import { runGateway, useSandbox } from './support';

interface SavedNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: INodeParameters;
}

const DIR = join(__dirname, '..', 'workflows');
const saved = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => ({ file: file.replace(/\.json$/, ''), nodes: (JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { nodes: SavedNode[] }).nodes }));

/** One trigger and one gateway node: nothing else feeds the gateway node. */
const inProcess = saved.filter(({ nodes }) => nodes.length === 2 && nodes[1].type.endsWith('.messagingGateway'));

const gateway = useSandbox();

it('every saved workflow has its expected requests, and most run in process', () => {
	expect(saved.filter(({ file }) => !EXPECTED_REQUESTS[file]).map(({ file }) => file)).toEqual([]);
	expect(inProcess.length).toBeGreaterThanOrEqual(12);
});

test.each(inProcess.map(({ file, nodes }) => [file, nodes[1]] as const))('%s', async (file, node) => {
	await runGateway(gateway.sandbox, node.parameters, { typeVersion: node.typeVersion });
	const { requests } = gateway.sandbox;
	const expected = EXPECTED_REQUESTS[file];
	expect(requests.map((request) => `${request.method} ${request.path}`)).toHaveLength(expected.length);
	expected.forEach((want, i) => {
		expect(samePlace(want, requests[i])).toBe(true);
		expect(requests[i].status).toBeLessThan(300);
		if (want.version) expect(requests[i].headers.version).toBe(want.version);
		if (want.body) expect(requests[i].body).toMatchObject(want.body);
	});
});
