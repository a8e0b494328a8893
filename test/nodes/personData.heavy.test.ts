/**
 * Person Data > Upload memory check, run by `npm run test:heavy` (not `npm test`): 200,000 input items are checked,
 * written and uploaded while the node holds nothing per item but the output's pairing.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { measurePeakMemory, runNode } from '../harness';
import { sandboxCredentials, startSandbox } from '../sandbox';

describe('Person Data > Upload memory', () => {
	const COUNT = 200_000;
	const MB = 1024 * 1024;

	it(`stays flat with ${COUNT} items: nothing per item is held but the output's pairing`, async () => {
		// Its own sandbox that keeps no body: the sandbox runs in this process and its memory would count.
		const quiet = await startSandbox({ keepBodiesUpToBytes: 0 });
		try {
			// Parsed from JSON as n8n's items are: template strings would be flattened in place by the node's checks.
			const people = JSON.parse(
				JSON.stringify(
					Array.from({ length: COUNT }, (_, i) => ({
						first_name: `Pessoa ${i}`,
						email: `pessoa.${i}@example.com`,
						phone: `+55 11 9${30000000 + i}`,
						plan: i % 5 === 0 ? 'gold "vip"' : 'basic',
						visits: i % 1000,
					})),
				),
			) as IDataObject[];
			const node = new MessagingGateway();
			const execute = node.execute as (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
			let growth = 0;
			// Measured from execute()'s start: the items n8n wraps the input in are not the node's.
			node.execute = async function (this: IExecuteFunctions) {
				const measured = await measurePeakMemory(async () => await execute.call(this));
				growth = measured.peakGrowth;
				return measured.result;
			};
			const { output } = await runNode({
				node,
				parameters: { resource: 'personData', operation: 'upload' },
				credentials: sandboxCredentials(quiet),
				items: people.map((json) => ({ json })),
			});
			expect(quiet.state.personFiles.map((file) => file.records)).toEqual([COUNT]);
			expect(output[0][0].pairedItem).toHaveLength(COUNT);
			// The output's pairedItem list is ~40 bytes an item (7.6 MB); the upload itself holds well under 1 MB
			// (7.5-8.0 MB measured in all). Holding the file (~12 MB) or the checked records (58 MB measured) breaks it.
			expect(growth).toBeLessThan(16 * MB);
		} finally {
			await quiet.close();
		}
	});
});
