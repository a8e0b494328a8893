/**
 * The cost of the Phone rule of Person Data > Upload per record: the phone module (libphonenumber-js, `max` metadata:
 * numbering plan and invented numbers) against the rule it replaced (8 to 15 digits after removing formatting, no
 * repeated or consecutive last 8 digits), measured in the same run over the same 1,000,000 phones shaped like the
 * person benchmark's (`+55 11 9xxxxxxxx`, flat strings as its JSON-parsed items hold), and over the same numbers
 * written bare (`5511930000000`). Also the quick writer of Phone (the upload's second pass) against the replace it
 * replaced. Prints microseconds per phone (the best of 3 passes) and the ratios.
 *
 * Env: PHONES (default 1000000).
 */
import { isInventedNumber } from '../nodes/gateway/phone';
import { QUICK_WRITERS } from '../nodes/MessagingGateway/persons/quickWriters';
import { normalisePhone } from '../nodes/MessagingGateway/persons/values';

const PHONES = Number(process.env.PHONES ?? 1_000_000);

/** The rule before the phone module: digits and their count only. */
function digitsOnlyRule(value: string): string | undefined {
	const digits = value.trim().replace(/[+\s()[\]\-.]/g, '');
	if (!/^\d+$/.test(digits) || digits.length < 8 || digits.length > 15) return undefined;
	return isInventedNumber(digits.slice(-8)) ? undefined : digits;
}

/** The quick writer of Phone before gateway/digits.ts. */
const replaceDigits = (value: string) => value.replace(/\D/g, '');
const quickPhone = QUICK_WRITERS.Phone!.write;

function timed(name: string, phones: string[], rule: (phone: string) => unknown): number {
	rule(phones[0]);
	let best = Infinity;
	let accepted = 0;
	for (let pass = 0; pass < 3; pass++) {
		const start = process.hrtime.bigint();
		accepted = 0;
		for (const phone of phones) if (typeof rule(phone) === 'string') accepted++;
		best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
	}
	console.log(`  ${name.padEnd(44)} ${((best / phones.length) * 1e6).toFixed(3)} µs/phone   ${accepted} accepted`);
	return best;
}

const phones = JSON.parse(JSON.stringify(Array.from({ length: PHONES }, (_, i) => `+55 11 9${30000000 + i}`))) as string[];
const barePhones = JSON.parse(JSON.stringify(Array.from({ length: PHONES }, (_, i) => `55119${30000000 + i}`))) as string[];
console.log(`${PHONES} phones like "${phones[0]}" and "${barePhones[0]}"`);
// A warm-up pass each, so that all are compiled before they are timed.
for (const rule of [digitsOnlyRule, normalisePhone, replaceDigits, quickPhone]) {
	for (const phone of phones.slice(0, 20000)) rule(phone);
	for (const phone of barePhones.slice(0, 20000)) rule(phone);
}
const baseline = timed('digits-only rule (before)', phones, digitsOnlyRule);
const phoneModule = timed('phone module (Person Data Phone rule)', phones, normalisePhone);
const bareBaseline = timed('digits-only rule, bare digits', barePhones, digitsOnlyRule);
const barePhoneModule = timed('phone module, bare digits', barePhones, normalisePhone);
const replaced = timed('replace(/\\D/g) (quick writer before)', phones, replaceDigits);
const quick = timed('quick writer of Phone', phones, quickPhone);
console.log(`\n  phone module / digits-only rule: ${(phoneModule / baseline).toFixed(2)}x; bare digits ${(barePhoneModule / bareBaseline).toFixed(2)}x`);
console.log(`  quick writer / replace: ${(quick / replaced).toFixed(2)}x`);
