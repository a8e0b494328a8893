/**
 * The Sending options of the message operations, one group for the pace of a run: parallel requests, messages per
 * second, a minimum interval per recipient, batches with an interval between them, and the timeout of each request.
 * A run reads them once (readSending, below; item 0's: they hold no expression per item).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { PaceReport } from './schedule';

/**
 * The pacing options apply to many items in one run; the AI-tool variant sends one message per call (the agent's
 * item), so they are hidden there (`@tool`: the type name ends in Tool). Timeout applies to every request.
 */
const NOT_IN_TOOL = { show: { '@tool': [false] } };

export const sendingField: INodeProperties = {
	displayName: 'Sending',
	name: 'sending',
	type: 'collection',
	placeholder: 'Add Sending Option',
	default: {},
	// One line in the panel: the defaults, and how the options combine (each is a limit; all of them hold).
	description:
		'By default 20 at a time, at most 80 per second, no batches. Each option is a limit and all hold together: with a rate and batches, the slower one decides.',
	displayOptions: { show: { resource: ['message'], operation: ['send', 'markAsRead'] } },
	options: [
		{
			displayName: 'Batch Interval (Ms)',
			name: 'batchInterval',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 1000, // BATCHING_DEFAULTS.intervalMs (the lint rule wants a literal; a test keeps them equal)
			description:
				'Pause after each batch, in milliseconds. Adding this or Items per Batch sends in batches: 50 items, then 1000 ms, unless changed.',
			displayOptions: NOT_IN_TOOL,
		},
		{
			displayName: 'Interval per Recipient (Ms)',
			name: 'recipientIntervalMs',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0, // SENDING_DEFAULTS.perRecipientMs
			description:
				'Least time between two messages to the same number. The network allows about one message every 6 seconds to one person (its pair rate); when it answers that a number was messaged too often, the node waits and sends again. 0 for none.',
			displayOptions: NOT_IN_TOOL,
		},
		{
			displayName: 'Items per Batch',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50, // BATCHING_DEFAULTS.size
			description:
				'Items sent before each pause. Adding this or Batch Interval sends in batches: 50 items, then 1000 ms, unless changed.',
			displayOptions: NOT_IN_TOOL,
		},
		{
			displayName: 'Messages per Second',
			name: 'messagesPerSecond',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 80, // SENDING_DEFAULTS.perSecond (the lint rule wants a literal; a test keeps them equal)
			description:
				'Most requests started in any second. The network allows 80 per business phone number by default (up to 1,000 on higher tiers, 20 for a number also used in the WhatsApp Business app); when it answers that the limit was reached, the run slows down and sends again. 0 for no cap.',
			displayOptions: NOT_IN_TOOL,
		},
		{
			displayName: 'Parallel Requests',
			name: 'parallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 100 },
			default: 20, // SENDING_DEFAULTS.parallel
			description:
				'Items sent at the same time. Messages to the same recipient still go one after another, in item order; output items keep the input order either way.',
			displayOptions: NOT_IN_TOOL,
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 60, // SENDING_DEFAULTS.timeoutMs / 1000
			description:
				'Longest time for one request, its whole answer included. A request that times out may have been sent: it is reported and not repeated.',
		},
	],
};

export interface SendingSettings {
	parallel: number;
	perSecond: number;
	perRecipientMs: number;
	timeoutMs: number;
	/** Batches: after every `size` items, `intervalMs` before the next; none unless an option of them is set. */
	batch?: { size: number; intervalMs: number };
}

/**
 * Defaults: 80 messages per second is the network's default tier per business phone; 20 parallel requests reach it
 * with a gateway up to 250 ms away (20 / 0.25 s = 80/s) while holding few connections; 60 s per request.
 */
export const SENDING_DEFAULTS = { parallel: 20, perSecond: 80, perRecipientMs: 0, timeoutMs: 60_000 } as const;

/** The batch options' defaults, when one of them is set. */
export const BATCHING_DEFAULTS = { size: 50, intervalMs: 1000 } as const;

/** The Sending options of a run (item 0's: they hold no expression per item). */
export function readSending(context: IExecuteFunctions): SendingSettings {
	const options = context.getNodeParameter('sending', 0, {}) as IDataObject;
	const number = (value: unknown, fallback: number, min: number) => {
		const parsed = Number(value ?? fallback);
		return Number.isFinite(parsed) && parsed >= min ? parsed : fallback;
	};
	const settings: SendingSettings = {
		parallel: Math.floor(number(options.parallelRequests, SENDING_DEFAULTS.parallel, 1)),
		perSecond: number(options.messagesPerSecond, SENDING_DEFAULTS.perSecond, 0),
		perRecipientMs: number(options.recipientIntervalMs, SENDING_DEFAULTS.perRecipientMs, 0),
		timeoutMs: number(options.timeout, SENDING_DEFAULTS.timeoutMs / 1000, 0.001) * 1000,
	};
	if (options.batchSize !== undefined || options.batchInterval !== undefined) {
		const size = Number(options.batchSize ?? BATCHING_DEFAULTS.size);
		const intervalMs = Number(options.batchInterval ?? BATCHING_DEFAULTS.intervalMs);
		if (size > 0 && intervalMs > 0) settings.batch = { size, intervalMs };
	}
	return settings;
}

/**
 * The hint a run leaves when the network's answers made it wait (docs/sending.md): how fast it went, and which
 * option sends without the waits. Undefined when nothing waited.
 */
export function pacingHint(report: PaceReport, averagePerSecond: number): string | undefined {
	const { throughputWaits, pairRateWaits, pace, lowestPace } = report;
	const times = (count: number) => `${count} time${count === 1 ? '' : 's'}`;
	const parts: string[] = [];
	if (throughputWaits) {
		parts.push(
			`The phone number's throughput limit answered ${times(throughputWaits)} (code 130429 or HTTP 429): those messages waited and went again. The run slowed to ${Math.round(lowestPace)} messages per second at its lowest and ended at ${Number.isFinite(pace) ? Math.round(pace) : 'no cap'}; it sent ${Math.round(averagePerSecond)} per second on average. Set Sending > Messages per Second near that to send without the waits.`,
		);
	}
	if (pairRateWaits) {
		parts.push(
			`The network answered ${times(pairRateWaits)} that a recipient was messaged too often (code 131056, about one message every 6 seconds): those messages waited and went again. Sending > Interval per Recipient spaces them from the start.`,
		);
	}
	return parts.length ? parts.join(' ') : undefined;
}
