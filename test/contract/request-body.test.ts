/**
 * Contract with n8n-core's request helper: a request body of the package's Blob-like class (nodes/gateway/blobBody.ts:
 * `size`, `type`, `stream()`) reaches the server byte for byte, with Content-Length = `size`, read as it is sent. The
 * media and person uploads rely on it; the day n8n-core (or its axios) stops passing such a body on, this fails.
 */
import { randomBytes, createHash } from 'node:crypto';

import { FileBody } from '../../nodes/gateway/blobBody';
import { runNode } from '../harness';
import { API_KEY, type LocalServer, RequestNode, nextRequest, startServer } from './support';

let server: LocalServer;
beforeAll(async () => {
	server = await startServer();
});
afterAll(() => server.close());

it('passes a Blob-like body through httpRequestWithAuthentication byte for byte, with its size as Content-Length', async () => {
	const chunks = Array.from({ length: 16 }, () => randomBytes(64 * 1024 + 7));
	const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
	const pulled: number[] = [];
	async function* arriving() {
		for (const [index, chunk] of chunks.entries()) {
			pulled.push(index);
			yield chunk;
		}
	}
	nextRequest.options = {
		method: 'POST',
		url: `${server.url}/upload`,
		body: new FileBody(arriving(), size, 'application/x-contract'),
		disableFollowRedirect: true,
	};

	await runNode({ node: new RequestNode(), parameters: {}, credentials: { messagingGatewayApi: { apiKey: API_KEY, baseUrl: server.url } } });

	const expected = createHash('sha256');
	for (const chunk of chunks) expected.update(chunk);
	expect(server.received).toHaveLength(1);
	const [request] = server.received;
	expect(request.bytes).toBe(size);
	expect(request.sha256).toBe(expected.digest('hex'));
	expect(request.headers['content-length']).toBe(String(size));
	expect(request.headers['content-type']).toBe('application/x-contract');
	expect(pulled).toHaveLength(chunks.length);
});
