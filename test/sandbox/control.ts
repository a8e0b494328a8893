/**
 * The control API under `/__sandbox/`, for processes outside the test (the end-to-end suite, the CLI, people trying
 * the nodes). It takes no API key and its requests are not recorded.
 *
 *   GET  /__sandbox/info             { url, apiKey, phoneId }
 *   GET  /__sandbox/requests         the recorded requests, in order
 *   GET  /__sandbox/state            { templates, webhooks, media, personFiles } as arrays
 *   POST /__sandbox/reset            clears state, requests and pending failures
 *   POST /__sandbox/fail             { route, count, mode, retryAfterSeconds?, skip? }
 *   POST /__sandbox/deliver          { notification, omitCustomHeaders?, extraHeaders?, apiKey? } → per-webhook results
 *   POST /__sandbox/template-status  { id, status }
 *   GET  /__sandbox/latency          { ms }: the latency now (null when a test set a function)
 *   POST /__sandbox/latency          { ms }: every following gateway request is answered after ms milliseconds
 *   GET  /__sandbox/statuses         { settings, delivered, lastWrote }: the network's statuses after sends (statuses.ts)
 *   POST /__sandbox/statuses         { enabled?, delayMs? }: turns them on or off, sets their delay
 *   GET  /__sandbox/throughput       { settings, counts }: the network's limits on sending (throughput.ts) and
 *                                    { accepted, refusedThroughput, refusedPair } since the start or the last reset
 *   POST /__sandbox/throughput       { perSecond?, pairIntervalMs?, mode?, retryAfterSeconds? } → { settings }: at
 *                                    most perSecond accepted sends in any 1,000 ms (the excess: 400, code 130429),
 *                                    pairIntervalMs between two accepted sends to one recipient (else 400, code
 *                                    131056); 0 or absent: off (the settings are replaced, not merged); mode '429':
 *                                    HTTP 429 with Retry-After retryAfterSeconds (default 1) instead of the 400
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { isObject } from './check';
import { ROUTE_NAMES, type RouteName } from './routes';
import type { FailureMode, SandboxGateway } from './server';
import { checkThroughputSettings, type ThroughputSettings } from './throughput';

const FAILURE_MODES: readonly FailureMode[] = ['500', '429', 'drop', 'non-json', 'hang', 'trickle', 'truncated-json', 'empty-200', 'no-ids', '502-after-accept', '504-after-accept', 'drop-after-accept', 'stop-reading', 'key-refused', 'account-locked', 'undeliverable'];

export async function handleControl(gateway: SandboxGateway, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const action = `${req.method} ${url.pathname}`;
	let body: Record<string, unknown> = {};
	try {
		body = await readJson(req);
	} catch (error) {
		return reply(res, 400, { error: `The control body is not a JSON object: ${(error as Error).message}` });
	}
	switch (action) {
		case 'GET /__sandbox/info':
			return reply(res, 200, { url: gateway.url, apiKey: gateway.apiKey, phoneId: gateway.phoneId });
		case 'GET /__sandbox/requests':
			return reply(res, 200, gateway.requests);
		case 'GET /__sandbox/state':
			return reply(res, 200, {
				templates: [...gateway.state.templates.values()],
				webhooks: [...gateway.state.webhooks.values()],
				media: [...gateway.state.media.values()],
				personFiles: gateway.state.personFiles,
			});
		case 'POST /__sandbox/reset':
			gateway.reset();
			return reply(res, 200, { success: true });
		case 'POST /__sandbox/fail': {
			const { route, count, mode, retryAfterSeconds, skip } = body;
			if (!(ROUTE_NAMES as readonly unknown[]).includes(route)) {
				return reply(res, 400, { error: `route must be one of ${ROUTE_NAMES.join(', ')}` });
			}
			if (!(FAILURE_MODES as readonly unknown[]).includes(mode)) {
				return reply(res, 400, { error: `mode must be one of ${FAILURE_MODES.join(', ')}` });
			}
			if (!Number.isInteger(count) || (count as number) < 1) return reply(res, 400, { error: 'count must be a positive integer' });
			if (retryAfterSeconds !== undefined && typeof retryAfterSeconds !== 'number') {
				return reply(res, 400, { error: 'retryAfterSeconds must be a number' });
			}
			if (skip !== undefined && !(Number.isInteger(skip) && (skip as number) >= 0)) {
				return reply(res, 400, { error: 'skip must be an integer >= 0' });
			}
			gateway.failNext(route as RouteName, count as number, mode as FailureMode, { retryAfterSeconds, skip: skip as number | undefined });
			return reply(res, 200, { success: true });
		}
		case 'POST /__sandbox/deliver': {
			const { notification, omitCustomHeaders, extraHeaders, apiKey } = body;
			if (!isObject(notification)) return reply(res, 400, { error: 'notification must be a JSON object' });
			try {
				const results = await gateway.deliver(notification, {
					omitCustomHeaders: omitCustomHeaders === true,
					extraHeaders: isObject(extraHeaders) ? (extraHeaders as Record<string, string>) : undefined,
					apiKey: typeof apiKey === 'string' ? apiKey : undefined,
				});
				return reply(res, 200, results);
			} catch (error) {
				return reply(res, 400, { error: (error as Error).message });
			}
		}
		case 'GET /__sandbox/latency': {
			const latency = gateway.latencyNow();
			return reply(res, 200, { ms: typeof latency === 'number' ? latency : null });
		}
		case 'POST /__sandbox/latency': {
			const { ms } = body;
			if (typeof ms !== 'number' || !(ms >= 0)) return reply(res, 400, { error: 'ms must be a number >= 0' });
			gateway.setLatency(ms);
			return reply(res, 200, { success: true });
		}
		case 'GET /__sandbox/statuses':
			return reply(res, 200, {
				settings: gateway.statuses.settings,
				delivered: gateway.statuses.delivered,
				lastWrote: Object.fromEntries(gateway.statuses.lastWrote),
			});
		case 'POST /__sandbox/statuses': {
			const { enabled, delayMs } = body;
			if (enabled !== undefined && typeof enabled !== 'boolean') return reply(res, 400, { error: 'enabled must be true or false' });
			if (delayMs !== undefined && !(typeof delayMs === 'number' && delayMs >= 0)) {
				return reply(res, 400, { error: 'delayMs must be a number >= 0' });
			}
			if (enabled !== undefined) gateway.statuses.settings.enabled = enabled;
			if (delayMs !== undefined) gateway.statuses.settings.delayMs = delayMs as number;
			return reply(res, 200, { settings: gateway.statuses.settings });
		}
		case 'GET /__sandbox/throughput':
			return reply(res, 200, { settings: gateway.throughput.settings, counts: gateway.throughput.counts });
		case 'POST /__sandbox/throughput': {
			const problem = checkThroughputSettings(body);
			if (problem) return reply(res, 400, { error: problem });
			const unknown = Object.keys(body).filter((name) => !['perSecond', 'pairIntervalMs', 'mode', 'retryAfterSeconds'].includes(name));
			if (unknown.length > 0) return reply(res, 400, { error: `unknown settings: ${unknown.join(', ')}` });
			return reply(res, 200, { settings: gateway.setThroughput(body as Partial<ThroughputSettings>) });
		}
		case 'POST /__sandbox/template-status': {
			const { id, status } = body;
			if (typeof id !== 'string' || typeof status !== 'string') return reply(res, 400, { error: 'id and status must be strings' });
			try {
				gateway.setTemplateStatus(id, status);
			} catch (error) {
				return reply(res, 404, { error: (error as Error).message });
			}
			return reply(res, 200, { success: true });
		}
		default:
			return reply(res, 404, { error: `Unknown control route ${action}` });
	}
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
	const chunks: Buffer[] = [];
	for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
	const text = Buffer.concat(chunks).toString('utf8').trim();
	if (text === '') return {};
	const value: unknown = JSON.parse(text);
	if (!isObject(value)) throw new Error('expected an object');
	return value;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
	const payload = Buffer.from(JSON.stringify(body));
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(payload.length) });
	res.end(payload);
}
