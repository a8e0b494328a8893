/**
 * The phone number library, as the node uses it. The package has no runtime dependencies (n8n Cloud installs none):
 * libphonenumber-js is a devDependency, and the build bundles this module's compiled file with the library inlined
 * (gulpfile.js), so every other module imports the library from here, never by its package name. Only what the node
 * uses is re-exported, so that the bundle leaves out the rest (its as-you-type formatter logs to the console, which
 * n8n's package scan refuses).
 */
export {
	getCountryCallingCode,
	getExampleNumber,
	isSupportedCountry,
	parsePhoneNumberFromString,
	validatePhoneNumberLength,
} from 'libphonenumber-js/max';
export type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
/** The library's example mobile number of each country (a few kB): the form a refused number is shown. */
export { default as mobileExamples } from 'libphonenumber-js/mobile/examples';
