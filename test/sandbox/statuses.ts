/**
 * What the network does after it accepted a message: `statuses` notifications to the account's webhooks, as Meta sends
 * them (sent, delivered, read; or failed with an error code), so that delivery tracking can be tested end to end.
 *
 * - Each accepted send (not a mark-as-read) gets `sent`, `delivered` and `read`, one every `delayMs`.
 * - A free-form message (any type but `template`) to a recipient who has not written within 24 hours gets one
 *   `failed` status with code 131047 instead, as the network's customer-service window rule says. When a recipient
 *   last wrote is learnt from the incoming messages the sandbox delivers (`deliver`, the CLI's `deliver`).
 *   Template messages are not subject to the window.
 *
 * Off unless asked for (`startSandbox({ statuses: true })`, `SANDBOX_STATUSES=1`, `POST /__sandbox/statuses`), so the
 * tests that do not ask see no notification they did not send.
 */
import { CHANNEL } from '../../nodes/gateway/spec';
import { isObject } from './check';
import type { DeliveryResult } from './webhooks';

/** The customer-service window of the network. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_STATUS_DELAY_MS = 300;

/** The business number shown in notifications (as in the samples of the spec's notifications folder). */
export const DISPLAY_PHONE_NUMBER = '5511900001111';

export interface StatusSettings {
	enabled: boolean;
	/** Milliseconds before each status (sent after the send's answer, then delivered, then read). */
	delayMs: number;
}

/** What was delivered for a message, in order: the tests and the control API read it. */
export interface StatusDelivery {
	messageId: string;
	recipient: string;
	status: string;
	errorCode: number | null;
	at: number;
	results: DeliveryResult[];
}

export interface SentMessage {
	messageId: string;
	to: string;
	type: string;
	apiKey: string;
	phoneId: string;
	/** `marketing`, `utility`... for a template; free-form messages are `service`. */
	category: string;
}

type Deliver = (notification: object, apiKey: string) => Promise<DeliveryResult[]>;

export class NetworkStatuses {
	settings: StatusSettings;
	/** Recipient digits → when they last wrote (epoch ms, the sandbox's clock). */
	readonly lastWrote = new Map<string, number>();
	readonly delivered: StatusDelivery[] = [];
	private readonly timers = new Set<NodeJS.Timeout>();

	constructor(
		settings: Partial<StatusSettings>,
		private readonly now: () => number,
		private readonly deliver: Deliver,
	) {
		this.settings = { enabled: settings.enabled ?? false, delayMs: settings.delayMs ?? DEFAULT_STATUS_DELAY_MS };
	}

	/** Learns who wrote from an incoming-messages notification (value form or Meta's envelope). */
	recordIncoming(notification: unknown): void {
		for (const value of valuesOf(notification)) {
			if (!Array.isArray(value.messages)) continue;
			for (const message of value.messages) {
				if (isObject(message) && typeof message.from === 'string') this.lastWrote.set(digits(message.from), this.now());
			}
		}
	}

	/** Whether a free-form message to the recipient is inside the customer-service window now. */
	inServiceWindow(recipient: string): boolean {
		const wrote = this.lastWrote.get(digits(recipient));
		return wrote !== undefined && this.now() - wrote <= SERVICE_WINDOW_MS;
	}

	/** Plans the statuses of an accepted message (nothing when turned off). */
	afterSend(message: SentMessage): void {
		if (!this.settings.enabled) return;
		const failsWindow = message.type !== 'template' && !this.inServiceWindow(message.to);
		const steps: Array<{ status: string; errorCode?: number }> = failsWindow
			? [{ status: 'failed', errorCode: 131047 }]
			: [{ status: 'sent' }, { status: 'delivered' }, { status: 'read' }];
		// One chain per message, so its statuses arrive in order.
		let index = 0;
		const next = () => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				const step = steps[index++];
				void this.send(message, step.status, step.errorCode).then(() => {
					if (index < steps.length && this.settings.enabled) next();
				});
			}, this.settings.delayMs);
			this.timers.add(timer);
		};
		next();
	}

	/** Forgets everything and drops the statuses not delivered yet. */
	reset(settings?: StatusSettings): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		this.lastWrote.clear();
		this.delivered.length = 0;
		if (settings) this.settings = { ...settings };
	}

	private async send(message: SentMessage, status: string, errorCode?: number): Promise<void> {
		const notification = statusNotification(message, status, Math.floor(this.now() / 1000), errorCode);
		const results = await this.deliver(notification, message.apiKey);
		this.delivered.push({
			messageId: message.messageId,
			recipient: message.to,
			status,
			errorCode: errorCode ?? null,
			at: this.now(),
			results,
		});
	}
}

/** A `statuses` notification in the gateway's form (Meta's `value` object, NOTES.md). */
export function statusNotification(message: SentMessage, status: string, unixSeconds: number, errorCode?: number): object {
	const update: Record<string, unknown> = {
		id: message.messageId,
		status,
		timestamp: String(unixSeconds),
		recipient_id: digits(message.to),
	};
	if (errorCode === 131047) {
		update.errors = [
			{
				code: 131047,
				title: 'Re-engagement message',
				message: 'Re-engagement message',
				error_data: {
					details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
				},
			},
		];
	} else if (status !== 'failed') {
		// Meta sends the conversation and pricing with sent and delivered; read carries none.
		if (status !== 'read') {
			update.conversation = {
				id: `sbxconv${digits(message.to)}`,
				origin: { type: message.category },
				...(status === 'sent' ? { expiration_timestamp: String(unixSeconds + 24 * 3600) } : {}),
			};
			update.pricing = { billable: true, pricing_model: 'PMP', category: message.category };
		}
	}
	return {
		messaging_product: CHANNEL,
		metadata: { display_phone_number: DISPLAY_PHONE_NUMBER, phone_number_id: message.phoneId },
		statuses: [update],
	};
}

function valuesOf(notification: unknown): Array<Record<string, unknown>> {
	if (!isObject(notification)) return [];
	if (!Array.isArray(notification.entry)) return [notification];
	const values: Array<Record<string, unknown>> = [];
	for (const entry of notification.entry) {
		if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
		for (const change of entry.changes) if (isObject(change) && isObject(change.value)) values.push(change.value);
	}
	return values;
}

function digits(number: string): string {
	return number.replace(/\D/g, '');
}
