import { Readable } from 'node:stream';

import { declaredLengthOf, fileNameOfDownload, MediaTooLargeError, peekHead, readAll, readMediaUrl } from '../../../nodes/gateway/media';
import { defaultCountryProblem, judgePhoneId, phoneIdsOfWebhookList } from '../../../nodes/gateway/credentialChecks';

describe('readMediaUrl', () => {
	it.each([
		['https://example.com/a.jpg', { url: 'https://example.com/a.jpg' }],
		['  http://example.com/a b.jpg ', { url: 'http://example.com/a%20b.jpg' }],
		['', { problem: 'is empty; enter the http(s) address of the file' }],
		['ftp://example.com/a.jpg', { problem: '"ftp://example.com/a.jpg" is not an http(s) address' }],
		['example.com/a.jpg', { problem: '"example.com/a.jpg" is not an http(s) address' }],
	])('%j', (value, expected) => expect(readMediaUrl(value)).toEqual(expected));
});

describe('declaredLengthOf', () => {
	it.each([
		['1234', 1234],
		[undefined, undefined],
		['abc', undefined],
		['-1', undefined],
	])('%j', (header, expected) => expect(declaredLengthOf(header)).toBe(expected));
});

describe('fileNameOfDownload', () => {
	it('prefers Content-Disposition, then the last path segment, then the kind and format', () => {
		expect(fileNameOfDownload('https://x.test/a/b.pdf', 'attachment; filename="Nota fiscal.pdf"', 'document', 'pdf')).toBe('Nota fiscal.pdf');
		expect(fileNameOfDownload('https://x.test/a/b%20c.pdf?x=1', undefined, 'document', 'pdf')).toBe('b c.pdf');
		expect(fileNameOfDownload('https://x.test/', undefined, 'image', 'jpeg')).toBe('image.jpeg');
	});
});

describe('peekHead', () => {
	const source = () => Readable.from([Buffer.from('abc'), Buffer.from('defgh'), Buffer.from('ij')]);
	const limit = (maxBytes: number) => ({ kind: 'image' as const, maxBytes, label: 'x' });

	it('gives the first bytes and the whole file, those bytes included', async () => {
		const { head, whole } = await peekHead(source(), 4);
		expect(head.toString()).toBe('abcd');
		expect((await readAll(whole(limit(10)))).toString()).toBe('abcdefghij');
	});

	it('fails the whole file as soon as it passes the limit', async () => {
		const { whole } = await peekHead(source(), 4);
		await expect(readAll(whole(limit(9)))).rejects.toBeInstanceOf(MediaTooLargeError);
	});
});

describe('credential checks', () => {
	it('names the Default Country when it is not a country code', () => {
		expect(defaultCountryProblem('Brazil')).toBe('Default Country "Brazil" is not a country code; use a two-letter ISO code such as BR, US or PT');
		expect(defaultCountryProblem('br')).toBeUndefined();
		expect(defaultCountryProblem('')).toBeUndefined();
	});

	it('reads the phone ids of a webhook list and judges a Phone ID by them', () => {
		const ids = phoneIdsOfWebhookList({ success: true, webhooks: [{ phone_id: '1' }, { phone_id: '1' }, { phone_id: '2' }, {}] });
		expect(ids).toEqual(['1', '2']);
		expect(judgePhoneId('2', ids)).toEqual({ checked: true });
		expect(judgePhoneId('3', ids)).toEqual({ problem: expect.stringContaining('Phone ID 3 is not a phone of this API key: its webhooks are for 1, 2') });
		expect(judgePhoneId('3', [])).toMatchObject({ checked: false });
	});
});
