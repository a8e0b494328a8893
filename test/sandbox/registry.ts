/**
 * Where running standalone sandboxes say they are, so that `npm run sandbox -- deliver` finds the one `npm start`
 * started on another port: each writes `<port>.json` ({ url, pid }) into a folder of this clone's test-artifacts/
 * while it runs, and removes it when it stops. `SANDBOX_REGISTRY_DIR` moves the folder (tests).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RegisteredSandbox {
	url: string;
	pid: number;
}

export function registryDir(): string {
	return process.env.SANDBOX_REGISTRY_DIR || join(__dirname, '..', '..', 'test-artifacts', 'sandboxes');
}

/** Records a running sandbox; returns the function that removes the record. */
export function registerSandbox(url: string, pid = process.pid): () => void {
	const dir = registryDir();
	mkdirSync(dir, { recursive: true });
	const file = join(dir, `${new URL(url).port}.json`);
	writeFileSync(file, JSON.stringify({ url, pid } satisfies RegisteredSandbox));
	return () => rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** The recorded sandboxes whose process still runs (records of stopped ones are removed). */
export function registeredSandboxes(): RegisteredSandbox[] {
	const dir = registryDir();
	let files: string[];
	try {
		files = readdirSync(dir).filter((file) => file.endsWith('.json'));
	} catch {
		return [];
	}
	const running: RegisteredSandbox[] = [];
	for (const file of files) {
		try {
			const record = JSON.parse(readFileSync(join(dir, file), 'utf8')) as RegisteredSandbox;
			if (typeof record.url === 'string' && Number.isInteger(record.pid) && isAlive(record.pid)) running.push(record);
			else rmSync(join(dir, file), { force: true });
		} catch {
			rmSync(join(dir, file), { force: true });
		}
	}
	return running;
}

export type SandboxInfo = { phoneId: string };

async function infoOf(url: string): Promise<{ info: SandboxInfo } | { error: string }> {
	try {
		return { info: (await (await fetch(`${url}/__sandbox/info`)).json()) as SandboxInfo };
	} catch (error) {
		const cause = (error as { cause?: { code?: string } }).cause?.code;
		return { error: cause ?? String((error as Error).message) };
	}
}

/**
 * The sandbox to deliver to: the one named (--url, SANDBOX_PORT); else the one on the default port; else the one
 * running standalone sandbox of this clone (`npm start` may have started it on another port).
 */
export async function findSandbox(named: string | null, defaultUrl: string): Promise<{ url: string; info: SandboxInfo } | { problem: string }> {
	if (named) {
		const answer = await infoOf(named);
		if ('info' in answer) return { url: named, info: answer.info };
		const running = registeredSandboxes().map((sandbox) => sandbox.url);
		const hint = running.length > 0 ? ` Running sandboxes: ${running.join(', ')}.` : ' Start one with: npm run sandbox (or npm start).';
		return { problem: `No sandbox answers at ${named} (${answer.error}).${hint}` };
	}
	const atDefault = await infoOf(defaultUrl);
	if ('info' in atDefault) return { url: defaultUrl, info: atDefault.info };
	const answering: Array<{ url: string; info: SandboxInfo }> = [];
	for (const { url } of registeredSandboxes()) {
		const answer = await infoOf(url);
		if ('info' in answer) answering.push({ url, info: answer.info });
	}
	if (answering.length === 1) {
		return answering[0];
	}
	if (answering.length > 1) {
		const ports = answering.map(({ url }) => new URL(url).port);
		return {
			problem: `Several sandboxes are running (${answering.map(({ url }) => url).join(', ')}). Choose one: SANDBOX_PORT=${ports[0]} npm run sandbox -- deliver`,
		};
	}
	return {
		problem: `No sandbox is running (none at ${defaultUrl}, none started by npm run sandbox or npm start from this folder). Start one with: npm run sandbox (or npm start). A sandbox elsewhere: SANDBOX_PORT=<port> npm run sandbox -- deliver, or --url <its address>`,
	};
}
