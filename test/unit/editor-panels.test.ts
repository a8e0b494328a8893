/**
 * Panels as a new user meets them (issue: the first ten minutes).
 *
 * The trigger as the editor shows it: the node creator's events (n8n 2.41 lists the options of the first parameter
 * labelled Event, Events or Trigger On), the canvas subtitle in words, the listening panel's own text, and Meta
 * Version among the options. All events stay choosable in the panel, with the notice for undelivered ones.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { WEBHOOK_EVENT_TYPES } from '../../nodes/gateway/spec';
import { fieldLabel } from '../../nodes/MessagingGateway/methods/templateParameters';
import { MessagingGatewayTrigger } from '../../nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';

const { description } = new MessagingGatewayTrigger();

/** The node creator's rule (editor-ui, useActionsGeneration: triggers' events). */
function nodeCreatorEvents(): Array<{ displayName: string; values: INodeParameters }> {
	const labels = ['event', 'events', 'trigger on'];
	const property = description.properties.find((candidate) => labels.includes(candidate.displayName?.toLowerCase()));
	const options = (property?.options ?? []) as Array<{ name: string; value: string; action?: string }>;
	return options
		.filter((option) => !['*', '', ' '].includes(option.name))
		.map((option) => ({ displayName: option.action ?? `On ${option.name}`, values: { [property!.name]: option.value } }));
}

function subtitleFor(parameters: INodeParameters): unknown {
	const workflow = new Workflow({
		nodes: [{ id: '1', name: 'Trigger', type: 'trigger', typeVersion: 1.1, position: [0, 0], parameters }],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => new MessagingGatewayTrigger(),
			getByNameAndVersion: () => new MessagingGatewayTrigger(),
			getKnownTypes: () => ({}),
		},
	});
	return workflow.expression.getSimpleParameterValue(workflow.getNode('Trigger')!, description.subtitle, 'manual', {});
}

const byName = (name: string) => description.properties.find((property) => property.name === name) as INodeProperties;

describe('the trigger in the editor', () => {
	it('lists only the event the gateway delivers in the node creator', () => {
		expect(nodeCreatorEvents().map((event) => event.displayName)).toEqual(['On messages']);
	});

	it('still offers every event inside the trigger, and the notice for those that never arrive', () => {
		const events = byName('events');
		expect((events.options as Array<{ value: string }>).map((option) => option.value).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
		expect(events.displayName).not.toMatch(/^(event|events|trigger on)$/i);
		expect(byName('eventsUndeliveredNotice').displayOptions?.show?.events).toContain('security');
	});

	it('says what it listens to on the canvas, in words', () => {
		expect(subtitleFor({ events: ['messages'] })).toBe('On messages');
		expect(subtitleFor({ events: ['messages', 'message_template_status_update'] })).toBe('On messages, message template status update');
	});

	it('says how to produce a test event (the sandbox: deliver), and has no https notice that would show to local users too', () => {
		const notices = description.properties.filter((property) => property.type === 'notice' && !property.displayOptions);
		expect(notices.map((notice) => notice.displayName)).toEqual([expect.stringContaining('npm run sandbox -- deliver --text hi')]);
		expect(notices[0].displayName).toMatch(/Execute step/);
		// Shown whatever the settings: the https requirement is said by the registration when the URL cannot work.
		for (const property of description.properties) expect(property.displayName).not.toMatch(/WEBHOOK_URL|https/);
		expect(JSON.stringify(description.triggerPanel)).toContain('npm run sandbox -- deliver --text hi');
	});

	it('has its own listening text, and Meta Version among the options', () => {
		expect(description.triggerPanel).toMatchObject({ header: expect.stringContaining('WhatsApp message') });
		expect(description.properties.map((property) => property.name)).not.toContain('metaVersion');
		const options = byName('options').options as INodeProperties[];
		expect(options.find((option) => option.name === 'metaVersion')).toMatchObject({ default: 'LATEST' });
	});
});

describe('panel texts of the action node', () => {
	it('leaves a long example out of a Template Parameters label, so that Values to Send stays inside the panel', () => {
		const button = { id: 'button_0_1', displayName: 'Button 1 "Track" URL {{1}}' } as Parameters<typeof fieldLabel>[0];
		expect(fieldLabel({ ...button, example: 'https://shop.example/orders/2026/11/25/tracking?id=1234567890' })).toBe('Button 1 "Track" URL {{1}}');
		const body = { id: 'body_1', displayName: 'Body {{1}}' } as Parameters<typeof fieldLabel>[0];
		expect(fieldLabel({ ...body, example: 'Ana' })).toBe('Body {{1}} (e.g. Ana)');
		expect(fieldLabel({ ...body, example: '#42' })).toBe('Body {{1}} (e.g. #42)');
		expect(fieldLabel(body)).toBe('Body {{1}}');
	});
});
