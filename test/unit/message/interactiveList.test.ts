import { buildList as build } from '../../../nodes/MessagingGateway/actions/message/types/interactive';
import { inputError } from './inputError';

const rows = (...ids: string[]) => ({ row: ids.map((id) => ({ id, title: `Title ${id}`, description: '' })) });

describe('interactive list message', () => {
	it('builds header, body, footer, button label and sections with rows in the spec shape', () => {
		expect(
			build({
				listHeader: 'Delivery',
				listBody: 'Choose a slot',
				listFooter: 'Free delivery',
				listButtonLabel: 'See slots',
				listSections: {
					section: [
						{ title: 'Morning', rows: { row: [{ id: 'm9', title: '09:00', description: 'Fast' }] } },
						{ title: 'Afternoon', rows: { row: [{ id: 'a2', title: '14:00', description: '' }] } },
					],
				},
			}),
		).toEqual({
			type: 'interactive',
			interactive: {
				type: 'list',
				header: { type: 'text', text: 'Delivery' },
				body: { text: 'Choose a slot' },
				footer: { text: 'Free delivery' },
				action: {
					button: 'See slots',
					sections: [
						{ title: 'Morning', rows: [{ id: 'm9', title: '09:00', description: 'Fast' }] },
						{ title: 'Afternoon', rows: [{ id: 'a2', title: '14:00' }] },
					],
				},
			},
		});
	});

	it('leaves out an empty header, footer and the title of a single section', () => {
		const { interactive } = build({
			listBody: 'Pick',
			listButtonLabel: 'Open',
			listSections: { section: [{ title: '', rows: rows('a') }] },
		});
		expect(interactive).toEqual({
			type: 'list',
			body: { text: 'Pick' },
			action: { button: 'Open', sections: [{ rows: [{ id: 'a', title: 'Title a' }] }] },
		});
	});

	it('accepts 10 rows in all and refuses 11, counting every section', () => {
		const ten = { section: [{ title: 'A', rows: rows('1', '2', '3', '4', '5') }, { title: 'B', rows: rows('6', '7', '8', '9', '10') }] };
		expect(build({ listBody: 'b', listButtonLabel: 'l', listSections: ten }).interactive.action.sections).toHaveLength(2);
		const eleven = { section: [...ten.section, { title: 'C', rows: rows('11') }] };
		const error = inputError(() => build({ listBody: 'b', listButtonLabel: 'l', listSections: eleven }));
		expect(error.field).toBe('Sections');
		expect(error.reason).toMatch(/11 rows/);
	});

	it('refuses a row id used twice across sections, naming the row', () => {
		const sections = { section: [{ title: 'A', rows: rows('x') }, { title: 'B', rows: rows('y', 'x') }] };
		const error = inputError(() => build({ listBody: 'b', listButtonLabel: 'l', listSections: sections }));
		expect(error.field).toBe('Sections › section 2 › row 2 › ID');
	});

	it('refuses a list without sections, a section without rows, and untitled sections among several', () => {
		expect(inputError(() => build({ listBody: 'b', listButtonLabel: 'l', listSections: {} })).field).toBe('Sections');
		const empty = { section: [{ title: 'A', rows: {} }] };
		expect(inputError(() => build({ listBody: 'b', listButtonLabel: 'l', listSections: empty })).field).toBe(
			'Sections › section 1 › Rows',
		);
		const untitled = { section: [{ title: 'A', rows: rows('1') }, { title: '', rows: rows('2') }] };
		expect(inputError(() => build({ listBody: 'b', listButtonLabel: 'l', listSections: untitled })).field).toBe(
			'Sections › section 2 › Section Title',
		);
	});

	it('refuses a missing body or button label', () => {
		const listSections = { section: [{ rows: rows('1') }] };
		expect(inputError(() => build({ listBody: '', listButtonLabel: 'l', listSections })).field).toBe('Body Text');
		expect(inputError(() => build({ listBody: 'b', listButtonLabel: '', listSections })).field).toBe('List Button Label');
	});
});
