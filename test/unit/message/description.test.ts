import { description, operationField, operations } from '../../../nodes/MessagingGateway/actions/message';
import { BUILDERS, FIELDS_OF, messageTypeField, typeFields } from '../../../nodes/MessagingGateway/actions/message/send.operation';
import type { MessageTypeChoice } from '../../../nodes/MessagingGateway/actions/message/types/common';
import { MEDIA_KINDS } from '../../../nodes/gateway/spec';

const CHOICES: MessageTypeChoice[] = [
	'text',
	'template',
	'interactiveButtons',
	'interactiveList',
	'contacts',
	'location',
	'image',
	'audio',
	'video',
	'document',
	'sticker',
	'reaction',
];

describe('the editor description of the message resource', () => {
	it('offers every message type, each with its own fields and a way to build it', () => {
		const offered = (messageTypeField.options ?? []).map((option) => (option as { value: string }).value);
		expect([...offered].sort()).toEqual([...CHOICES].sort());
		for (const choice of CHOICES) {
			expect(FIELDS_OF.get(choice)?.length).toBeGreaterThan(0);
			expect(choice in BUILDERS || (MEDIA_KINDS as readonly string[]).includes(choice)).toBe(true);
		}
	});

	it('gives every type field a name of its own, shown only for resource Message and operation Send', () => {
		const names = typeFields.map((field) => field.name);
		expect(new Set(names).size).toBe(names.length);
		for (const field of typeFields) {
			expect(field.displayOptions?.show).toMatchObject({ resource: ['message'], operation: ['send'] });
		}
	});

	it('has one operation field with an action per operation, and an operation module for each', () => {
		expect(operationField.noDataExpression).toBe(true);
		const values = (operationField.options ?? []).map((option) => (option as { value: string; action?: string }));
		expect(values.map((option) => option.value).sort()).toEqual(Object.keys(operations).sort());
		expect(values.every((option) => typeof option.action === 'string' && option.action.length > 0)).toBe(true);
		expect(description[0]).toBe(operationField);
	});

	it('keeps the operation value sendAndWait, which n8n needs to check the signed links', () => {
		expect(Object.keys(operations)).toContain('sendAndWait');
		expect(typeof operations.sendAndWait.executeAll).toBe('function');
	});
});
