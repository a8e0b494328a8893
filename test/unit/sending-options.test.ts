/**
 * The Sending group as the editor shows it (issue 30): its one-line description gives the defaults the run uses and
 * how the options combine, and its add menu's names fit the menu (n8n cut "Minimum Interval per Recipi...").
 */
import type { INodePropertyCollection, INodeProperties } from 'n8n-workflow';

import { BATCHING_DEFAULTS, SENDING_DEFAULTS } from '../../nodes/MessagingGateway/actions/message/sending';
import { sendingField } from '../../nodes/MessagingGateway/actions/message/sending';

/** Well under the 35 characters of "Minimum Interval per Recipient (Ms)", which n8n 2.41's add menu cut short. */
const MENU_NAME_CHARS = 30;

describe('Sending options', () => {
	const options = sendingField.options as Array<INodeProperties | INodePropertyCollection>;

	it('says the defaults the run uses, and which limit wins when a rate and batches are both set', () => {
		expect(sendingField.description).toContain(`${SENDING_DEFAULTS.parallel} at a time`);
		expect(sendingField.description).toContain(`at most ${SENDING_DEFAULTS.perSecond} per second`);
		expect(sendingField.description).toMatch(/with a rate and batches, the slower one decides/);
	});

	it('says in each batch option that adding it turns batches on, with the batch defaults', () => {
		for (const name of ['batchSize', 'batchInterval']) {
			const option = options.find((entry) => entry.name === name) as INodeProperties;
			expect(option.description).toContain(`${BATCHING_DEFAULTS.size} items, then ${BATCHING_DEFAULTS.intervalMs} ms`);
		}
	});

	it('has names short enough for the add menu', () => {
		const long = options.map((option) => option.displayName).filter((name) => name.length > MENU_NAME_CHARS);
		expect(long).toEqual([]);
	});
});
