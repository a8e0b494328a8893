import { build, readMediaSource } from '../../../nodes/MessagingGateway/actions/message/types/media';
import { MEDIA_KINDS } from '../../../nodes/gateway/spec';
import { inputError } from './inputError';

describe('media messages', () => {
	it.each(MEDIA_KINDS.filter((kind) => kind !== 'document'))('sends a %s as its media id only', (kind) => {
		expect(build(kind, '1234567890', { documentCaption: 'ignored', documentFilename: 'ignored.pdf' })).toEqual({
			type: kind,
			[kind]: { id: '1234567890' },
		});
	});

	it('sends a document with caption and file name', () => {
		expect(build('document', '99', { documentCaption: 'Your invoice', documentFilename: 'invoice.pdf' }, 'upload.pdf')).toEqual({
			type: 'document',
			document: { id: '99', caption: 'Your invoice', filename: 'invoice.pdf' },
		});
	});

	it("names a document after the uploaded binary's file when no file name is given, and leaves out empty ones", () => {
		expect(build('document', '99', { documentFilename: ' ' }, 'report.pdf').document).toEqual({ id: '99', filename: 'report.pdf' });
		expect(build('document', '99', {}).document).toEqual({ id: '99' });
	});

	it('reads the media source: an id, or a binary field', () => {
		expect(readMediaSource({ mediaSource: 'id', mediaId: ' 123 ' })).toEqual({ source: 'id', mediaId: '123' });
		expect(readMediaSource({ mediaSource: 'binary', binaryPropertyName: 'data' })).toEqual({
			source: 'binary',
			binaryPropertyName: 'data',
		});
	});

	it('refuses an empty media id or binary field name, and an id with spaces', () => {
		expect(inputError(() => readMediaSource({ mediaSource: 'id', mediaId: '' })).field).toBe('Media ID');
		expect(inputError(() => readMediaSource({ mediaSource: 'id', mediaId: '12 34' })).reason).toMatch(/spaces/);
		expect(inputError(() => readMediaSource({ mediaSource: 'binary', binaryPropertyName: '' })).field).toBe(
			'Input Binary Field',
		);
	});
});
