/**
 * The campaign record's cost (docs/campaigns.md): Message > Send of N texts through the node in n8n's real execution
 * context (test/harness, whose deduplication helpers behave as n8n's: the whole row read and rewritten on each call),
 * against the sandbox gateway in another process at 100 ms latency with the default Sending options (20 parallel,
 * 80/s), without and with a Campaign Name. Prints the time of each, their ratio (target <= 1.10x), the record's size
 * per message and the bytes written to it per message.
 *
 * Not n8n's database: the harness keeps the row in memory, so the ratio leaves out Postgres's own time to take a
 * row of megabytes; the write volume is what n8n would send to it. `CAMPAIGN_SIZES=2000,10000` (default 2000,10000;
 * 100,000 messages at 80/s are 21 minutes per run).
 */
import { runNode } from '../test/harness';
import { clearDeduplicationRows, deduplicationRows, deduplicationWrites } from '../test/harness/deduplication';
import { sandboxCredentials } from '../test/sandbox';
import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';
import { ask, startSandboxProcess } from './messages.bench';

const SIZES = (process.env.CAMPAIGN_SIZES ?? '2000,10000').split(',').map(Number);

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { phone: `+55 11 9${String(30000000 + i)}` } }));

async function timed(count: number, campaign: string | undefined, credentials: ReturnType<typeof sandboxCredentials>): Promise<number> {
	const parameters = {
		resource: 'message',
		operation: 'send',
		messageType: 'text',
		recipientPhoneNumber: '={{ $json.phone }}',
		textBody: 'Black Friday',
		...(campaign ? { campaign: { name: campaign } } : {}),
	};
	const started = Date.now();
	const { output } = await runNode({ node: new MessagingGateway(), parameters, credentials, items: items(count) });
	const elapsed = Date.now() - started;
	const sent = output[0].filter((item) => typeof item.json.messageId === 'string').length;
	if (sent !== count) throw new Error(`${sent} of ${count} sent`);
	return elapsed;
}

void (async () => {
	const { child, info } = await startSandboxProcess();
	try {
		await ask(child, 'latency:100');
		const credentials = sandboxCredentials(info);
		await timed(200, undefined, credentials); // warm-up: loads n8n's execution machinery
		let failed = false;
		for (const count of SIZES) {
			await ask(child, 'reset');
			const without = await timed(count, undefined, credentials);
			await ask(child, 'reset');
			clearDeduplicationRows();
			const withRecord = await timed(count, `bench-${count}`, credentials);
			const rowBytes = [...deduplicationRows().values()].reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row)), 0);
			const ratio = withRecord / without;
			failed ||= ratio > 1.1;
			console.log(
				`${count} messages: without ${(without / 1000).toFixed(1)} s, with the record ${(withRecord / 1000).toFixed(1)} s (${ratio.toFixed(2)}x, target <= 1.10x); ` +
					`record ${(rowBytes / 1024).toFixed(0)} kB (${(rowBytes / count).toFixed(0)} B per message); ` +
					`${deduplicationWrites.entries.count} writes, ${(deduplicationWrites.entries.bytes / 1024 / 1024).toFixed(1)} MB written (${(deduplicationWrites.entries.bytes / count / 1024).toFixed(1)} kB per message); ` +
					`the hold: ${deduplicationWrites.count - deduplicationWrites.entries.count} writes`,
			);
		}
		process.exitCode = failed ? 1 : 0;
	} finally {
		child.disconnect();
	}
})();
