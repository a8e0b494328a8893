/** Helpers of the sandbox's own tests: plain HTTP calls with the headers each endpoint takes, and valid bodies. */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

import { CHANNEL, ENDPOINTS, type EndpointName } from '../../nodes/gateway/spec';
import type { Sandbox } from './server';

export interface CallResult {
	status: number;
	headers: Headers;
	text: string;
	/** The parsed body, or undefined when it is not JSON (tests read fields freely). */
	json: any;
}

/** A JSON call with the right key and version of `endpoint` unless overridden (`null` removes a header). */
export async function call(
	sandbox: Sandbox,
	method: string,
	path: string,
	options: { endpoint?: EndpointName; body?: unknown; headers?: Record<string, string | null>; rawBody?: string } = {},
): Promise<CallResult> {
	const version = options.endpoint ? ENDPOINTS[options.endpoint].version : null;
	const headers: Record<string, string | null> = {
		apikey: sandbox.apiKey,
		...(version ? { version } : {}),
		...(options.body !== undefined || options.rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
		...options.headers,
	};
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null)),
		body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
	});
	const text = await response.text();
	let json: unknown = undefined;
	try {
		json = JSON.parse(text);
	} catch {
		// Not JSON: the test looks at `text`.
	}
	return { status: response.status, headers: response.headers, text, json };
}

export function sendMessage(sandbox: Sandbox, body: unknown, headers?: Record<string, string | null>): Promise<CallResult> {
	return call(sandbox, 'POST', ENDPOINTS.messages.path, { endpoint: 'messages', body, headers });
}

/** A raw request with exactly the given header names (fetch normalises names; this keeps `apiKey` as written). */
export function rawRequest(
	url: string,
	options: { method: string; headers: Record<string, string>; body?: Buffer | string; chunkSize?: number },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
	const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
	// An explicit length: Node sends a GET body without framing otherwise.
	const headers = body ? { 'content-length': String(body.length), ...options.headers } : options.headers;
	return new Promise((resolve, reject) => {
		const request = http.request(url, { method: options.method, headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () =>
				resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }),
			);
		});
		request.on('error', reject);
		if (body) {
			// Small chunks put boundaries and quotes across chunk edges, as a slow network would.
			const size = options.chunkSize ?? body.length;
			for (let offset = 0; offset < body.length; offset += size) request.write(body.subarray(offset, offset + size));
		}
		request.end();
	});
}

export const TO = '5511988887777';

export function message(type: string, object: unknown): Record<string, unknown> {
	return { messaging_product: CHANNEL, recipient_type: 'individual', to: TO, type, [type]: object };
}

/** One valid body per message type of spec section 2.2. */
export const VALID_MESSAGES: Record<string, Record<string, unknown>> = {
	text: message('text', { body: 'Olá, tudo bem?' }),
	template: message('template', {
		name: 'pedido_enviado',
		language: { policy: 'deterministic', code: 'pt_BR' },
		components: [
			{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '12345' }] },
			{ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'pedido/12345' }] },
		],
	}),
	'interactive (buttons)': message('interactive', {
		type: 'button',
		body: { text: 'Confirma o pedido?' },
		footer: null,
		action: {
			buttons: [
				{ type: 'reply', reply: { id: 'yes', title: 'Sim' } },
				{ type: 'reply', reply: { id: 'no', title: 'Não' } },
				{ type: 'reply', reply: { id: 'later', title: 'Mais tarde, obrigado' } },
			],
		},
	}),
	'interactive (list)': message('interactive', {
		type: 'list',
		header: { type: 'text', text: 'Menu' },
		body: { text: 'Escolha uma opção' },
		footer: { text: 'Loja Sandbox' },
		action: {
			button: 'Ver opções',
			sections: [
				{ title: 'Pedidos', rows: [{ id: 'track', title: 'Rastrear', description: 'Onde está meu pedido' }] },
				{ title: 'Ajuda', rows: [{ id: 'human', title: 'Atendente', description: '' }] },
			],
		},
	}),
	contacts: message('contacts', [
		{
			addresses: [{ street: 'Av. Paulista, 1000', city: 'São Paulo', state: 'SP', zip: '01310-100', country: 'Brasil', country_code: 'BR', type: 'WORK' }],
			birthday: '1990-05-17',
			emails: [{ email: 'ana@example.com', type: 'HOME' }],
			name: { formatted_name: 'Ana Souza', first_name: 'Ana', last_name: 'Souza' },
			org: { company: 'Sandbox', department: 'Vendas', title: 'Gerente' },
			phones: [{ phone: '+55 11 98888-7777', type: 'WORK', wa_id: '5511988887777' }],
			urls: [{ url: 'https://example.com', type: 'WORK' }],
		},
	]),
	location: message('location', { latitude: '-23.5613', longitude: '-46.6565', name: 'Escritório', address: 'Av. Paulista, 1000' }),
	image: message('image', { id: '1234567890' }),
	audio: message('audio', { id: '1234567891' }),
	video: message('video', { id: '1234567892' }),
	document: message('document', { id: '1234567893', caption: 'Nota fiscal', filename: 'nota.pdf' }),
	sticker: message('sticker', { id: '1234567894' }),
	reaction: message('reaction', { message_id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1', emoji: '\uD83D\uDE00' }),
};

/** The spec's notification samples, as copied into test/fixtures/notifications: value objects and an envelope. */
const sample = (file: string): Record<string, unknown> =>
	JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'notifications', file), 'utf8'));

export const NOTIFICATIONS = {
	incomingText: sample('incoming-text.value.json'),
	envelope: sample('incoming-text.meta-envelope.json'),
	templateStatus: sample('template-status.value.json'),
};
