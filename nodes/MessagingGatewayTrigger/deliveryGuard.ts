/**
 * The duplicate guard: webhook delivery is at-least-once, so a notification the trigger has already turned into an
 * execution must start nothing the second time. Pure logic, no n8n imports.
 *
 * Where the memory lives (the README says the same):
 * - In the n8n process: one `SeenEvents` per trigger (workflow id + node name) and webhook scope (production or test
 *   URL, see `webhookScopeOf`) in `seenByTrigger` below. Checking and recording an event is one synchronous step, so
 *   two concurrent deliveries of one message in one process start one execution.
 * - In the workflow's static data: the newest `PERSISTED_LIMIT` events, as short hashes with their expiry, written at
 *   most once per `PERSIST_INTERVAL_SECONDS` per trigger and process (every write is an update of the workflow's
 *   database row; one per delivery choked SQLite under load). n8n reads static data from its database on every webhook
 *   call and saves it right after webhook() returns, so the guard survives a restart and is shared by several webhook
 *   processors, for the events recorded up to the last write. Production deliveries only: a test listener (one main
 *   process, two minutes) keeps its events in memory, so that it neither holds back nor is held back by production.
 */
import { createHash } from 'crypto';

import type { NotificationItem } from './notifications';

/** Events remembered per trigger in the process; the oldest are forgotten first. */
export const MEMORY_LIMIT = 10_000;

/** Events kept in the workflow's static data (about 30 bytes each). */
export const PERSISTED_LIMIT = 1_000;

/** The longest time between two writes of the events to static data, while new events arrive. */
export const PERSIST_INTERVAL_SECONDS = 10;

export const DEFAULT_WINDOW_HOURS = 24;

/** Static data: hash of an event key → the Unix second after which the event may start an execution again. */
export type PersistedSeenEvents = Record<string, number>;

/**
 * What makes two deliveries the same event: a message by its id, a status by message id and status, a template
 * event by template, event and reason. Other items (errors, other fields) carry no id and are never held back.
 */
export function eventKey(item: NotificationItem): string | undefined {
	if (item.event === 'message' && typeof item.messageId === 'string') return `message\n${item.messageId}`;
	if (item.event === 'status' && typeof item.messageId === 'string') {
		return `status\n${item.messageId}\n${String(item.status)}`;
	}
	if (item.event === 'template_status') {
		return `template\n${String(item.templateId)}\n${String(item.status)}\n${String(item.reason ?? '')}`;
	}
	return undefined;
}

/** 96 bits of SHA-256, base64url: short, fixed-size, and message ids do not appear in the workflow. */
export function hashEventKey(key: string): string {
	return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 16);
}

/** Events of one trigger seen within the window: hash → expiry (Unix seconds), oldest first (Map order). */
export class SeenEvents {
	private readonly expiries = new Map<string, number>();

	/** When this process last handed the events to static data (Unix seconds); -Infinity before the first time. */
	private persistedAt = -Infinity;

	constructor(private readonly limit = MEMORY_LIMIT) {}

	get size(): number {
		return this.expiries.size;
	}

	/** Adds what another process (or this one before a restart) saved; later expiries win. */
	merge(persisted: unknown, nowSeconds: number): void {
		if (typeof persisted !== 'object' || persisted === null || Array.isArray(persisted)) return;
		for (const [hash, expiry] of Object.entries(persisted)) {
			if (typeof expiry !== 'number' || expiry <= nowSeconds) continue;
			const known = this.expiries.get(hash);
			if (known === undefined) this.set(hash, expiry);
			else if (known < expiry) this.expiries.set(hash, expiry);
		}
	}

	/**
	 * Keeps the items not seen within the window and records them as seen, in one synchronous step. Two equal items
	 * in one notification count once as well.
	 */
	admit<T extends NotificationItem>(items: T[], nowSeconds: number, windowSeconds: number): { fresh: T[]; duplicates: number } {
		const fresh: T[] = [];
		let duplicates = 0;
		for (const item of items) {
			const key = eventKey(item);
			if (key === undefined) {
				fresh.push(item);
				continue;
			}
			const hash = hashEventKey(key);
			const expiry = this.expiries.get(hash);
			if (expiry !== undefined && expiry > nowSeconds) {
				duplicates++;
				continue;
			}
			this.expiries.delete(hash); // re-inserted as the newest
			this.set(hash, nowSeconds + windowSeconds);
			fresh.push(item);
		}
		return { fresh, duplicates };
	}

	/**
	 * The events to write to static data now, or undefined when they were written less than the interval ago. Called
	 * after admitting something new; the first new event after a quiet spell is written at once.
	 */
	takeForPersisting(nowSeconds: number, intervalSeconds = PERSIST_INTERVAL_SECONDS): PersistedSeenEvents | undefined {
		if (nowSeconds - this.persistedAt < intervalSeconds) return undefined;
		this.persistedAt = nowSeconds;
		return this.persisted(nowSeconds);
	}

	/** The newest unexpired events, for the workflow's static data. */
	persisted(nowSeconds: number, limit = PERSISTED_LIMIT): PersistedSeenEvents {
		const entries = [...this.expiries].filter(([, expiry]) => expiry > nowSeconds);
		return Object.fromEntries(entries.slice(Math.max(0, entries.length - limit)));
	}

	private set(hash: string, expiry: number): void {
		this.expiries.set(hash, expiry);
		while (this.expiries.size > this.limit) {
			const oldest = this.expiries.keys().next().value as string;
			this.expiries.delete(oldest);
		}
	}
}

/**
 * Which URL a delivery came to. n8n runs the test URL ("Test this trigger", `getMode()` 'manual') and the production
 * URL ('webhook' and the other modes) as two webhooks, each registered at the gateway, so the same notification can
 * arrive at both: each starts its own execution, and the guard holds re-deliveries to one URL only.
 */
export type WebhookScope = 'production' | 'test';

export function webhookScopeOf(mode: string): WebhookScope {
	return mode === 'manual' ? 'test' : 'production';
}

/** One store per trigger and webhook scope in this process, keyed by workflow id, node name and scope. */
const seenByTrigger = new Map<string, SeenEvents>();

export function seenEventsOf(workflowId: string, nodeName: string, scope: WebhookScope = 'production'): SeenEvents {
	const key = `${workflowId}\n${nodeName}\n${scope}`;
	let seen = seenByTrigger.get(key);
	if (!seen) {
		seen = new SeenEvents();
		seenByTrigger.set(key, seen);
	}
	return seen;
}
