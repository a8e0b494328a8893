import { buildMedia as build, readMediaInput } from '../../../nodes/MessagingGateway/actions/message/types/basic';
import { CAPTIONED_MEDIA_KINDS, MEDIA_KINDS } from '../../../nodes/gateway/spec';
import { inputError } from './inputError';

const byId = { mediaSource: 'id', mediaId: '1234567890' };

describe('media messages', () => {
	it.each(['audio', 'sticker'] as const)('sends a %s as its media id only (the network takes no caption on it)', (kind) => {
		const input = readMediaInput(kind, { ...byId, mediaCaption: 'ignored', documentFilename: 'ignored.pdf' });
		expect(build(input, '1234567890')).toEqual({ type: kind, [kind]: { id: '1234567890' } });
	});

	it.each(['image', 'video'] as const)('sends a %s with its caption, and without one when it is empty', (kind) => {
		const input = readMediaInput(kind, { ...byId, mediaCaption: ' Seu pedido ', documentFilename: 'ignored.pdf' });
		expect(build(input, '1234567890')).toEqual({ type: kind, [kind]: { id: '1234567890', caption: 'Seu pedido' } });
		expect(build(readMediaInput(kind, { ...byId, mediaCaption: '' }), '1')).toEqual({ type: kind, [kind]: { id: '1' } });
	});

	it('offers the caption for exactly the kinds that take one', () => {
		expect([...CAPTIONED_MEDIA_KINDS].sort()).toEqual(['document', 'image', 'video']);
		expect(MEDIA_KINDS.filter((kind) => !(CAPTIONED_MEDIA_KINDS as readonly string[]).includes(kind)).sort()).toEqual(['audio', 'sticker']);
	});

	it('sends a document with caption and file name', () => {
		const input = readMediaInput('document', { ...byId, mediaCaption: ' Your invoice ', documentFilename: 'invoice.pdf' });
		expect(build(input, '99', 'upload.pdf')).toEqual({
			type: 'document',
			document: { id: '99', caption: 'Your invoice', filename: 'invoice.pdf' },
		});
	});

	it("names a document after the uploaded binary's file when no file name is given, and leaves out empty ones", () => {
		const input = readMediaInput('document', { mediaSource: 'binary', binaryPropertyName: 'data', documentFilename: ' ' });
		expect(build(input, '99', 'report.pdf')).toEqual({ type: 'document', document: { id: '99', filename: 'report.pdf' } });
		expect(build(readMediaInput('document', byId), '99')).toEqual({ type: 'document', document: { id: '99' } });
	});

	it('reads the media source: an id, or a binary field (the default)', () => {
		expect(readMediaInput('image', { mediaSource: 'id', mediaId: ' 123 ' }).from).toEqual({ source: 'id', mediaId: '123' });
		expect(readMediaInput('image', { binaryPropertyName: 'file' }).from).toEqual({
			source: 'binary',
			binaryPropertyName: 'file',
		});
	});

	it('refuses an empty media id or binary field name, an id with spaces, and a caption that is not text', () => {
		expect(inputError(() => readMediaInput('image', { mediaSource: 'id', mediaId: '' })).field).toBe('Media ID');
		expect(inputError(() => readMediaInput('image', { mediaSource: 'id', mediaId: '12 34' })).reason).toMatch(/spaces/);
		expect(inputError(() => readMediaInput('audio', { mediaSource: 'binary', binaryPropertyName: '' })).field).toBe(
			'Input Binary Field',
		);
		expect(inputError(() => readMediaInput('document', { ...byId, mediaCaption: { a: 1 } })).field).toBe('Caption');
	});
});
