/**
 * The campaign record's cost (docs/campaigns.md): Message > Send of texts through the node in n8n's real execution
 * context (test/harness, whose deduplication helpers behave as n8n 2.41.1's: the whole row read and rewritten on each
 * call), against the sandbox gateway in another process. Three parts, each against a baseline measured in the same
 * run; each prints its figures and exits 1 when a target is missed:
 *
 * 1. Ratio (`CAMPAIGN_SIZES`, default 2000,10000; `CAMPAIGN_SIZES=` skips): N texts at 100 ms gateway latency with the
 *    default Sending options (20 parallel, 80/s), without and with a Campaign Name. The time of each, their ratio
 *    (target <= 1.10x), the record's size and the bytes written to it per message.
 * 2. Daily campaigns (`DAYS`, default 30; `MESSAGES`, default 5000; `DAYS=0` skips): DAYS campaigns of MESSAGES texts
 *    to the same recipients from ONE Send node (the harness's node keeps its ID, so its record row is the same), a new
 *    Campaign Name each day, as a team sending a daily campaign would. For day 1, 2, 10, 20, 30 (those up to DAYS, and
 *    the last): the record's bytes written and writes that day (rows in mode entries: the record, not its hold), its
 *    row at the end of the day, the wall time, and day N / day 1 (target: the last day within 1.2x of day 1 in bytes
 *    and in time). Gateway latency 0, Parallel Requests 20, Messages per Second 0 (no cap), so that the time is the
 *    node's and the record's, not the gateway's or the rate cap's; the same campaign without a Campaign Name, before
 *    day 1 and after the last day, is the baseline of the time.
 * 3. One large campaign (`LARGE=1000000`, or sizes `LARGE=20000,50000,100000`; default none: not run): N texts under
 *    one Campaign Name, gateway latency 0, no rate cap, Parallel Requests 20. The writes, the bytes written per message,
 *    the largest row written, the statements that failed and the items not sent (target: none failed, the row never
 *    over 128 KiB), and the time against the same campaign without the record (`LARGE_BASELINE=0` skips that run).
 *    With two sizes or more, the largest two extrapolate to `LARGE_EXTRAPOLATE` (default 1,000,000) messages: the
 *    bytes as a power of N fitted on them, the time both as a power of N and in proportion to the bytes.
 *    A progress line every minute: a long run stopped half-way still leaves figures.
 *
 * `CAMPAIGN_OPTIONS='{"…": …}'`: more options of the Campaign group, beside the Campaign Name (an option that selects
 * how the record remembers keys, say); default none, the node's defaults. The bench sets the node's parameters only
 * by their names (campaign.name, sending.parallelRequests, sending.messagesPerSecond) and reads only its output and
 * the store's rows and writes, so it measures whatever record the node keeps.
 *
 * Not n8n's database: the harness keeps the row in memory, so the times leave out Postgres's own time to take a row of
 * megabytes; the write volume is what n8n would send to it (bench/campaign.n8n.bench.ts measures n8n on Postgres).
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../test/harness';
import { clearDeduplicationRows, deduplicationRows, deduplicationWrites } from '../test/harness/deduplication';
import { sandboxCredentials } from '../test/sandbox';
import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';
import { ask, startSandboxProcess } from './messages.bench';

const list = (value: string | undefined, fallback: string) =>
	(value ?? fallback)
		.split(',')
		.map((s) => s.trim())
		.filter((s) => s !== '' && s !== '0')
		.map(Number);

const SIZES = list(process.env.CAMPAIGN_SIZES, '2000,10000');
const DAYS = Number(process.env.DAYS ?? 30);
const MESSAGES = Number(process.env.MESSAGES ?? 5000);
const REPORTED_DAYS = [1, 2, 10, 20, 30];
const LARGE = list(process.env.LARGE, '');
const LARGE_BASELINE = process.env.LARGE_BASELINE !== '0';
const LARGE_EXTRAPOLATE = Number(process.env.LARGE_EXTRAPOLATE ?? 1_000_000);
const CAMPAIGN_OPTIONS = JSON.parse(process.env.CAMPAIGN_OPTIONS ?? '{}') as INodeParameters;

const RATIO_TARGET = 1.1;
const DAILY_TARGET = 1.2;
const ROW_TARGET = 128 * 1024;

type Credentials = ReturnType<typeof sandboxCredentials>;
type Sandbox = Awaited<ReturnType<typeof startSandboxProcess>>['child'];

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { phone: `+55 11 9${String(30000000 + i)}` } }));

/** The node's parameters: a Campaign Name (with CAMPAIGN_OPTIONS beside it) or none, and the Sending options given. */
function parameters(campaign: string | undefined, sending: INodeParameters): INodeParameters {
	return {
		resource: 'message',
		operation: 'send',
		messageType: 'text',
		recipientPhoneNumber: '={{ $json.phone }}',
		textBody: 'Black Friday',
		sending,
		...(campaign ? { campaign: { ...CAMPAIGN_OPTIONS, name: campaign } } : {}),
	};
}

interface Run {
	ms: number;
	cpuMs: number;
	sent: number;
	/** The first error items' messages, and how many there were. */
	errors: { count: number; first: string[] };
}

/** One run of the node (Continue On Fail: an item not sent is an output item, counted). */
async function send(count: number, campaign: string | undefined, sending: INodeParameters, credentials: Credentials): Promise<Run> {
	(global as { gc?: () => void }).gc?.();
	const cpu = process.cpuUsage();
	const started = Date.now();
	const { output } = await runNode({
		node: new MessagingGateway(),
		parameters: parameters(campaign, sending),
		credentials,
		items: items(count),
		continueOnFail: true,
	});
	const ms = Date.now() - started;
	const used = process.cpuUsage(cpu);
	const sent = output[0].filter((item) => typeof item.json.messageId === 'string').length;
	const errors = output[0].filter((item) => item.json.error !== undefined).map((item) => String(item.json.error));
	return { ms, cpuMs: (used.user + used.system) / 1000, sent, errors: { count: errors.length, first: [...new Set(errors)].slice(0, 3) } };
}

function mustSendAll(run: Run, count: number, what: string): void {
	if (run.sent !== count) throw new Error(`${what}: ${run.sent} of ${count} sent; errors: ${run.errors.count} (${run.errors.first.join(' | ')})`);
}

/** Bytes of the record's rows now (rows in mode entries: the record, not its hold). */
const recordBytes = () =>
	[...deduplicationRows().values()].filter((row) => row.mode === 'entries').reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row)), 0);

const snapshot = () => ({ ...deduplicationWrites, entries: { ...deduplicationWrites.entries } });

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const size = (bytes: number) =>
	bytes >= 1024 ** 3
		? `${(bytes / 1024 ** 3).toFixed(2)} GiB`
		: bytes >= 1024 ** 2
			? `${(bytes / 1024 ** 2).toFixed(1)} MiB`
			: `${(bytes / 1024).toFixed(1)} KiB`;
const perMessage = (bytes: number, count: number) => (bytes / count >= 1024 ? `${(bytes / count / 1024).toFixed(1)} KiB` : `${(bytes / count).toFixed(0)} B`);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/** Gateway latency for the runs that follow (the sandbox's reset restores its own latency, 0: set it after). */
async function gateway(child: Sandbox, latencyMs: number): Promise<void> {
	await ask(child, 'reset');
	await ask(child, `latency:${latencyMs}`);
}

/** 1. N texts at 100 ms latency, default Sending options, without and with the record. */
async function ratioPart(child: Sandbox, credentials: Credentials): Promise<boolean> {
	let failed = false;
	console.log(`-- 1. without and with the record: gateway latency 100 ms, default Sending options (20 parallel, 80/s)`);
	for (const count of SIZES) {
		await gateway(child, 100);
		const without = await send(count, undefined, {}, credentials);
		mustSendAll(without, count, `${count} without the record`);
		await gateway(child, 100);
		clearDeduplicationRows();
		const withRecord = await send(count, `bench-${count}`, {}, credentials);
		mustSendAll(withRecord, count, `${count} with the record`);
		const rowBytes = recordBytes();
		const r = withRecord.ms / without.ms;
		failed ||= r > RATIO_TARGET;
		console.log(
			`${count} messages: without ${seconds(without.ms)}, with the record ${seconds(withRecord.ms)} (${r.toFixed(2)}x, target <= ${RATIO_TARGET.toFixed(2)}x); ` +
				`record ${size(rowBytes)} (${perMessage(rowBytes, count)} per message); ` +
				`${deduplicationWrites.entries.count} writes, ${size(deduplicationWrites.entries.bytes)} written (${perMessage(deduplicationWrites.entries.bytes, count)} per message), largest row ${size(deduplicationWrites.entries.largest)}; ` +
				`the hold: ${deduplicationWrites.count - deduplicationWrites.entries.count} writes`,
		);
	}
	return failed;
}

/** 2. DAYS daily campaigns of MESSAGES texts from one Send node. */
async function dailyPart(child: Sandbox, credentials: Credentials): Promise<boolean> {
	const sending = { parallelRequests: 20, messagesPerSecond: 0 };
	const reported = new Set([...REPORTED_DAYS.filter((day) => day <= DAYS), DAYS]);
	console.log(
		`-- 2. ${DAYS} daily campaigns of ${MESSAGES} texts to the same recipients from one Send node, a new Campaign Name each day; ` +
			`gateway latency 0, Parallel Requests 20, Messages per Second 0 (no cap)`,
	);
	await gateway(child, 0);
	const before = await send(MESSAGES, undefined, sending, credentials);
	mustSendAll(before, MESSAGES, 'without the record');
	console.log(`without the record (baseline): ${seconds(before.ms)} (CPU ${seconds(before.cpuMs)})`);
	clearDeduplicationRows();
	let first: { bytes: number; ms: number } | undefined;
	let last: { bytes: number; ms: number } | undefined;
	for (let day = 1; day <= DAYS; day++) {
		await gateway(child, 0);
		const writes = snapshot();
		const run = await send(MESSAGES, `daily-${day}`, sending, credentials);
		mustSendAll(run, MESSAGES, `day ${day}`);
		const count = deduplicationWrites.entries.count - writes.entries.count;
		const bytes = deduplicationWrites.entries.bytes - writes.entries.bytes;
		first ??= { bytes, ms: run.ms };
		last = { bytes, ms: run.ms };
		if (!reported.has(day)) continue;
		console.log(
			`day ${String(day).padStart(2)}: ${count} writes, ${size(bytes)} written (${perMessage(bytes, MESSAGES)} per message), row at the end ${size(recordBytes())}; ` +
				`${seconds(run.ms)} (CPU ${seconds(run.cpuMs)}; ${ratio(run.ms, before.ms)} the baseline); day ${day} / day 1: bytes ${ratio(bytes, first.bytes)}, time ${ratio(run.ms, first.ms)}`,
		);
	}
	await gateway(child, 0);
	const after = await send(MESSAGES, undefined, sending, credentials);
	mustSendAll(after, MESSAGES, 'without the record');
	console.log(`without the record (baseline again, after day ${DAYS}): ${seconds(after.ms)} (CPU ${seconds(after.cpuMs)})`);
	if (!first || !last) return false;
	const bytesRatio = last.bytes / first.bytes;
	const timeRatio = last.ms / first.ms;
	console.log(
		`day ${DAYS} / day 1: bytes ${bytesRatio.toFixed(2)}x, time ${timeRatio.toFixed(2)}x (target <= ${DAILY_TARGET.toFixed(2)}x each: ${bytesRatio <= DAILY_TARGET && timeRatio <= DAILY_TARGET ? 'met' : 'NOT met'})`,
	);
	clearDeduplicationRows();
	return bytesRatio > DAILY_TARGET || timeRatio > DAILY_TARGET;
}

interface LargeFigures {
	count: number;
	ms: number;
	withoutMs?: number;
	bytes: number;
	writes: number;
	largest: number;
}

/** 3. One campaign of N texts under one Campaign Name. */
async function largePart(child: Sandbox, credentials: Credentials): Promise<boolean> {
	const sending = { parallelRequests: 20, messagesPerSecond: 0 };
	let failed = false;
	const figures: LargeFigures[] = [];
	console.log(`-- 3. one campaign of N texts under one Campaign Name: gateway latency 0, no rate cap, Parallel Requests 20`);
	for (const count of LARGE) {
		// The sandbox's recorded requests are dropped every 30 s: at a million they would weigh on the run.
		const trim = setInterval(() => void ask(child, 'reset'), 30_000);
		try {
			let withoutMs: number | undefined;
			if (LARGE_BASELINE) {
				await gateway(child, 0);
				const without = await send(count, undefined, sending, credentials);
				mustSendAll(without, count, `${count} without the record`);
				withoutMs = without.ms;
				console.log(`${count} messages without the record: ${seconds(without.ms)} (CPU ${seconds(without.cpuMs)})`);
			}
			await gateway(child, 0);
			clearDeduplicationRows();
			const started = Date.now();
			const progress = setInterval(() => {
				const w = deduplicationWrites.entries;
				console.log(
					`  … ${seconds(Date.now() - started)}: ${w.count} writes, ${size(w.bytes)} written, largest row ${size(w.largest)}, failed statements ${deduplicationWrites.failed}`,
				);
			}, 60_000);
			const run = await send(count, `large-${count}`, sending, credentials).finally(() => clearInterval(progress));
			const w = deduplicationWrites;
			const rowOk = w.entries.largest <= ROW_TARGET;
			const noneFailed = w.failed === 0 && run.errors.count === 0 && run.sent === count;
			failed ||= !rowOk || !noneFailed;
			console.log(
				`${count} messages with the record: ${seconds(run.ms)} (CPU ${seconds(run.cpuMs)})${withoutMs ? `, ${ratio(run.ms, withoutMs)} without it` : ''}; ` +
					`${run.sent} sent, ${run.errors.count} items not sent${run.errors.count ? ` (${run.errors.first.join(' | ')})` : ''}; ` +
					`${w.entries.count} writes (${(w.entries.count / count).toFixed(3)} per message), ${size(w.entries.bytes)} written (${perMessage(w.entries.bytes, count)} per message); ` +
					`largest row ${size(w.entries.largest)} (target <= ${size(ROW_TARGET)}: ${rowOk ? 'met' : 'NOT met'}), row at the end ${size(recordBytes())}; ` +
					`failed statements ${w.failed} (target 0: ${noneFailed ? 'met' : 'NOT met'}); the hold: ${w.count - w.entries.count} writes`,
			);
			figures.push({ count, ms: run.ms, withoutMs, bytes: w.entries.bytes, writes: w.entries.count, largest: w.entries.largest });
			clearDeduplicationRows();
		} finally {
			clearInterval(trim);
		}
	}
	extrapolate(figures);
	return failed;
}

/** From the largest two sizes: bytes and time as powers of N, writes in proportion to N. */
function extrapolate(figures: LargeFigures[]): void {
	const sorted = [...figures].sort((a, b) => a.count - b.count);
	if (sorted.length < 2 || sorted[sorted.length - 1].count >= LARGE_EXTRAPOLATE) return;
	const [a, b] = sorted.slice(-2);
	const scale = LARGE_EXTRAPOLATE / b.count;
	const exponent = (x: number, y: number) => Math.log(y / x) / Math.log(b.count / a.count);
	const bytesExp = exponent(a.bytes, b.bytes);
	const bytes = b.bytes * scale ** bytesExp;
	let time = '';
	const extraA = a.withoutMs ? a.ms - a.withoutMs : 0;
	const extraB = b.withoutMs ? b.ms - b.withoutMs : 0;
	if (!a.withoutMs || !b.withoutMs) time = '; time: no baseline (LARGE_BASELINE=0)';
	else if (extraA < 0.1 * a.withoutMs || extraB < 0.1 * b.withoutMs) time = "; time: the record's own time is within the noise at these sizes, not extrapolated";
	else {
		// The record's own time: with minus without.
		const timeExp = exponent(extraA, extraB);
		const withoutAt = b.withoutMs * scale;
		const extraAt = extraB * scale ** timeExp;
		// Or in proportion to the bytes rewritten, at the largest size's time per byte (the record's work is rewriting them).
		const byBytes = (extraB / b.bytes) * bytes;
		time =
			`; the record's own time (with minus without) grows as N^${timeExp.toFixed(2)}: about ${seconds(withoutAt + extraAt)} with it against ${seconds(withoutAt)} without (${ratio(withoutAt + extraAt, withoutAt)}); ` +
			`in proportion to the bytes rewritten (${((extraB / 1000) / (b.bytes / 1024 ** 3)).toFixed(1)} s per GiB at ${b.count}): about ${seconds(withoutAt + byBytes)} (${ratio(withoutAt + byBytes, withoutAt)})`;
	}
	console.log(
		`extrapolated from ${a.count} and ${b.count} to ${LARGE_EXTRAPOLATE} messages (not measured): bytes written grow as N^${bytesExp.toFixed(2)}: ` +
			`about ${size(bytes)} (${perMessage(bytes, LARGE_EXTRAPOLATE)} per message), ${Math.round(b.writes * scale)} writes, largest row about ${size(b.largest * scale)} (in proportion to N)${time}`,
	);
}

void (async () => {
	const { child, info } = await startSandboxProcess();
	try {
		const credentials = sandboxCredentials(info);
		console.log(`Campaign options beside the Campaign Name: ${Object.keys(CAMPAIGN_OPTIONS).length ? JSON.stringify(CAMPAIGN_OPTIONS) : "none (the node's defaults)"}`);
		await send(200, undefined, {}, credentials); // warm-up: loads n8n's execution machinery
		let failed = false;
		if (SIZES.length) failed = (await ratioPart(child, credentials)) || failed;
		if (DAYS > 0) failed = (await dailyPart(child, credentials)) || failed;
		if (LARGE.length) failed = (await largePart(child, credentials)) || failed;
		process.exitCode = failed ? 1 : 0;
	} catch (error) {
		console.error(error);
		process.exitCode = 1;
	} finally {
		child.disconnect();
	}
})();
