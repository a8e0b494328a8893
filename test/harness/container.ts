/**
 * Sets up n8n's dependency-injection container once per Jest worker, the way n8n's own process does at start:
 * a logger (ours, so tests can read what was logged), instance settings in a throwaway user folder, and the
 * binary-data service in filesystem mode so binary items live on disk and stream from there.
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@n8n/backend-common';
import type { InstanceSettingsConfig } from '@n8n/config';
import { Container } from '@n8n/di';
import { BinaryDataConfig, BinaryDataService, DataDeduplicationService, InstanceSettings } from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';

import { HarnessDeduplicator } from './deduplication';
import type { LogMetadata } from 'n8n-workflow';

/** Every line logged through n8n's Logger (or LoggerProxy) in this worker, as `level message {metadata}`. */
const logLines: string[] = [];

/** Stands in for n8n's winston logger; keeps each line as text so tests can assert on it (e.g. no API key). */
class CapturingLogger {
	error(message: string, metadata?: LogMetadata) {
		this.record('error', message, metadata);
	}

	warn(message: string, metadata?: LogMetadata) {
		this.record('warn', message, metadata);
	}

	info(message: string, metadata?: LogMetadata) {
		this.record('info', message, metadata);
	}

	debug(message: string, metadata?: LogMetadata) {
		this.record('debug', message, metadata);
	}

	scoped() {
		return this;
	}

	private record(level: string, message: string, metadata?: LogMetadata) {
		logLines.push(metadata === undefined ? `${level} ${message}` : `${level} ${message} ${describe(metadata)}`);
	}
}

/** Serializes metadata including errors' message and stack, which JSON.stringify would drop. */
function describe(metadata: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(metadata, (_key, value: unknown) => {
		if (value instanceof Error) return { ...value, name: value.name, message: value.message, stack: value.stack };
		if (typeof value === 'bigint') return value.toString();
		if (typeof value === 'object' && value !== null) {
			if (seen.has(value)) return '[Circular]';
			seen.add(value);
		}
		return value;
	});
}

export function getLogs(): string[] {
	return [...logLines];
}

/** Number of lines logged so far; a run slices the log from here to report only its own lines. */
export function logPosition(): number {
	return logLines.length;
}

export function logsSince(position: number): string[] {
	return logLines.slice(position);
}

/** Root of this worker's throwaway folders (n8n user folder, binary store); removed when the worker exits. */
export const harnessFolder = mkdtempSync(join(tmpdir(), 'n8n-harness-'));
process.once('exit', () => rmSync(harnessFolder, { recursive: true, force: true }));

let ready: Promise<void> | undefined;

/** Idempotent: every run* function awaits this before building a context. */
export async function setUpN8n(): Promise<void> {
	ready ??= initialize();
	return await ready;
}

async function initialize(): Promise<void> {
	const logger = new CapturingLogger() as unknown as Logger;
	Container.set(Logger, logger);
	LoggerProxy.init(logger);

	// The real InstanceSettings, pointed at a throwaway folder so it never touches ~/.n8n.
	const instanceSettingsConfig = {
		userHome: harnessFolder,
		n8nFolder: join(harnessFolder, '.n8n'),
		encryptionKey: 'harness-encryption-key',
		enforceSettingsFilePermissions: false,
	} as InstanceSettingsConfig;
	Container.set(InstanceSettings, new InstanceSettings(instanceSettingsConfig, logger));

	const binaryDataConfig = Object.assign(Object.create(BinaryDataConfig.prototype) as BinaryDataConfig, {
		mode: 'filesystem',
		availableModes: ['filesystem'],
		localStoragePath: join(harnessFolder, 'binary-data'),
		signingSecret: 'harness-signing-secret',
		dbMaxFileSize: 512,
	});
	Container.set(BinaryDataConfig, binaryDataConfig);
	await Container.get(BinaryDataService).init();

	// n8n's CLI gives n8n-core its deduplication helpers at start; the harness gives one that behaves the same.
	await DataDeduplicationService.init(new HarnessDeduplicator());
}
