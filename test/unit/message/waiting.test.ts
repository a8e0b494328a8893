import {
	confirmationPage,
	readFormResponse,
	responseFormPage,
	responseLinks,
	waitMessageText,
	waitTillOf,
} from '../../../nodes/MessagingGateway/actions/message/waiting';
import { inputError } from './inputError';

const signed = (query?: Record<string, string>) =>
	`https://n8n.example/webhook-waiting/7/node?${new URLSearchParams({ ...query, signature: 'sig' }).toString()}`;

describe('response links and the message text', () => {
	it('approve only: one link with approved=true, default label', () => {
		expect(responseLinks('approval', {}, undefined, signed)).toEqual([
			{ label: 'Approve', url: 'https://n8n.example/webhook-waiting/7/node?approved=true&signature=sig' },
		]);
	});

	it('approve and decline: a link per answer, with the labels given', () => {
		const links = responseLinks('approval', { approvalType: 'double', approveLabel: 'Sim', disapproveLabel: ' ' }, undefined, signed);
		expect(links.map((link) => [link.label, new URL(link.url).searchParams.get('approved')])).toEqual([
			['Sim', 'true'],
			['Decline', 'false'],
		]);
	});

	it('free text: one link to the form', () => {
		expect(responseLinks('freeText', {}, 'Responder', signed)).toEqual([
			{ label: 'Responder', url: 'https://n8n.example/webhook-waiting/7/node?signature=sig' },
		]);
	});

	it('puts each link on its own line under a bold label', () => {
		expect(waitMessageText('  Aprovar?\n', [{ label: 'Sim', url: 'https://a' }, { label: 'Não', url: 'https://b' }])).toBe(
			'Aprovar?\n\n*Sim:*\nhttps://a\n\n*Não:*\nhttps://b',
		);
	});
});

describe('waitTillOf', () => {
	const now = new Date('2024-05-01T12:00:00Z');

	it('no limit: waits indefinitely', () => {
		expect(waitTillOf(undefined, now)).toBeUndefined();
		expect(waitTillOf({}, now)).toBeUndefined();
	});

	it.each([
		[{ limitType: 'afterTimeInterval' as const, resumeAmount: 45, resumeUnit: 'minutes' as const }, '2024-05-01T12:45:00.000Z'],
		[{ limitType: 'afterTimeInterval' as const, resumeAmount: 1.5, resumeUnit: 'hours' as const }, '2024-05-01T13:30:00.000Z'],
		[{ limitType: 'afterTimeInterval' as const, resumeAmount: 2, resumeUnit: 'days' as const }, '2024-05-03T12:00:00.000Z'],
		[{ limitType: 'atSpecifiedTime' as const, maxDateAndTime: '2024-06-01T08:00:00Z' }, '2024-06-01T08:00:00.000Z'],
	])('%p ends at %s', (limit, expected) => {
		expect(waitTillOf(limit, now)?.toISOString()).toBe(expected);
	});

	it('refuses a zero amount, a date that does not parse and a date in the past', () => {
		expect(inputError(() => waitTillOf({ limitType: 'afterTimeInterval', resumeAmount: 0 }, now)).field).toMatch(/Amount$/);
		expect(inputError(() => waitTillOf({ limitType: 'atSpecifiedTime', maxDateAndTime: 'tomorrow' }, now)).reason).toMatch(
			/not a date/,
		);
		expect(inputError(() => waitTillOf({ limitType: 'atSpecifiedTime', maxDateAndTime: '2024-01-01' }, now)).reason).toMatch(
			/past/,
		);
	});
});

describe('pages', () => {
	it('escapes what the workflow put in them', () => {
		const html = confirmationPage('<b>Sim</b>', 'a & "b"');
		expect(html).toContain('&#60;b&#62;Sim&#60;/b&#62;');
		expect(html).toContain('a &#38; &#34;b&#34;');
		expect(html).not.toContain('<b>');
		expect(responseFormPage('<script>', 'x', 'Enviar')).not.toContain('<script>');
	});

	it('post back to the address they were opened with, which keeps the signed query', () => {
		expect(confirmationPage('Sim', 'x')).toContain('<form method="post">');
		expect(responseFormPage('', 'x', '')).toContain('<form method="post">');
	});
});

describe('readFormResponse', () => {
	it('reads a parsed body, or the raw url-encoded bytes', () => {
		expect(readFormResponse({ response: ' ok ' }, undefined)).toBe('ok');
		expect(readFormResponse({}, Buffer.from('response=a+b%26c'))).toBe('a b&c');
		expect(readFormResponse('response=x', undefined)).toBe('x');
		expect(readFormResponse({}, undefined)).toBe('');
	});
});
