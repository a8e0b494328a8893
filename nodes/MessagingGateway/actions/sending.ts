/**
 * The Sending options of the message operations, one group for the pace of a run: parallel requests, messages per
 * second, a minimum interval per recipient, batches with a pause between them (read by batching.ts), and the timeout
 * of each request. The run they set up is run.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

export interface SendingSettings {
	parallel: number;
	perSecond: number;
	perRecipientMs: number;
	timeoutMs: number;
}

/**
 * Defaults: 80 messages per second is the network's default tier per business phone; 20 parallel requests reach it
 * with a gateway up to 250 ms away (20 / 0.25 s = 80/s) while holding few connections; 60 s per request.
 */
export const SENDING_DEFAULTS: SendingSettings = { parallel: 20, perSecond: 80, perRecipientMs: 0, timeoutMs: 60_000 };

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
				'Least time between two messages to the same number, for the network\'s limit per recipient (pair rate). 0 for none.',
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
				'Most requests started in any second. The network allows 80 per business phone by default (higher tiers allow more). 0 for no cap.',
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

export function readSending(this: IExecuteFunctions): SendingSettings {
	const options = this.getNodeParameter('sending', 0, {}) as IDataObject;
	const number = (value: unknown, fallback: number, min: number) => {
		const parsed = Number(value ?? fallback);
		return Number.isFinite(parsed) && parsed >= min ? parsed : fallback;
	};
	return {
		parallel: Math.floor(number(options.parallelRequests, SENDING_DEFAULTS.parallel, 1)),
		perSecond: number(options.messagesPerSecond, SENDING_DEFAULTS.perSecond, 0),
		perRecipientMs: number(options.recipientIntervalMs, SENDING_DEFAULTS.perRecipientMs, 0),
		timeoutMs: number(options.timeout, SENDING_DEFAULTS.timeoutMs / 1000, 0.001) * 1000,
	};
}
