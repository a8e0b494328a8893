/**
 * The Campaign options of Message > Send, and a run's campaign: its items' campaigns and keys read once, the lock
 * (lock.ts), and the record's writes (n8n's deduplication helpers, with what record.ts plans). docs/campaigns.md
 * explains them to users.
 *
 * The record is the Send node's `node`-scope row (the one store n8n writes to its database at once in the middle of a
 * node's run, in every process type). Its calls are made one after another, and only while the lock is ours: n8n's
 * helpers read the row and rewrite it whole, so two writers at once would lose each other's marks.
 */
import type { ICheckProcessedOptions, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inputError } from '../common';
import { CampaignLock, LOCK_TIMING, type LockRefusal, type LockTiming } from './lock';
import { RunRecord } from './record';
import { CLAIM_CHUNK, type CampaignEntry, type ItemOutcome, type RecordMode, type SkipReason, skipText, type Write } from './marks';

export const campaignField: INodeProperties = {
	displayName: 'Campaign',
	name: 'campaign',
	type: 'collection',
	placeholder: 'Add Campaign Option',
	default: {},
	description:
		"Remember in n8n's database which messages of a campaign were sent, so that running the workflow again (after a Stop, a crash or a retry) sends only the rest",
	displayOptions: { show: { resource: ['message'], operation: ['send'] } },
	options: [
		{
			displayName: 'Campaign Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'e.g. black-friday-2026',
			description:
				'Name of the campaign. Executions of this workflow with the same name send each Message Key once. Empty: no record.',
			// A hint, not a notice beside Message Type: n8n 2.0 cannot show a field by a value inside a collection.
			hint: 'A campaign to people who have not written to you within 24 hours needs Message Type: Template. A free-form message to them is accepted by the gateway, then fails on the network (131047).',
		},
		{
			displayName: 'Input',
			name: 'input',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'The Whole List',
					value: 'wholeList',
					description:
						'Every run gets the campaign\'s whole list (a run again gets it again). Finished parts of the list are remembered as a whole, so the record stays small however large the campaign.',
				},
				{
					name: 'Part of the Campaign',
					value: 'someMessages',
					description:
						'Each run gets some of the campaign\'s messages: a webhook or trigger workflow that sends one message per event, or a batch of Loop Over Items. Every key is remembered on its own (about 54 bytes each).',
				},
			],
			default: 'wholeList',
			description: 'What each run of the node gets of the campaign',
		},
		{
			displayName: 'Message Key',
			name: 'messageKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.orderId }}',
			description: 'What makes one message of the campaign; empty: the recipient (one message per recipient)',
		},
		{
			displayName: 'Start Over',
			name: 'startOver',
			type: 'boolean',
			default: false,
			description:
				"Whether to send the item even if the campaign's record says it was sent, refused or may have been. An expression can choose the items.",
		},
	],
};

const SCOPE = 'node';
const ENTRIES: ICheckProcessedOptions = { mode: 'entries' };

/** An item's answer: send it (its claim is written), or not, and why. */
export type ClaimAnswer = { send: true } | { send: false; output: IDataObject };

export class Campaign {
	private readonly lock: CampaignLock;
	/** The writes of marks made without a claim write (ended), which the run's end waits for. */
	private readonly writesAlone: Array<Promise<unknown>> = [];
	/** This run's record calls, one after another. */
	private calls: Promise<unknown> = Promise.resolve();
	/** The claim write of each chunk of the send order, by its first position. */
	private readonly chunks = new Map<number, Promise<void>>();
	private readonly position = new Map<number, number>();
	/** Why the campaign's items are not sent at all (the lock, the record unreadable), once known. */
	private refusal: LockRefusal | undefined;
	private opened: Promise<void> | undefined;
	/** Problems of the record's last writes, told on the run (close). */
	private readonly problems: string[] = [];
	/** Items answered notInList: a run of some messages of a campaign kept as a whole list (close tells it). */
	private notInList = 0;

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly record: RunRecord,
		private readonly itemErrors: Map<number, NodeOperationError>,
		timing: LockTiming,
	) {
		this.lock = new CampaignLock(context, timing);
		record.order.forEach((itemIndex, position) => this.position.set(itemIndex, position));
	}

	/**
	 * The run's campaign (the node has a Campaign Name), or null when no item has one. Each item's Campaign Name,
	 * Message Key and Start Over are read once here (an expression can give each item its own), with its recipient
	 * (`recipientOf`), whose part decides the send order; an item whose fields are bad gets its error when it is sent.
	 */
	static open(
		context: IExecuteFunctions,
		itemCount: number,
		recipientOf: (itemIndex: number) => string,
		timing: LockTiming = LOCK_TIMING,
	): Campaign | null {
		const saved = (context.getNode().parameters.campaign ?? {}) as IDataObject;
		if (!context.getWorkflow().id) {
			throw new NodeOperationError(context.getNode(), 'Campaign Name: save the workflow first', {
				description: "A campaign's record is kept per workflow in n8n's database; an unsaved workflow has none. Nothing was sent.",
			});
		}
		const mode: RecordMode = saved.input === 'someMessages' ? 'someMessages' : 'wholeList';
		const entries: Array<CampaignEntry | undefined> = [];
		const itemErrors = new Map<number, NodeOperationError>();
		for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
			try {
				entries.push(readEntry(context, itemIndex, recipientOf));
			} catch (error) {
				entries.push(undefined);
				itemErrors.set(itemIndex, error as NodeOperationError);
			}
		}
		if (entries.every((entry) => entry === undefined) && itemErrors.size === 0) return null;
		return new Campaign(context, new RunRecord(entries, mode), itemErrors, timing);
	}

	/** Item indexes in the order their messages are sent: part after part of each campaign (record.ts). */
	get order(): number[] {
		return this.record.order;
	}

	/** The output fields of an item of a campaign, sent or not. */
	fieldsOf(itemIndex: number): IDataObject | undefined {
		return this.record.entryOf(itemIndex);
	}

	/**
	 * Claims the item's key before anything of its message leaves (a media upload included): `send` once its claim
	 * is written and ours, or the output of an item not sent. The items of its chunk of the send order are claimed
	 * with it, in one write. Items without a campaign are sent as they are.
	 */
	async claim(itemIndex: number): Promise<ClaimAnswer> {
		const itemError = this.itemErrors.get(itemIndex);
		if (itemError) throw itemError;
		if (!this.record.entryOf(itemIndex)) return { send: true };
		await (this.opened ??= this.openRecord());
		if (this.refusal) throw this.refusedError(itemIndex, this.refusal);
		if (this.record.keptOtherWay(itemIndex)) {
			const mode = this.record.mode === 'wholeList' ? 'Part of the Campaign' : 'The Whole List';
			throw this.refusedError(itemIndex, {
				message: `Not sent: campaign "${this.record.entryOf(itemIndex)?.campaign}" was sent with Campaign > Input: ${mode}`,
				description: "A campaign's record is kept one way; the other cannot tell what it sent. Set Input back, or use a new Campaign Name. Nothing was sent.",
			});
		}
		let skip = this.record.skipOf(itemIndex);
		if (skip === undefined) {
			const start = Math.floor((this.position.get(itemIndex) as number) / CLAIM_CHUNK) * CLAIM_CHUNK;
			let chunk = this.chunks.get(start);
			if (!chunk) {
				chunk = this.claimChunk(this.record.order.slice(start, start + CLAIM_CHUNK));
				this.chunks.set(start, chunk);
			}
			try {
				await chunk;
			} catch (error) {
				throw this.recordError(itemIndex, error);
			}
			skip = this.record.skipOf(itemIndex);
		}
		if (skip !== undefined) return { send: false, output: this.skippedOutput(itemIndex, skip) };
		if (!this.record.claimed(itemIndex)) throw this.recordError(itemIndex, new Error('its claim was not written'));
		return { send: true };
	}

	/** Right before a claimed item's request leaves: throws when the lock lapsed (the item is not sent). */
	checkLock(itemIndex: number): void {
		if (this.record.claimed(itemIndex) && !this.lock.sending()) throw this.lock.lapsedError(itemIndex);
	}

	/** How a claimed item's message ended (record.ts ItemOutcome); the marks are written with the next claims, or now. */
	ended(itemIndex: number, outcome: ItemOutcome): void {
		// A write that fails here leaves its marks pending: the next write carries them.
		if (this.record.ended(itemIndex, outcome)) this.writesAlone.push(this.write(this.record.pendingWrite(false)));
	}

	/**
	 * The run is over (sent, stopped or canceled): every pending mark is written, the parts and campaigns it finished
	 * are sealed, and the lock is released. Returns what could not be written, for the run to tell.
	 */
	async close(): Promise<string[]> {
		try {
			await this.opened?.catch(() => undefined);
			await Promise.allSettled(this.chunks.values());
			await Promise.allSettled(this.writesAlone);
			if (this.refusal || !this.opened) return this.problems;
			if (this.notInList > 0) {
				this.problems.push(
					`${this.notInList} item${this.notInList === 1 ? ' was' : 's were'} not sent: not in the list the campaign's earlier run finished with (status notInList). When each run gets only some of the campaign (a webhook or trigger that sends one message per event, Loop Over Items), set Campaign > Input to Part of the Campaign.`,
				);
			}
			this.record.freeUnended();
			// Marks, then the seals they complete, then the removals the seals allow: a few writes at most.
			let written = true;
			for (let round = 0; round < 4; round++) {
				const write = this.record.pendingWrite(true);
				if (write.record.length === 0 && write.remove.length === 0) break;
				const error = await this.write(write);
				if (error) {
					written = false;
					this.problems.push(
						`The campaign record's last marks could not be written to n8n's database (${error.message}): the messages this run sent since its last write are answered maybeSent by a run again; none is sent twice.`,
					);
					break;
				}
			}
			for (const completion of written ? this.record.completions() : []) {
				// Not a problem of the run: an uncompleted campaign keeps its sealed parts, and a run again reads them.
				const error = (await this.write(completion.add)) ?? (await this.write(completion.remove));
				if (error) this.context.logger.warn(`Messaging Gateway: campaign "${completion.campaign}" could not be marked completed: ${error.message}`);
			}
			return this.problems;
		} finally {
			await this.lock.release();
		}
	}

	/** The lock, the campaigns' marks (kept this run's way), and the seals a run again reads, before any claim. */
	private async openRecord(): Promise<void> {
		this.refusal = await this.lock.take();
		if (this.refusal) return;
		try {
			const others = this.record.openingAnswer(await this.call('record', this.record.opening()));
			if (others.length) {
				const { remove } = this.record.otherWayAnswer(others, await this.call('record', others));
				if (remove.length) await this.call('remove', remove);
			}
			for (const read of this.record.reads()) {
				read.firstAnswer(await this.call('record', read.first()));
				const second = read.second();
				if (second.length) read.secondAnswer(await this.call('record', second));
				const third = read.third();
				if (third.length) read.thirdAnswer(await this.call('record', third));
				const added = read.cleanup();
				if (added.length) await this.call('remove', added);
			}
		} catch (error) {
			this.refusal = {
				message: `Not sent: the campaign record could not be read from n8n's database: ${(error as Error).message}`,
				description: 'The record is read before anything is sent. Nothing was sent.',
			};
		}
	}

	private async claimChunk(items: number[]): Promise<void> {
		if (!this.lock.sending()) throw new Error("the campaign lock lapsed");
		const { write, claims } = this.record.claimWrite(items);
		if (write.record.length === 0) return;
		// A failed write wrote none of it: the marks it carried are pending again (record.ts), the claims not made.
		let fresh = new Set<string>();
		let done = false;
		try {
			fresh = await this.call('record', write.record);
			if (write.remove.length) await this.call('remove', write.remove);
			done = true;
		} finally {
			if (!done) this.record.writeFailed(write);
		}
		this.record.written(write);
		const earlier = this.record.claimAnswer(claims, fresh);
		if (earlier.length === 0) return;
		const added = this.record.earlierOutcomesAnswer(earlier, await this.call('record', this.record.earlierOutcomes(earlier)));
		if (added.length) await this.call('remove', added);
	}

	/** A write of marks and removals; its marks count as written once it is. Undefined when written, else the error. */
	private async write(write: Write): Promise<Error | undefined> {
		try {
			if (write.record.length) await this.call('record', write.record);
			if (write.remove.length) await this.call('remove', write.remove);
		} catch (error) {
			this.record.writeFailed(write);
			return error instanceof Error ? error : new Error(String(error));
		}
		this.record.written(write);
		return undefined;
	}

	/** One call of n8n's helpers, after the previous ones, while no other execution can have taken the lock over. */
	private async call(kind: 'record' | 'remove', values: string[]): Promise<Set<string>> {
		const run = async (): Promise<Set<string>> => {
			if (!this.lock.writing()) throw new Error("the campaign lock lapsed: this run no longer writes the record");
			if (kind === 'remove') {
				await this.context.helpers.removeProcessed(values, SCOPE, ENTRIES);
				return new Set();
			}
			const answer = await this.context.helpers.checkProcessedAndRecord(values, SCOPE, ENTRIES);
			return new Set(answer.new.map(String));
		};
		const done = this.calls.then(run, run);
		this.calls = done.catch(() => undefined);
		return await done;
	}

	private skippedOutput(itemIndex: number, skip: SkipReason): IDataObject {
		const { status, note } = skipText(skip);
		if (skip === 'notInList') this.notInList++;
		return { sent: false, status, note, ...this.record.entryOf(itemIndex) };
	}

	private refusedError(itemIndex: number, refusal: LockRefusal): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), `${refusal.message} (item ${itemIndex})`, { itemIndex, description: refusal.description });
	}

	private recordError(itemIndex: number, error: unknown): NodeOperationError {
		if (error instanceof NodeOperationError) return error;
		const lapsed = /lock lapsed/.test((error as Error).message);
		if (lapsed) return this.lock.lapsedError(itemIndex);
		return new NodeOperationError(
			this.context.getNode(),
			`Not sent (item ${itemIndex}): the campaign record could not be written to n8n's database: ${(error as Error).message}`,
			{ itemIndex, description: "A message leaves only once its key is recorded. Nothing was sent for this item; a run again sends it." },
		);
	}
}

/** An item's campaign, key and Start Over, or undefined when it has no Campaign Name. Throws for bad input. */
function readEntry(context: IExecuteFunctions, itemIndex: number, recipientOf: (itemIndex: number) => string): CampaignEntry | undefined {
	const node = context.getNode();
	const campaign = context.getNodeParameter('campaign.name', itemIndex, '');
	if (campaign === '' || campaign === null || campaign === undefined) return undefined;
	if (typeof campaign !== 'string' && typeof campaign !== 'number') throw inputError(node, itemIndex, 'Campaign Name', 'must be text');
	const name = String(campaign).trim();
	if (name === '') throw inputError(node, itemIndex, 'Campaign Name', 'is only spaces; enter a name, or leave it empty for no campaign');
	const given = context.getNodeParameter('campaign.messageKey', itemIndex, '');
	if (typeof given !== 'string' && typeof given !== 'number') throw inputError(node, itemIndex, 'Message Key', 'must be text or a number');
	const recipient = recipientOf(itemIndex);
	const key = String(given).trim() === '' ? recipient : String(given).trim();
	const startOver = context.getNodeParameter('campaign.startOver', itemIndex, false);
	if (typeof startOver !== 'boolean') throw inputError(node, itemIndex, 'Start Over', 'must be true or false');
	return { campaign: name, key, recipient, startOver };
}
