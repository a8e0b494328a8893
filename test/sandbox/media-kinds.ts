/**
 * What the network does with a media message (spec section 8, docs/gateway.md): the referenced media must be a format its
 * kind accepts, uploaded with that format's content type, and within the kind's decimal size limit. The upload itself
 * does not say the kind, so these checks run when a message references the media. Media ids the sandbox did not
 * issue (or issued to another key) are not checked here: the sandbox cannot know them.
 */
import { MEDIA_FORMATS, mimeEssence, type MediaFormat } from '../../nodes/gateway/media';
import { MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from '../../nodes/gateway/spec';
import { invalid } from './errors';

export interface StoredMedia {
	apiKey: string;
	contentType: string;
	size: number;
	/** The format read from the file's first bytes at upload, null when not a known one. */
	format: MediaFormat | null;
}

export function checkMediaOfMessage(body: unknown, media: ReadonlyMap<string, StoredMedia>, apiKey: string): void {
	const message = body as Record<string, unknown>;
	const kind = MEDIA_KINDS.find((candidate) => candidate === message.type);
	if (!kind) return;
	const id = String((message[kind] as { id?: unknown }).id);
	const stored = media.get(id);
	if (!stored || stored.apiKey !== apiKey) return;
	const refusal = mediaRefusal(kind, stored);
	if (refusal) throw invalid(`${kind}.id`, refusal);
}

function mediaRefusal(kind: MediaKind, stored: StoredMedia): string | undefined {
	const { maxBytes, label, formats } = MEDIA_LIMITS[kind];
	if (stored.size > maxBytes) return `is a file of ${stored.size} bytes; ${kind} media are at most ${label} (${maxBytes} bytes)`;
	if (formats === null) return undefined;
	const accepted = formats.find(({ format }) => format === stored.format);
	const allowed = formats.map(({ format }) => MEDIA_FORMATS[format].label).join(', ');
	if (!accepted) {
		const what = stored.format === null ? 'a file of no known format' : `a ${MEDIA_FORMATS[stored.format].label} file`;
		return `is ${what}; ${kind} media must be one of ${allowed}`;
	}
	const uploadedAs = stored.contentType.toLowerCase().replace(/\s+/g, '');
	const expected = accepted.mimeType.toLowerCase().replace(/\s+/g, '');
	const sameType = accepted.format === 'ogg-opus' ? uploadedAs.startsWith(expected) : mimeEssence(uploadedAs) === expected;
	if (!sameType) return `was uploaded as ${stored.contentType}; ${kind} media in ${MEDIA_FORMATS[accepted.format].label} must be uploaded as ${accepted.mimeType}`;
	return undefined;
}
