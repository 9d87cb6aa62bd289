import { z } from 'zod';
import type { ApiInput, ApiMethod } from '../../shared/contract';
import { ALL_TRANSFER_STATES } from '../../store/transfer-query';

/**
 * One zod schema per verb of the contract: every input that crosses the boundary (the
 * renderer is untrusted) is parsed here before a verb runs. Objects are strict (an unknown
 * field is refused, not ignored), ids are positive integers, texts have bounds. Deeper rules
 * (a folder's options, a schedule's windows, an Fmgr operation's fields) are checked by the
 * layer that owns them and mapped to their own codes (api/errors.ts).
 */

const id = z.number().int().positive();
const text = (max = 4096) => z.string().max(max);
const nonEmpty = (max = 4096) => z.string().min(1).max(max);
const bytes = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const voidInput = z.union([z.undefined(), z.null(), z.object({}).strict()]).transform((): void => undefined);
const state = z.enum(ALL_TRANSFER_STATES as [string, ...string[]]);
const conflict = z.enum(['skip', 'overwrite', 'rename']);
const selection = z.union([
  z.object({ ids: z.array(id).max(100_000) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);
const oneOrAll = z.union([z.object({ id }).strict(), z.object({ all: z.literal(true) }).strict()]);
const watchOptions = z.record(z.string(), z.unknown());
const page = { offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(1000).optional() };
const tracking = z.enum(['active', 'done', 'lost', 'failed', 'stopped']);
const httpUrl = z
  .string()
  .max(2048)
  .refine((u) => /^https?:\/\/[^\s]+$/i.test(u), 'must be an http(s) URL');

const transferOptions = z
  .object({
    mimeType: text(255).optional(),
    deadlineDays: z.number().int().min(1).max(36500).optional(),
    vars: z.record(nonEmpty(100), text(4096)).optional(),
    conflict: conflict.optional(),
    blockSize: bytes.optional(),
  })
  .strict();

const rootInput = z
  .object({
    path: nonEmpty(),
    accountId: id.optional(),
    bucket: nonEmpty(255),
    prefix: text(1024).optional(),
    options: watchOptions.optional(),
  })
  .strict();

const scheduleWindow = z
  .object({
    days: z.array(z.number().int().min(0).max(6)).max(7).optional(),
    startMinute: z.number().int().min(0).max(1440),
    endMinute: z.number().int().min(0).max(1440),
    action: z.enum(['run', 'pause']),
    bytesPerSecond: bytes.optional(),
  })
  .strict();
const schedule = z
  .object({
    outside: z.object({ action: z.enum(['run', 'pause']), bytesPerSecond: bytes.optional() }).strict(),
    windows: z.array(scheduleWindow).max(100),
  })
  .strict();
const proxy = z.union([
  z.object({ mode: z.literal('system') }).strict(),
  z.object({ mode: z.literal('none') }).strict(),
  // protocol/proxy.ts speaks plain HTTP to the proxy (CONNECT tunnels carry the TLS).
  z
    .object({ mode: z.literal('url'), url: httpUrl.refine((u) => /^http:\/\//i.test(u), 'must be an http:// URL') })
    .strict(),
]);

const settingsPatch = z
  .object({
    concurrency: z
      .object({ files: z.number().int().min(1).max(64), blocksPerFile: z.number().int().min(1).max(64) })
      .strict(),
    bandwidthLimit: bytes.nullable(),
    schedule: schedule.nullable(),
    blockSize: bytes.refine((b) => b % (4 * 1024 * 1024) === 0, 'must be a multiple of 4 MiB'),
    chunkSize: z
      .number()
      .int()
      .min(256 * 1024)
      .max(1024 * 1024 * 1024)
      .nullable(),
    conflict,
    notifications: z.object({ batchFinished: z.boolean(), failures: z.boolean() }).strict(),
    language: z.enum(['system', 'en', 'zh-CN']),
    theme: z.enum(['system', 'light', 'dark']),
    keepAwake: z.boolean(),
    launchAtLogin: z.boolean(),
    storeSecretsWithoutKeyring: z.boolean(),
  })
  .strict()
  .partial();

const fmgrOp = z.union([
  z
    .object({
      op: z.literal('fetch'),
      fetchURL: httpUrl,
      bucket: nonEmpty(255),
      key: text(1024).optional(),
      prefix: text(1024).optional(),
      md5: text(64).optional(),
    })
    .strict(),
  z
    .object({
      op: z.enum(['copy', 'move']),
      srcBucket: nonEmpty(255),
      srcKey: nonEmpty(1024),
      bucket: nonEmpty(255),
      key: text(1024).optional(),
      prefix: text(1024).optional(),
    })
    .strict(),
  z.object({ op: z.literal('delete'), bucket: nonEmpty(255), key: nonEmpty(1024) }).strict(),
  z
    .object({ op: z.literal('deletePrefix'), bucket: nonEmpty(255), prefix: text(1024), output: text(1024).optional() })
    .strict(),
  z
    .object({
      op: z.literal('deletem3u8'),
      bucket: nonEmpty(255),
      key: nonEmpty(1024),
      deletets: z.union([z.literal(0), z.literal(1)]).optional(),
    })
    .strict(),
  z
    .object({
      op: z.literal('setdeadline'),
      bucket: nonEmpty(255),
      prefix: text(1024).optional(),
      deadline: z.number().int().min(0).max(36500),
    })
    .strict(),
  z
    .object({
      op: z.literal('compress'),
      bucket: nonEmpty(255),
      keys: z.array(nonEmpty(1024)).min(1).max(10_000),
      saveAsBucket: nonEmpty(255),
      saveAsKey: nonEmpty(1024),
    })
    .strict(),
]);

const accountInput = z
  .object({
    id: id.optional(),
    name: nonEmpty(100),
    uploadUrl: httpUrl,
    mgrUrl: httpUrl.nullable().optional(),
    downloadDomain: text(1024).nullable().optional(),
    accessKey: text(256).nullable().optional(),
    secretKey: nonEmpty(1024).nullable().optional(),
    tokenUrl: httpUrl.nullable().optional(),
    proxy: proxy.optional(),
    isDefault: z.boolean().optional(),
  })
  .strict();

/** The schema of every verb, keyed by method name; the compiler checks each against the contract's input type. */
export const SCHEMAS: { [M in ApiMethod]: z.ZodType<ApiInput<M>, unknown> } = {
  'transfers.list': z
    .object({
      states: z.array(state).max(9).optional(),
      accountId: id.optional(),
      source: z.enum(['watch', 'manual', 'cli']).optional(),
      rootId: id.optional(),
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
    .strict() as z.ZodType<ApiInput<'transfers.list'>, unknown>,
  'transfers.get': z.object({ id }).strict(),
  'transfers.add': z
    .object({
      paths: z.array(nonEmpty()).min(1).max(10_000),
      target: z
        .object({
          accountId: id.optional(),
          bucket: nonEmpty(255),
          prefix: text(1024).optional(),
          key: nonEmpty(1024).optional(),
        })
        .strict(),
      options: transferOptions.optional(),
      source: z.enum(['manual', 'cli']).optional(),
    })
    .strict(),
  'transfers.pause': selection,
  'transfers.resume': selection,
  'transfers.cancel': selection,
  'transfers.retry': selection,
  'transfers.remove': selection,
  'roots.list': voidInput,
  'roots.plan': rootInput,
  'roots.add': rootInput,
  'roots.update': z.object({ id, prefix: text(1024).optional(), options: watchOptions.optional() }).strict(),
  'roots.pause': oneOrAll,
  'roots.resume': oneOrAll,
  'roots.remove': z.object({ id }).strict(),
  'roots.rescan': oneOrAll,
  'roots.previewIgnores': z
    .object({ path: nonEmpty(), options: watchOptions, limit: z.number().int().min(1).max(10_000).optional() })
    .strict(),
  'fmgr.submit': z
    .object({
      accountId: id.optional(),
      ops: z.array(fmgrOp).min(1).max(1000),
      force: z.boolean().optional(),
      separate: z.boolean().optional(),
    })
    .strict(),
  'fmgr.track': z.object({ accountId: id.optional(), persistentId: nonEmpty(512) }).strict(),
  'fmgr.lookup': z.object({ accountId: id.optional(), persistentId: nonEmpty(512) }).strict(),
  'fmgr.list': z.object({ tracking: z.array(tracking).max(5).optional(), ...page }).strict(),
  'fmgr.get': z.object({ id }).strict(),
  'vca.create': z
    .object({
      accountId: id.optional(),
      source: z.union([
        z.object({ url: httpUrl, bucket: nonEmpty(255).optional() }).strict(),
        z.object({ transferId: id }).strict(),
      ]),
      minConfidence: z.number().min(0).max(1).optional(),
    })
    .strict(),
  'vca.track': z.object({ accountId: id.optional(), jobId: nonEmpty(512), bucket: nonEmpty(255).optional() }).strict(),
  'vca.lookup': z.object({ accountId: id.optional(), jobId: nonEmpty(512) }).strict(),
  'vca.list': z.object({ tracking: z.array(tracking).max(5).optional(), ...page }).strict(),
  'vca.get': z.object({ id }).strict(),
  'vca.decide': z
    .object({
      jobId: id,
      labelId: id,
      decision: z.enum(['pending', 'accepted', 'rejected', 'corrected']),
      correctedText: nonEmpty(1024).optional(),
    })
    .strict(),
  'vca.acceptAbove': z.object({ jobId: id }).strict(),
  'vca.setThreshold': z.object({ jobId: id, minConfidence: z.number().min(0).max(1) }).strict(),
  'vca.labels': z
    .object({
      text: text(256).optional(),
      type: text(64).optional(),
      minConfidence: z.number().min(0).max(1).optional(),
      ...page,
    })
    .strict(),
  'vca.export': z.object({ jobIds: z.array(id).min(1).max(10_000), format: z.enum(['csv', 'json']) }).strict(),
  'accounts.list': voidInput,
  'accounts.save': accountInput,
  'accounts.remove': z.object({ id }).strict(),
  'accounts.test': z.object({ id }).strict(),
  'settings.get': voidInput,
  'settings.set': settingsPatch,
  'app.status': voidInput,
  'app.openDataFolder': voidInput,
  'app.chooseFolder': z.object({ path: nonEmpty().optional() }).strict(),
  'app.show': z.object({ paths: z.array(nonEmpty()).max(10_000).optional() }).strict(),
  'app.supportBundle': voidInput,
};
