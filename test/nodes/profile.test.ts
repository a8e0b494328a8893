/**
 * Business Profile > Get, through the real node against the sandbox gateway.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { runNode } from '../harness';
import { sandboxCredentials, startSandbox, type Sandbox } from '../sandbox';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const run = (parameters: INodeParameters, credentialOverrides: Record<string, string> = {}, items: IDataObject[] = [{}]) =>
	runNode({
		node: new MessagingGateway(),
		parameters,
		credentials: sandboxCredentials(sandbox, credentialOverrides),
		items: items.map((json) => ({ json })),
	});

const json = (result: Awaited<ReturnType<typeof run>>) => result.output[0].map((item) => item.json);

describe('Business Profile > Get', () => {
	it('sends GET /api/Profiles (version 4.0) and outputs one item per profile', async () => {
		const result = await run({ resource: 'profile', operation: 'get' });

		expect(sandbox.requests.map((r) => [r.method, r.path, r.headers.version, r.headers.apikey])).toEqual([
			['GET', '/api/Profiles', '4.0', sandbox.apiKey],
		]);
		expect(json(result)).toEqual([
			{
				messaging_product: 'whatsapp',
				address: expect.any(String),
				description: expect.any(String),
				vertical: 'OTHER',
				about: expect.any(String),
				email: expect.any(String),
				profile_picture_url: expect.stringMatching(/^https:\/\//),
				websites: [expect.stringMatching(/^https:\/\//)],
			},
		]);
	});

	it('runs once per input item', async () => {
		const result = await run({ resource: 'profile', operation: 'get' }, {}, [{}, {}]);
		expect(sandbox.requests).toHaveLength(2);
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
