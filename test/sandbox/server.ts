/**
 * The sandbox gateway: a real HTTP server that implements every endpoint of docs/gateway.md, checks each request
 * strictly against it and answers as it says, errors included. Every test of the package runs against it, so it is
 * the referee: what it lets through, the real gateway might refuse.
 *
 * A request goes through: route (404/405) → body read in full, streamed for files → injected fault, if any →
 * API key (401) → version header (400) → content type and body shape (415/413/400) → for a send, the network's
 * limits when they are on (throughput.ts: 400 with 130429 or 131056) → the route's handler.
 * Control routes under `/__sandbox/` take no key and are not recorded (see control.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { MediaFormat } from '../../nodes/gateway/media';
import {
	CHANNEL,
	ENDPOINTS,
	MEDIA_LIMITS,
	PERSON_CONTENT_TYPES,
	PERSON_FILE_MAX_BYTES,
	PHONE_ID_QUERY_PARAM,
} from '../../nodes/gateway/spec';
import { handleControl } from './control';
import { errorBody, GatewayError, invalid, keyRefused, keyRefusedBody } from './errors';
import { checkMediaOfMessage } from './media-kinds';
import { messageResponse, validateMessage } from './messages';
import { MultipartReader, multipartBoundary, type MultipartSummary } from './multipart';
import { CsvRecordScanner, JsonRecordScanner, type RecordScanner } from './person-files';
import { matchRoute, type Route, type RouteName } from './routes';
import { DEFAULT_STATUS_DELAY_MS, NetworkStatuses, type StatusSettings } from './statuses';
import { NetworkThroughput, throughputSettings, type ThroughputSettings } from './throughput';
import {
	checkEditAllowed,
	checkTemplateOfMessage,
	newTemplateId,
	templateView,
	validateTemplateContent,
	type SandboxTemplate,
} from './templates';
import {
	createdWebhookView,
	isoWithOffset,
	listedWebhookView,
	notificationFields,
	postNotification,
	validateWebhookCreation,
	type DeliveryOptions,
	type DeliveryResult,
	type SandboxWebhook,
} from './webhooks';

export type { RouteName } from './routes';
export type { SandboxTemplate } from './templates';
export type { SandboxWebhook, DeliveryResult } from './webhooks';
export type { StatusDelivery, StatusSettings } from './statuses';
export type { ThroughputCounts, ThroughputMode, ThroughputSettings } from './throughput';

export interface SandboxOptions {
	/** 0 (default) picks a free port. */
	port?: number;
	host?: string;
	apiKey?: string;
	/** Further accepted keys, each its own caller with its own webhooks, templates and files. */
	extraApiKeys?: string[];
	phoneId?: string;
	/** Person uploads up to this size keep their text in the recorded request and in state (default 16 MiB). */
	keepBodiesUpToBytes?: number;
	/** The clock of the template edit quota, in epoch milliseconds (tests move it forward). */
	now?: () => number;
	/** Only for tests of the 413 answer: the person-file limit is PERSON_FILE_MAX_BYTES (docs/gateway.md). */
	personFileMaxBytes?: number;
	/** Milliseconds every gateway request waits before it is answered, as a gateway across the internet (default 0). */
	latencyMs?: Latency;
	/**
	 * Status notifications after each accepted send, as the network sends them (statuses.ts): sent, delivered, read, or
	 * failed 131047 outside the 24-hour window. Off by default; `true` or settings turn them on.
	 */
	statuses?: boolean | Partial<StatusSettings>;
	/**
	 * The network's limits on sending (throughput.ts): at most `perSecond` accepted sends in any 1,000 ms (the excess:
	 * 400, code 130429), and `pairIntervalMs` between two accepted sends to one recipient (else 400, code 131056);
	 * `mode: '429'` answers the excess with 429 and Retry-After instead. Off by default (0 or absent: no limit).
	 */
	throughput?: Partial<ThroughputSettings>;
}

/** A fixed latency, or one per request (e.g. by recipient, to answer out of order). */
export type Latency = number | ((request: RecordedRequest) => number);

/**
 * Injected faults. `hang`: the body is read and no answer ever comes; `trickle`: a 200 whose JSON body arrives one
 * byte per `trickleMs` and never completes; `truncated-json`, `empty-200`, `no-ids`: a 200 whose body is cut short,
 * empty, or a send answer without `messages[].id` (the request is accepted as by the real gateway); `stop-reading`:
 * the body is not read (after its first bytes) and no answer comes, as a gateway that stalls in the middle of an upload.
 * `undeliverable`: 400 with the network's 131026 (a refusal of this message's recipient); `key-refused`: 401, the API key
 * refused (revoked since the run began), with the gateway's own body (no network code, as every refused key:
 * docs/gateway.md, Decisions); `account-locked`: 400 with the network's
 * code 131031 (the business account locked): refusals that every further message of the run would get.
 */
export type FailureMode =
	| '500'
	| '429'
	| 'drop'
	| 'non-json'
	| 'hang'
	| 'trickle'
	| 'truncated-json'
	| 'empty-200'
	| 'no-ids'
	| AfterAcceptFailure
	| 'stop-reading'
	| 'key-refused'
	| 'account-locked'
	| 'undeliverable';

/**
 * Faults of a proxy in front of a gateway that took the request: the request is handled (a message is recorded as
 * sent, a person file stored), then the proxy answers 502 or 504, or the connection drops, instead of the answer.
 */
export type AfterAcceptFailure = '502-after-accept' | '504-after-accept' | 'drop-after-accept';

const AFTER_ACCEPT: ReadonlySet<FailureMode> = new Set<FailureMode>(['502-after-accept', '504-after-accept', 'drop-after-accept']);

export interface RecordedRequest {
	route: RouteName | null;
	method: string;
	path: string;
	query: Record<string, string>;
	/** Lower-case names. */
	headers: Record<string, string>;
	/**
	 * Parsed JSON (the raw text when it does not parse; null without body); for the media upload the multipart
	 * summary `{ fields, files }`; for person uploads `{ contentType, bytes, records, sha256, text? }`.
	 */
	body: unknown;
	/** 0 when the connection was dropped without an answer. */
	status: number;
	responseBody: unknown;
	/** When the request arrived (epoch ms, the real clock): tests of pacing read it. */
	receivedAt: number;
	/**
	 * When the answer was written (epoch ms, the real clock); absent while none was, and for a dropped, hanging or
	 * trickled answer. With `receivedAt` it gives how many requests the gateway held at a time (the benchmarks).
	 */
	answeredAt?: number;
}

export interface SandboxMedia {
	id: string;
	apiKey: string;
	fileName: string;
	contentType: string;
	size: number;
	sha256: string;
	/** The format read from the file's first bytes, null when not a known one. */
	format: MediaFormat | null;
	uploadedAt: string;
}

export interface SandboxPersonFile {
	fileId: string;
	apiKey: string;
	nameFile: string;
	path: string;
	contentType: string;
	bytes: number;
	records: number;
	sha256: string;
	/** The file's text, kept only when it is at most `keepBodiesUpToBytes`. */
	text?: string;
	receivedAt: string;
}

export interface SandboxState {
	templates: Map<string, SandboxTemplate & { apiKey: string }>;
	webhooks: Map<string, SandboxWebhook>;
	media: Map<string, SandboxMedia>;
	personFiles: SandboxPersonFile[];
}

export interface Sandbox {
	/** `http://127.0.0.1:<port>`, no trailing slash. */
	url: string;
	apiKey: string;
	phoneId: string;
	/** Every gateway request in arrival order (control routes excluded). */
	requests: RecordedRequest[];
	state: SandboxState;
	/**
	 * The next `count` requests of `route` fail once their body has been read in full; with `skip`, only after that
	 * many further requests of the route were answered normally (e.g. skip 3: the 4th request fails).
	 */
	failNext(route: RouteName, count: number, mode: FailureMode, options?: { retryAfterSeconds?: number; skip?: number }): void;
	/** POSTs the notification to every webhook of the key subscribed to its field; resolves each receiver's answer. */
	deliver(notification: object, options?: DeliverOptions): Promise<DeliveryResult[]>;
	setTemplateStatus(id: string, status: string): void;
	/** The network's statuses after a send: settings, when each recipient last wrote, what was delivered. */
	statuses: NetworkStatuses;
	/** Sets the latency of the following requests (reset() restores the one given at start). */
	setLatency(latency: Latency): void;
	/** The latency of the following requests. */
	latencyNow(): Latency;
	/** The network's limits on sending: `settings`, and `counts` of accepted and refused sends (throughput.ts). */
	throughput: NetworkThroughput;
	/**
	 * Sets the limits of the following sends; absent or 0 limits are off (the settings are replaced, not merged), null
	 * turns both off. Sends accepted before still count. reset() restores the settings given at start.
	 */
	setThroughput(settings: Partial<ThroughputSettings> | null): ThroughputSettings;
	/** Clears state, recorded requests, pending failures and the throughput's past and counts. */
	reset(): void;
	close(): Promise<void>;
}

export interface DeliverOptions extends DeliveryOptions {
	/** Whose webhooks receive it (default the sandbox's key). */
	apiKey?: string;
}

const DEFAULT_PHONE_ID = '104857600000001';
const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_KEEP_BODIES_UP_TO = 16 * 1024 * 1024;
/** The largest media kind (document) bounds every upload: the kind is not known at upload time. */
const MAX_MEDIA_BYTES = Math.max(...Object.values(MEDIA_LIMITS).map((limit) => limit.maxBytes));
/** Customer id segment of person-file storage paths. */
const CUSTOMER_ID = '1001';

/** The account profile of `GET /api/Profiles` (spec section 2.6). */
const PROFILE = {
	messaging_product: CHANNEL,
	address: 'Av. Paulista, 1000 - São Paulo, SP',
	description: 'Sandbox business account',
	vertical: 'OTHER',
	about: 'Atendimento de segunda a sexta',
	email: 'contato@sandbox.example',
	profile_picture_url: 'https://sandbox.example/profile.png',
	websites: ['https://sandbox.example/'],
};

interface PendingFailure {
	mode: FailureMode;
	retryAfterSeconds: number;
	/** Requests of the route still to answer normally before this failure. */
	skip: number;
}

const TRICKLE_INTERVAL_MS = 200;

/** What reading the body produced, per body kind. */
type ReadBody =
	| { kind: 'none'; size: number }
	| { kind: 'json'; size: number; text: string | null }
	| { kind: 'multipart'; size: number; summary: MultipartSummary | null; error: string | null }
	| { kind: 'person-file'; size: number; summary: PersonFileSummary | null };

interface PersonFileSummary {
	contentType: string;
	format: keyof typeof PERSON_CONTENT_TYPES;
	bytes: number;
	records: number;
	sha256: string;
	text?: string;
	error: string | null;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const gateway = new SandboxGateway(options);
	await gateway.listen(options.port ?? 0, options.host ?? '127.0.0.1');
	return gateway;
}

export class SandboxGateway implements Sandbox {
	url = '';
	readonly apiKey: string;
	readonly phoneId: string;
	readonly requests: RecordedRequest[] = [];
	readonly state: SandboxState = { templates: new Map(), webhooks: new Map(), media: new Map(), personFiles: [] };
	private readonly apiKeys: Set<string>;
	private readonly keepBodiesUpTo: number;
	private readonly now: () => number;
	private readonly personFileMaxBytes: number;
	private readonly failures = new Map<RouteName, PendingFailure[]>();
	private readonly initialLatency: Latency;
	private latency: Latency;
	/** Ends the latency wait of each request waiting now (close() ends them all). */
	private readonly latencyWaits = new Set<() => void>();
	private closed = false;
	private readonly server: http.Server;
	private mediaCounter = 0;
	readonly statuses: NetworkStatuses;
	private readonly initialStatusSettings: StatusSettings;
	readonly throughput: NetworkThroughput;
	private readonly initialThroughput: ThroughputSettings;

	constructor(options: SandboxOptions) {
		this.apiKey = options.apiKey ?? `sandbox-${randomBytes(12).toString('hex')}`;
		this.apiKeys = new Set([this.apiKey, ...(options.extraApiKeys ?? [])]);
		this.phoneId = options.phoneId ?? DEFAULT_PHONE_ID;
		this.keepBodiesUpTo = options.keepBodiesUpToBytes ?? DEFAULT_KEEP_BODIES_UP_TO;
		this.now = options.now ?? Date.now;
		this.personFileMaxBytes = options.personFileMaxBytes ?? PERSON_FILE_MAX_BYTES;
		this.initialLatency = options.latencyMs ?? 0;
		this.latency = this.initialLatency;
		const asked = typeof options.statuses === 'object' ? options.statuses : { enabled: options.statuses === true };
		this.initialStatusSettings = { enabled: asked.enabled ?? true, delayMs: asked.delayMs ?? DEFAULT_STATUS_DELAY_MS };
		this.statuses = new NetworkStatuses(this.initialStatusSettings, this.now, (notification, apiKey) =>
			this.deliver(notification, { apiKey }),
		);
		this.initialThroughput = throughputSettings(options.throughput);
		this.throughput = new NetworkThroughput(this.initialThroughput, this.now);
		// No request timeout: benchmarks stream 1 GB bodies. A long keep-alive so clients rarely reuse a closed socket.
		this.server = http.createServer({ requestTimeout: 0 }, (req, res) => {
			this.handle(req, res).catch((error: unknown) => {
				if (!res.headersSent) this.send(res, null, 500, errorBody(`Sandbox failure: ${String(error)}`, 'ServerError', 2));
			});
		});
		this.server.keepAliveTimeout = 30_000;
	}

	listen(port: number, host: string): Promise<void> {
		return new Promise((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => {
				const address = this.server.address() as AddressInfo;
				const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
				this.url = `http://${shownHost}:${address.port}`;
				resolve();
			});
		});
	}

	close(): Promise<void> {
		this.closed = true;
		this.statuses.reset();
		// Requests still waiting out their latency (their client may have given up long ago): no timer stays behind.
		for (const finish of [...this.latencyWaits]) finish();
		return new Promise((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	failNext(route: RouteName, count: number, mode: FailureMode, options: { retryAfterSeconds?: number; skip?: number } = {}): void {
		const queue = this.failures.get(route) ?? [];
		for (let i = 0; i < count; i++) {
			queue.push({ mode, retryAfterSeconds: options.retryAfterSeconds ?? 1, skip: i === 0 ? (options.skip ?? 0) : 0 });
		}
		this.failures.set(route, queue);
	}

	async deliver(notification: object, options: DeliverOptions = {}): Promise<DeliveryResult[]> {
		const fields = notificationFields(notification);
		// The network learns when each customer last wrote (the 24-hour window of statuses.ts).
		this.statuses.recordIncoming(notification);
		const owner = options.apiKey ?? this.apiKey;
		const targets = [...this.state.webhooks.values()].filter(
			(webhook) => webhook.apiKey === owner && webhook.types.some((type) => fields.includes(type)),
		);
		return Promise.all(targets.map((webhook) => postNotification(webhook, notification, options)));
	}

	setTemplateStatus(id: string, status: string): void {
		const template = this.state.templates.get(id);
		if (!template) throw new Error(`No template with id ${id}`);
		template.status = status;
	}

	latencyNow(): Latency {
		return this.latency;
	}

	setLatency(latency: Latency): void {
		this.latency = latency;
	}

	setThroughput(settings: Partial<ThroughputSettings> | null): ThroughputSettings {
		this.throughput.set(throughputSettings(settings));
		return this.throughput.settings;
	}

	reset(): void {
		this.latency = this.initialLatency;
		this.statuses.reset(this.initialStatusSettings);
		this.throughput.reset(this.initialThroughput);
		this.requests.length = 0;
		this.failures.clear();
		this.state.templates.clear();
		this.state.webhooks.clear();
		this.state.media.clear();
		this.state.personFiles.length = 0;
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://sandbox');
		if (url.pathname.startsWith('/__sandbox/') || url.pathname === '/__sandbox') {
			return handleControl(this, req, res, url);
		}
		const method = req.method ?? 'GET';
		const record: RecordedRequest = {
			route: null,
			method,
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: Object.fromEntries(
				Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
			),
			body: null,
			status: 0,
			responseBody: null,
			receivedAt: Date.now(),
		};
		this.requests.push(record);

		const match = matchRoute(method, url.pathname);
		if (match.kind !== 'route') {
			const size = await drain(req);
			record.body = size > 0 ? `<${size} bytes>` : null;
			if (match.kind === 'wrong-method') {
				const message = `${method} is not allowed on ${url.pathname} (allowed: ${match.allowed.join(', ')})`;
				return this.send(res, record, 405, errorBody(message, 'MethodNotAllowed', 405), { allow: match.allowed.join(', ') });
			}
			const message = `Unknown path: ${method} ${url.pathname} is not an endpoint of the gateway`;
			return this.send(res, record, 404, errorBody(message, 'NotFound', 404));
		}
		const { route } = match;
		record.route = route.name;

		const pending = this.failures.get(route.name);
		let failure: PendingFailure | undefined;
		if (pending?.[0] && pending[0].skip > 0) pending[0].skip--;
		else if (pending?.[0]) failure = pending.shift() as PendingFailure;
		if (failure?.mode === 'stop-reading') {
			req.pause();
			return; // Neither reads nor answers: the client's socket stalls once the buffers are full.
		}

		const body = await this.readBody(route, req);
		record.body = recordedBody(body);
		const latency = typeof this.latency === 'function' ? this.latency(record) : this.latency;
		if (latency > 0) await this.waitLatency(latency);
		// Closed meanwhile: nothing is answered, and nothing (a status notification) is planned after the close.
		if (this.closed) return;

		if (failure && !AFTER_ACCEPT.has(failure.mode)) return this.fail(res, record, failure);

		try {
			const apiKey = this.authenticate(req);
			checkVersion(route, req);
			checkQuery(route, url);
			const [status, answer] = this.dispatch(route, match.id, apiKey, url, body, req);
			if (failure) return this.failAfterAccept(res, record, failure.mode, status, answer);
			this.send(res, record, status, answer);
		} catch (error) {
			if (!(error instanceof GatewayError)) throw error;
			this.send(res, record, error.status, error.body(), error.options.headers);
		}
	}

	/**
	 * The latency of one request. A client that gives up does not end it: the gateway goes on with a request it has
	 * read (its outcome is unknown to the client); close() does, so that a closed sandbox leaves no timer running.
	 */
	private waitLatency(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const finish = () => {
				clearTimeout(timer);
				this.latencyWaits.delete(finish);
				resolve();
			};
			const timer = setTimeout(finish, ms);
			this.latencyWaits.add(finish);
		});
	}

	/** Reads the whole body as the route needs it; files are streamed through hashes and scanners, never kept. */
	private async readBody(route: Route, req: IncomingMessage): Promise<ReadBody> {
		const contentType = req.headers['content-type'];
		if (route.body === 'multipart') {
			const boundary = multipartBoundary(contentType);
			if (boundary === null) return { kind: 'multipart', size: await drain(req), summary: null, error: null };
			const reader = new MultipartReader(boundary);
			let size = 0;
			for await (const chunk of req as AsyncIterable<Buffer>) {
				size += chunk.length;
				reader.write(chunk);
			}
			const summary = reader.end();
			return { kind: 'multipart', size, summary, error: reader.error };
		}
		if (route.body === 'person-file') {
			const format = personFileFormat(contentType);
			if (format === null) return { kind: 'person-file', size: await drain(req), summary: null };
			return { kind: 'person-file', ...(await this.readPersonFile(req, format, contentType ?? '')) };
		}
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of req as AsyncIterable<Buffer>) {
			size += chunk.length;
			if (size <= MAX_JSON_BODY_BYTES) chunks.push(chunk);
		}
		if (route.body === 'none') return { kind: 'none', size };
		return { kind: 'json', size, text: size <= MAX_JSON_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : null };
	}

	private async readPersonFile(
		req: IncomingMessage,
		format: PersonFileSummary['format'],
		contentType: string,
	): Promise<{ size: number; summary: PersonFileSummary }> {
		const scanner: RecordScanner = format === 'csv' ? new CsvRecordScanner() : new JsonRecordScanner();
		const hash = createHash('sha256');
		let kept: Buffer[] | null = [];
		let bytes = 0;
		for await (const chunk of req as AsyncIterable<Buffer>) {
			bytes += chunk.length;
			if (bytes > this.personFileMaxBytes) {
				kept = null;
				continue; // Drained only: the answer will be 413.
			}
			hash.update(chunk);
			scanner.write(chunk);
			if (kept && bytes <= this.keepBodiesUpTo) kept.push(chunk);
			else kept = null;
		}
		scanner.end();
		const summary: PersonFileSummary = {
			contentType,
			format,
			bytes,
			records: scanner.records,
			sha256: hash.digest('hex'),
			error: scanner.error,
		};
		if (kept) summary.text = Buffer.concat(kept).toString('utf8');
		return { size: bytes, summary };
	}

	private fail(res: ServerResponse, record: RecordedRequest, failure: PendingFailure): void {
		if (failure.mode === 'drop') {
			record.status = 0;
			res.socket?.destroy();
			return;
		}
		if (failure.mode === 'non-json') {
			const html = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';
			return this.send(res, record, 502, html, { 'content-type': 'text/html; charset=utf-8' });
		}
		if (failure.mode === 'hang') return; // The socket stays open until the client gives up (or close()).
		if (failure.mode === 'trickle') {
			record.status = 200;
			res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
			const text = JSON.stringify({ messaging_product: CHANNEL, contacts: [], messages: [] }).repeat(1000);
			let sent = 0;
			const timer = setInterval(() => {
				if (res.destroyed || sent >= text.length) return clearInterval(timer);
				res.write(text[sent++]);
			}, TRICKLE_INTERVAL_MS);
			res.on('close', () => clearInterval(timer));
			return;
		}
		if (failure.mode === 'truncated-json') {
			const full = JSON.stringify(messageResponse({ kind: 'send', type: 'text', to: '5511988887777' }));
			return this.send(res, record, 200, full.slice(0, Math.floor(full.length / 2)), { 'content-type': 'application/json' });
		}
		if (failure.mode === 'empty-200') return this.send(res, record, 200, '', { 'content-type': 'application/json' });
		if (failure.mode === 'no-ids') return this.send(res, record, 200, { messaging_product: CHANNEL, contacts: [] });
		if (failure.mode === 'key-refused') {
			return this.send(res, record, 401, keyRefusedBody('Invalid API key: the key was revoked'));
		}
		if (failure.mode === 'account-locked') {
			return this.send(res, record, 400, errorBody('(#131031) Business Account locked', 'OAuthException', 131031));
		}
		if (failure.mode === 'undeliverable') {
			return this.send(res, record, 400, errorBody('(#131026) Message undeliverable', 'OAuthException', 131026));
		}
		if (failure.mode === '429') {
			const body = errorBody('(#130429) Rate limit hit: injected by the sandbox', 'OAuthException', 130429);
			return this.send(res, record, 429, body, { 'retry-after': String(failure.retryAfterSeconds) });
		}
		this.send(res, record, 500, errorBody('Internal server error: injected by the sandbox', 'ServerError', 2));
	}

	/** The request was handled (`status`, `answer`); the client gets a proxy's failure instead. */
	private failAfterAccept(res: ServerResponse, record: RecordedRequest, mode: FailureMode, status: number, answer: unknown): void {
		record.responseBody = answer;
		if (mode === 'drop-after-accept') {
			record.status = 0;
			res.socket?.destroy();
			return;
		}
		const code = mode === '502-after-accept' ? 502 : 504;
		const text = code === 502 ? 'An invalid response was received from the upstream server' : 'The upstream server is timing out';
		this.send(res, record, code, { message: text }, { 'x-handled-status': String(status) });
	}

	/** Header names are case-insensitive (docs/gateway.md): Node lower-cases them, so `apiKey` arrives as `apikey`. */
	private authenticate(req: IncomingMessage): string {
		const key = req.headers.apikey;
		if (typeof key !== 'string' || key === '') {
			throw keyRefused('Missing API key: send it in the apikey header');
		}
		if (!this.apiKeys.has(key)) throw keyRefused('Invalid API key: the apikey header does not match any caller');
		return key;
	}

	private dispatch(
		route: Route,
		id: string | null,
		apiKey: string,
		url: URL,
		body: ReadBody,
		req: IncomingMessage,
	): [number, unknown] {
		switch (route.name) {
			case 'messages': {
				const message = jsonBody(body, req);
				const request = validateMessage(message);
				checkMediaOfMessage(message, this.state.media, apiKey);
				checkTemplateOfMessage(message, this.state.templates, apiKey);
				// The network's limits: a valid send past them is refused (400 130429 / 131056), else it counts.
				if (request.kind === 'send') this.throughput.admit(request.to);
				const answer = messageResponse(request);
				if (request.kind === 'send') this.afterSend(request.to, request.type, message, answer, apiKey, url);
				return [200, answer];
			}
			case 'webhooks.create':
				return this.createWebhook(apiKey, url, jsonBody(body, req));
			case 'webhooks.list':
				noBody(body);
				return [200, { success: true, webhooks: this.webhooksOf(apiKey).map(listedWebhookView) }];
			case 'webhooks.delete':
				noBody(body);
				return this.deleteWebhook(apiKey, id ?? '');
			case 'templates.create':
				return this.createTemplate(apiKey, jsonBody(body, req));
			case 'templates.get':
				noBody(body);
				return [200, templateView(this.templateOf(apiKey, id ?? ''))];
			case 'templates.edit':
				return this.editTemplate(apiKey, id ?? '', jsonBody(body, req));
			case 'profiles':
				noBody(body);
				return [200, { data: [PROFILE] }];
			case 'medias':
				return this.storeMedia(apiKey, body, req);
			case 'personUpload':
				return this.storePersonFile(apiKey, body, req);
		}
	}

	private createWebhook(apiKey: string, url: URL, body: unknown): [number, unknown] {
		const creation = validateWebhookCreation(body);
		// The query's phone id replaces the credentials' one (spec 2.4); the answer carries the resolved id twice.
		const phoneId = url.searchParams.get(PHONE_ID_QUERY_PARAM) ?? this.phoneId;
		const now = isoWithOffset(new Date(this.now()));
		const webhook: SandboxWebhook = {
			id: randomUUID(),
			apiKey,
			...creation,
			phone: phoneId,
			phone_id: phoneId,
			create_date: now,
			update_date: now,
		};
		this.state.webhooks.set(webhook.id, webhook);
		return [201, createdWebhookView(webhook)];
	}

	private deleteWebhook(apiKey: string, id: string): [number, unknown] {
		const webhook = this.state.webhooks.get(id);
		if (!webhook || webhook.apiKey !== apiKey) throw new GatewayError(404, `Webhook ${id} not found`);
		this.state.webhooks.delete(id);
		return [200, { success: true }];
	}

	/** Hands an accepted message to the network's statuses (statuses.ts), with what its notifications carry. */
	private afterSend(to: string, type: string, message: unknown, answer: unknown, apiKey: string, url: URL): void {
		const messageId = (answer as { messages: Array<{ id: string }> }).messages[0].id;
		const template = (message as { template?: { name?: unknown; language?: { code?: unknown } } }).template;
		const created = [...this.state.templates.values()].find(
			(t) => t.apiKey === apiKey && t.name === template?.name && t.language === template?.language?.code,
		);
		const category = type !== 'template' ? 'service' : (created?.category ?? 'UTILITY').toLowerCase();
		const phoneId = url.searchParams.get(PHONE_ID_QUERY_PARAM) ?? this.phoneId;
		this.statuses.afterSend({ messageId, to, type, apiKey, phoneId, category });
	}

	private webhooksOf(apiKey: string): SandboxWebhook[] {
		return [...this.state.webhooks.values()].filter((webhook) => webhook.apiKey === apiKey);
	}

	private createTemplate(apiKey: string, body: unknown): [number, unknown] {
		const content = validateTemplateContent(body);
		const existing = [...this.state.templates.values()].find(
			(t) => t.apiKey === apiKey && t.name === content.name && t.language === content.language,
		);
		// The same name and language again leaves the template unchanged (spec sections 3 and 4.4).
		if (existing) return [200, { id: existing.id, status: existing.status, category: existing.category }];
		const template = {
			...content,
			apiKey,
			id: newTemplateId(this.state.templates),
			status: 'APPROVED',
			createdAt: isoWithOffset(new Date(this.now())),
			edits: [],
		};
		this.state.templates.set(template.id, template);
		return [201, { id: template.id, status: template.status, category: template.category }];
	}

	private templateOf(apiKey: string, id: string): SandboxTemplate & { apiKey: string } {
		const template = this.state.templates.get(id);
		if (!template || template.apiKey !== apiKey) throw new GatewayError(404, `Template ${id} not found`);
		return template;
	}

	private editTemplate(apiKey: string, id: string, body: unknown): [number, unknown] {
		const template = this.templateOf(apiKey, id);
		const content = validateTemplateContent(body);
		const now = this.now();
		checkEditAllowed(template, content, now);
		// The old content is replaced entirely (spec section 4.5). The status stays: set it with setTemplateStatus.
		template.components = content.components;
		template.edits.push({ at: now, statusBefore: template.status });
		return [200, { success: true }];
	}

	private storeMedia(apiKey: string, body: ReadBody, req: IncomingMessage): [number, unknown] {
		if (body.kind !== 'multipart') throw new Error('unreachable');
		if (body.summary === null) {
			const type = req.headers['content-type'] ?? '(none)';
			if (/^\s*multipart\/form-data/i.test(type)) throw invalid('Content-Type', 'has no boundary parameter');
			throw new GatewayError(415, `Unsupported Content-Type ${type}: the media upload takes multipart/form-data`);
		}
		if (body.error) throw invalid('body', `is not a valid multipart/form-data body: ${body.error}`);
		const { fields, files } = body.summary;
		for (const name of Object.keys(fields)) {
			if (name !== 'messaging_product') throw invalid(name, 'is not a part of the media upload (parts: messaging_product, File)');
		}
		if (fields.messaging_product === undefined) throw invalid('messaging_product', `is required as a text part ('${CHANNEL}')`);
		if (fields.messaging_product !== CHANNEL) {
			throw invalid('messaging_product', `must be '${CHANNEL}', got ${JSON.stringify(fields.messaging_product)}`);
		}
		const strayFile = files.find((file) => file.field !== 'File');
		if (strayFile) throw invalid(strayFile.field, 'is not a part of the media upload (the file part is named File)');
		if (files.length === 0) throw invalid('File', 'is required: a file part named File with a filename and a content type');
		if (files.length > 1) throw invalid('File', 'must be sent once');
		const file = files[0];
		if (file.fileName.trim() === '') throw invalid('File', 'must carry a filename in its Content-Disposition');
		if (file.contentType === '') throw invalid('File', 'must carry a Content-Type');
		if (file.size === 0) throw invalid('File', 'is empty');
		if (file.size > MAX_MEDIA_BYTES) {
			throw new GatewayError(413, `File is ${file.size} bytes: media files are at most ${MEDIA_LIMITS.document.label} (${MAX_MEDIA_BYTES} bytes)`);
		}
		this.mediaCounter++;
		const id = `${Date.now()}${String(this.mediaCounter).padStart(4, '0')}`;
		this.state.media.set(id, {
			id,
			apiKey,
			fileName: file.fileName,
			contentType: file.contentType,
			size: file.size,
			sha256: file.sha256,
			format: file.format,
			uploadedAt: isoWithOffset(new Date(this.now())),
		});
		return [200, { id }];
	}

	private storePersonFile(apiKey: string, body: ReadBody, req: IncomingMessage): [number, unknown] {
		if (body.kind !== 'person-file') throw new Error('unreachable');
		const summary = body.summary;
		if (summary === null) {
			const allowed = Object.values(PERSON_CONTENT_TYPES).join(' or ');
			throw new GatewayError(415, `Unsupported Content-Type ${req.headers['content-type'] ?? '(none)'}: send ${allowed}`);
		}
		if (summary.bytes > this.personFileMaxBytes) {
			throw new GatewayError(
				413,
				`The file is ${summary.bytes} bytes: a person file is at most ${this.personFileMaxBytes} bytes, split larger ones`,
			);
		}
		if (summary.bytes === 0) throw invalid('body', 'is empty: send the file as the request body');
		if (summary.error) throw invalid('body', `is not a person file of spec section 2.8: ${summary.error}`);
		const fileId = randomUUID();
		const nameFile = `Profile-${fileId}.${summary.format}`;
		const path = `${CUSTOMER_ID}/${fileId}/${nameFile}`;
		const { error: _error, format: _format, ...kept } = summary;
		this.state.personFiles.push({ fileId, apiKey, nameFile, path, ...kept, receivedAt: isoWithOffset(new Date(this.now())) });
		return [
			200,
			{ success: true, response: { status: true, message: `File ${nameFile} saved with id ${fileId}`, nameFile, path, fileId } },
		];
	}

	/** Answers JSON (or text) with a Content-Length, so keep-alive clients reuse the connection. */
	private send(
		res: ServerResponse,
		record: RecordedRequest | null,
		status: number,
		body: unknown,
		headers: Record<string, string> = {},
	): void {
		const isText = typeof body === 'string';
		const payload = Buffer.from(isText ? body : JSON.stringify(body));
		if (record) {
			record.status = status;
			record.responseBody = body;
			record.answeredAt = Date.now();
		}
		res.writeHead(status, {
			'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
			...headers,
			'content-length': String(payload.length),
		});
		res.end(payload);
	}
}

/** The `version` header must be exactly the endpoint's (spec section 9); the person upload takes none. */
function checkVersion(route: Route, req: IncomingMessage): void {
	const expected = ENDPOINTS[route.endpoint].version;
	if (expected === null) return;
	const version = req.headers.version;
	if (version === undefined) {
		throw invalid('version', `header is required: '${expected}' for ${route.method} ${ENDPOINTS[route.endpoint].path}`);
	}
	if (version !== expected) {
		throw invalid('version', `header must be '${expected}' for ${route.method} ${ENDPOINTS[route.endpoint].path}, got '${version}'`);
	}
}

function checkQuery(route: Route, url: URL): void {
	for (const [name, value] of url.searchParams) {
		if (!route.query.includes(name)) {
			const allowed = route.query.length > 0 ? ` (allowed: ${route.query.join(', ')})` : '';
			throw invalid(`query parameter ${name}`, `is not taken by this endpoint${allowed}`);
		}
		if (value.trim() === '') throw invalid(`query parameter ${name}`, 'must not be empty');
	}
}

function jsonBody(body: ReadBody, req: IncomingMessage): unknown {
	if (body.kind !== 'json') throw new Error('unreachable');
	const type = req.headers['content-type'];
	if (!type || !/^\s*application\/json\s*(;|$)/i.test(type)) {
		throw new GatewayError(415, `Unsupported Content-Type ${type ?? '(none)'}: JSON bodies need Content-Type application/json`);
	}
	if (body.text === null) throw new GatewayError(413, `The JSON body is larger than ${MAX_JSON_BODY_BYTES} bytes`);
	if (body.text.trim() === '') throw invalid('body', 'is empty: a JSON object is required');
	try {
		return JSON.parse(body.text);
	} catch (error) {
		throw invalid('body', `is not valid JSON: ${(error as Error).message}`);
	}
}

function noBody(body: ReadBody): void {
	if (body.size > 0) throw invalid('body', 'must be empty: this endpoint takes no body');
}

function personFileFormat(contentType: string | undefined): PersonFileSummary['format'] | null {
	const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
	if (mediaType === PERSON_CONTENT_TYPES.json) return 'json';
	if (mediaType === PERSON_CONTENT_TYPES.csv) return 'csv';
	return null;
}

function recordedBody(body: ReadBody): unknown {
	if (body.kind === 'none') return body.size > 0 ? `<${body.size} bytes>` : null;
	if (body.kind === 'json') {
		if (body.text === null) return `<${body.size} bytes>`;
		if (body.text === '') return null;
		try {
			return JSON.parse(body.text);
		} catch {
			return body.text;
		}
	}
	if (body.kind === 'multipart') return body.summary ?? `<${body.size} bytes>`;
	if (body.summary === null) return `<${body.size} bytes>`;
	const { error: _error, format: _format, ...summary } = body.summary;
	return summary;
}

/** Reads and discards a body, returning its size. */
async function drain(req: IncomingMessage): Promise<number> {
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) size += chunk.length;
	return size;
}
