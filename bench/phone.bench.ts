/**
 * The cost of the Phone rule of Person Data > Upload per record: the phone module (libphonenumber-js, `max` metadata:
 * numbering plan and invented numbers) against the rule it replaced (8 to 15 digits after removing formatting, no
 * repeated or consecutive last 8 digits), measured in the same run over the same 1,000,000 phones shaped like the
 * person benchmark's (`+55 11 9xxxxxxxx`). Prints microseconds per phone and the ratio.
 *
 * Env: PHONES (default 1000000).
 */
import { isInventedNumber } from '../nodes/gateway/phone';
import { normalisePhone } from '../nodes/MessagingGateway/persons/values';

const PHONES = Number(process.env.PHONES ?? 1_000_000);

/** The rule before the phone module: digits and their count only. */
function digitsOnlyRule(value: string): string | undefined {
	const digits = value.trim().replace(/[+\s()[\]\-.]/g, '');
	if (!/^\d+$/.test(digits) || digits.length < 8 || digits.length > 15) return undefined;
	return isInventedNumber(digits.slice(-8)) ? undefined : digits;
}

function timed(name: string, phones: string[], rule: (phone: string) => unknown): number {
	const start = process.hrtime.bigint();
	let accepted = 0;
	for (const phone of phones) if (typeof rule(phone) === 'string') accepted++;
	const seconds = Number(process.hrtime.bigint() - start) / 1e9;
	console.log(`  ${name.padEnd(42)} ${seconds.toFixed(2).padStart(7)} s   ${((seconds / phones.length) * 1e6).toFixed(2)} µs/phone   ${accepted} accepted`);
	return seconds;
}

const phones = Array.from({ length: PHONES }, (_, i) => `+55 11 9${30000000 + i}`);
console.log(`${PHONES} phones like "${phones[0]}"`);
// A warm-up pass each, so that both are compiled before they are timed.
timed('(warm-up) digits-only rule', phones.slice(0, 20000), digitsOnlyRule);
timed('(warm-up) phone module', phones.slice(0, 20000), normalisePhone);
const baseline = timed('digits-only rule (before)', phones, digitsOnlyRule);
const phoneModule = timed('phone module (Person Data Phone rule)', phones, normalisePhone);
console.log(`\n  phone module / digits-only rule: ${(phoneModule / baseline).toFixed(1)}x; ${(phoneModule - baseline).toFixed(1)} s more per ${PHONES} records`);
