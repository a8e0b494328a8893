/** A 0-byte JSON person file is refused as empty, naming the item; nothing is uploaded. */
import type { InputItem } from '../harness';
import { rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const jsonFile = (text: string): InputItem => ({
	json: {},
	binary: { data: { data: Buffer.from(text), fileName: 'people.json', mimeType: 'application/json' } },
});

const upload = (items: InputItem[], continueOnFail = false) =>
	runGateway(gateway.sandbox, { resource: 'personData', operation: 'upload', source: 'binary', format: 'json' }, { items, continueOnFail });

describe('Person Data > Upload of an empty JSON file', () => {
	it.each([
		['0 bytes', ''],
		['only white space', ' \n\t\n'],
	])('%s: "The JSON file is empty", nothing uploaded', async (_, text) => {
		const error = await rejectionOf(upload([jsonFile(text)]));
		// Said once, with the item: not "The JSON file: The JSON file is empty".
		expect(error.message).toBe('The JSON file is empty (item 0)');
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('a file cut short still says it ends before its closing ]', async () => {
		const error = await rejectionOf(upload([jsonFile('[{"FirstName":"Ana","Email":"ana@example.com"}')]));
		expect(error.message).toBe('The JSON file ends before its closing ] (item 0)');
	});

	it('a reason that does not name the file gets the file and the item first', async () => {
		const csv: InputItem = {
			json: {},
			binary: { data: { data: Buffer.from('Email;Email\na@example.com;b@example.com\n'), fileName: 'people.csv', mimeType: 'text/csv' } },
		};
		const run = runGateway(
			gateway.sandbox,
			{ resource: 'personData', operation: 'upload', source: 'binary', format: 'csv' },
			{ items: [csv] },
		);
		expect((await rejectionOf(run)).message).toBe('The CSV file of item 0: Column "Email" appears twice in the header');
	});
});
