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
		expect(error.message).toMatch(/The JSON file is empty/);
		expect(error.message).not.toMatch(/closing \]/);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('a file cut short still says it ends before its closing ]', async () => {
		const error = await rejectionOf(upload([jsonFile('[{"FirstName":"Ana","Email":"ana@example.com"}')]));
		expect(error.message).toMatch(/ends before its closing \]/);
	});
});
