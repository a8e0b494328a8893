/**
 * The Sending options of the message operations, one group for the pace of a run: parallel requests, messages per
 * second, a minimum interval per recipient, batches with an interval between them, and the timeout of each request.
 * The run reads them (run.ts, readSending); their defaults are run.ts's SENDING_DEFAULTS and BATCHING_DEFAULTS.
 */
import type { INodeProperties } from 'n8n-workflow';

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
			default: 1000, // BATCHING_DEFAULTS.intervalMs in run.ts (the lint rule wants a literal; a test keeps them equal)
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
