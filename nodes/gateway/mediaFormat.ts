/**
 * What format a media file is, from its first bytes (its signature), and which content types name each format.
 * Pure: no n8n imports. The network accepts a few formats per media kind (spec.ts, MEDIA_LIMITS); this module only
 * tells formats apart, including common ones the network refuses, so that a refusal can say what the file is.
 */

/** Bytes a caller reads from the start of a file: every signature below lies within them. */
export const SIGNATURE_BYTES = 64;

export const MEDIA_FORMATS = {
	jpeg: { label: 'JPEG', mimeTypes: ['image/jpeg', 'image/jpg', 'image/pjpeg'] },
	png: { label: 'PNG', mimeTypes: ['image/png'] },
	gif: { label: 'GIF', mimeTypes: ['image/gif'] },
	webp: { label: 'WebP', mimeTypes: ['image/webp'] },
	bmp: { label: 'BMP', mimeTypes: ['image/bmp', 'image/x-ms-bmp'] },
	tiff: { label: 'TIFF', mimeTypes: ['image/tiff'] },
	heif: { label: 'HEIF/HEIC', mimeTypes: ['image/heif', 'image/heic'] },
	avif: { label: 'AVIF', mimeTypes: ['image/avif'] },
	pdf: { label: 'PDF', mimeTypes: ['application/pdf'] },
	zip: { label: 'ZIP', mimeTypes: ['application/zip', 'application/x-zip-compressed'] },
	mp4: {
		label: 'MP4',
		mimeTypes: ['video/mp4', 'audio/mp4', 'audio/m4a', 'audio/x-m4a', 'video/x-m4v', 'application/mp4'],
	},
	'3gpp': { label: '3GPP', mimeTypes: ['video/3gpp', 'audio/3gpp', 'video/3gpp2', 'audio/3gpp2'] },
	quicktime: { label: 'QuickTime (MOV)', mimeTypes: ['video/quicktime'] },
	matroska: { label: 'WebM/Matroska', mimeTypes: ['video/webm', 'audio/webm', 'video/x-matroska'] },
	avi: { label: 'AVI', mimeTypes: ['video/x-msvideo', 'video/avi'] },
	aac: { label: 'AAC', mimeTypes: ['audio/aac', 'audio/x-aac', 'audio/aacp'] },
	mpeg: { label: 'MPEG audio (MP3)', mimeTypes: ['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg'] },
	amr: { label: 'AMR', mimeTypes: ['audio/amr'] },
	'amr-wb': { label: 'AMR-WB', mimeTypes: ['audio/amr-wb'] },
	'ogg-opus': { label: 'OGG Opus', mimeTypes: ['audio/ogg', 'audio/opus'] },
	'ogg-vorbis': { label: 'OGG Vorbis', mimeTypes: ['audio/ogg', 'audio/vorbis'] },
	ogg: { label: 'OGG', mimeTypes: ['audio/ogg', 'video/ogg', 'application/ogg'] },
	wav: { label: 'WAV', mimeTypes: ['audio/wav', 'audio/x-wav', 'audio/wave'] },
	flac: { label: 'FLAC', mimeTypes: ['audio/flac', 'audio/x-flac'] },
} as const;

export type MediaFormat = keyof typeof MEDIA_FORMATS;

const ascii = (bytes: Uint8Array, from: number, length: number): string =>
	String.fromCharCode(...bytes.subarray(from, from + length));

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
	signature.every((byte, i) => bytes[at + i] === byte);

/** Brands of the ISO base media file format (`ftyp` box) by the format they mean. */
function isoBrandFormat(brand: string): MediaFormat {
	if (brand.startsWith('3g')) return '3gpp';
	if (brand === 'qt  ') return 'quicktime';
	if (['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return 'heif';
	if (brand === 'avif' || brand === 'avis') return 'avif';
	return 'mp4';
}

/** The format of a file from its first bytes (at least SIGNATURE_BYTES when the file has them), or undefined. */
export function detectMediaFormat(head: Uint8Array): MediaFormat | undefined {
	if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
	if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
	const text4 = ascii(head, 0, 4);
	if (text4 === 'GIF8') return 'gif';
	if (text4 === 'RIFF') {
		const riffType = ascii(head, 8, 4);
		if (riffType === 'WEBP') return 'webp';
		if (riffType === 'WAVE') return 'wav';
		if (riffType === 'AVI ') return 'avi';
		return undefined;
	}
	if (ascii(head, 4, 4) === 'ftyp') return isoBrandFormat(ascii(head, 8, 4));
	if (text4 === '%PDF') return 'pdf';
	if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return 'zip';
	if (text4 === 'OggS') {
		// The first page carries the codec's identification header right after the page header.
		const firstPage = ascii(head, 0, head.length);
		if (firstPage.includes('OpusHead')) return 'ogg-opus';
		if (firstPage.includes('\x01vorbis')) return 'ogg-vorbis';
		return 'ogg';
	}
	if (ascii(head, 0, 9) === '#!AMR-WB\n') return 'amr-wb';
	if (ascii(head, 0, 6) === '#!AMR\n') return 'amr';
	if (text4 === 'fLaC') return 'flac';
	if (text4 === 'ADIF') return 'aac';
	if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'matroska';
	if (ascii(head, 0, 3) === 'ID3') return 'mpeg';
	if (head[0] === 0xff && head.length > 1) {
		// Frame sync (11 bits set); the layer bits are 00 in AAC's ADTS header and non-zero in MPEG audio.
		if ((head[1] & 0xf6) === 0xf0) return 'aac';
		if ((head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) return 'mpeg';
	}
	if (text4 === 'II*\0' || text4 === 'MM\0*') return 'tiff';
	if (ascii(head, 0, 2) === 'BM' && head.length >= 14 && head[6] === 0 && head[7] === 0 && head[8] === 0 && head[9] === 0) {
		return 'bmp';
	}
	return undefined;
}

/** `Image/JPEG; charset=x` → `image/jpeg`. */
export function mimeEssence(mimeType: string): string {
	return mimeType.split(';')[0].trim().toLowerCase();
}

/** Content types that say nothing about the format: the file's bytes decide. */
const UNSPECIFIC_TYPES = ['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown'];

export function isUnspecificMimeType(mimeType: string): boolean {
	return UNSPECIFIC_TYPES.includes(mimeEssence(mimeType));
}

/** The known formats a content type names (several for `audio/ogg`), empty for a type this module does not know. */
export function formatsNamedBy(mimeType: string): MediaFormat[] {
	const essence = mimeEssence(mimeType);
	return (Object.keys(MEDIA_FORMATS) as MediaFormat[]).filter((format) =>
		(MEDIA_FORMATS[format].mimeTypes as readonly string[]).includes(essence),
	);
}

export function formatLabel(format: MediaFormat | undefined): string {
	return format === undefined ? 'not a format it recognises' : MEDIA_FORMATS[format].label;
}
