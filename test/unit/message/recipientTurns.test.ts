/**
 * Recipient turns: messages to one recipient one after another in the order their items took their turn, others free, a
 * failure reported to later messages of the same recipient, and nothing held once every item is done.
 */
import { RecipientTurns } from '../../../nodes/MessagingGateway/actions/message/schedule';

/** Whether a promise has settled, after letting pending callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	void promise.then(() => (done = true));
	for (let i = 0; i < 10; i++) await Promise.resolve();
	return done;
}

describe('RecipientTurns', () => {
	it('a turn is ready when every earlier turn of the same recipient is done, not before', async () => {
		const turns = new RecipientTurns();
		const first = turns.take('A');
		const second = turns.take('A');
		const third = turns.take('A');
		expect(await settled(first.ready)).toBe(true);
		expect(await settled(second.ready)).toBe(false);
		first.done(false);
		expect(await settled(second.ready)).toBe(true);
		expect(await settled(third.ready)).toBe(false);
		second.done(false);
		expect(await third.ready).toBe(false);
	});

	it('other recipients do not wait', async () => {
		const turns = new RecipientTurns();
		turns.take('A');
		expect(await settled(turns.take('B').ready)).toBe(true);
	});

	it('an item done before the one ahead of it (it failed early) still keeps the later ones waiting for that one', async () => {
		const turns = new RecipientTurns();
		const first = turns.take('A');
		const second = turns.take('A');
		const third = turns.take('A');
		second.done(true);
		expect(await settled(third.ready)).toBe(false);
		first.done(false);
		expect(await third.ready).toBe(true); // the second failed
	});

	it('a failure is reported to the later messages of the recipient, and to no other recipient', async () => {
		const turns = new RecipientTurns();
		const failed = turns.take('A');
		const other = turns.take('B');
		const later = turns.take('A');
		failed.done(true);
		later.done(false);
		expect(await later.ready).toBe(true);
		other.done(false);
		expect(await turns.take('B').ready).toBe(false);
	});

	it('holds nothing once every claim is done', async () => {
		const turns = new RecipientTurns();
		const claims = ['A', 'B', 'A', 'C'].map((recipient) => turns.take(recipient));
		expect(turns.size).toBe(3);
		for (const claim of claims) claim.done(false);
		await settled(Promise.resolve());
		expect(turns.size).toBe(0);
	});
});
