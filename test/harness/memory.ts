/**
 * Measures how much memory a piece of work keeps alive at its peak. Streaming leaves a lot of garbage that
 * merely has not been collected yet, so the sampler forces a garbage collection before each reading (a full one
 * before a reading can set a new peak): what remains is memory really held (a file read whole into a Buffer shows up;
 * 64 KB stream chunks do not).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GarbageCollector = (options?: { type: 'minor' }) => void;
let collectGarbage: GarbageCollector | undefined;

function gc(type: 'major' | 'minor'): void {
	if (!collectGarbage) {
		setFlagsFromString('--expose-gc');
		collectGarbage = runInNewContext('gc') as GarbageCollector;
	}
	// A full collection is `gc()` without options: Node 20's V8 takes `gc({ type: 'major' })` for a minor one (it freed
	// none of 20 MB of old-space garbage that `gc()` freed), so promoted garbage counted as live (issue 22).
	if (type === 'major') collectGarbage();
	else collectGarbage({ type: 'minor' });
}

/**
 * JS heap plus Buffers and other ArrayBuffers. Stream chunks die young, so a minor collection (fast, unlike a
 * full one in a Jest worker's large heap) is enough to drop them between samples.
 */
export function liveBytes(type: 'major' | 'minor' = 'minor'): number {
	gc(type);
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}

export interface MemoryMeasurement<T> {
	result: T;
	/** Highest live memory seen while `work` ran, minus live memory before it, in bytes. */
	peakGrowth: number;
}

export async function measurePeakMemory<T>(work: () => Promise<T>, sampleEveryMs = 20): Promise<MemoryMeasurement<T>> {
	const baseline = liveBytes('major');
	let peak = baseline;
	// A minor collection leaves garbage that was promoted to the old generation (a long synchronous loop promotes a lot):
	// a reading above the peak is confirmed by a full collection before it counts.
	const sample = () => {
		if (liveBytes() > peak) peak = Math.max(peak, liveBytes('major'));
	};
	const sampler = setInterval(sample, sampleEveryMs);
	try {
		const result = await work();
		sample();
		return { result, peakGrowth: peak - baseline };
	} finally {
		clearInterval(sampler);
	}
}
