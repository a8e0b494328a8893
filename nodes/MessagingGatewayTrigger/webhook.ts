/**
 * One delivery from the gateway: the secret check, the notification's items, the phone scope, the duplicate guard,
 * the acknowledgement, and mark-as-read after the answer.
 */
import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { buildMarkAsReadBody } from '../MessagingGateway/actions/message/markAsRead.operation';
import { gatewayRequest, waitAtMost } from '../gateway/transport';
import type { TriggerOptions } from './description';
import { DEFAULT_WINDOW_HOURS, eventKey, seenEventsOf, webhookScopeOf, type PersistedSeenEvents } from './deliveryGuard';
import {
	filterNotificationItems,
	itemsOfPhone,
	parseNotification,
	type MessageItem,
	type NotificationItem,
} from './notifications';
import { acceptsSecret, SECRET_HEADER, type StoredRegistration } from './registration';

/** The node's static data: its registration, and the events its duplicate guard saved (deliveryGuard.ts). */
export type TriggerStaticData = StoredRegistration & { seenEvents?: PersistedSeenEvents };

/** How long the start of the execution waits for the mark-as-read requests; later answers are still logged. */
const MARK_AS_READ_WAIT_MS = 3000;

/** The body the gateway gets for every accepted delivery, whether or not it starts an execution. */
export interface Acknowledgement {
	received: true;
	/** Items handed to the workflow: 0 when the delivery starts nothing. */
	items: number;
	/** Events held back because this trigger already started an execution for them. */
	duplicates: number;
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const response = this.getResponseObject();
	const stored = this.getWorkflowStaticData('node') as TriggerStaticData;
	if (!acceptsSecret(stored, this.getHeaderData()[SECRET_HEADER])) {
		response.status(401).json({ message: 'Missing or wrong webhook secret header' });
		return { noWebhookResponse: true };
	}

	const payload = await readJsonBody.call(this);
	if (payload === undefined) {
		response.status(400).json({ message: 'The body is not JSON' });
		return { noWebhookResponse: true };
	}
	const parsed = parseNotification(payload);
	if (!parsed.isNotification) {
		response.status(400).json({ message: parsed.reason });
		return { noWebhookResponse: true };
	}

	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	let items = filterNotificationItems(parsed.items, {
		statusUpdates: options.statusUpdates,
		statuses: options.statuses,
		messageTypes: options.messageTypes,
	});
	if (options.onlyThisPhone !== false && stored.phoneId) items = itemsOfPhone(items, stored.phoneId);
	const { fresh, duplicates } = admitOnce(this, stored, items, options.duplicateWindowHours ?? DEFAULT_WINDOW_HOURS);

	const messageIds = options.markAsRead ? incomingMessageIds(fresh) : [];

	/*
	 * The node answers itself (noWebhookResponse) rather than through webhookResponse, because of two things n8n 2.41
	 * does when a webhook starts an execution: it saves the static data only if it is still marked as changed after
	 * starting the execution, and starting it unmarks it (WorkflowRunner.establishContextForPersistence builds a second
	 * Workflow on the same object); answering this way, n8n saves the static data before starting the execution. And
	 * credential authentication (mark-as-read) needs n8n's expression isolate, which n8n releases once it has answered.
	 */
	const acknowledgement: Acknowledgement = { received: true, items: fresh.length, duplicates };
	response.status(200).json(acknowledgement);
	// Awaited (at most a few seconds) before the execution starts: the answer is out, and the requests must finish
	// authenticating before n8n releases the isolate when webhook() returns.
	if (messageIds.length > 0) await waitAtMost(markAsRead.call(this, messageIds), MARK_AS_READ_WAIT_MS);
	if (fresh.length === 0) return { noWebhookResponse: true };

	const output: INodeExecutionData[] = fresh.map((item) => ({
		json: (options.includeRawPayload ? { ...item, rawNotification: payload } : item) as IDataObject,
	}));
	return { noWebhookResponse: true, workflowData: [output] };
}

function incomingMessageIds(items: NotificationItem[]): string[] {
	return items.flatMap((item) =>
		item.event === 'message' && typeof (item as MessageItem).messageId === 'string' ? [(item as MessageItem).messageId as string] : [],
	);
}

/**
 * The duplicate guard: the process's memory of this trigger, topped up from static data (what other processes and
 * earlier runs saved), checked and updated in one synchronous step, then written back to static data for n8n to save.
 * The test URL and the production URL each have their own memory (deliveryGuard.ts, webhookScopeOf): the same event
 * reaching both starts both executions. A test listener neither reads nor writes static data: its events must not
 * hold back production's, nor be held back by them.
 */
function admitOnce(
	context: IWebhookFunctions,
	stored: TriggerStaticData,
	items: NotificationItem[],
	windowHours: number,
): { fresh: NotificationItem[]; duplicates: number } {
	if (!(windowHours > 0)) return { fresh: items, duplicates: 0 };
	const nowSeconds = Math.floor(Date.now() / 1000);
	const scope = webhookScopeOf(context.getMode());
	const seen = seenEventsOf(String(context.getWorkflow().id ?? ''), context.getNode().name, scope);
	if (scope === 'production') seen.merge(stored.seenEvents, nowSeconds);
	const result = seen.admit(items, nowSeconds, Math.round(windowHours * 3600));
	// Written only when something new was recorded, and not more often than every few seconds: every write is an
	// update of the workflow's database row.
	if (scope === 'production' && result.fresh.some((item) => eventKey(item) !== undefined)) {
		const persisted = seen.takeForPersisting(nowSeconds);
		if (persisted) stored.seenEvents = persisted;
	}
	return result;
}

/** Marks the messages as read, one request each, all at once. A failure is logged; the execution goes on regardless. */
async function markAsRead(this: IWebhookFunctions, messageIds: string[]): Promise<void> {
	await Promise.all(
		messageIds.map(async (messageId) => {
			try {
				await gatewayRequest.call(this, { endpoint: 'messages', method: 'POST', body: buildMarkAsReadBody(messageId) });
			} catch (error) {
				this.logger.warn(
					`Messaging Gateway Trigger: marking message ${messageId} as read failed: ${error instanceof Error ? error.message : String(error)}`,
				);
			}
		}),
	);
}

/** Reads the notification: n8n's parsed JSON body, or the raw bytes when n8n did not parse them. */
async function readJsonBody(this: IWebhookFunctions): Promise<unknown> {
	const body: unknown = this.getBodyData();
	if (typeof body === 'object' && body !== null && Object.keys(body).length > 0) return body;

	const request = this.getRequestObject() as unknown as { rawBody?: unknown; readRawBody?: () => Promise<void> };
	if (request.rawBody === undefined && typeof request.readRawBody === 'function') await request.readRawBody();
	let raw = typeof body === 'string' ? body : '';
	if (Buffer.isBuffer(request.rawBody)) raw = request.rawBody.toString('utf8');
	if (raw.trim() === '') return body ?? {};
	try {
		return JSON.parse(raw) as unknown;
	} catch {
		return undefined;
	}
}
