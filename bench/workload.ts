/**
 * The message every benchmark sends: Message > Send of a text to `$json.phone`, personalised with `$json.name` (two
 * expressions per item, as a real campaign has).
 */
export const PERSONAL_TEXT = {
	resource: 'message',
	operation: 'send',
	messageType: 'text',
	recipientPhoneNumber: '={{ $json.phone }}',
	textBody: '={{ "Olá " + $json.name + ", seu pedido saiu para entrega." }}',
};
