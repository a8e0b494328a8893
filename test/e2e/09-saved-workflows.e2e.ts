/**
 * The saved workflows of test/workflows, as the editor saved them (values equal to their default left out), run in
 * a real n8n against the sandbox: each must succeed and send exactly the requests of test/workflows/expectations.ts,
 * in order. A workflow saved with an earlier release must keep working: a failure here after a change of the node
 * means that change needs a new node version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EXPECTED_REQUESTS, samePlace } from '../workflows/expectations';
import type { Execution } from './support/db';
import { setup, type Env, type Workflow } from './support/env';

const DIR = join(__dirname, '..', 'workflows');
const files = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => file.replace(/\.json$/, ''));

let env: Env;
const imported: Record<string, Workflow> = {};

beforeAll(async () => {
	env = await setup('saved-workflows');
	const workflows = files.map((file) => JSON.parse(readFileSync(join(DIR, `${file}.json`), 'utf8')) as Workflow);
	const ready = await env.importWorkflows(workflows);
	files.forEach((file, i) => (imported[file] = ready[i]));
});

afterAll(async () => {
	await env?.teardown();
});

function failureOf(exec: Execution): string {
	const nodeErrors = Object.keys(exec.data?.resultData?.runData ?? {})
		.map((name) => ({ name, error: exec.node(name)?.error }))
		.filter((node) => node.error);
	return `Execution ${exec.id} ended "${exec.status}": ${JSON.stringify(exec.error ?? nodeErrors).slice(0, 1500)}`;
}

it('keeps at least 15 saved workflows, each with its expected requests', () => {
	expect(files.length).toBeGreaterThanOrEqual(15);
	expect(files.filter((file) => !EXPECTED_REQUESTS[file])).toEqual([]);
});

test.each(files)('%s runs and sends what it sent when it was saved', async (file) => {
	await env.sandbox.control.reset();
	const exec = await env.execute(imported[file]);
	if (exec.status !== 'success') throw new Error(failureOf(exec));

	const requests = await env.requests();
	const expected = EXPECTED_REQUESTS[file];
	expect(requests.map((request) => `${request.method} ${request.path}`)).toHaveLength(expected.length);
	expected.forEach((want, i) => {
		const request = requests[i];
		expect({ index: i, place: samePlace(want, request) ? 'as expected' : `${request.method} ${request.path}` }).toEqual({ index: i, place: 'as expected' });
		expect(request.status).toBeGreaterThanOrEqual(200);
		expect(request.status).toBeLessThan(300);
		expect(request.headers.apikey).toBe(env.sandbox.apiKey);
		if (want.version) expect(request.headers.version).toBe(want.version);
		if (want.body) expect(request.body).toMatchObject(want.body);
	});
});
