/**
 * Person Data > Upload in a real n8n, with the failures a nightly spreadsheet upload meets: three files where the
 * middle one is bad, with and without Continue On Fail, and items with an invalid e-mail under Continue On Fail.
 * Each test checks the stored execution's status, the node's output items (or error) and what the sandbox received.
 */
import type { Execution } from './support/db';
import { setup, type Env, type SandboxRequest, type Workflow } from './support/env';
import { chain, itemsCode } from './support/workflows';

let env: Env;

beforeAll(async () => {
	env = await setup('person-uploads');
});

afterAll(async () => {
	await env?.teardown();
});

const UPLOAD_PATH = '/DataInserterProfiles/api/profile';

async function run(wf: Workflow): Promise<{ exec: Execution; uploads: SandboxRequest[]; stored: Array<{ fileId: string; text?: string }> }> {
	const [imported] = await env.importWorkflows([wf]);
	await env.sandbox.control.reset();
	const exec = await env.execute(imported);
	const uploads = (await env.requests()).filter((r) => r.path === UPLOAD_PATH);
	const state = await env.sandbox.control.state();
	return { exec, uploads, stored: state.personFiles };
}

function output(exec: Execution) {
	const node = exec.node('Gateway');
	if (!node) throw new Error('The Gateway node did not run');
	return node.items;
}

/** A Code node that returns one item per CSV file, the file in `binary.data`. */
function filesCode(files: Array<{ fileName: string; text: string }>): string {
	const items = files.map(({ fileName, text }) => ({
		json: { fileName },
		binary: { data: { data: Buffer.from(text).toString('base64'), mimeType: 'text/csv', fileName } },
	}));
	return `return ${JSON.stringify(items)};`;
}

const FILES = [
	{ fileName: 'monday.csv', text: 'FirstName;Email;Score:Float\nAna;ana@example.com;1.5\n' },
	// Not a person file: the header has columns the gateway does not know.
	{ fileName: 'tuesday.csv', text: 'Nome;mail\nBia;bia@example.com\n' },
	{ fileName: 'wednesday.csv', text: 'FirstName;Email;Score:Float\nCaio;caio@example.com;12\n' },
];

const binaryUpload = { resource: 'personData', operation: 'upload', source: 'binary', format: 'csv', binaryPropertyName: 'data', validateFile: true };

describe('person upload: three files, the middle one bad', () => {
	test('without Continue On Fail the run fails, naming the file and the upload already made', async () => {
		const { exec, uploads, stored } = await run(
			chain('e2e person files fail', [{ name: 'Gateway', parameters: binaryUpload }], filesCode(FILES)),
		);
		expect(exec.status).toBe('error');
		expect(uploads).toHaveLength(1);
		expect(stored).toHaveLength(1);
		expect(stored[0].text).toContain('ana@example.com');
		const error = exec.node('Gateway')?.error ?? exec.error;
		expect(error?.message).toContain('Column "Nome" is neither a person field');
		expect(error?.description).toContain(`<li>item 0 (monday.csv): fileId <code>${stored[0].fileId}</code></li>`);
		expect(error?.description).toContain('running the node again uploads it again');
		expect(error?.description).toContain('The files of item 2 were not uploaded.');
		expect(JSON.stringify(error)).not.toContain(env.sandbox.apiKey);
	});

	test('with Continue On Fail: an error item in the bad file\'s place, the third file uploaded (rewritten: Float 12 → 12.0)', async () => {
		const { exec, uploads, stored } = await run(
			chain('e2e person files continue', [{ name: 'Gateway', parameters: binaryUpload, continueOnFail: true }], filesCode(FILES)),
		);
		expect(exec.status).toBe('success');
		expect(uploads).toHaveLength(2);
		expect(uploads.every((upload) => upload.status === 200)).toBe(true);
		expect(stored).toHaveLength(2);
		expect(stored[1].text).toBe('FirstName;Email;Score:Float\nCaio;caio@example.com;12.0\n');
		const items = output(exec);
		expect(items.map((item) => item.json.fileName)).toEqual(['monday.csv', 'tuesday.csv', 'wednesday.csv']);
		expect(items[0].json).toMatchObject({ fileId: stored[0].fileId, rewritten: false, records: 1 });
		expect(items[1].json).toMatchObject({ error: expect.stringContaining('Column "Nome"') });
		expect(items[1].json.fileId).toBeUndefined();
		expect(items[2].json).toMatchObject({
			fileId: stored[1].fileId,
			rewritten: true,
			validation: { normalised: { 'Score:Float': 1 } },
		});
	});
});

test('person upload from items with Continue On Fail: an error item, not the input passed through, and nothing sent', async () => {
	const people = [
		{ 'Full Name': 'Ana Souza', 'E-mail': 'ana@example.com' },
		{ 'Full Name': 'Bruno Lima', 'E-mail': 'not an e-mail' },
	];
	const { exec, uploads } = await run(
		chain(
			'e2e person items continue',
			[{ name: 'Gateway', parameters: { resource: 'personData', operation: 'upload', source: 'items', format: 'csv', mappingMode: 'auto' }, continueOnFail: true }],
			itemsCode(people),
		),
	);
	expect(exec.status).toBe('success');
	expect(uploads).toHaveLength(0);
	const items = output(exec);
	expect(items).toHaveLength(1);
	expect(items[0].json).toMatchObject({
		error: "1 of 2 items break the gateway's person rules",
		description: expect.stringContaining('item 1: Email "not an e-mail" is not a valid e-mail address'),
		violations: [{ itemIndex: 1, field: 'Email', reason: 'is not a valid e-mail address', value: 'not an e-mail' }],
	});
	expect(items[0].json['Full Name']).toBeUndefined();
});

test('person upload from items: spreadsheet columns mapped, the output says how', async () => {
	const people = [{ Nome: 'Ana Maria Souza', 'E-mail': 'ana@example.com', WhatsApp: '+55 11 97312-4856', Plano: 'ouro' }];
	const { exec, stored } = await run(
		chain(
			'e2e person items columns',
			[{ name: 'Gateway', parameters: { resource: 'personData', operation: 'upload', source: 'items', format: 'csv', mappingMode: 'auto' } }],
			itemsCode(people),
		),
	);
	expect(exec.status).toBe('success');
	expect(stored[0].text).toBe('FirstName;LastName;Email;Phone;Plano:String\nAna Maria;Souza;ana@example.com;5511973124856;ouro\n');
	expect(output(exec)[0].json).toMatchObject({
		fileId: stored[0].fileId,
		mapping: { fields: { Email: ['E-mail'], Phone: ['WhatsApp'] }, splitIntoFirstAndLastName: ['Nome'], customAttributes: { Plano: 'String' } },
	});
});
