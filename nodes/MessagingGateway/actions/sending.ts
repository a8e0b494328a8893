/**
 * The Sending options of the message operations (parallel requests, messages per second, a minimum interval per
 * recipient, the timeout of each request) and the pacing they set up for one node run.
 *
 * State across calls: `runs` holds, per execution context (one node run, one try), the run's Pacer, timeout and
 * recipient turns (messages to one recipient leave one after another, in item order: recipientTurns.ts).
 * The router sets it before dispatching the items; `postMessage` reads it for every request. It is a WeakMap, so it
 * goes with the context.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { RequestPacing } from '../../gateway/transport';
import { Pacer, takeTurn } from './dispatcher';
import { RecipientTurns, type RecipientTurn } from './recipientTurns';

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
	description: 'How fast items are sent: requests in parallel, a rate cap, and a deadline per request',
	displayOptions: { show: { resource: ['message'], operation: ['send', 'markAsRead'] } },
	options: [
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
			displayName: 'Minimum Interval per Recipient (Ms)',
			name: 'recipientIntervalMs',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0, // SENDING_DEFAULTS.perRecipientMs
			description:
				'Least time between two messages to the same number, for the network\'s limit per recipient (pair rate). 0 for none.',
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

interface SendingRun {
	pacer: Pacer;
	timeoutMs: number;
	turns: RecipientTurns;
}

const runs = new WeakMap<object, SendingRun>();

const clock = { now: () => Date.now(), sleep: async (ms: number) => await sleep(ms) };

/** Sets up the pacing of this node run's sends. */
export function beginSending(context: IExecuteFunctions, settings: SendingSettings): void {
	runs.set(context, {
		pacer: new Pacer({ perSecond: settings.perSecond, perRecipientMs: settings.perRecipientMs }),
		timeoutMs: settings.timeoutMs,
		turns: new RecipientTurns(),
	});
}

/** Outside a dispatched run (one item at a time) every turn is ready at once. */
const FREE_TURN: RecipientTurn = { ready: Promise.resolve(false), done: () => undefined };

/**
 * Claims this item's turn among the run's messages to `recipient`: call it as soon as the recipient is known, and
 * call `done` when the item is answered or failed.
 */
export function claimRecipientTurn(context: IExecuteFunctions, recipient: string): RecipientTurn {
	return runs.get(context)?.turns.claim(recipient) ?? FREE_TURN;
}

/** The pacing and timeout of a request of this run, for this recipient; nothing outside a dispatched run. */
export function sendingFor(
	context: IExecuteFunctions,
	recipient?: string,
): { pacing?: RequestPacing; timeoutMs?: number } {
	const run = runs.get(context);
	if (!run) return {};
	return {
		timeoutMs: run.timeoutMs,
		pacing: {
			beforeAttempt: async () => await takeTurn(run.pacer, clock, recipient),
			pause: (waitMs) => run.pacer.pause(clock.now(), waitMs),
		},
	};
}
