import { buildMarkAsReadBody } from '../../../nodes/MessagingGateway/actions/message/markAsRead.operation';
import { CHANNEL } from '../../../nodes/gateway/spec';
import { inputError } from './inputError';

describe('mark as read body', () => {
	it('has only messaging_product, status read and the message id', () => {
		expect(buildMarkAsReadBody(' wamid.X ')).toEqual({ messaging_product: CHANNEL, status: 'read', message_id: 'wamid.X' });
	});

	it('refuses an empty message id', () => {
		expect(inputError(() => buildMarkAsReadBody('')).field).toBe('Message ID');
	});
});
