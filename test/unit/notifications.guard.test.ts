/**
 * The trigger's pure pieces added for at-least-once delivery and account scope: the duplicate guard's memory
 * (deliveryGuard.ts), the phone scope (notifications.ts), and the notice for events the gateway does not deliver.
 */
import { NodeHelpers, type INodeParameters, type INodeProperties } from 'n8n-workflow';

import { description as webhookCreateDescription } from '../../nodes/MessagingGateway/actions/webhook/create.operation';
import { eventKey, hashEventKey, SeenEvents, seenEventsOf } from '../../nodes/MessagingGatewayTrigger/deliveryGuard';
import { triggerProperties } from '../../nodes/MessagingGatewayTrigger/description';
import { itemsOfPhone, parseNotification, type NotificationItem } from '../../nodes/MessagingGatewayTrigger/notifications';
import { WEBHOOK_EVENT_TYPES } from '../../nodes/gateway/spec';
import { eventTypeOptions, UNDELIVERED_EVENT_TYPES } from '../../nodes/gateway/webhookEvents';

const message = (id: string, phone = 'p1'): NotificationItem =>
	({ event: 'message', messageId: id, phoneNumberId: phone }) as NotificationItem;
const status = (id: string, value: string): NotificationItem =>
	({ event: 'status', messageId: id, status: value, phoneNumberId: 'p1' }) as NotificationItem;
const template = (id: string, value: string, reason: string | null = null): NotificationItem =>
	({ event: 'template_status', templateId: id, status: value, reason }) as NotificationItem;

const NOW = 1_763_800_000;
const DAY = 24 * 3600;

describe('what makes two deliveries the same event', () => {
	it('a message by id, a status by id and status, a template event by template, event and reason', () => {
		expect(eventKey(message('m1'))).toBe(eventKey(message('m1', 'another phone')));
		expect(eventKey(message('m1'))).not.toBe(eventKey(message('m2')));
		expect(eventKey(status('m1', 'delivered'))).not.toBe(eventKey(status('m1', 'read')));
		expect(eventKey(status('m1', 'delivered'))).not.toBe(eventKey(message('m1')));
		expect(eventKey(template('7', 'APPROVED'))).not.toBe(eventKey(template('7', 'REJECTED')));
		expect(eventKey(template('7', 'REJECTED', 'a'))).not.toBe(eventKey(template('7', 'REJECTED', 'b')));
	});

	it('items without an id are never held back', () => {
		expect(eventKey({ event: 'error', errors: [], phoneNumberId: null, displayPhoneNumber: null, metadata: null })).toBeUndefined();
		expect(eventKey({ event: 'message', messageId: null } as unknown as NotificationItem)).toBeUndefined();
		const seen = new SeenEvents();
		const error = { event: 'error', errors: [{ code: 1 }] } as unknown as NotificationItem;
		expect(seen.admit([error], NOW, DAY).fresh).toHaveLength(1);
		expect(seen.admit([error], NOW, DAY).fresh).toHaveLength(1);
	});

	it('hashes are 16 characters and do not contain the message id', () => {
		const hash = hashEventKey(eventKey(message('wamid.SECRETISH'))!);
		expect(hash).toMatch(/^[A-Za-z0-9_-]{16}$/);
		expect(hash).not.toContain('SECRETISH');
	});
});

describe('the memory of seen events', () => {
	it('admits an event once within the window, again after it', () => {
		const seen = new SeenEvents();
		expect(seen.admit([message('m1')], NOW, DAY)).toEqual({ fresh: [message('m1')], duplicates: 0 });
		expect(seen.admit([message('m1')], NOW + DAY - 1, DAY)).toEqual({ fresh: [], duplicates: 1 });
		expect(seen.admit([message('m1')], NOW + DAY, DAY).fresh).toHaveLength(1);
	});

	it('the same event twice in one notification counts once', () => {
		const seen = new SeenEvents();
		expect(seen.admit([message('m1'), message('m1'), message('m2')], NOW, DAY)).toEqual({
			fresh: [message('m1'), message('m2')],
			duplicates: 1,
		});
	});

	it('is bounded: beyond its limit the oldest events are forgotten first', () => {
		const seen = new SeenEvents(3);
		for (const id of ['a', 'b', 'c', 'd']) seen.admit([message(id)], NOW, DAY);
		expect(seen.size).toBe(3);
		expect(seen.admit([message('a')], NOW, DAY).fresh).toHaveLength(1); // forgotten
		expect(seen.admit([message('d')], NOW, DAY).fresh).toHaveLength(0); // kept
	});

	it('saves the newest unexpired events for static data, bounded, and a fresh memory honours them', () => {
		const seen = new SeenEvents();
		seen.admit([message('old')], NOW - DAY, DAY); // expired by NOW
		for (const id of ['a', 'b', 'c']) seen.admit([message(id)], NOW, DAY);
		const saved = seen.persisted(NOW + 1, 2);
		expect(Object.keys(saved)).toHaveLength(2);
		expect(Object.values(saved).every((expiry) => expiry === NOW + DAY)).toBe(true);

		const afterRestart = new SeenEvents();
		afterRestart.merge(JSON.parse(JSON.stringify(saved)), NOW + 1);
		expect(afterRestart.admit([message('a'), message('b'), message('c')], NOW + 1, DAY).fresh).toEqual([message('a')]);
	});

	it('hands its events to static data at most once per interval: the first at once, the next ones together later', () => {
		const seen = new SeenEvents();
		seen.admit([message('a')], NOW, DAY);
		expect(Object.keys(seen.takeForPersisting(NOW, 10) ?? {})).toHaveLength(1);
		seen.admit([message('b')], NOW + 3, DAY);
		expect(seen.takeForPersisting(NOW + 3, 10)).toBeUndefined();
		seen.admit([message('c')], NOW + 10, DAY);
		expect(Object.keys(seen.takeForPersisting(NOW + 10, 10) ?? {})).toHaveLength(3);
	});

	it('merging ignores expired and malformed entries, and keeps the later expiry', () => {
		const seen = new SeenEvents();
		const key = hashEventKey(eventKey(message('m1'))!);
		seen.merge({ [key]: NOW - 1, other: 'x' }, NOW);
		expect(seen.size).toBe(0);
		seen.merge('garbage', NOW);
		seen.merge(null, NOW);
		seen.merge([1, 2], NOW);
		expect(seen.size).toBe(0);
		seen.merge({ [key]: NOW + 10 }, NOW);
		seen.merge({ [key]: NOW + 100 }, NOW);
		seen.merge({ [key]: NOW + 50 }, NOW);
		expect(seen.persisted(NOW)).toEqual({ [key]: NOW + 100 });
	});

	it('one memory per workflow and trigger node in the process', () => {
		expect(seenEventsOf('wf-1', 'Trigger')).toBe(seenEventsOf('wf-1', 'Trigger'));
		expect(seenEventsOf('wf-1', 'Trigger')).not.toBe(seenEventsOf('wf-2', 'Trigger'));
		expect(seenEventsOf('wf-1', 'Trigger')).not.toBe(seenEventsOf('wf-1', 'Trigger 2'));
	});
});

describe('only this phone', () => {
	it("drops the items of another phone, keeps this phone's and those that name no phone", () => {
		const items = [message('m1', 'p1'), message('m2', 'p2'), template('7', 'APPROVED'), message('m3', ' p1 ')];
		expect(itemsOfPhone(items, 'p1').map((item) => item.messageId ?? item.templateId)).toEqual(['m1', '7', 'm3']);
	});

	it('reads the phone of a notification from its metadata', () => {
		const parsed = parseNotification({
			metadata: { phone_number_id: '222', display_phone_number: '1' },
			messages: [{ id: 'm1', from: '1', type: 'text', text: { body: 'x' } }],
		});
		if (!parsed.isNotification) throw new Error('a notification');
		expect(itemsOfPhone(parsed.items, '111')).toEqual([]);
		expect(itemsOfPhone(parsed.items, '222')).toHaveLength(1);
	});
});

describe('events the gateway does not deliver', () => {
	const displayed = (property: INodeProperties, parameters: INodeParameters) =>
		NodeHelpers.displayParameter(parameters, property, null, null);

	it('Messages is the first option and the only one not marked as not delivered', () => {
		const options = eventTypeOptions();
		expect(options.map((option) => option.value)).toEqual([
			'messages',
			...WEBHOOK_EVENT_TYPES.filter((type) => type !== 'messages'),
		]);
		expect(options.filter((option) => !option.name.includes('Not Delivered'))).toEqual([
			{ name: 'Messages', value: 'messages' },
		]);
		expect(UNDELIVERED_EVENT_TYPES).toEqual(WEBHOOK_EVENT_TYPES.filter((type) => type !== 'messages'));
	});

	it('the trigger shows its notice as soon as one chosen event is not delivered, not for Messages alone', () => {
		const events = triggerProperties.find((property) => property.name === 'events')!;
		expect(events.default).toEqual(['messages']);
		expect((events.options as Array<{ value: string }>)[0].value).toBe('messages');
		const notice = triggerProperties.find((property) => property.type === 'notice' && property.name.includes('Undelivered'))!;
		expect(notice.displayName).toMatch(/delivers only Messages/);
		expect(displayed(notice, { events: ['messages'] })).toBe(false);
		expect(displayed(notice, { events: ['security'] })).toBe(true);
		expect(displayed(notice, { events: ['messages', 'account_update'] })).toBe(true);
	});

	it('Webhook > Create shows the same notice for its subscription types, only on that operation', () => {
		const notice = webhookCreateDescription.find((property) => property.type === 'notice' && property.name.includes('Undelivered'))!;
		expect(notice.displayName).toMatch(/delivers only Messages/);
		const on = { resource: 'webhook', operation: 'create' };
		expect(displayed(notice, { ...on, types: ['messages'] })).toBe(false);
		expect(displayed(notice, { ...on, types: ['messages', 'security'] })).toBe(true);
		expect(displayed(notice, { resource: 'webhook', operation: 'list', types: ['security'] })).toBe(false);
	});
});
