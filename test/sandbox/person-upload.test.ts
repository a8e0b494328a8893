/** `POST /DataInserterProfiles/api/profile` (spec 2.8, 4.9): streamed files, records counted, shape checked. */
import { createHash } from 'node:crypto';

import { ENDPOINTS, PERSON_CONTENT_TYPES } from '../../nodes/gateway/spec';
import { rawRequest } from './helpers';
import { CsvRecordScanner, JsonRecordScanner, type RecordScanner } from './person-files';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ keepBodiesUpToBytes: 1000, personFileMaxBytes: 5000 });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

function upload(body: string | Buffer, contentType: string, options: { chunkSize?: number; headers?: Record<string, string> } = {}) {
	return rawRequest(`${sandbox.url}${ENDPOINTS.personUpload.path}`, {
		method: 'POST',
		headers: { apiKey: sandbox.apiKey, 'Content-Type': contentType, ...options.headers },
		body,
		chunkSize: options.chunkSize,
	});
}

/** Feeds the text to a scanner in chunks of every size from 1 to 17 bytes, and returns the records of each run. */
function scanInChunks(text: string, makeScanner: () => RecordScanner): Array<{ records: number; error: string | null }> {
	const bytes = Buffer.from(text);
	const runs = [];
	for (let size = 1; size <= 17; size++) {
		const scanner = makeScanner();
		for (let offset = 0; offset < bytes.length; offset += size) scanner.write(bytes.subarray(offset, offset + size));
		scanner.end();
		runs.push({ records: scanner.records, error: scanner.error });
	}
	return runs;
}

const TRICKY_CSV = [
	'FirstName;LastName;Email;Phone;Pontos:Integer;Saldo:Float;VIP:Boolean;Desde:Datetime',
	'"Souza; Ana";Lima;ana@example.com;5511988887777;10;12.50;true;2024-01-31',
	'"Bruno ""Bê""";"Rua A\nApto 2";bruno@example.com;;;;;2024-01-31T10:00:00-03:00',
	'Carla;"linha\r\nquebrada; com ponto e vírgula";;5531966665555;3;0.5;false;',
	'',
	'"Dora";"";dora@example.com;;;;;',
	'',
].join('\r\n');

const TRICKY_JSON = JSON.stringify([
	{ FirstName: 'Ana ] } [ {', Email: 'ana@example.com', customAttributes: { pontos: { Type: 'integer', Value: 10 } } },
	{ FirstName: 'Quote \\" and \\\\ backslash', LastName: '"{[', Phone: '5511988887777' },
	{ FirstName: 'Emoji \uD83D\uDE00 e acentuação', CPF: '12345678909', customAttributes: { saldo: { Type: 'Float', Value: '12.50' } } },
	{ LastName: '\\', Email: 'x@example.com', customAttributes: { nascimento: { Type: 'datetime', Value: '1990-05-17' } } },
]).replace('},{', '},\n  {');

describe('record counting', () => {
	it('counts CSV records with quoted ;, doubled quotes and line breaks, whatever the chunking', () => {
		for (const run of scanInChunks(TRICKY_CSV, () => new CsvRecordScanner())) expect(run).toEqual({ records: 4, error: null });
	});

	it('counts JSON elements with brackets, quotes and backslashes inside strings, whatever the chunking', () => {
		for (const run of scanInChunks(TRICKY_JSON, () => new JsonRecordScanner())) expect(run).toEqual({ records: 4, error: null });
	});

	it('answers spec 2.8 and records the file by size, records and hash', async () => {
		const result = await upload(TRICKY_CSV, PERSON_CONTENT_TYPES.csv, { chunkSize: 5 });
		expect(result.status).toBe(200);
		const body = JSON.parse(result.text);
		const fileId = body.response.fileId;
		expect(fileId).toMatch(/^[0-9a-f-]{36}$/);
		expect(body).toEqual({
			success: true,
			response: {
				status: true,
				message: `File Profile-${fileId}.csv saved with id ${fileId}`,
				nameFile: `Profile-${fileId}.csv`,
				path: expect.stringMatching(new RegExp(`^[^/]+/${fileId}/Profile-${fileId}\\.csv$`)),
				fileId,
			},
		});
		const bytes = Buffer.byteLength(TRICKY_CSV);
		const sha256 = createHash('sha256').update(TRICKY_CSV).digest('hex');
		expect(sandbox.state.personFiles[0]).toMatchObject({ fileId, contentType: 'application/csv', bytes, records: 4, sha256, text: TRICKY_CSV });
		expect(sandbox.requests[0].body).toEqual({ contentType: 'application/csv', bytes, records: 4, sha256, text: TRICKY_CSV });
	});

	it('takes JSON files and names them .json', async () => {
		const result = await upload(TRICKY_JSON, PERSON_CONTENT_TYPES.json);
		expect(result.status).toBe(200);
		expect(JSON.parse(result.text).response.nameFile).toMatch(/\.json$/);
		expect(sandbox.state.personFiles[0].records).toBe(4);
	});

	it('keeps the text only of files up to keepBodiesUpToBytes', async () => {
		const big = `Email\n${Array.from({ length: 100 }, (_, i) => `p${i}@example.com`).join('\n')}\n`;
		expect((await upload(big, PERSON_CONTENT_TYPES.csv)).status).toBe(200);
		expect(sandbox.state.personFiles[0].records).toBe(100);
		expect(sandbox.state.personFiles[0].text).toBeUndefined();
		expect(sandbox.requests[0].body).not.toHaveProperty('text');
	});
});

describe('refused files', () => {
	it.each([
		['text/csv', 'FirstName;Email\nAna;a@b.c\n'],
		['text/plain', 'FirstName;Email\nAna;a@b.c\n'],
		['multipart/form-data; boundary=x', '--x--'],
	])('refuses the content type %s with 415', async (contentType, body) => {
		const result = await upload(body, contentType);
		expect(result.status).toBe(415);
		expect(JSON.parse(result.text).error.message).toContain('application/csv');
		expect(sandbox.state.personFiles).toHaveLength(0);
	});

	it('refuses a wrong API key with 401 and the gateway\'s own body, without a network code', async () => {
		const result = await upload('Email\na@b.c\n', PERSON_CONTENT_TYPES.csv, { headers: { apiKey: 'nope' } });
		expect(result.status).toBe(401);
		expect(JSON.parse(result.text)).toEqual({ message: expect.stringMatching(/^Invalid API key/) });
	});

	it('refuses a file over the size limit with 413', async () => {
		const big = `Email\n${'a@example.com\n'.repeat(400)}`;
		const result = await upload(big, PERSON_CONTENT_TYPES.csv);
		expect(result.status).toBe(413);
		expect(sandbox.state.personFiles).toHaveLength(0);
	});

	it.each<[string, string, RegExp]>([
		['an unknown header field', 'Nome;Email\nAna;a@b.c\n', /"Nome"/],
		['a custom attribute of an unknown type', 'Email;Pontos:Number\na@b.c;1\n', /Pontos:Number/],
		['a header with a comma separator', 'FirstName,Email\nAna,a@b.c\n', /FirstName,Email/],
		['no key field', 'FirstName;LastName\nAna;Lima\n', /key fields/],
		['a record with another field count', 'FirstName;Email\nAna;a@b.c;extra\n', /record 1 has 3 fields/],
		['a record without a key value', 'FirstName;Email\nAna;\n', /record 1 has no value in any key field/],
		['an Integer value with decimals', 'Email;Pontos:Integer\na@b.c;1.5\n', /Pontos:integer/],
		['a Float without decimals', 'Email;Saldo:Float\na@b.c;12\n', /Float/],
		['a Float with a currency sign', 'Email;Saldo:Float\na@b.c;R$ 12.50\n', /Float/],
		['a Datetime with a space instead of T', 'Email;Desde:Datetime\na@b.c;2024-05-01 10:00\n', /Datetime/],
		['a Datetime with a comma fraction', 'Email;Desde:Datetime\na@b.c;2024-05-01T10:00:00,5\n', /Datetime/],
		['a quote never closed', 'FirstName;Email\n"Ana;a@b.c\n', /never closed/],
		['an empty file', '', /empty/],
	])('refuses a CSV with %s', async (_case, csv, message) => {
		const result = await upload(csv, PERSON_CONTENT_TYPES.csv);
		expect(result.status).toBe(400);
		expect(JSON.parse(result.text).error.message).toMatch(message);
	});

	it.each<[string, string, RegExp]>([
		['an object, not an array', '{"Email":"a@b.c"}', /array/],
		['an array of strings', '["a@b.c"]', /not an object/],
		['two arrays glued together', '[{"Email":"a@b.c"}][{"Email":"d@e.f"}]', /after the closing/],
		['a missing comma', '[{"Email":"a@b.c"} {"Email":"d@e.f"}]', /comma is missing/],
		['a trailing comma', '[{"Email":"a@b.c"},]', /comma after the last/],
		['an unclosed array', '[{"Email":"a@b.c"}', /not closed/],
		['a field in camelCase', '[{"email":"a@b.c"}]', /email is not a person field/],
		['a phone as a number', '[{"Phone":5511988887777}]', /Phone must be a string/],
		['no key field', '[{"FirstName":"Ana"}]', /key field/],
		['an attribute of an unknown type', '[{"Email":"a@b.c","customAttributes":{"x":{"Type":"money","Value":1}}}]', /Type/],
		['a Datetime that is not a date', '[{"Email":"a@b.c","customAttributes":{"d":{"Type":"datetime","Value":"31/01/2024"}}}]', /Datetime/],
	])('refuses a JSON file with %s', async (_case, json, message) => {
		const result = await upload(json, PERSON_CONTENT_TYPES.json);
		expect(result.status).toBe(400);
		expect(JSON.parse(result.text).error.message).toMatch(message);
	});
});
