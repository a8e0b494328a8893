/**
 * `npm run sandbox -- statuses ...` and `npm run sandbox -- latency ...`: the running sandbox's two switches, turned
 * through its control API (control.ts) without restarting it or `npm start`. Each command returns the lines to print;
 * a wrong argument throws a UsageError.
 */

export class UsageError extends Error {}

interface StatusSettings {
	enabled: boolean;
	delayMs: number;
}

async function control(url: string, method: 'GET' | 'POST', what: string, body?: object): Promise<Record<string, unknown>> {
	const response = await fetch(`${url}/__sandbox/${what}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	const answer = (await response.json()) as Record<string, unknown>;
	if (!response.ok) throw new Error(`The sandbox refused: ${JSON.stringify(answer)}`);
	return answer;
}

function describeStatuses(settings: StatusSettings, delivered?: number): string {
	const count = delivered === undefined ? '' : ` ${delivered} delivered so far.`;
	return settings.enabled
		? `Status notifications: on. After each accepted send, sent, delivered and read (or failed 131047 outside the 24-hour window), ${settings.delayMs} ms apart, to every registered webhook.${count}`
		: `Status notifications: off. Sends get no status notification.${count}`;
}

/** `statuses` (show), `statuses on|off`, `--delay MS` with either. */
export async function statusesCommand(url: string, args: string[]): Promise<string[]> {
	let enabled: boolean | undefined;
	let delayMs: number | undefined;
	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		if (arg === 'on' || arg === 'off') enabled = arg === 'on';
		else if (arg === '--delay') {
			delayMs = Number(args[++i]);
			if (!(delayMs >= 0)) throw new UsageError('--delay needs a number of milliseconds (0 or more)');
		} else throw new UsageError(`Unknown argument to statuses: ${arg} (on, off, --delay MS)`);
	}
	if (enabled === undefined && delayMs === undefined) {
		const answer = await control(url, 'GET', 'statuses');
		const delivered = Array.isArray(answer.delivered) ? answer.delivered.length : undefined;
		return [describeStatuses(answer.settings as StatusSettings, delivered)];
	}
	const answer = await control(url, 'POST', 'statuses', { enabled, delayMs });
	return [describeStatuses(answer.settings as StatusSettings)];
}

/** `latency` (show), `latency MS`. */
export async function latencyCommand(url: string, args: string[]): Promise<string[]> {
	if (args.length > 1) throw new UsageError('latency takes one number of milliseconds');
	if (args.length === 1) {
		const ms = Number(args[0]);
		if (!(ms >= 0)) throw new UsageError('latency needs a number of milliseconds (0 or more)');
		await control(url, 'POST', 'latency', { ms });
	}
	const { ms } = await control(url, 'GET', 'latency');
	return [
		typeof ms === 'number'
			? `Latency: every gateway request is answered after ${ms} ms.`
			: 'Latency: set per request by a test (not a fixed number).',
	];
}
