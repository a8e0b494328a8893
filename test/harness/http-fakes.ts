/**
 * The parts of express's request and response that n8n hands a webhook node. n8n's webhook server has already
 * parsed the body (JSON into `body`, the bytes kept in `rawBody`); the response records what the node writes.
 */
import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

export interface RequestInput {
	method?: string;
	/** Header names are case-insensitive, as on the wire; they reach the node lower-cased, as in Node's http. */
	headers?: Record<string, string>;
	/** The parsed body. Default: rawBody parsed as JSON when it is JSON, else {}. */
	body?: unknown;
	/** The bytes as received. Default: `body` serialized (a string as is, anything else as JSON). */
	rawBody?: Buffer;
	query?: IDataObject;
}

export interface FakeRequest {
	method: IHttpRequestMethods;
	url: string;
	headers: Record<string, string>;
	body: unknown;
	rawBody: Buffer;
	query: IDataObject;
	params: IDataObject;
	get(name: string): string | undefined;
	header(name: string): string | undefined;
	readRawBody(): Promise<void>;
}

export function buildRequest(input: RequestInput): FakeRequest {
	const headers = Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
	const rawBody =
		input.rawBody ??
		Buffer.from(typeof input.body === 'string' ? input.body : JSON.stringify(input.body ?? {}), 'utf8');
	if (input.body !== undefined && typeof input.body !== 'string') headers['content-type'] ??= 'application/json';
	const body = input.body !== undefined ? input.body : parseJson(rawBody, headers['content-type']);
	const getHeader = (name: string) => headers[name.toLowerCase()];
	return {
		method: (input.method ?? 'POST').toUpperCase() as IHttpRequestMethods,
		url: '/',
		headers,
		body,
		rawBody,
		query: input.query ?? {},
		params: {},
		get: getHeader,
		header: getHeader,
		readRawBody: async () => {},
	};
}

function parseJson(raw: Buffer, contentType: string | undefined): unknown {
	if (contentType !== undefined && !contentType.includes('json')) return {};
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		return {};
	}
}

export interface ResponseRecord {
	/** False when the node wrote nothing (then n8n answers from the webhook's responseMode). */
	written: boolean;
	statusCode: number;
	headers: Record<string, string>;
	body: unknown;
}

export class RecordedResponse {
	statusCode = 200;

	headersSent = false;

	private readonly headers: Record<string, string> = {};

	private body: unknown;

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	sendStatus(code: number) {
		return this.status(code).end();
	}

	setHeader(name: string, value: string) {
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}

	set(name: string | Record<string, string>, value?: string) {
		if (typeof name === 'string') return this.setHeader(name, value ?? '');
		for (const [key, headerValue] of Object.entries(name)) this.setHeader(key, headerValue);
		return this;
	}

	header(name: string | Record<string, string>, value?: string) {
		return this.set(name, value);
	}

	getHeader(name: string) {
		return this.headers[name.toLowerCase()];
	}

	writeHead(code: number, headers?: Record<string, string>) {
		this.status(code).set(headers ?? {});
		return this;
	}

	json(body: unknown) {
		this.headers['content-type'] ??= 'application/json';
		return this.send(body);
	}

	send(body?: unknown) {
		this.body = body;
		this.headersSent = true;
		return this;
	}

	end(body?: unknown) {
		if (body !== undefined) this.body = body;
		this.headersSent = true;
		return this;
	}

	record(): ResponseRecord {
		return { written: this.headersSent, statusCode: this.statusCode, headers: { ...this.headers }, body: this.body };
	}
}
