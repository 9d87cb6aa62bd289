/**
 * The catalog of error codes a front end may receive in a `Result` (contract.ts) or a
 * problem event. Code branches on these codes, never on message text; the renderer
 * translates them (English and Simplified Chinese) with the error's `params`.
 *
 * Each entry: the English message template with `{param}` placeholders, and what kind of
 * failure it is (so a UI can choose inline, toast or dialog without a list of its own).
 */
export type ErrorKind = 'input' | 'not-found' | 'conflict' | 'service' | 'local' | 'internal';

export const ERROR_CATALOG = {
  // Input that crossed the boundary and was refused before anything happened.
  'invalid-input': { kind: 'input', en: 'The request is not valid: {detail}' },
  'unknown-method': { kind: 'input', en: 'There is no verb {method} in this version of Blocklift.' },
  'not-found': { kind: 'not-found', en: '{what} {id} does not exist (it may have been removed).' },
  'not-supported-here': { kind: 'input', en: '{what} is only possible in the desktop app.' },
  // Local files and folders.
  'path-not-found': { kind: 'local', en: '{path} does not exist.' },
  'path-unreadable': { kind: 'local', en: '{path} cannot be read: {reason}' },
  'path-not-file-or-folder': { kind: 'local', en: '{path} is neither a file nor a folder.' },
  'broken-link': { kind: 'local', en: '{path} is a symbolic link whose target is missing or loops.' },
  'symlink-skipped': { kind: 'local', en: '{path} is a symbolic link inside a folder and was not followed.' },
  'disk-full': { kind: 'local', en: 'The disk holding {path} is full; free space and the upload continues.' },
  // Keys and targets.
  'key-invalid': { kind: 'input', en: 'The key "{key}" cannot be used: {reason}' },
  'key-collision': { kind: 'input', en: 'Two files would get the same key "{key}": {first} and {second}.' },
  'bucket-missing': { kind: 'input', en: 'Choose a bucket to upload to.' },
  'no-account': { kind: 'input', en: 'No account is configured; add one in Settings or use the local emulator.' },
  // Watched folders.
  'root-refused': { kind: 'conflict', en: '{path} cannot be watched: {reason}' },
  'root-exists': { kind: 'conflict', en: '{path} is already watched.' },
  'invalid-watch-options': { kind: 'input', en: 'A folder option is not valid: {detail}' },
  // Settings and schedule.
  'invalid-schedule': { kind: 'input', en: 'The upload schedule is not valid: {detail}' },
  'invalid-setting': { kind: 'input', en: 'The setting {name} is not valid: {detail}' },
  // Accounts and secrets.
  'account-invalid': { kind: 'input', en: 'The account is not valid: {detail}' },
  'account-in-use': { kind: 'conflict', en: 'The account {name} is used by {count} transfer(s) or folder(s).' },
  'account-local-readonly': {
    kind: 'conflict',
    en: 'The Local account belongs to the embedded emulator and cannot be changed.',
  },
  'secret-store-unavailable': { kind: 'local', en: 'The secret could not be stored safely: {reason}' },
  'account-credentials-refused': {
    kind: 'service',
    en: 'The service refused the credentials of the account {account} ({detail}); its uploads are held until the account is saved again or passes a test.',
  },
  // The service.
  'service-unreachable': { kind: 'service', en: 'The service at {url} cannot be reached: {reason}' },
  'service-auth-failed': { kind: 'service', en: 'The service refused the credentials ({status}): {message}' },
  'service-error': { kind: 'service', en: 'The service answered {status}: {message}' },
  'service-bad-reply': { kind: 'service', en: 'The service sent a reply Blocklift cannot read: {detail}' },
  'fmgr-invalid-op': { kind: 'input', en: 'The Fmgr operation is not valid: {detail}' },
  'vca-not-enabled': { kind: 'service', en: 'Video analysis is not enabled for this account.' },
  'vca-error': { kind: 'service', en: '{message}' },
  'transfer-failed': { kind: 'service', en: 'The upload of {key} failed: {message}' },
  // The queue.
  'queue-in-use': { kind: 'conflict', en: 'The queue database is in use by process {pid}; wait for it or stop it.' },
  'database-error': { kind: 'local', en: 'The queue database failed: {detail}' },
  // The headless door's own refusals (before any verb runs).
  'door-token-missing': {
    kind: 'input',
    en: 'This request carries no valid access token: open the address that blocklift serve printed (it carries the token).',
  },
  'door-host-refused': {
    kind: 'input',
    en: 'Requests for the host {host} are not served here; use the address that blocklift serve printed.',
  },
  'door-origin-refused': {
    kind: 'input',
    en: "Requests from the page {origin} are refused; only Blocklift's own page may connect.",
  },
  // Everything else: a bug.
  internal: { kind: 'internal', en: 'Something went wrong inside Blocklift: {detail}. The event log has the details.' },
} as const satisfies Record<string, { kind: ErrorKind; en: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOG, code);
}

/** Fills a template's `{name}` placeholders; a missing param stays visible as `{name}`. */
export function formatMessage(
  template: string,
  params: Readonly<Record<string, string | number | boolean | null>>,
): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}
