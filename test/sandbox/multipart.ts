/**
 * A streaming `multipart/form-data` reader for the media upload (spec sections 2.7, 4.8). File parts are hashed and
 * counted as their bytes arrive and never kept, so a 100 MB upload costs no more memory than a small one; text
 * fields are kept (they are small, and capped).
 */
import { createHash, type Hash } from 'node:crypto';

import { detectMediaFormat, SIGNATURE_BYTES, type MediaFormat } from '../../nodes/gateway/media';

export interface MultipartFile {
	field: string;
	fileName: string;
	contentType: string;
	size: number;
	sha256: string;
	/** The format its first bytes show, null when not a known one. */
	format: MediaFormat | null;
}

export interface MultipartSummary {
	fields: Record<string, string>;
	files: MultipartFile[];
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELD_BYTES = 1024 * 1024;

/** The boundary of a `multipart/form-data` content type, or null when the type is another or has none. */
export function multipartBoundary(contentType: string | undefined): string | null {
	if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
	const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
	return match ? (match[1] ?? match[2]) : null;
}

type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';

interface OpenPart {
	name: string;
	fileName: string | null;
	contentType: string;
	size: number;
	hash: Hash | null;
	text: Buffer[];
	/** The first SIGNATURE_BYTES of a file part. */
	head: Buffer;
}

export class MultipartReader {
	private readonly delimiter: Buffer;
	// The stream starts with `--boundary`; a virtual CRLF lets one delimiter pattern find the first one too.
	private pending: Buffer = Buffer.from('\r\n');
	private state: State = 'preamble';
	private part: OpenPart | null = null;
	private readonly summary: MultipartSummary = { fields: {}, files: [] };
	/** The first problem found; the rest of the stream is then only drained. */
	error: string | null = null;

	constructor(boundary: string) {
		this.delimiter = Buffer.from(`\r\n--${boundary}`);
	}

	write(chunk: Buffer): void {
		if (this.error || this.state === 'done') return;
		this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
		this.consume();
	}

	/** Called when the request ended; returns what was read, or sets `error` when the body was malformed. */
	end(): MultipartSummary {
		if (!this.error && this.state !== 'done') this.error = 'the multipart body ends before its closing boundary';
		return this.summary;
	}

	private consume(): void {
		while (!this.error) {
			if (this.state === 'preamble' || this.state === 'body') {
				const at = this.pending.indexOf(this.delimiter);
				if (at < 0) {
					// Keep a tail that may be the start of a delimiter split across chunks.
					const safe = Math.max(0, this.pending.length - this.delimiter.length + 1);
					if (this.state === 'body' && safe > 0) this.partData(this.pending.subarray(0, safe));
					this.pending = this.pending.subarray(safe);
					return;
				}
				if (this.state === 'body') {
					this.partData(this.pending.subarray(0, at));
					this.closePart();
				}
				this.pending = this.pending.subarray(at + this.delimiter.length);
				this.state = 'after-delimiter';
			} else if (this.state === 'after-delimiter') {
				if (this.pending.length < 2) return;
				const next = this.pending.toString('latin1', 0, 2);
				if (next === '--') {
					this.state = 'done';
					this.pending = Buffer.alloc(0);
					return;
				}
				if (next !== '\r\n') {
					this.error = 'a boundary line is not followed by CRLF';
					return;
				}
				this.pending = this.pending.subarray(2);
				this.state = 'headers';
			} else if (this.state === 'headers') {
				const end = this.pending.indexOf('\r\n\r\n');
				if (end < 0) {
					if (this.pending.length > MAX_HEADER_BYTES) this.error = 'the headers of a part are too long';
					return;
				}
				this.openPart(this.pending.toString('utf8', 0, end));
				this.pending = this.pending.subarray(end + 4);
				this.state = 'body';
			} else {
				return;
			}
		}
	}

	private openPart(headerText: string): void {
		const headers = new Map<string, string>();
		for (const line of headerText.split('\r\n')) {
			const colon = line.indexOf(':');
			if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
		}
		const disposition = headers.get('content-disposition') ?? '';
		if (!/^form-data\s*(;|$)/i.test(disposition)) {
			this.error = 'a part has no Content-Disposition: form-data header';
			return;
		}
		const name = dispositionParameter(disposition, 'name');
		if (name === null) {
			this.error = 'a part has no name in its Content-Disposition header';
			return;
		}
		const fileName = dispositionParameter(disposition, 'filename');
		this.part = {
			name,
			fileName,
			contentType: headers.get('content-type') ?? '',
			size: 0,
			hash: fileName === null ? null : createHash('sha256'),
			text: [],
			head: Buffer.alloc(0),
		};
	}

	private partData(data: Buffer): void {
		const part = this.part;
		if (!part || data.length === 0) return;
		part.size += data.length;
		if (part.hash) {
			part.hash.update(data);
			if (part.head.length < SIGNATURE_BYTES) {
				part.head = Buffer.concat([part.head, data.subarray(0, SIGNATURE_BYTES - part.head.length)]);
			}
		} else if (part.size > MAX_FIELD_BYTES) {
			this.error = `the text field ${part.name} is larger than ${MAX_FIELD_BYTES} bytes`;
		} else {
			part.text.push(Buffer.from(data));
		}
	}

	private closePart(): void {
		const part = this.part;
		this.part = null;
		if (!part) return;
		if (part.hash && part.fileName !== null) {
			const file = { field: part.name, fileName: part.fileName, contentType: part.contentType, size: part.size };
			this.summary.files.push({ ...file, sha256: part.hash.digest('hex'), format: detectMediaFormat(part.head) ?? null });
		} else if (part.name in this.summary.fields) {
			this.error = `the field ${part.name} is sent twice`;
		} else {
			this.summary.fields[part.name] = Buffer.concat(part.text).toString('utf8');
		}
	}
}

/** A parameter of a Content-Disposition header, quoted or not (`name="File"; filename="a b.png"`). */
function dispositionParameter(header: string, parameter: string): string | null {
	const pattern = new RegExp(`;\\s*${parameter}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i');
	const match = pattern.exec(header);
	if (!match) return null;
	return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}
