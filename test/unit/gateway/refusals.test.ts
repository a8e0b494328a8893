import { refusalDescription, refusalMessage, refusedFields } from '../../../nodes/gateway/networkErrors';

const send = { resource: 'message', operation: 'send' };

describe('refusedFields: the field a gateway refusal points at', () => {
	it('a template that does not exist points at the fields that name it, by how the template is given', () => {
		expect(refusedFields({ ...send, templateSource: 'manual' }, 404, 132001)).toEqual(['Template Name', 'Language Code']);
		expect(refusedFields({ ...send, templateSource: 'fromTemplate' }, 404, '132001')).toEqual(['Template ID']);
	});

	it('codes about the recipient point at the recipient, for a send and a send and wait', () => {
		for (const code of [131026, 131047, 131021, 131050]) {
			expect(refusedFields(send, 400, code)).toEqual(['Recipient Phone Number']);
		}
		expect(refusedFields({ resource: 'message', operation: 'sendAndWait' }, 400, 131026)).toEqual(['Recipient Phone Number']);
	});

	it('a wrong number of template parameters points at the parameter fields', () => {
		expect(refusedFields({ ...send, templateSource: 'manual' }, 400, 132000)).toEqual(['Body Parameters', 'URL Button Parameters']);
		expect(refusedFields({ ...send, templateSource: 'fromTemplate' }, 400, 132000)).toEqual(['Template Parameters']);
	});

	it('a 404 of an operation on one id points at that id', () => {
		expect(refusedFields({ resource: 'template', operation: 'get' }, 404, undefined)).toEqual(['Template ID']);
		expect(refusedFields({ resource: 'template', operation: 'edit' }, 404, undefined)).toEqual(['Template ID']);
		expect(refusedFields({ ...send, templateSource: 'fromTemplate' }, 404, undefined)).toEqual(['Template ID']);
	});

	it('names no field when the node cannot tell', () => {
		expect(refusedFields(send, 400, 131000)).toEqual([]);
		expect(refusedFields(send, 404, undefined)).toEqual([]);
		expect(refusedFields({ resource: 'template', operation: 'get' }, 400, undefined)).toEqual([]);
		expect(refusedFields({ resource: 'media', operation: 'upload' }, 400, 131026)).toEqual([]);
	});
});

describe('refusalMessage and refusalDescription', () => {
	it('puts the item in the gateway\'s message once', () => {
		const message = refusalMessage('The gateway answered 404: (#132001) Template name does not exist', 3);
		expect(message).toBe('The gateway answered 404 for item 3: (#132001) Template name does not exist');
		expect(refusalMessage(message, 3)).toBe(message);
		expect(refusalMessage('Something else', 2)).toBe('Something else (item 2)');
	});

	it('says what the code means, which field to check, the gateway\'s words (quoted), and that nothing was sent, last', () => {
		expect(
			refusalDescription({ itemIndex: 1, fields: ['Recipient Phone Number'], code: 131026, gatewayDescription: 'Message undeliverable.' }),
		).toBe(
			'The message could not be delivered to this number (not on the network, an old app version, or it has not accepted the latest terms). ' +
				'Check the number; reach this person another way. Check "Recipient Phone Number" of item 1. ' +
				'The gateway said: "Message undeliverable". Nothing was sent for this item.',
		);
		expect(refusalDescription({ itemIndex: 0, fields: [] })).toBe('Nothing was sent for this item.');
		expect(refusalDescription({ itemIndex: 0, fields: [], gatewayDescription: '  ' })).toBe('Nothing was sent for this item.');
	});

	it('a template that does not exist, by name: what to check in the fields, not "Template > Get" (it reads by ID only)', () => {
		const text = refusalDescription({ itemIndex: 1, fields: ['Template Name', 'Language Code'], code: 132001, gatewayDescription: 'not in pt_BR' });
		expect(text).toBe(
			'The template does not exist in this language. Check "Template Name" or "Language Code" of item 1: both must be those of an ' +
				'approved template, letter for letter. The gateway said: "not in pt_BR". Nothing was sent for this item.',
		);
		expect(text).not.toContain('Template > Get');
		expect(refusalDescription({ itemIndex: 0, fields: ['Template ID'], code: 132001 })).toBe(
			'The template does not exist in this language. Check "Template ID" of item 0. Nothing was sent for this item.',
		);
	});

	it('a 401 or 403 is the credential\'s API key, whatever network code the body holds, and points at the credential\'s Test', () => {
		for (const status of [401, 403]) {
			const text = refusalDescription({ itemIndex: 0, fields: [], code: 190, status, gatewayDescription: 'Invalid API key' });
			expect(text).toBe(
				`The gateway refused the credential's API key (HTTP ${status}). Correct API Key in the Messaging Gateway credential, ` +
					'then click Test on the credential screen: it says whether the gateway takes the key. The gateway said: "Invalid API key". ' +
					'Nothing was sent for this item.',
			);
			expect(text).not.toMatch(/access token|renew/);
		}
		// Without the status (callers that do not pass it yet), as before.
		expect(refusalDescription({ itemIndex: 0, fields: [], code: 190 })).toMatch(/^The account's access token expired\./);
	});

	it('ends every description with "Nothing was sent for this item."', () => {
		for (const code of [undefined, 131026, 132001, 132000, 999999]) {
			for (const fields of [[], ['Template Name', 'Language Code']]) {
				expect(refusalDescription({ itemIndex: 0, fields, code, gatewayDescription: 'details from the gateway' })).toMatch(/ Nothing was sent for this item\.$/);
			}
		}
	});
});
