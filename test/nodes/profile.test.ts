/**
 * Business Profile > Get, through the real node against the sandbox gateway.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { jsonItems, outputJson, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const run = (parameters: INodeParameters, credentials: Record<string, string> = {}, items: IDataObject[] = [{}]) =>
	runGateway(gateway.sandbox, parameters, { credentials, items: jsonItems(items) });
const json = outputJson;

describe('Business Profile > Get', () => {
	it('sends GET /api/Profiles (version 4.0) and outputs one item per profile', async () => {
		const result = await run({ resource: 'profile', operation: 'get' });

		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version, r.headers.apikey])).toEqual([
			['GET', '/api/Profiles', '4.0', gateway.sandbox.apiKey],
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
		expect(gateway.sandbox.requests).toHaveLength(2);
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
