/** The trigger's parameters, and the options as webhook() reads them. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { WEBHOOK_DELIVERED_EVENT_TYPES, WEBHOOK_META_VERSIONS } from '../gateway/spec';
import { eventTypeOptions, undeliveredEventsNotice } from '../gateway/webhookEvents';
import { DEFAULT_WINDOW_HOURS } from './deliveryGuard';
import { INCOMING_MESSAGE_TYPES, MESSAGE_STATUSES, type NotificationFilters } from './notifications';

/** What each subscription field delivers (spec section 6). */
const EVENT_DESCRIPTIONS: Record<string, string> = {
	account_review_update: 'The review of the business account finished',
	account_update: 'A change to the business account (phone number update, policy violation, ban...)',
	business_capability_update: 'A capability changed, such as the maximum number of phones or conversations',
	message_template_status_update: 'A template was approved, rejected or disabled',
	messages: 'Incoming messages, and the sent, delivered, read and failed updates of outgoing ones',
	phone_number_name_update: 'The name of a phone number was approved or rejected',
	phone_number_quality_update: 'The quality status of a phone number changed',
	security: 'Two-step verification changes',
};

const titleOf = (value: string) =>
	value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');

const META_VERSION_OPTIONS: INodePropertyOptions[] = WEBHOOK_META_VERSIONS.map((version) => ({
	name: version === 'LATEST' ? 'Latest (Any Version)' : version,
	value: version,
}));

export interface TriggerOptions {
	metaVersion?: string;
	statusUpdates?: NotificationFilters['statusUpdates'];
	statuses?: string[];
	messageTypes?: string[];
	extraHeaders?: { header?: Array<{ name?: string; value?: string }> };
	includeRawPayload?: boolean;
	onlyThisPhone?: boolean;
	duplicateWindowHours?: number;
	markAsRead?: boolean;
}

/**
 * How to produce an event, where a user testing the trigger looks: n8n 2.41's panel, while it listens, shows its own
 * "Go to <node> and create an event" and nothing of the node's (triggerPanel has no text for that state), so the
 * parameters beside it say it. No https notice here: a notice can only depend on parameters, the node version and its
 * features (n8n-workflow's displayParameter), not on n8n's webhook URL or the credential's Base URL, so it would show
 * to every local user for whom http works. The registration itself refuses a URL that cannot work and says why
 * (MessagingGatewayTrigger.node.ts, create).
 */
export const testEventNotice: INodeProperties = {
	displayName:
		'To test: click Execute step, then send a WhatsApp message to the phone of the credential. With the sandbox gateway of npm start, run "npm run sandbox -- deliver --text hi" in a terminal. Publishing registers the webhook at the gateway for good (removed when you unpublish).',
	name: 'registrationNotice',
	type: 'notice',
	default: '',
};

export const triggerProperties: INodeProperties[] = [
	testEventNotice,
	/**
	 * What n8n's node creator lists as this trigger's events: it reads the options of the first parameter labelled
	 * "Events", so this one, never shown in the panel, holds only the events the gateway delivers (spec section 6).
	 * All events stay choosable in Subscribed Events below, with the notice for those that never arrive.
	 */
	{
		displayName: 'Events',
		name: 'deliveredEvent',
		type: 'hidden',
		options: WEBHOOK_DELIVERED_EVENT_TYPES.map((type) => ({
			name: titleOf(type),
			value: type,
			action: `On ${titleOf(type).toLowerCase()}`,
			description: EVENT_DESCRIPTIONS[type],
		})),
		default: 'messages',
	},
	{
		displayName: 'Subscribed Events',
		name: 'events',
		type: 'multiOptions',
		options: eventTypeOptions(EVENT_DESCRIPTIONS),
		default: ['messages'],
		required: true,
		description:
			'The subscription fields to register the webhook for. The gateway currently delivers only Messages.',
	},
	undeliveredEventsNotice('events'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Duplicate Window (Hours)',
				name: 'duplicateWindowHours',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 168 },
				default: DEFAULT_WINDOW_HOURS,
				description:
					'A message, status or template event delivered again within this many hours starts nothing the second time (the gateway still gets its answer). 0 turns the check off.',
			},
			{
				displayName: 'Extra Headers',
				name: 'extraHeaders',
				type: 'fixedCollection',
				placeholder: 'Add Header',
				typeOptions: { multipleValues: true },
				default: {},
				description:
					'Headers the gateway sends with every notification, for a proxy in front of n8n for example. The node adds its own secret header.',
				options: [
					{
						displayName: 'Header',
						name: 'header',
						values: [
							{ displayName: 'Name', name: 'name', type: 'string', default: '' },
							{ displayName: 'Value', name: 'value', type: 'string', default: '' },
						],
					},
				],
			},
			{
				displayName: 'Include Raw Notification',
				name: 'includeRawPayload',
				type: 'boolean',
				default: false,
				description: 'Whether to add the notification as the gateway sent it to each item, as rawNotification',
			},
			{
				displayName: 'Mark as Read on Receipt',
				name: 'markAsRead',
				type: 'boolean',
				default: false,
				description:
					'Whether to mark each incoming message that starts the workflow as read at the gateway (blue ticks), right after the gateway was answered. A failure is logged and does not stop the execution.',
			},
			{
				displayName: 'Message Types',
				name: 'messageTypes',
				type: 'multiOptions',
				options: INCOMING_MESSAGE_TYPES.map((type) => ({ name: titleOf(type), value: type })),
				default: [],
				description: 'Keep only incoming messages of these types. Empty keeps every type.',
			},
			{
				displayName: 'Meta Version',
				name: 'metaVersion',
				type: 'options',
				options: META_VERSION_OPTIONS,
				default: 'LATEST',
				description:
					'The network API version whose notifications this webhook receives. Latest (the default) receives them whatever the version.',
			},
			{
				displayName: 'Only This Phone',
				name: 'onlyThisPhone',
				type: 'boolean',
				default: true,
				description:
					"Whether to drop notifications for the account's other phones: only those of the credential's Phone ID start the workflow",
			},
			{
				displayName: 'Status Updates',
				name: 'statusUpdates',
				type: 'options',
				options: [
					{ name: 'None', value: 'none', description: 'Only incoming messages start the workflow' },
					{ name: 'All', value: 'all', description: 'Sent, delivered, read and failed updates too' },
					{ name: 'Chosen Statuses', value: 'chosen', description: 'Only those of the Statuses option' },
				],
				default: 'none',
				description: 'Whether updates of the messages you sent (sent, delivered, read, failed) start the workflow',
			},
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: MESSAGE_STATUSES.map((status) => ({ name: titleOf(status), value: status })),
				default: ['failed'],
				displayOptions: { show: { statusUpdates: ['chosen'] } },
				description: 'The status updates that start the workflow',
			},
		],
	},
];

/**
 * The trigger's panel before it listens (instead of n8n's generic "Pull in events from ..."). While it listens, n8n
 * 2.41 shows its own text, whatever the node says (see testEventNotice).
 */
export const triggerPanel = {
	header: 'Send a WhatsApp message to the phone of your credential',
	executionsHelp: {
		inactive:
			'While you test, n8n registers the trigger at the gateway and waits for one message to the phone of the credential: send one from WhatsApp (with the sandbox gateway of npm start: npm run sandbox -- deliver --text hi). Publish the workflow to start it on every incoming message.',
		active:
			'The workflow is published: every incoming message to the phone of the credential starts it. Its runs are in the Executions tab.',
	},
	activationHint:
		'Once you publish the workflow, the webhook stays registered at the gateway and every incoming message starts a run.',
};

/** The canvas subtitle: "On messages", or the events in words. */
export const triggerSubtitle = '={{"On " + [].concat($parameter["events"]).join(", ").replaceAll("_", " ")}}';
