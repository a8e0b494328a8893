/**
 * The harness's memory check, run by `npm run test:heavy` (not `npm test`): a 50 MB binary input goes from disk
 * through n8n's binary store and request helper to a server without being held in memory, so node tests that stream
 * files measure the node and not the harness.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { measurePeakMemory, runNode } from './index';

const API_KEY = 'key-5ecret-123';
let uploaded: { sha256: string; bytes: number } | undefined;
let server: Server;
let baseUrl: string;
let folder: string;

beforeAll(async () => {
	folder = mkdtempSync(join(tmpdir(), 'harness-heavy-test-'));
	// Hashes the upload as it arrives: the server holds none of it.
	server = createServer((req, res) => {
		const hash = createHash('sha256');
		let bytes = 0;
		req.on('data', (chunk: Buffer) => {
			hash.update(chunk);
			bytes += chunk.length;
		});
		req.on('end', () => {
			uploaded = { sha256: hash.digest('hex'), bytes };
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'media-1', ...uploaded }));
		});
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.close();
	await once(server, 'close');
	rmSync(folder, { recursive: true, force: true });
});

/** Streams each item's binary `data` to the server, as harness.test.ts's UploadNode does. */
class UploadNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Upload',
		name: 'harnessUpload',
		group: ['transform'],
		version: 1,
		description: 'Harness test node',
		defaults: {},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const binaryData = this.helpers.assertBinaryData(0, 'data');
		const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
			method: 'POST',
			url: `${baseUrl}/upload`,
			body: await this.helpers.getBinaryStream(binaryData.id!),
			headers: { apikey: API_KEY, 'content-type': 'application/octet-stream', 'content-length': binaryData.bytes },
			// Following redirects makes n8n's HTTP client keep a copy of the whole body to replay it.
			disableFollowRedirect: true,
		})) as IDataObject;
		return [[{ json: response }]];
	}
}

/** Writes `size` pseudo-random bytes in 1 MB chunks and returns their sha256. */
async function writeFile(filePath: string, size: number): Promise<string> {
	const hash = createHash('sha256');
	const out = createWriteStream(filePath);
	const chunk = Buffer.alloc(1024 * 1024);
	for (let written = 0; written < size; written += chunk.length) {
		chunk.writeUInt32LE(written, 0);
		hash.update(chunk);
		if (!out.write(chunk)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
	return hash.digest('hex');
}

it('streams a 50 MB file input from disk to the server without holding it in memory', async () => {
	const size = 50 * 1024 * 1024;
	const filePath = join(folder, 'big.bin');
	const expectedHash = await writeFile(filePath, size);

	const { peakGrowth } = await measurePeakMemory(() =>
		runNode({
			node: new UploadNode(),
			parameters: {},
			credentials: { messagingGatewayApi: { apiKey: API_KEY, baseUrl } },
			items: [{ json: {}, binary: { data: { data: { filePath }, mimeType: 'application/octet-stream' } } }],
		}),
	);

	expect(uploaded).toEqual({ sha256: expectedHash, bytes: size });
	// Streaming measures about 20 MB here (chunks in flight, the copy being written); buffering the file, 60 MB.
	expect(peakGrowth).toBeLessThan(size / 2);
});
