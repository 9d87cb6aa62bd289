/**
 * The eight Fmgr operations: one zod schema each, written once here with their fields and
 * rules (the words a person reads when a value is refused, and the catalog code
 * 'fmgr-invalid-op'); `FmgrOp` is derived from them. The service's door, the CLI's flags,
 * the renderer's task form and protocol/fops.ts (which turns them into the fops grammar and
 * back) all check operations with `FMGR_OP`.
 */
import { z } from 'zod';
import { rule } from './schema-rules';

const MD5_HEX = /^[0-9a-f]{32}$/i;
const HTTP_URL = /^https?:\/\/[^\s]+$/i;

const invalidOp = <T>(problem: (v: T) => string | undefined) => rule<T>('fmgr-invalid-op', problem);

/** A value the operation needs: not empty. */
const required = (op: string, what: string, max = 1024) =>
  z
    .string()
    .max(max)
    .check(invalidOp((v: string) => (v === '' ? `${op} needs a non-empty ${what}` : undefined)));

/** A value that may be left out, but not given empty (an empty segment means nothing to the service). */
const optional = (op: string, what: string, max = 1024) =>
  z
    .string()
    .max(max)
    .check(invalidOp((v: string) => (v === '' ? `${op}: ${what} is empty; give a value or leave it out` : undefined)))
    .optional();

/** The bucket half of a "bucket:key" entry cannot hold ':' (the service splits at the first one). */
const entryBucket = (op: string, what: string) =>
  required(op, what, 255).check(
    invalidOp((v: string) => (v.includes(':') ? `${op}: ${what} "${v.slice(0, 100)}" cannot contain ':'` : undefined)),
  );

const fetchOp = z
  .object({
    op: z.literal('fetch'),
    fetchURL: required('fetch', 'fetchURL', 2048).check(
      invalidOp((v: string) => (v !== '' && !HTTP_URL.test(v) ? 'fetch: fetchURL must be an http(s) URL' : undefined)),
    ),
    bucket: required('fetch', 'bucket', 255),
    key: optional('fetch', 'key'),
    prefix: optional('fetch', 'prefix'),
    /** The expected MD5 of the content, 32 hex digits. */
    md5: z
      .string()
      .max(64)
      .check(
        invalidOp((v: string) =>
          MD5_HEX.test(v) ? undefined : `fetch: md5 must be 32 hex digits, not "${v.slice(0, 100)}"`,
        ),
      )
      .optional(),
  })
  .strict();

const copyOrMove = (op: 'copy' | 'move') =>
  z
    .object({
      op: z.literal(op),
      srcBucket: entryBucket(op, 'source bucket'),
      srcKey: required(op, 'source key'),
      bucket: required(op, 'bucket', 255),
      key: optional(op, 'key'),
      prefix: optional(op, 'prefix'),
    })
    .strict();

const copyOp = copyOrMove('copy');
const moveOp = copyOrMove('move');

const deleteOp = z
  .object({ op: z.literal('delete'), bucket: required('delete', 'bucket', 255), key: required('delete', 'key') })
  .strict();

const deletePrefixOp = z
  .object({
    op: z.literal('deletePrefix'),
    bucket: required('deletePrefix', 'bucket', 255),
    prefix: required('deletePrefix', 'prefix'),
    /** Key of a result listing. */
    output: optional('deletePrefix', 'output'),
  })
  .strict();

const deletem3u8Op = z
  .object({
    op: z.literal('deletem3u8'),
    bucket: required('deletem3u8', 'bucket', 255),
    key: required('deletem3u8', 'key'),
    /** 1: delete the TS segments too. */
    deletets: z
      .custom<0 | 1>((v) => v === 0 || v === 1, {
        message: 'deletem3u8: deletets must be 0 or 1',
        params: { code: 'fmgr-invalid-op', detail: 'deletem3u8: deletets must be 0 or 1' },
      })
      .optional(),
  })
  .strict();

const setdeadlineOp = z
  .object({
    op: z.literal('setdeadline'),
    bucket: required('setdeadline', 'bucket', 255),
    prefix: optional('setdeadline', 'prefix'),
    /** Retention in days of every key under the prefix; -1 removes it. */
    deadline: z
      .number()
      .check(
        invalidOp((v: number) =>
          Number.isInteger(v) && v >= -1 && v <= 36500
            ? undefined
            : 'deadline must be a whole number of days, -1 or more (up to 36500)',
        ),
      ),
  })
  .strict();

const compressOp = z
  .object({
    op: z.literal('compress'),
    bucket: required('compress', 'bucket', 255),
    keys: z
      .array(z.string().max(1024))
      .max(10_000)
      .check(
        invalidOp((keys: string[]) => {
          if (keys.length === 0) return 'compress needs at least one key';
          const empty = keys.indexOf('');
          return empty < 0 ? undefined : `compress needs a non-empty key (number ${empty + 1})`;
        }),
      ),
    saveAsBucket: entryBucket('compress', 'save-as bucket'),
    saveAsKey: required('compress', 'save-as key'),
  })
  .strict();

/** One Fmgr operation, checked: its fields by its `op`, and the rules of each value. */
export const FMGR_OP = z.discriminatedUnion('op', [
  fetchOp,
  copyOp,
  moveOp,
  deleteOp,
  deletePrefixOp,
  deletem3u8Op,
  setdeadlineOp,
  compressOp,
]);

export type FmgrOp = z.output<typeof FMGR_OP>;
export type FmgrOpName = FmgrOp['op'];

/** The schema of each operation, by name (a form shows its fields: `FMGR_OP_SCHEMAS[op].shape`). */
export const FMGR_OP_SCHEMAS = {
  fetch: fetchOp,
  copy: copyOp,
  move: moveOp,
  delete: deleteOp,
  deletePrefix: deletePrefixOp,
  deletem3u8: deletem3u8Op,
  setdeadline: setdeadlineOp,
  compress: compressOp,
} as const satisfies { [N in FmgrOpName]: z.ZodObject };

export const FMGR_OPS = Object.keys(FMGR_OP_SCHEMAS) as readonly FmgrOpName[];

/** Why `op` cannot be sent, in words (the first problem), or undefined when it can. */
export function fmgrOpProblem(op: unknown): string | undefined {
  const name = (op as { op?: unknown } | null)?.op;
  if (!(FMGR_OPS as readonly unknown[]).includes(name)) return `unknown Fmgr operation ${String(name)}`;
  const r = FMGR_OP.safeParse(op);
  return r.success ? undefined : (r.error.issues[0]?.message ?? 'not a valid Fmgr operation');
}
