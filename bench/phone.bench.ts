/**
 * The phone check per number: the phone module (libphonenumber-js's public API, `max` metadata) as message recipients
 * use it and as Person Data's Phone rule (person rule 4) uses it, against libphonenumber's parse and isValid alone
 * (the least any check through the library's public API does), over the same 1,000,000 phones shaped like the person
 * benchmark's (`+55 11 9xxxxxxxx`, flat strings as its JSON-parsed items hold) and the same numbers written bare.
 * There is no accelerator: every number goes through the library's public API. Prints microseconds per phone (the
 * best of 3 passes) and the ratios.
 *
 * Env: PHONES (default 1000000).
 */
import { loadavg } from 'node:os';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

import { checkPhone } from '../nodes/gateway/phone';
import { normalisePhone } from '../nodes/MessagingGateway/persons/values';

const PHONES = Number(process.env.PHONES ?? 1_000_000);

/** The library alone: parse and isValid, the digits when valid. */
function libraryAlone(value: string): string | undefined {
	const number = parsePhoneNumberFromString(value);
	return number?.isValid() ? number.number.slice(1) : undefined;
}

const recipient = (value: string) => {
	const check = checkPhone(value);
	return 'digits' in check ? check.digits : undefined;
};

function timed(name: string, phones: string[], rule: (phone: string) => unknown): number {
	let best = Infinity;
	let accepted = 0;
	for (let pass = 0; pass < 3; pass++) {
		const start = process.hrtime.bigint();
		accepted = 0;
		for (const phone of phones) if (typeof rule(phone) === 'string') accepted++;
		best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
	}
	console.log(`  ${name.padEnd(44)} ${((best / phones.length) * 1e6).toFixed(2)} µs/phone   ${accepted} accepted`);
	return best;
}

const phones = JSON.parse(JSON.stringify(Array.from({ length: PHONES }, (_, i) => `+55 11 9${30000000 + i}`))) as string[];
const barePhones = JSON.parse(JSON.stringify(Array.from({ length: PHONES }, (_, i) => `+55119${30000000 + i}`))) as string[];
console.log(`${PHONES} phones like "${phones[0]}" and "${barePhones[0]}"; load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);
// A warm-up pass each, so that all are compiled before they are timed.
for (const rule of [libraryAlone, recipient, normalisePhone]) for (const phone of phones.slice(0, 20000)) rule(phone);
const library = timed('libphonenumber parse + isValid alone', phones, libraryAlone);
const recipients = timed('phone module, message recipient', phones, recipient);
const persons = timed('phone module, Person Data Phone rule', phones, normalisePhone);
const bareLibrary = timed('libphonenumber alone, bare digits', barePhones, libraryAlone);
const barePersons = timed('phone module, Person Data, bare digits', barePhones, normalisePhone);
console.log(
	`\n  phone module / library alone: recipient ${(recipients / library).toFixed(2)}x, person ${(persons / library).toFixed(2)}x,` +
		` person bare ${(barePersons / bareLibrary).toFixed(2)}x`,
);
