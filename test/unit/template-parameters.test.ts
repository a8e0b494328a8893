import {
	buildMessageComponents,
	listTemplateParameters,
	parametersFromIds,
} from '../../nodes/MessagingGateway/templates/components';
import type { GatewayTemplate } from '../../nodes/MessagingGateway/templates/components';

const template: GatewayTemplate = {
	id: '991',
	name: 'order_shipped',
	language: 'en_US',
	components: [
		{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['#42'] } },
		{ type: 'BODY', text: 'Hi {{1}}, {{2}} is on its way. {{1}}!', example: { body_text: [['Ana', 'your parcel']] } },
		{
			type: 'BUTTONS',
			buttons: [
				{ type: 'QUICK_REPLY', text: 'Thanks' },
				{ type: 'URL', text: 'Track', url: 'https://shop.test/t/{{1}}', example: ['https://shop.test/t/42'] },
			],
		},
	],
};

describe('listTemplateParameters', () => {
	it('lists one parameter per distinct placeholder of header, body and URL buttons, with examples', () => {
		expect(listTemplateParameters(template)).toEqual([
			{ id: 'header_1', displayName: 'Header {{1}}', component: 'header', number: 1, example: '#42' },
			{ id: 'body_1', displayName: 'Body {{1}}', component: 'body', number: 1, example: 'Ana' },
			{ id: 'body_2', displayName: 'Body {{2}}', component: 'body', number: 2, example: 'your parcel' },
			{
				id: 'button_1_1',
				displayName: 'Button 2 "Track" URL {{1}}',
				component: 'button',
				number: 1,
				buttonIndex: 1,
				example: 'https://shop.test/t/42',
			},
		]);
	});

	it('lists nothing for a template without placeholders or without components', () => {
		expect(listTemplateParameters({ components: [{ type: 'BODY', text: 'Hello' }] })).toEqual([]);
		expect(listTemplateParameters({})).toEqual([]);
	});
});

describe('buildMessageComponents', () => {
	const parameters = listTemplateParameters(template);

	it('builds the message components in order, buttons with sub_type url and their position as index', () => {
		const { components, missing } = buildMessageComponents(parameters, {
			header_1: '#7',
			body_2: 'the blue chair',
			body_1: 'Bo',
			button_1_1: '7',
		});
		expect(missing).toEqual([]);
		expect(components).toEqual([
			{ type: 'header', parameters: [{ type: 'text', text: '#7' }] },
			{
				type: 'body',
				parameters: [
					{ type: 'text', text: 'Bo' },
					{ type: 'text', text: 'the blue chair' },
				],
			},
			{ type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: '7' }] },
		]);
	});

	it('names the parameters left without a value', () => {
		expect(buildMessageComponents(parameters, { header_1: '#7', body_1: 3, body_2: ' ' }).missing).toEqual([
			'Body {{2}}',
			'Button 2 "Track" URL {{1}}',
		]);
	});
});

describe('parametersFromIds', () => {
	it('rebuilds the parameters from resource-mapper keys in message order, so no second read of the template is needed', () => {
		const values = { button_1_1: '7', body_2: 'chair', body_1: 'Bo', header_1: '#7', body_10: 'ten', other: 'x' };
		const { components, missing } = buildMessageComponents(parametersFromIds(Object.keys(values)), values);
		expect(missing).toEqual([]);
		expect(components).toEqual([
			{ type: 'header', parameters: [{ type: 'text', text: '#7' }] },
			{
				type: 'body',
				parameters: [
					{ type: 'text', text: 'Bo' },
					{ type: 'text', text: 'chair' },
					{ type: 'text', text: 'ten' },
				],
			},
			{ type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: '7' }] },
		]);
	});
});
