/**
 * The input rules of the contract, written once: one zod schema per verb of `AppApi`, from
 * which the contract's input types are derived (contract.ts: `z.output<typeof …>`). Every
 * input that crosses a door is parsed with these before a verb runs (service/api/envelope.ts);
 * the CLI checks its flags and the renderer its forms with the same schemas, so each rule has
 * one home and one set of words.
 *
 * Objects are strict (an unknown field is refused, not ignored), ids are positive integers,
 * texts have bounds: such refusals are 'invalid-input'. The domain rules (block size, key
 * rules, a folder's options, Fmgr operations) are refinements that carry their catalog code
 * and the words a person reads (schema-rules.ts).
 *
 * Pure (zod only, no Node, no DOM): imported by the renderer too, and bundled by Vite/esbuild.
 */
import { z } from 'zod';
import type { ApiInput, ApiMethod } from './contract';
import { FMGR_OP } from './fmgr-ops';
import { validateKey } from './keys';
import { GiB, MiB, TRANSFER_STATES } from './models';
import { rule } from './schema-rules';
import { WATCH_OPTIONS } from './watch-views';

// ---------------------------------------------------------------------------------------
// Building blocks

const id = z.number().int().positive();
const text = (max = 4096) => z.string().max(max);
const nonEmpty = (max = 4096) => z.string().min(1).max(max);
const bytes = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const voidInput = z.union([z.undefined(), z.null(), z.object({}).strict()]).transform((): void => undefined);
const page = {
  /** Rows to skip; default 0. */
  offset: z.number().int().min(0).optional(),
  /** Rows to return, 1 … 1000; default 200. */
  limit: z.number().int().min(1).max(1000).optional(),
};
/** Whether the app still follows a task: active (polling or waiting for a push) or why it stopped. */
export const TASK_TRACKING = z.enum(['active', 'done', 'lost', 'failed', 'stopped']);
const tracking = TASK_TRACKING;
const httpUrl = z
  .string()
  .max(2048)
  .refine((u) => /^https?:\/\/[^\s]+$/i.test(u), 'must be an http(s) URL');

/** What to do when the key already exists (a 406 from mkfile). */
export const CONFLICT_POLICY = z.enum(['skip', 'overwrite', 'rename']);

// ---------------------------------------------------------------------------------------
// Domain rules

/** Blocks are whole etag units (4 MiB), up to this. */
export const BLOCK_SIZE_UNIT = 4 * MiB;
export const MAX_BLOCK_SIZE = GiB;

const sizeWords = (n: number) => (n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`);

/** Why a block size cannot be used, in words, or undefined. */
export function blockSizeProblem(blockSize: number): string | undefined {
  return Number.isSafeInteger(blockSize) &&
    blockSize > 0 &&
    blockSize % BLOCK_SIZE_UNIT === 0 &&
    blockSize <= MAX_BLOCK_SIZE
    ? undefined
    : `the block size must be a multiple of 4 MiB up to 1 GiB, not ${sizeWords(blockSize)}`;
}

/** A block size in bytes: a multiple of 4 MiB up to 1 GiB ('invalid-setting', name blockSize). */
export const BLOCK_SIZE = bytes.check(
  rule('invalid-setting', blockSizeProblem, (_v, words) => ({ name: 'blockSize', detail: words })),
);

/** An object key a person names: the service's key rules ('key-invalid', with the key and the reason). */
export const OBJECT_KEY = text(1024).check(
  rule(
    'key-invalid',
    (key: string) => {
      const r = validateKey(key.normalize('NFC'));
      return r.ok ? undefined : r.message;
    },
    (key, words) => ({ key, reason: words }),
  ),
);

/** A key prefix: what it puts before a name must still make a valid key ('key-invalid'). */
export const KEY_PREFIX = text(1024).check(
  rule(
    'key-invalid',
    (prefix: string) => {
      if (prefix === '') return undefined;
      const r = validateKey(`${prefix}x`.normalize('NFC'));
      return r.ok ? undefined : r.message;
    },
    (prefix, words) => ({ key: prefix, reason: words }),
  ),
);

// ---------------------------------------------------------------------------------------
// Transfers

export const TRANSFER_STATE = z.enum(
  TRANSFER_STATES as readonly string[] as [TransferStateName, ...TransferStateName[]],
);
type TransferStateName = (typeof TRANSFER_STATES)[number];

export const TRANSFER_QUERY = z
  .object({
    /** Any of these states (empty or missing: all). */
    states: z.array(TRANSFER_STATE).max(9).optional(),
    accountId: id.optional(),
    source: z.enum(['watch', 'manual', 'cli']).optional(),
    rootId: id.optional(),
    /** Case-insensitive substring of the key or the local path. */
    text: text(1024).optional(),
    sort: z
      .object({
        field: z.enum(['createdAt', 'updatedAt', 'name', 'size', 'state', 'progress']),
        direction: z.enum(['asc', 'desc']),
      })
      .strict()
      .optional(),
    ...page,
  })
  .strict();

export const TRANSFER_OPTIONS = z
  .object({
    mimeType: text(255).optional(),
    /** Retention in days (the mkfile Deadline header). */
    deadlineDays: z.number().int().min(1).max(36500).optional(),
    /** Custom variables, names without the `x:` prefix. */
    vars: z.record(nonEmpty(100), text(4096)).optional(),
    conflict: CONFLICT_POLICY.optional(),
  })
  .strict();

/** What `transfers.add` uploads to. */
export const TRANSFER_TARGET = z
  .object({
    /** Missing: the default account (the Local one when the embedded emulator runs). */
    accountId: id.optional(),
    bucket: nonEmpty(255),
    /** Put before every key (e.g. "photos/"). */
    prefix: KEY_PREFIX.optional(),
    /** The exact key, for a single file. */
    key: OBJECT_KEY.optional(),
  })
  .strict();

export const ADD_TRANSFERS = z
  .object({
    /** Files or folders on this machine (folders upload their tree; keys are paths relative to them). */
    paths: z.array(nonEmpty()).min(1).max(10_000),
    target: TRANSFER_TARGET,
    options: TRANSFER_OPTIONS.extend({ blockSize: BLOCK_SIZE.optional() }).strict().optional(),
    /** Default 'manual'. */
    source: z.enum(['manual', 'cli']).optional(),
  })
  .strict();

/** Ids of transfers, or every transfer the verb applies to. */
export const TRANSFER_SELECTION = z.union([
  z.object({ ids: z.array(id).max(100_000) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);

// ---------------------------------------------------------------------------------------
// Watched folders

const ONE_OR_ALL = z.union([z.object({ id }).strict(), z.object({ all: z.literal(true) }).strict()]);

export const ROOT_INPUT = z
  .object({
    path: nonEmpty(),
    accountId: id.optional(),
    bucket: nonEmpty(255),
    /** Put before every key; a file whose key breaks the key rules is listed as rejected. */
    prefix: text(1024).optional(),
    options: WATCH_OPTIONS.optional(),
  })
  .strict();

export const ROOT_UPDATE = z.object({ id, prefix: text(1024).optional(), options: WATCH_OPTIONS.optional() }).strict();

export const PREVIEW_IGNORES = z
  .object({ path: nonEmpty(), options: WATCH_OPTIONS, limit: z.number().int().min(1).max(10_000).optional() })
  .strict();

// ---------------------------------------------------------------------------------------
// Fmgr tasks and VCA jobs

export const FMGR_SUBMIT = z
  .object({
    accountId: id.optional(),
    /** One or more operations of the same kind (`op` of every entry equal). */
    ops: z
      .array(FMGR_OP)
      .min(1)
      .max(1000)
      .check(
        rule('fmgr-invalid-op', (ops) => {
          const wrong = ops.find((o) => o.op !== ops[0]?.op);
          return wrong ? `a ${ops[0]?.op} submission cannot carry a ${wrong.op} operation` : undefined;
        }),
      ),
    force: z.boolean().optional(),
    separate: z.boolean().optional(),
  })
  .strict();

export const FMGR_TRACK = z.object({ accountId: id.optional(), persistentId: nonEmpty(512) }).strict();
/** A task looked up by the service's id: the given account's row first, else any account's. */
export const FMGR_LOOKUP = FMGR_TRACK;

export const TASK_LIST_QUERY = z.object({ tracking: z.array(tracking).max(5).optional(), ...page }).strict();

export const VCA_CREATE = z
  .object({
    accountId: id.optional(),
    /** A video by URL, or an object this app uploaded (its access URL is used). */
    source: z.union([
      z.object({ url: httpUrl, bucket: nonEmpty(255).optional() }).strict(),
      z.object({ transferId: id }).strict(),
    ]),
    /** Minimum confidence the service should return labels above (0 … 1). */
    minConfidence: z.number().min(0).max(1).optional(),
  })
  .strict();

export const VCA_TRACK = z
  .object({ accountId: id.optional(), jobId: nonEmpty(512), bucket: nonEmpty(255).optional() })
  .strict();
export const VCA_LOOKUP = z.object({ accountId: id.optional(), jobId: nonEmpty(512) }).strict();

export const VCA_LABEL_DECISION = z.enum(['pending', 'accepted', 'rejected', 'corrected']);

export const VCA_DECIDE = z
  .object({
    /** The job's local id (VcaJobView.id). */
    jobId: id,
    labelId: id,
    decision: VCA_LABEL_DECISION,
    /** With decision 'corrected': the right text. */
    correctedText: nonEmpty(1024).optional(),
  })
  .strict();

export const VCA_LABEL_QUERY = z
  .object({
    /** Case-insensitive substring of the label text. */
    text: text(256).optional(),
    type: text(64).optional(),
    minConfidence: z.number().min(0).max(1).optional(),
    ...page,
  })
  .strict();

export const VCA_EXPORT = z
  .object({ jobIds: z.array(id).min(1).max(10_000), format: z.enum(['csv', 'json']) })
  .strict();

// ---------------------------------------------------------------------------------------
// Accounts and settings

/** 'system' (environment variables), 'none', or a proxy URL (plain HTTP to the proxy; CONNECT tunnels carry the TLS). */
export const PROXY_SETTING = z.union([
  z.object({ mode: z.literal('system') }).strict(),
  z.object({ mode: z.literal('none') }).strict(),
  z
    .object({ mode: z.literal('url'), url: httpUrl.refine((u) => /^http:\/\//i.test(u), 'must be an http:// URL') })
    .strict(),
]);

export const ACCOUNT_INPUT = z
  .object({
    /** Missing: a new account. */
    id: id.optional(),
    name: nonEmpty(100),
    uploadUrl: httpUrl,
    mgrUrl: httpUrl.nullable().optional(),
    downloadDomain: text(1024).nullable().optional(),
    accessKey: text(256).nullable().optional(),
    /** Write-only: a string sets it, null clears it, missing keeps what is stored. */
    secretKey: nonEmpty(1024).nullable().optional(),
    /** The text the view shows (credentials and query stripped) keeps the stored URL; other text replaces it. */
    tokenUrl: httpUrl.nullable().optional(),
    proxy: PROXY_SETTING.optional(),
    isDefault: z.boolean().optional(),
  })
  .strict();

const scheduleAction = z.enum(['run', 'pause']);

/** One window of the week. Minutes count from local midnight; `endMinute` may be below `startMinute` (crosses midnight). */
export const SCHEDULE_WINDOW = z
  .object({
    /** Days the window starts on, 0 = Sunday … 6 = Saturday; empty or missing = every day. */
    days: z.array(z.number().int().min(0).max(6)).max(7).readonly().optional(),
    startMinute: z.number().int().min(0).max(1440),
    endMinute: z.number().int().min(0).max(1440),
    /** `pause`: no uploading in the window; `run`: uploading, limited to bytesPerSecond when given. */
    action: scheduleAction,
    bytesPerSecond: bytes.optional(),
  })
  .strict();

/** The weekly upload schedule (sync/schedule.ts reads it, and checks its windows: 'invalid-schedule'). */
export const SCHEDULE = z
  .object({
    /** What happens outside every window. */
    outside: z.object({ action: scheduleAction, bytesPerSecond: bytes.optional() }).strict(),
    /** Checked in order; the first window containing the moment wins. */
    windows: z.array(SCHEDULE_WINDOW).max(100).readonly(),
  })
  .strict();

/** The bounds of the concurrency settings (the Settings screen offers the same). */
export const CONCURRENCY_BOUNDS = { files: { min: 1, max: 64 }, blocksPerFile: { min: 1, max: 64 } } as const;

export const SETTINGS = z
  .object({
    /** Files uploading at once, and blocks in flight per file. */
    concurrency: z
      .object({
        files: z.number().int().min(CONCURRENCY_BOUNDS.files.min).max(CONCURRENCY_BOUNDS.files.max),
        blocksPerFile: z
          .number()
          .int()
          .min(CONCURRENCY_BOUNDS.blocksPerFile.min)
          .max(CONCURRENCY_BOUNDS.blocksPerFile.max),
      })
      .strict(),
    /** The user's limit in bytes per second; null: none. The effective limit is the smaller of this and the schedule's. */
    bandwidthLimit: bytes.nullable(),
    /** The weekly upload schedule; null: always run. */
    schedule: SCHEDULE.nullable(),
    /** Block size of new transfers, a multiple of 4 MiB. */
    blockSize: BLOCK_SIZE,
    /** Fixed chunk size in bytes; null: adapt between 256 KiB and the block size. */
    chunkSize: z
      .number()
      .int()
      .min(256 * 1024)
      .max(1024 * 1024 * 1024)
      .nullable(),
    conflict: CONFLICT_POLICY,
    notifications: z.object({ batchFinished: z.boolean(), failures: z.boolean() }).strict(),
    language: z.enum(['system', 'en', 'zh-CN']),
    theme: z.enum(['system', 'light', 'dark']),
    keepAwake: z.boolean(),
    launchAtLogin: z.boolean(),
    /**
     * Desktop, where no system keyring is found (Linux safeStorage on `basic_text`): store
     * account secrets anyway, encrypted with a key fixed in the program (weak). Off: such a
     * secret is kept for the session only. No effect where a keyring is used.
     */
    storeSecretsWithoutKeyring: z.boolean(),
  })
  .strict();

export const SETTINGS_PATCH = SETTINGS.partial();

// ---------------------------------------------------------------------------------------
// Every verb

export const BY_ID = z.object({ id }).strict();
export const VOID_INPUT = voidInput;
export const ROOT_ONE_OR_ALL = ONE_OR_ALL;
export const VCA_JOB = z.object({ jobId: id }).strict();
export const VCA_THRESHOLD = z.object({ jobId: id, minConfidence: z.number().min(0).max(1) }).strict();
export const CHOOSE_FOLDER = z.object({ path: nonEmpty().optional() }).strict();
export const SHOW_APP = z.object({ paths: z.array(nonEmpty()).max(10_000).optional() }).strict();

/** The schema of every verb, keyed by method name (the door parses each input with its verb's schema). */
export const SCHEMAS: { [M in ApiMethod]: z.ZodType<ApiInput<M>, unknown> } = {
  'transfers.list': TRANSFER_QUERY,
  'transfers.get': BY_ID,
  'transfers.add': ADD_TRANSFERS,
  'transfers.pause': TRANSFER_SELECTION,
  'transfers.resume': TRANSFER_SELECTION,
  'transfers.cancel': TRANSFER_SELECTION,
  'transfers.retry': TRANSFER_SELECTION,
  'transfers.remove': TRANSFER_SELECTION,
  'roots.list': VOID_INPUT,
  'roots.plan': ROOT_INPUT,
  'roots.add': ROOT_INPUT,
  'roots.update': ROOT_UPDATE,
  'roots.pause': ONE_OR_ALL,
  'roots.resume': ONE_OR_ALL,
  'roots.remove': BY_ID,
  'roots.rescan': ONE_OR_ALL,
  'roots.previewIgnores': PREVIEW_IGNORES,
  'fmgr.submit': FMGR_SUBMIT,
  'fmgr.track': FMGR_TRACK,
  'fmgr.lookup': FMGR_LOOKUP,
  'fmgr.list': TASK_LIST_QUERY,
  'fmgr.get': BY_ID,
  'vca.create': VCA_CREATE,
  'vca.track': VCA_TRACK,
  'vca.lookup': VCA_LOOKUP,
  'vca.list': TASK_LIST_QUERY,
  'vca.get': BY_ID,
  'vca.decide': VCA_DECIDE,
  'vca.acceptAbove': VCA_JOB,
  'vca.setThreshold': VCA_THRESHOLD,
  'vca.labels': VCA_LABEL_QUERY,
  'vca.export': VCA_EXPORT,
  'accounts.list': VOID_INPUT,
  'accounts.save': ACCOUNT_INPUT,
  'accounts.remove': BY_ID,
  'accounts.test': BY_ID,
  'settings.get': VOID_INPUT,
  'settings.set': SETTINGS_PATCH,
  'app.status': VOID_INPUT,
  'app.openDataFolder': VOID_INPUT,
  'app.chooseFolder': CHOOSE_FOLDER,
  'app.show': SHOW_APP,
  'app.supportBundle': VOID_INPUT,
};
