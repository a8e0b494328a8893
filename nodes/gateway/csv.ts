/**
 * Streaming CSV parsing for the gateway's `;`-separated files (spec 2.8 rule 7). The only module that imports
 * csv-parse, so that the parser's options live in one place.
 */
import { parse } from 'csv-parse';
import { Readable } from 'node:stream';

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

/**
 * The rows of a CSV file as arrays of cells, the header row first, read as the input streams in. Empty lines are
 * skipped, a UTF-8 byte order mark is removed, rows may have a different number of cells than the header (the caller
 * reports it). Quoted cells may hold the delimiter, doubled quotes and line breaks.
 */
export async function* readCsvRows(
	input: Readable | AsyncIterable<Buffer | string>,
	options: CsvReadOptions = {},
): AsyncGenerator<string[]> {
	const parser = parse({
		delimiter: options.delimiter ?? ';',
		bom: true,
		skip_empty_lines: true,
		relax_column_count: true,
	});
	const source = input instanceof Readable ? input : Readable.from(input);
	source.on('error', (error) => parser.destroy(error));
	source.pipe(parser);
	try {
		for await (const row of parser as AsyncIterable<string[]>) yield row;
	} catch (error) {
		const cause = error as Error & { lines?: number; code?: string };
		if (typeof cause.code === 'string' && cause.code.startsWith('CSV_')) {
			throw new CsvFormatError(cause.message, cause.lines);
		}
		throw error;
	} finally {
		// A consumer that stops early leaves nothing reading or waiting behind.
		source.unpipe(parser);
		parser.destroy();
	}
}
