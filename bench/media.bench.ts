/**
 * Media > Upload of a 100 MB document through the node in n8n's real execution context (test/harness), against the
 * sandbox gateway in this process. Prints the upload rate and the peak growth of resident memory, compared in the
 * same run with the growth of a 10 MB upload; fails when the growth reaches 40% of the file or grows with the file
 * (a body held in memory anywhere would add its whole size). `MEDIA_MB=50` for another size (at most 100).
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runNode } from '../test/harness';
import { startSandbox, type Sandbox, sandboxCredentials } from '../test/sandbox';

import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';

// Decimal, as the gateway's limits are (a document is at most 100,000,000 bytes).
const MB = 1_000_000;
const LARGE = Number(process.env.MEDIA_MB ?? 100) * MB;
const SMALL = 10 * MB;

async function writeFile(path: string, size: number): Promise<string> {
	const hash = createHash('sha256');
	const out = createWriteStream(path);
	// A real PDF's first bytes: the node reads the format from them before uploading.
	const first = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(MB - 9)]);
	const chunk = randomBytes(MB);
	for (let written = 0; written < size; written += MB) {
		const part = written === 0 ? first : chunk;
		hash.update(part);
		if (!out.write(part)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
	return hash.digest('hex');
}

async function measure(sandbox: Sandbox, directory: string, size: number): Promise<{ seconds: number; rssGrowth: number }> {
	const path = join(directory, `document-${size}.pdf`);
	const sha256 = await writeFile(path, size);
	sandbox.reset();
	(globalThis as { gc?: () => void }).gc?.();
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
	const start = performance.now();
	try {
		await runNode({
			node: new MessagingGateway(),
			parameters: { resource: 'media', operation: 'upload', mediaKind: 'document' },
			credentials: sandboxCredentials(sandbox),
			items: [{ json: {}, binary: { data: { data: { filePath: path }, fileName: 'report.pdf', mimeType: 'application/pdf' } } }],
		});
	} finally {
		clearInterval(sampler);
		rmSync(path, { force: true });
	}
	const seconds = (performance.now() - start) / 1000;
	const received = (sandbox.requests[0]?.body as { files?: Array<{ size: number; sha256: string }> } | undefined)?.files?.[0];
	if (received?.size !== size || received.sha256 !== sha256) throw new Error('The sandbox did not receive the file intact');
	return { seconds, rssGrowth: peak - baseline };
}

async function main(): Promise<void> {
	const sandbox = await startSandbox();
	const directory = mkdtempSync(join(tmpdir(), 'media-bench-'));
	try {
		await measure(sandbox, directory, SMALL); // loads every code path
		const small = await measure(sandbox, directory, SMALL);
		const large = await measure(sandbox, directory, LARGE);
		const mb = (bytes: number) => (bytes / MB).toFixed(1);
		console.log(`${mb(SMALL)} MB: ${small.seconds.toFixed(2)} s, RSS growth ${mb(small.rssGrowth)} MB`);
		console.log(
			`${mb(LARGE)} MB: ${large.seconds.toFixed(2)} s (${mb(LARGE / large.seconds)} MB/s), RSS growth ${mb(large.rssGrowth)} MB ` +
				`= ${((100 * large.rssGrowth) / LARGE).toFixed(1)}% of the file`,
		);
		const ok = large.rssGrowth < 0.4 * LARGE && large.rssGrowth - small.rssGrowth < 0.3 * LARGE;
		console.log(ok ? 'OK: the file is streamed' : 'FAIL: memory grows with the file');
		process.exitCode = ok ? 0 : 1;
	} finally {
		rmSync(directory, { recursive: true, force: true });
		await sandbox.close();
	}
}

void main();
