/**
 * The subscription fields as options, delivered ones first, and the notice shown when a field the gateway does not
 * deliver is chosen: used by the trigger and by Webhook > Create, so that both say the same.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { WEBHOOK_DELIVERED_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from './spec';

/** Fields of spec section 6 that a webhook can be registered for, but that the gateway does not deliver yet. */
export const UNDELIVERED_EVENT_TYPES: string[] = WEBHOOK_EVENT_TYPES.filter(
	(type) => !WEBHOOK_DELIVERED_EVENT_TYPES.includes(type),
);

const titleOf = (value: string) =>
	value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');

/** The fields as multiOptions options: the delivered ones first, the others marked as not delivered yet. */
export function eventTypeOptions(descriptions: Partial<Record<string, string>> = {}): INodePropertyOptions[] {
	const ordered = [
		...WEBHOOK_DELIVERED_EVENT_TYPES,
		...WEBHOOK_EVENT_TYPES.filter((type) => !WEBHOOK_DELIVERED_EVENT_TYPES.includes(type)),
	];
	return ordered.map((type) => {
		const delivered = WEBHOOK_DELIVERED_EVENT_TYPES.includes(type);
		const description = descriptions[type];
		return {
			name: delivered ? titleOf(type) : `${titleOf(type)} (Not Delivered Yet)`,
			value: type,
			...(description !== undefined ? { description } : {}),
		};
	});
}

/**
 * A notice under the event list, shown as soon as one chosen field is one the gateway does not deliver.
 * `show` holds the displayOptions of the event list itself (resource and operation, for the action node).
 */
export function undeliveredEventsNotice(
	eventsParameter: string,
	show: Record<string, string[]> = {},
): INodeProperties {
	return {
		displayName: `The gateway delivers only Messages notifications for now (its specification, section 6). A webhook can be registered for the other events you chose, but they will not arrive, so they start nothing.`,
		name: `${eventsParameter}UndeliveredNotice`,
		type: 'notice',
		default: '',
		displayOptions: { show: { ...show, [eventsParameter]: UNDELIVERED_EVENT_TYPES } },
	};
}
