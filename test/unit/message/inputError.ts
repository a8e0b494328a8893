import { MessageInputError } from '../../../nodes/MessagingGateway/actions/message/types/common';

/** The MessageInputError a builder throws for an input, so that a test can check its field and reason. */
export function inputError(run: () => unknown): MessageInputError {
	try {
		run();
	} catch (error) {
		if (error instanceof MessageInputError) return error;
		throw error;
	}
	throw new Error('expected a MessageInputError, nothing was thrown');
}
