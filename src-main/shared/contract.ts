/**
 * The one contract between Blocklift's app service and every front end (the Electron
 * renderer through IPC, the headless web UI through a WebSocket, the CLI in-process).
 * Types and constants only; imported by the renderer too.
 *
 * Shape: `AppApi` is a map of areas, each a map of verbs. Every verb takes exactly one
 * argument (an object, or `void`) and resolves to a `Result`: it never rejects, so a door
 * never has to turn an exception into something a screen can show. `API_VERBS` lists the
 * same verbs at run time; the doors (IPC handlers, preload, WebSocket/HTTP router) and the
 * renderer bridge are derived from it, never from a hand-written channel list.
 *
 * What a front end receives is `AppEvents`: already batched for a UI (at most 10 flushes a
 * second whatever the number of transfers), and sent only after the change committed.
 *
 * What a verb takes is derived from its zod schema (schemas.ts: the rules and their words
 * live there, written once); what it answers is written here.
 *
 * Nothing here ever carries a secret: an account's secret key is write-only (`AccountInput`)
 * and comes back only as `hasSecret`.
 */
import type { z } from 'zod';
import type { ErrorCode } from './errors';
import type { TransferProgress, WatchEvent } from './events';
import type { FmgrOp, FmgrOpName } from './fmgr-ops';
import type { TransferOptions, TransferSnapshot, TransferState } from './models';
import type * as S from './schemas';
import type { FmgrTaskView, VcaJobView, VcaLabelDecision } from './task-views';
import type { WatchRootOptionsInput, WatchRootState, WatchScanCounts } from './watch-views';

/** The input type of a schema: what a front end sends (and the verb receives, parsed). */
type In<Schema extends z.ZodType> = z.output<Schema>;

// ---------------------------------------------------------------------------------------
// The envelope

/** A failure a front end can show and translate: branch on `code`, never on `message`. */
export interface AppError {
  code: ErrorCode;
  /** English, for logs and the CLI; a UI translates `code` with `params` instead. */
  message: string;
  /** Values the translated message needs (a path, a key, a limit…). Never a secret. */
  params: Record<string, string | number | boolean | null>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

// ---------------------------------------------------------------------------------------
// Transfers

/** Why a transfer or a root is paused; a restart resumes only what the schedule paused. */
export type PauseReason = 'user' | 'schedule' | 'root' | 'error';

export type TransferQuery = In<typeof S.TRANSFER_QUERY>;
export type TransferSortField = NonNullable<TransferQuery['sort']>['field'];

/** Counts per state of every transfer matching the query's filters (not its paging). */
export type TransferTotals = Record<TransferState, number>;

/** A transfer as a list row shows it. */
export interface TransferView extends TransferSnapshot {
  /** The watch root it came from, when source is 'watch'. */
  rootId: number | null;
  /** Set while state is 'paused'. */
  pausedBy: PauseReason | null;
  attempts: number;
  /** The service's hash equalled the etag computed while reading (false for done-but-unverified). */
  verified: boolean;
  remoteHash: string | null;
  /** The Fmgr task the upload's policy started (persistentOps), named in the service's reply; it is tracked. */
  persistentId: string | null;
  /** The object this one was copied from on the service (its bytes were stored already, issue 19); null when they were sent. */
  copiedFrom: { bucket: string; key: string } | null;
  /**
   * Set for a file dropped into a browser window (the served app): its name as dropped, or
   * its path inside a dropped folder ("photos/a.jpg"); the browser does not tell which folder
   * it came from. `localPath` is then the copy the door staged in the data folder, deleted in
   * STAGED_COPY_DELETED_STATES.
   */
  droppedAs?: string;
}

export interface TransferPage {
  rows: TransferView[];
  /** Rows matching the filters, before paging. */
  total: number;
  totals: TransferTotals;
}

export interface BlockView {
  index: number;
  size: number;
  /** Bytes of this block the service has accepted (its committed offset). */
  bytesDone: number;
  state: 'waiting' | 'in-flight' | 'done';
  /** Times this block started over (rejected or expired ctx). */
  restarts: number;
}

export interface TransferDetail extends TransferView {
  blocks: BlockView[];
  blockSize: number;
  options: TransferOptions;
  /** Whether the service's hash was compared with the computed etag, and how it came out. */
  etagCheck: 'pending' | 'matched' | 'mismatched' | 'not-returned';
  /** The last reply of the service worth showing (mkfile's, or the last error's). */
  lastReply: { status: number | null; requestId: string | null; body: string | null; at: number } | null;
  /** The access URL of the object when the account has a download domain and the transfer is done. */
  url: string | null;
}

/** What `transfers.add` uploads to. */
export type TransferTarget = In<typeof S.TRANSFER_TARGET>;

export type AddTransfersInput = In<typeof S.ADD_TRANSFERS>;

export interface AddTransfersResult {
  /** Transfers queued or continued (their ids; follow them through events). */
  queued: number[];
  /** Files already uploaded with the same size and mtime: nothing to send. */
  alreadyUploaded: Array<{ path: string; key: string; transferId: number; size: number; etag: string | null }>;
  /** Paths not uploaded, and why (a symbolic link, an unreadable folder…). */
  skipped: Array<{ path: string; code: ErrorCode; reason: string }>;
  /** Bytes of the queued files as listed: the whole upload's size, known before any starts. */
  bytesQueued: number;
}

/** Ids of transfers, or every transfer the verb applies to. */
export type TransferSelection = In<typeof S.TRANSFER_SELECTION>;

// ---------------------------------------------------------------------------------------
// Watched folders

export interface WatchRootCounts {
  indexed: number;
  waiting: number;
  uploaded: number;
  ignored: number;
  rejected: number;
  failed: number;
  inFlight: number;
}

export interface WatchRootView {
  id: number;
  path: string;
  accountId: number;
  bucket: string;
  prefix: string;
  options: WatchRootOptionsInput;
  state: WatchRootState;
  /** Why it is paused or unavailable, in English (e.g. "the folder … is not there"). */
  reason: string | null;
  /**
   * The same as a code of the error catalog with its template's params, for a UI to say it in
   * its language; null beside a reason stored by a version before it (then show `reason`).
   */
  reasonCode: ErrorCode | (string & {}) | null;
  reasonParams: Record<string, string | number> | null;
  pausedBy: PauseReason | null;
  counts: WatchRootCounts;
  /** Files the running scan has queued so far; null when no scan runs. */
  scanning: { files: number } | null;
  /** Rejected files with their reasons (the first 100). */
  rejected: Array<{ relPath: string; code: string; message: string }>;
  lastScanAt: number | null;
}

export type RootInput = In<typeof S.ROOT_INPUT>;

/** The dry run of a root: what adding it would do, before anything uploads. */
export interface RootPlan extends WatchScanCounts {
  filesToUpload: number;
  bytesToUpload: number;
  estimatedSeconds: number | null;
  assumedBytesPerSecond: number;
  speedSource: 'measured' | 'default';
}

// ---------------------------------------------------------------------------------------
// Fmgr tasks and VCA jobs

export type FmgrSubmitInput = In<typeof S.FMGR_SUBMIT>;
export type FmgrTrackInput = In<typeof S.FMGR_TRACK>;
/** A task or job looked up by the service's id: the given account's row first, else any account's. */
export type FmgrLookupInput = In<typeof S.FMGR_LOOKUP>;
export type VcaLookupInput = In<typeof S.VCA_LOOKUP>;
export type TaskListQuery = In<typeof S.TASK_LIST_QUERY>;
export type VcaCreateInput = In<typeof S.VCA_CREATE>;
export type VcaDecideInput = In<typeof S.VCA_DECIDE>;
export type VcaLabelQuery = In<typeof S.VCA_LABEL_QUERY>;

export interface VcaLabelHit {
  jobId: number;
  labelId: number;
  type: string;
  attribute: string;
  confidence: number;
  decision: VcaLabelDecision;
  /** What the video is: its key or URL. */
  source: string;
}

export type VcaExportInput = In<typeof S.VCA_EXPORT>;

export interface ExportedFile {
  fileName: string;
  mimeType: string;
  content: string;
}

// ---------------------------------------------------------------------------------------
// Accounts and settings

export interface AccountView {
  id: number;
  name: string;
  uploadUrl: string;
  mgrUrl: string | null;
  downloadDomain: string | null;
  accessKey: string | null;
  /**
   * The token provider's URL without user name, password and query (they may hold a key):
   * saving this same text back keeps what is stored (AccountInput.tokenUrl).
   */
  tokenUrl: string | null;
  /** A secret key is stored (it is never sent back). */
  hasSecret: boolean;
  /**
   * "stored · changed <YYYY-MM-DD>" when a secret key is stored, "this session only · changed
   * <YYYY-MM-DD>" when it is kept in memory until the app quits, "session ended · changed
   * <YYYY-MM-DD>" when an earlier run kept it so and it must be entered again, else null.
   */
  secret: string | null;
  /** The account of the embedded emulator. */
  isLocal: boolean;
  isDefault: boolean;
  /**
   * 'system' (environment variables), 'none', or a URL (shown without its user name and
   * password; saving it back unchanged keeps them); per account.
   */
  proxy: ProxySetting;
}

export type AccountInput = In<typeof S.ACCOUNT_INPUT>;

export interface AccountTestResult {
  /** Which requests were signed and sent, and what the service answered to each. */
  checks: Array<{
    what: 'upload' | 'manage';
    url: string;
    ok: boolean;
    status: number | null;
    /** The service's own message, or why no answer came. */
    message: string;
    requestId: string | null;
    elapsedMs: number;
  }>;
}

export type ProxySetting = In<typeof S.PROXY_SETTING>;

export type Settings = In<typeof S.SETTINGS>;

export type SettingsPatch = In<typeof S.SETTINGS_PATCH>;

export interface AppStatus {
  version: string;
  /** Which door this front end talks through. */
  door: 'electron' | 'headless' | 'in-process';
  dataDir: string;
  /** The embedded emulator, when it runs. */
  emulator: { url: string; accountId: number } | null;
  totals: TransferTotals;
  throughput: number;
  /** Uploading is held for everything, and why. */
  paused: PauseReason | null;
  /** What the schedule says now. */
  schedule: { running: boolean; bytesPerSecond: number | null; nextChangeAt: number | null };
  /** Door abilities a screen may offer. */
  can: { openDataFolder: boolean; openPath: boolean; localPaths: boolean; chooseFolder: boolean };
  /** Where a secret key typed into an account is kept (never the secret, nor its reference). */
  secretStore: SecretStoreInfo;
  firstRun: boolean;
  /** The main process's event-loop delay and memory (service/process-health.ts). */
  health: ProcessHealth;
}

/**
 * How the app keeps account secrets. `keyring`: the system's (macOS Keychain, Windows DPAPI,
 * Linux libsecret or kwallet; `backend` names it). `session`: no keyring was found, a secret
 * typed in is kept in memory until the app quits. `weak`: no keyring, and the user chose to
 * store secrets anyway, encrypted with a key fixed in the program. `files`: the headless
 * door, env:/file: references and 0600 files in the data folder.
 */
export interface SecretStoreInfo {
  kind: 'keyring' | 'session' | 'weak' | 'files';
  /** Electron's name of the backend (`gnome_libsecret`, `kwallet5`, `basic_text`, `keychain`, `dpapi`); null headless. */
  backend: string | null;
}

/** Event-loop delay percentiles (ms) over the last one to two minutes (`windowMs`), and memory. */
export interface ProcessHealth {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  windowMs: number;
  rssBytes: number;
  heapUsedBytes: number;
}

// ---------------------------------------------------------------------------------------
// The API

type Verb<I, O> = (input: I) => Promise<Result<O>>;

export interface AppApi {
  transfers: {
    list: Verb<TransferQuery, TransferPage>;
    get: Verb<In<typeof S.BY_ID>, TransferDetail>;
    add: Verb<AddTransfersInput, AddTransfersResult>;
    pause: Verb<TransferSelection, { count: number }>;
    resume: Verb<TransferSelection, { count: number }>;
    cancel: Verb<TransferSelection, { count: number }>;
    retry: Verb<TransferSelection, { count: number }>;
    /** Removes finished rows from the list; active ones are canceled first. */
    remove: Verb<TransferSelection, { count: number }>;
  };
  roots: {
    list: Verb<In<typeof S.VOID_INPUT>, WatchRootView[]>;
    plan: Verb<RootInput, RootPlan>;
    add: Verb<RootInput, WatchRootView>;
    update: Verb<In<typeof S.ROOT_UPDATE>, WatchRootView>;
    pause: Verb<In<typeof S.ROOT_ONE_OR_ALL>, { count: number }>;
    resume: Verb<In<typeof S.ROOT_ONE_OR_ALL>, { count: number }>;
    remove: Verb<In<typeof S.BY_ID>, { removed: true }>;
    rescan: Verb<In<typeof S.ROOT_ONE_OR_ALL>, { count: number }>;
    /** Which relative paths of a folder the given options would ignore (the rules editor's preview). */
    previewIgnores: Verb<In<typeof S.PREVIEW_IGNORES>, IgnorePreview>;
  };
  fmgr: {
    submit: Verb<FmgrSubmitInput, FmgrTaskView>;
    /**
     * Starts following a persistentId and polls it at once. A persistentId not tracked before
     * that the service does not answer for is not kept: error 'not-found' (params.reason says
     * what the service said).
     */
    track: Verb<FmgrTrackInput, FmgrTaskView>;
    /** The tracked task of a persistentId, or null; never starts tracking nor asks the service. */
    lookup: Verb<FmgrLookupInput, FmgrTaskView | null>;
    list: Verb<TaskListQuery, FmgrTaskView[]>;
    get: Verb<In<typeof S.BY_ID>, FmgrTaskView & { history: FmgrStatusSnapshot[] }>;
  };
  vca: {
    create: Verb<VcaCreateInput, VcaJobView>;
    /**
     * Starts following a jobId and polls it at once. A jobId not tracked before that the
     * service does not know is not kept: error 'not-found'.
     */
    track: Verb<In<typeof S.VCA_TRACK>, VcaJobView>;
    /** The tracked job of a jobId, or null; never starts tracking nor asks the service. */
    lookup: Verb<VcaLookupInput, VcaJobView | null>;
    list: Verb<TaskListQuery, VcaJobView[]>;
    get: Verb<In<typeof S.BY_ID>, VcaJobView>;
    decide: Verb<VcaDecideInput, VcaJobView>;
    /** Accepts every pending label at or above the job's threshold. */
    acceptAbove: Verb<In<typeof S.VCA_JOB>, VcaJobView>;
    setThreshold: Verb<In<typeof S.VCA_THRESHOLD>, VcaJobView>;
    labels: Verb<VcaLabelQuery, { hits: VcaLabelHit[]; total: number }>;
    export: Verb<VcaExportInput, ExportedFile>;
  };
  accounts: {
    list: Verb<In<typeof S.VOID_INPUT>, AccountView[]>;
    save: Verb<AccountInput, AccountView>;
    remove: Verb<In<typeof S.BY_ID>, { removed: true }>;
    test: Verb<In<typeof S.BY_ID>, AccountTestResult>;
  };
  settings: {
    get: Verb<In<typeof S.VOID_INPUT>, Settings>;
    set: Verb<SettingsPatch, Settings>;
  };
  app: {
    status: Verb<In<typeof S.VOID_INPUT>, AppStatus>;
    /** Desktop only; elsewhere an error with code 'not-supported-here'. */
    openDataFolder: Verb<In<typeof S.VOID_INPUT>, { opened: true }>;
    /**
     * Lets the person choose a folder (to watch): the system's dialog on the desktop, a listing
     * to browse on the headless door (FolderChoice); `path` is where the dialog starts, or the
     * folder to list. In-process: 'not-supported-here'.
     */
    chooseFolder: Verb<In<typeof S.CHOOSE_FOLDER>, FolderChoice>;
    /**
     * Brings the app's window to the front, with files or folders handed to it to upload as a
     * second launch hands them (`npm start` while the app runs). Desktop only; elsewhere
     * 'not-supported-here'.
     */
    show: Verb<In<typeof S.SHOW_APP>, { shown: true }>;
    /**
     * Writes a support bundle (a zip in the data folder's `support/`: versions, settings
     * without secrets, the event log and log files with secrets redacted, the uploaded,
     * failed and skipped files with reasons and request ids) and returns where it is.
     */
    supportBundle: Verb<In<typeof S.VOID_INPUT>, { path: string; bytes: number }>;
  };
}

/** One folder listed for a folder browser drawn by the screen (the headless door's answer to `app.chooseFolder`). */
export interface FolderListing {
  /** Absolute path of the folder listed. */
  path: string;
  /** Its parent, or null at the top of what may be browsed. */
  parent: string | null;
  entries: Array<{ name: string; path: string; kind: 'folder' | 'file'; size: number | null }>;
}

/**
 * What `app.chooseFolder` answers. The desktop door opens the system's folder dialog and
 * answers what the person chose (`chosen`, or `canceled`); a door without a system dialog
 * (the headless one, whose screen is in a browser) answers the `listing` of the folder asked
 * for (the user's home when none), and the screen draws its own browser, asking again for
 * each folder it opens.
 */
export type FolderChoice =
  { kind: 'chosen'; path: string } | { kind: 'canceled' } | { kind: 'listing'; listing: FolderListing };

export interface IgnorePreview {
  /** Relative paths the rules exclude (the first `limit`), and why. */
  ignored: Array<{ relPath: string; reason: 'hidden' | 'ignore-rule' | 'not-included' }>;
  ignoredCount: number;
  includedCount: number;
}

export interface FmgrStatusSnapshot {
  at: number;
  code: number;
  state: string;
  source: 'poll' | 'notify';
}

export type ApiArea = keyof AppApi;
export type ApiVerb<A extends ApiArea> = keyof AppApi[A] & string;
/** "transfers.list", "roots.add", …: the name a door routes by. */
export type ApiMethod = { [A in ApiArea]: `${A}.${ApiVerb<A>}` }[ApiArea];

type MethodFn<M extends ApiMethod> = M extends `${infer A}.${infer V}`
  ? A extends ApiArea
    ? V extends keyof AppApi[A]
      ? AppApi[A][V]
      : never
    : never
  : never;
export type ApiInput<M extends ApiMethod> = MethodFn<M> extends Verb<infer I, unknown> ? I : never;
export type ApiOutput<M extends ApiMethod> = MethodFn<M> extends Verb<never, infer O> ? O : never;

/**
 * Every verb of `AppApi` at run time. The doors and the renderer bridge are derived from
 * this list; `satisfies` makes the compiler refuse a list that misses or invents a verb.
 */
export const API_VERBS = {
  transfers: ['list', 'get', 'add', 'pause', 'resume', 'cancel', 'retry', 'remove'],
  roots: ['list', 'plan', 'add', 'update', 'pause', 'resume', 'remove', 'rescan', 'previewIgnores'],
  fmgr: ['submit', 'track', 'lookup', 'list', 'get'],
  vca: ['create', 'track', 'lookup', 'list', 'get', 'decide', 'acceptAbove', 'setThreshold', 'labels', 'export'],
  accounts: ['list', 'save', 'remove', 'test'],
  settings: ['get', 'set'],
  app: ['status', 'openDataFolder', 'chooseFolder', 'show', 'supportBundle'],
} as const satisfies { [A in ApiArea]: ReadonlyArray<ApiVerb<A>> };

type Exhaustive<A extends ApiArea> = Exclude<ApiVerb<A>, (typeof API_VERBS)[A][number]> extends never ? true : false;
/** Compile-time check that API_VERBS lists every verb of every area. */
export const API_VERBS_COMPLETE: { [A in ApiArea]: Exhaustive<A> } = {
  transfers: true,
  roots: true,
  fmgr: true,
  vca: true,
  accounts: true,
  settings: true,
  app: true,
};

/** Every method name, in a stable order. */
export const API_METHODS: readonly ApiMethod[] = (Object.keys(API_VERBS) as ApiArea[]).flatMap((area) =>
  (API_VERBS[area] as readonly string[]).map((verb) => `${area}.${verb}` as ApiMethod),
);

// ---------------------------------------------------------------------------------------
// Events

/** Progress of a running transfer, as the transfers batch carries it (one type with the core's events). */
export interface TransferProgressView extends TransferProgress {
  /**
   * Set when a request failed and will be tried again: why (the engine's words), when, and
   * what to branch on: `action` 'retry' (a wait with backoff), 'disk-full' (waiting for room
   * on the disk), or another step of the retry policy ('restart-block', 'refresh-token'…).
   */
  retry?: { reason: string; nextAttemptAt: number; action: string };
}

/** What a watched folder did, one entry each (the console of `blocklift watch`). */
export type RootActivityView = WatchEvent;

/** A problem the app met on its own (a VCA job it could not create, a root it could not watch…). */
export interface ProblemView {
  code: ErrorCode | (string & {});
  message: string;
  params: Record<string, string | number | boolean | null>;
  at: number;
  transferId?: number;
  rootId?: number;
  key?: string;
}

/**
 * What a front end receives, by event name. Batches come at most 10 times a second; each
 * holds the latest snapshot of everything that changed since the last one (a state seen in
 * between may be skipped, the last state of every transfer always arrives).
 */
export interface AppEvents {
  transfers: {
    /** Transfers whose row changed (state, error…), latest snapshot each. */
    changed: TransferView[];
    /** Ids removed from the list. */
    removed: number[];
    /** Progress of the transfers that moved bytes since the last batch. */
    progress: TransferProgressView[];
    totals: TransferTotals;
    /** Bytes per second over every transfer, now. */
    throughput: number;
  };
  roots: { changed: WatchRootView[]; removed: number[] };
  fmgr: { changed: FmgrTaskView[] };
  vca: { changed: VcaJobView[] };
  problems: { problems: ProblemView[] };
  /** What the watched folders did since the last batch, in order (files finished, rejected, scans, states). */
  rootActivity: { events: RootActivityView[] };
  settings: Settings;
  accounts: AccountView[];
  /** A batch of manual transfers finished (for notifications): counts by outcome. */
  batchFinished: { done: number; failed: number; skipped: number; canceled: number };
}

export type AppEventName = keyof AppEvents;
/** One event as a listener of the service receives it (and as a door forwards it: name and payload). */
export type AppEventMessage = { [N in AppEventName]: { name: N; payload: AppEvents[N] } }[AppEventName];
/**
 * Every event name at run time (the headless door forwards only these to a browser);
 * `satisfies` refuses a name AppEvents does not have, APP_EVENT_NAMES_COMPLETE one it misses.
 */
export const APP_EVENT_NAMES = [
  'transfers',
  'roots',
  'fmgr',
  'vca',
  'problems',
  'rootActivity',
  'settings',
  'accounts',
  'batchFinished',
] as const satisfies readonly AppEventName[];

/** The event names AppEvents has and APP_EVENT_NAMES does not list (never, while the list is complete). */
type UnlistedEvents = Exclude<AppEventName, (typeof APP_EVENT_NAMES)[number]>;
/** Compile-time check that APP_EVENT_NAMES lists every event: an unlisted one makes this `true` a type error naming it. */
export const APP_EVENT_NAMES_COMPLETE: [UnlistedEvents] extends [never] ? true : { unlisted: UnlistedEvents } = true;

export type { FmgrOp, FmgrOpName };
