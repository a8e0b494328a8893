/**
 * What 100,000 requests of one run leave on the execution's cancel signal: nothing. Each request subscribes to the
 * run's Cancellation (one listener on n8n's signal for the whole run) and unsubscribes when it ends, and its deadline
 * (a pause on n8n-workflow's sleep, pause.ts) is aborted and clears its timer, so the signal, alive for the whole execution, holds no request. Measured in a plain Node process
 * (cancelSignal.measure.ts), heap after a full GC.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const MB = 1024 * 1024;

it("100,000 requests of one run leave no growth held by the execution's cancel signal", () => {
	const script = path.join(__dirname, 'cancelSignal.measure.ts');
	const output = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', script, '100000'], {
		cwd: path.join(__dirname, '../..'),
		encoding: 'utf8',
	});
	const measured = JSON.parse(output) as { requests: number; growth: number; subscriptions: number; timers: number; aborted: boolean };
	console.log(`heap after ${measured.requests} requests, after GC, the signal alive: ${(measured.growth / MB).toFixed(2)} MB growth`);
	expect(measured.aborted).toBe(false);
	expect(measured.subscriptions).toBe(0);
	expect(measured.timers).toBe(0); // every request's deadline pause was aborted and cleared its timer
	// AbortSignal.any([deadline, cancel]) per request held about 5.7 MB per 100,000 requests until the execution ended.
	expect(measured.growth).toBeLessThan(1 * MB);
});
