/**
 * The Campaign options of Message > Send (every message type; Send and Wait and Mark as Read have none: they answer
 * one conversation, not a list), and the run's campaign record built from them. docs/campaigns.md explains them.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inputError, nodeOf } from '../parameters';
import type { SendRun } from '../run';
import { skipText, type CampaignKey } from './ledger';
import { LEASE_TIMING } from './lease';
import { CampaignRecord, type Claim } from './record';

export const campaignField: INodeProperties = {
	displayName: 'Campaign',
	name: 'campaign',
	type: 'collection',
	placeholder: 'Add Campaign Option',
	default: {},
	description:
		'Remember in n8n\'s database which messages of a campaign were sent, so that running the workflow again (after a Stop, a crash or a retry) sends only the rest',
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
				'Whether to forget what earlier executions sent in this campaign for the input\'s keys, and send them all again. Turn it off again after that run.',
		},
	],
};

const records = new WeakMap<SendRun, CampaignRecord | null>();

/** The run's campaign record, or null when no item has a campaign option set. */
export function campaignRecordOf(this: IExecuteFunctions, run: SendRun, itemCount: number, recipientOf: (itemIndex: number) => string): CampaignRecord | null {
	let record = records.get(run);
	if (record !== undefined) return record;
	// The saved value, not item 0's: an expression may give a campaign to some items only.
	const options = (nodeOf.call(this).parameters.campaign ?? {}) as IDataObject;
	if (options.name === undefined || options.name === '') {
		record = null;
	} else {
		const keyOf = (itemIndex: number): CampaignKey | undefined => {
			const campaign = this.getNodeParameter('campaign.name', itemIndex, '');
			if (campaign === '' || campaign === null || campaign === undefined) return undefined;
			if (typeof campaign !== 'string' && typeof campaign !== 'number') {
				throw inputError.call(this, itemIndex, 'Campaign Name', 'must be text');
			}
			const given = this.getNodeParameter('campaign.messageKey', itemIndex, '');
			if (typeof given !== 'string' && typeof given !== 'number') {
				throw inputError.call(this, itemIndex, 'Message Key', 'must be text or a number');
			}
			const key = String(given).trim() === '' ? recipientOf(itemIndex) : String(given).trim();
			return { campaign: String(campaign).trim(), key };
		};
		if (!this.getWorkflow().id) {
			throw new NodeOperationError(nodeOf.call(this), 'Campaign Name: save the workflow first', {
				description: 'A campaign\'s record is kept per workflow in n8n\'s database; an unsaved workflow has none. Nothing was sent.',
			});
		}
		const startOver = this.getNodeParameter('campaign.startOver', 0, false) === true;
		const campaignRecord = new CampaignRecord(this, itemCount, keyOf, startOver, LEASE_TIMING);
		record = campaignRecord;
		run.beforeSend.push((itemIndex) => campaignRecord.stopIfLapsed(itemIndex));
		run.atEnd.push(async () => await campaignRecord.finish());
	}
	records.set(run, record);
	return record;
}

/** The output of an item whose key was sent (or may have been) by an earlier run, or is being sent by another. */
export function skippedOutput(claim: Claim, to: string): IDataObject {
	if (claim.answer.state === 'ours') throw new Error('An item the run claimed is sent, not skipped');
	const { status, note } = skipText(claim.answer);
	return { sent: false, status, note, to, campaign: claim.entry.campaign, key: claim.entry.key };
}
