/** Blocklift's version (package.json "version"; a unit test keeps the two equal). */
export const APP_VERSION = '0.1.0';
