/**
 * Streaming CSV reading for the gateway's `;`-separated files (spec 2.8 rule 7), written here because the package has
 * no runtime dependencies and a bundle of csv-parse's stream API is refused by n8n's package scan. It reads as
 * csv-parse does with `{ delimiter, bom: true, skip_empty_lines: true, relax_column_count: true }` (a test compares
 * the two on the same files): `"` quotes a cell, `""` inside quotes is one quote, the record delimiter is the first
 * `\r\n`, `\n` or `\r` met outside quotes, and a quote elsewhere than at a cell's start is an error. Pure: no n8n
 * imports; only the current record is held.
 */

export interface CsvReadOptions {
	/** Field separator; the gateway's files use `;`. */
	delimiter?: string;
}

/** Raised for a file that is not CSV at all (unterminated quote, a quote in the middle of a bare cell). */
export class CsvFormatError extends Error {
	constructor(
		message: string,
		readonly line?: number,
	) {
		super(message);
		this.name = 'CsvFormatError';
	}
}

const QUOTE = '"';

/** The reading state between chunks: the record and cell so far, and where the text stands. */
class CsvRowReader {
	private record: string[] = [];
	private cell = '';
	private quoting = false;
	/** The current cell was quoted (so an empty line of `""` is a record, not an empty line). */
	private wasQuoted = false;
	private recordDelimiter = '';
	private line = 1;

	constructor(private readonly delimiter: string) {}

	/**
	 * Reads `text` and returns the records it completes and the text it could not decide yet (a quote or a `\r` at
	 * the chunk's end, which the next characters explain). With `final`, the end of the text is the end of the file.
	 */
	read(text: string, final: boolean): { rows: string[][]; rest: string } {
		const rows: string[][] = [];
		const { delimiter } = this;
		const n = text.length;
		let i = 0;
		while (i < n) {
			if (this.quoting) {
				const quote = text.indexOf(QUOTE, i);
				if (quote === -1) {
					this.cell += text.slice(i);
					this.countLines(text, i, n);
					i = n;
					break;
				}
				this.cell += text.slice(i, quote);
				this.countLines(text, i, quote);
				// A quote is closed by what follows it: undecided until two more characters (a \r\n) are known.
				if (!final && quote + 2 >= n) return { rows, rest: text.slice(quote) };
				if (text[quote + 1] === QUOTE) {
					this.cell += QUOTE;
					i = quote + 2;
					continue;
				}
				const after = quote + 1;
				if (after < n && text.startsWith(delimiter, after) === false && this.recordDelimiterAt(text, after) === 0) {
					throw new CsvFormatError(
						`Invalid closing quote: ${JSON.stringify(text[after])} follows a quoted cell on line ${this.line} instead of "${delimiter}" or a line break`,
						this.line,
					);
				}
				this.quoting = false;
				this.wasQuoted = true;
				i = after;
				continue;
			}

			// Outside quotes: find the next character with a meaning.
			let j = i;
			while (j < n) {
				const c = text[j];
				if (c === delimiter[0] || c === QUOTE || c === '\n' || c === '\r') break;
				j++;
			}
			this.cell += text.slice(i, j);
			if (j === n) {
				i = n;
				break;
			}
			const c = text[j];
			if (c === '\r' || c === '\n') {
				if (!final && j + 1 >= n && c === '\r') return { rows, rest: text.slice(j) };
				const length = this.recordDelimiterAt(text, j);
				if (length > 0) {
					this.line++;
					this.endRecord(rows);
					i = j + length;
				} else {
					// A line break that is not the file's record delimiter is text of the cell, as csv-parse keeps it.
					if (c === '\n' || text[j + 1] !== '\n') this.line++;
					this.cell += c;
					i = j + 1;
				}
				continue;
			}
			if (c === QUOTE) {
				if (this.cell.length !== 0) {
					throw new CsvFormatError(
						`Invalid opening quote: a quote inside the unquoted cell ${JSON.stringify(this.cell)} on line ${this.line}; quote the whole cell and double the quotes inside it`,
						this.line,
					);
				}
				this.quoting = true;
				i = j + 1;
				continue;
			}
			if (!text.startsWith(delimiter, j)) {
				if (!final && j + delimiter.length > n) return { rows, rest: text.slice(j) };
				this.cell += c;
				i = j + 1;
				continue;
			}
			this.record.push(this.cell);
			this.cell = '';
			this.wasQuoted = false;
			i = j + delimiter.length;
		}
		if (final) {
			if (this.quoting) {
				throw new CsvFormatError(`Quote not closed: the file ends inside a quoted cell on line ${this.line}`, this.line);
			}
			if (this.wasQuoted || this.record.length > 0 || this.cell.length > 0) this.endRecord(rows);
		}
		return { rows, rest: '' };
	}

	/** The length of the record delimiter at `at` (0 for none); the first line break met decides which it is. */
	private recordDelimiterAt(text: string, at: number): number {
		if (this.recordDelimiter === '') {
			const c = text[at];
			if (c === '\n') this.recordDelimiter = '\n';
			else if (c === '\r') this.recordDelimiter = text[at + 1] === '\n' ? '\r\n' : '\r';
			else return 0;
		}
		return text.startsWith(this.recordDelimiter, at) ? this.recordDelimiter.length : 0;
	}

	private endRecord(rows: string[][]): void {
		// An empty line is skipped; a line of one quoted empty cell is a record.
		if (this.record.length > 0 || this.cell.length > 0 || this.wasQuoted) {
			this.record.push(this.cell);
			rows.push(this.record);
		}
		this.record = [];
		this.cell = '';
		this.wasQuoted = false;
	}

	/** Line numbers for error messages: line breaks inside quoted cells count too. */
	private countLines(text: string, from: number, to: number): void {
		for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) this.line++;
	}
}

/**
 * The rows of a CSV file as arrays of cells, the header row first, read as the input streams in. Empty lines are
 * skipped, a UTF-8 byte order mark is removed, rows may have a different number of cells than the header (the caller
 * reports it). Quoted cells may hold the delimiter, doubled quotes and line breaks. A consumer that stops early
 * closes the input (a stream is destroyed when the loop over it ends).
 */
export async function* readCsvRows(
	input: AsyncIterable<Uint8Array | string>,
	options: CsvReadOptions = {},
): AsyncGenerator<string[]> {
	const reader = new CsvRowReader(options.delimiter ?? ';');
	// The decoder removes a leading byte order mark; text input has it removed below.
	const decoder = new TextDecoder('utf-8');
	let rest = '';
	let first = true;
	for await (const chunk of input) {
		let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
		if (first && text.length > 0) {
			if (typeof chunk === 'string' && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
			first = false;
		}
		const read = reader.read(rest + text, false);
		rest = read.rest;
		yield* read.rows;
	}
	yield* reader.read(rest + decoder.decode(), true).rows;
}
