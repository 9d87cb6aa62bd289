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
  'paths-not-found': {
    kind: 'local',
    en: '{count} of the paths do not exist: {paths}. Nothing was added: remove them and add again.',
  },
  'path-unreadable': { kind: 'local', en: '{path} cannot be read: {reason}' },
  'path-not-file-or-folder': { kind: 'local', en: '{path} is neither a file nor a folder.' },
  'broken-link': { kind: 'local', en: '{path} is a symbolic link whose target is missing or loops.' },
  'files-not-added': { kind: 'local', en: 'Not added: {files}' },
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
  // Why a watched folder is unavailable or paused: its state's reason (sync/watch-root.ts),
  // shown on its card. {path} is the folder's own path, {reason} the system's words.
  'root-missing': {
    kind: 'local',
    en: 'the folder {path} is not there (unplugged drive or removed?); watching resumes when it returns',
  },
  'root-not-a-folder': { kind: 'local', en: '{path} is not a folder' },
  'root-permission-denied': { kind: 'local', en: 'permission denied reading {path}' },
  'root-unreadable': { kind: 'local', en: 'cannot read {path}: {reason}' },
  'root-paused': { kind: 'local', en: 'paused by the user' },
  // What a watched folder meets while it watches: its problem events (src-main/sync), each
  // with the relative path it is about. {path} is that path, or the folder's own path.
  'watch-failed': { kind: 'local', en: 'cannot watch {path}: {reason}' },
  'permission-denied': { kind: 'local', en: 'permission denied reading folder {path}; its files are not uploaded' },
  unreadable: { kind: 'local', en: 'cannot read {path}: {reason}' },
  'symlink-loop': {
    kind: 'local',
    en: 'the link {path} points to itself or to a folder already watched (a loop or a second path to it); not followed',
  },
  'broken-symlink': { kind: 'local', en: 'the link {path} points to nothing' },
  'invalid-name': { kind: 'local', en: 'the name of {path} is not valid UTF-8; rename it to upload it' },
  'root-empty': {
    kind: 'local',
    en: '{path} is empty but {count} files were uploaded from it; remote objects are not deleted until files appear again or the root is removed',
  },
  'delete-not-wired': {
    kind: 'internal',
    en: '{path} was deleted locally but remote deletes are not available here; {key} is kept',
  },
  'delete-failed': { kind: 'service', en: 'deleting {key} on the service failed: {reason}; will try again' },
  'rename-copy-failed': { kind: 'service', en: 'server-side copy from {from} failed ({reason}); uploading instead' },
  'rename-move-failed': { kind: 'service', en: 'server-side move from {from} failed ({reason}); uploading instead' },
  'file-not-queued': {
    kind: 'local',
    en: '{path} was not queued: the queue database refused its row ({detail}); the other files went on. Save or rename the file to try again; if it fails again, report this message as a bug.',
  },
  // Files that stopped changing, and a folder's scan, held while the queue database refuses
  // writes (tried again by themselves). A full disk here is not the app's `disk-full` (whose
  // {path} names the disk's file, service/disk-full-problems.ts): these say what waits.
  'queue-disk-full': {
    kind: 'local',
    en: '{count} file(s) wait: the disk holding the database is full; they are queued once space is freed',
  },
  'queue-busy': {
    kind: 'local',
    en: 'Files that stopped changing wait to be queued: another connection holds the queue database ({detail}); they are queued once it is free. If this lasts, quit the other Blocklift programs (serve, the CLI) that use the same data folder.',
  },
  'queue-io-error': {
    kind: 'local',
    en: "Files that stopped changing wait to be queued: the disk failed a read or write of the queue database ({detail}). Blocklift tries again by itself, less often as it goes on; if this lasts, check the disk holding Blocklift's data folder.",
  },
  'queue-damaged': {
    kind: 'local',
    en: "Files that stopped changing wait to be queued: the queue database is damaged ({detail}). Blocklift tries again by itself, less often as it goes on; if this lasts, quit Blocklift and restore its data folder's database from a backup.",
  },
  'queue-failed': {
    kind: 'internal',
    en: 'Files that stopped changing wait to be queued: they could not be queued ({detail}). Blocklift tries again by itself, less often as it goes on; if this lasts, restart Blocklift and report this message as a bug.',
  },
  'scan-disk-full': {
    kind: 'local',
    en: 'the scan of this folder waits: the disk holding the database is full; it goes on once space is freed',
  },
  'scan-queue-busy': {
    kind: 'local',
    en: 'The scan of this folder waits: another connection holds the queue database ({detail}); it goes on once the database is free. If this lasts, quit the other Blocklift programs (serve, the CLI) that use the same data folder.',
  },
  'scan-queue-io-error': {
    kind: 'local',
    en: "The scan of this folder waits: the disk failed a read or write of the queue database ({detail}). Blocklift tries again by itself, less often as it goes on; if this lasts, check the disk holding Blocklift's data folder.",
  },
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

/** The names of a template's `{name}` placeholders, as a union of string literals. */
type Placeholders<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;

/**
 * The params the template of a code (or of every code of a union) needs: a caller that
 * builds a message with `formatMessage` from these cannot leave a placeholder unfilled.
 */
export type ErrorParams<C extends ErrorCode> = {
  [K in Placeholders<(typeof ERROR_CATALOG)[C]['en']>]: string | number;
};

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOG, code);
}

/** The English message of a catalog code, its template filled with `params` (formatMessage). */
export function catalogMessage(
  code: ErrorCode,
  params: Readonly<Record<string, string | number | boolean | null>>,
): string {
  return formatMessage(ERROR_CATALOG[code].en, params);
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
