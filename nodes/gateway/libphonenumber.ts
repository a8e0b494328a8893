/**
 * The phone number library, as the node uses it. The package has no runtime dependencies (n8n Cloud installs none):
 * libphonenumber-js is a devDependency, and the build bundles this module's compiled file with the library inlined
 * (gulpfile.js), so every other module imports the library from here, never by its package name. Only what the node
 * uses is re-exported, so that the bundle leaves out the rest (its as-you-type formatter logs to the console, which
 * n8n's package scan refuses).
 */
import * as core from 'libphonenumber-js/core';

export {
	getCountryCallingCode,
	isSupportedCountry,
	parsePhoneNumberFromString,
	validatePhoneNumberLength,
} from 'libphonenumber-js/max';
export type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
export { default as maxMetadata } from 'libphonenumber-js/metadata.max.json';

/** phone.ts's fast path reads the plan's patterns with the core's Metadata class (exported there, untyped). */
export const libphonenumberCore = { Metadata: (core as unknown as { Metadata: unknown }).Metadata };
