/**
 * Messages to the same recipient leave one after another, in item order, while messages to different recipients
 * go out in parallel. With many requests in flight, two sends to one person could otherwise reach the gateway in
 * either order ("Your code is 1234" before "Here is your code:"). Pure: no n8n imports.
 *
 * An item claims its recipient's turn as soon as it knows the recipient (before any upload), so claims follow the
 * order in which the dispatcher starts the items, which is item order. The claim's `ready` settles when every item
 * that claimed the same recipient earlier is done, with whether one of them failed (the caller decides whether its
 * message still goes); `done` is called once, when the item's request is answered or the item failed.
 *
 * State: `tails` maps a recipient to a promise that settles when the last item that claimed it is done, with
 * whether any item to that recipient failed so far. An entry is removed when that promise settles and no later item
 * has claimed the recipient, so the map holds only recipients with items in progress.
 */
export interface RecipientTurn {
	/** Settles when every earlier item to the same recipient is done: true when one of them failed. */
	ready: Promise<boolean>;
	/** This item's turn is over: sent, or failed (or not sent). Only the first call counts. */
	done(failed: boolean): void;
}

export class RecipientTurns {
	private readonly tails = new Map<string, Promise<boolean>>();

	claim(recipient: string): RecipientTurn {
		const ready = this.tails.get(recipient) ?? Promise.resolve(false);
		let release!: (failed: boolean) => void;
		const released = new Promise<boolean>((resolve) => (release = resolve));
		// This item's turn ends when it is done and every earlier one is, whatever order `done` is called in.
		const tail = Promise.all([ready, released]).then(([earlierFailed, failed]) => earlierFailed || failed);
		this.tails.set(recipient, tail);
		void tail.then(() => {
			if (this.tails.get(recipient) === tail) this.tails.delete(recipient);
		});
		return { ready, done: release };
	}

	/** Recipients with an item in progress (for tests). */
	get size(): number {
		return this.tails.size;
	}
}
