/**
 * What the contract tests share: a local server that hashes what it receives, and a throwaway node that makes one
 * request through n8n-core's own `httpRequestWithAuthentication` with the package's credential, so that each test
 * exercises n8n's helper itself and nothing of the package's request path.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, IHttpRequestOptions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

export const API_KEY = 'contract-key-0123456789';

export interface Received {
	method: string;
	headers: IncomingMessage['headers'];
	bytes: number;
	sha256: string;
}

export interface LocalServer {
	url: string;
	received: Received[];
	close(): Promise<void>;
}

/**
 * A server that hashes each request body as it arrives and answers `{ ok: true }`, or hands the request to
 * `hold` (which may never answer) when given.
 */
export async function startServer(hold?: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
	const received: Received[] = [];
	const server: Server = createServer((req, res) => {
		if (hold) return hold(req, res);
		const hash = createHash('sha256');
		let bytes = 0;
		req.on('data', (chunk: Buffer) => {
			hash.update(chunk);
			bytes += chunk.length;
		});
		req.on('end', () => {
			received.push({ method: req.method ?? '', headers: req.headers, bytes, sha256: hash.digest('hex') });
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		async close() {
			server.closeAllConnections();
			server.close();
			await once(server, 'close');
		},
	};
}

/** The request the node below makes: set by each test before it runs the node. */
export const nextRequest: { options?: IHttpRequestOptions } = {};

/** Makes `nextRequest.options` through n8n's `httpRequestWithAuthentication` with the package's credential type. */
export class RequestNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Contract Request',
		name: 'contractRequest',
		group: ['transform'],
		version: 1,
		description: 'One request through n8n-core',
		defaults: {},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', nextRequest.options!)) as object;
		return [[{ json: { response } as never }]];
	}
}
