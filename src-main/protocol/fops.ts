import { FMGR_OPS, fmgrOpProblem, type FmgrOp, type FmgrOpName } from '../shared/fmgr-ops';
import { urlsafeB64Encode, urlsafeB64DecodeText } from './base64';

/**
 * Fmgr operations (protocol-notes "Fmgr"): typed descriptions, and the one place that turns
 * them into the fops grammar and back. Nothing else builds fops strings.
 */
export type { FmgrOp, FmgrOpName };
export { FMGR_OPS };

export class FopsSyntaxError extends Error {
  override readonly name = 'FopsSyntaxError';
}

const b64 = urlsafeB64Encode;

/**
 * Checks the values of an operation before it is written (the type cannot say "non-empty"
 * or "32 hex digits", and values come from people) with the rules of shared/fmgr-ops.ts:
 * throws FopsSyntaxError with the reason.
 */
export function validateFop(op: FmgrOp): void {
  const problem = fmgrOpProblem(op);
  if (problem !== undefined) throw new FopsSyntaxError(problem);
}

/** One fops entry, e.g. `bucket/<b64>/key/<b64>`. Validates first (validateFop). */
export function buildFop(op: FmgrOp): string {
  validateFop(op);
  const parts: string[] = [];
  const add = (name: string, value: string | undefined, encode = true) => {
    if (value !== undefined) parts.push(name, encode ? b64(value) : value);
  };
  switch (op.op) {
    case 'fetch':
      add('fetchURL', op.fetchURL);
      add('bucket', op.bucket);
      add('key', op.key);
      add('prefix', op.prefix);
      add('md5', op.md5, false);
      break;
    case 'copy':
    case 'move':
      add('resource', `${op.srcBucket}:${op.srcKey}`);
      add('bucket', op.bucket);
      add('key', op.key);
      add('prefix', op.prefix);
      break;
    case 'delete':
      add('bucket', op.bucket);
      add('key', op.key);
      break;
    case 'deletePrefix':
      add('bucket', op.bucket);
      add('prefix', op.prefix);
      add('output', op.output);
      break;
    case 'deletem3u8':
      add('bucket', op.bucket);
      add('key', op.key);
      add('deletets', op.deletets === undefined ? undefined : String(op.deletets), false);
      break;
    case 'setdeadline':
      add('bucket', op.bucket);
      add('prefix', op.prefix);
      add('deadline', String(op.deadline), false);
      break;
    case 'compress':
      add('bucket', op.bucket);
      add('keys', op.keys.map((k) => b64(k)).join('|'), false);
      add('saveas', `${op.saveAsBucket}:${op.saveAsKey}`);
      break;
  }
  return parts.join('/');
}

export interface FmgrSubmission {
  fops: string;
  notifyURL?: string;
  force?: 0 | 1;
  separate?: 0 | 1;
}

/** The form body of `POST /fmgr/<op>`; several ops of one kind are joined with `;`. */
export function buildFmgrBody(
  ops: readonly FmgrOp[],
  opts: { notifyURL?: string; force?: 0 | 1; separate?: 0 | 1 } = {},
): string {
  if (ops.length === 0) throw new FopsSyntaxError('an Fmgr submission needs at least one operation');
  const params = new URLSearchParams();
  params.set('fops', ops.map(buildFop).join(';'));
  if (opts.notifyURL !== undefined) params.set('notifyURL', b64(opts.notifyURL));
  if (opts.force !== undefined) params.set('force', String(opts.force));
  if (opts.separate !== undefined) params.set('separate', String(opts.separate));
  return params.toString();
}

const PLAIN_VALUES = new Set(['md5', 'deletets', 'deadline', 'keys']);

function pairs(fop: string): Map<string, string> {
  const segs = fop.split('/');
  if (segs.length % 2 !== 0) throw new FopsSyntaxError(`fops entry has a name without a value: ${fop.slice(0, 100)}`);
  const map = new Map<string, string>();
  for (let i = 0; i < segs.length; i += 2) {
    const name = segs[i]!;
    const raw = segs[i + 1]!;
    if (map.has(name)) throw new FopsSyntaxError(`fops entry repeats ${name}`);
    let value: string;
    try {
      value = PLAIN_VALUES.has(name) ? raw : urlsafeB64DecodeText(raw);
    } catch {
      throw new FopsSyntaxError(`fops value of ${name} is not URL-safe Base64`);
    }
    map.set(name, value);
  }
  return map;
}

function need(map: Map<string, string>, name: string, op: string): string {
  const v = map.get(name);
  if (v === undefined || v === '') throw new FopsSyntaxError(`${op} needs ${name}`);
  return v;
}

function splitEntry(entry: string, what: string): { bucket: string; key: string } {
  const i = entry.indexOf(':');
  if (i <= 0 || i === entry.length - 1) throw new FopsSyntaxError(`${what} must be "bucket:key"`);
  return { bucket: entry.slice(0, i), key: entry.slice(i + 1) };
}

/** Parses one fops entry of the given operation; throws FopsSyntaxError with the reason. */
export function parseFop(opName: string, fop: string): FmgrOp {
  if (!(FMGR_OPS as readonly string[]).includes(opName)) throw new FopsSyntaxError(`unknown Fmgr operation ${opName}`);
  const m = pairs(fop);
  const allowed: Record<FmgrOpName, string[]> = {
    fetch: ['fetchURL', 'bucket', 'key', 'prefix', 'md5'],
    copy: ['resource', 'bucket', 'key', 'prefix'],
    move: ['resource', 'bucket', 'key', 'prefix'],
    delete: ['bucket', 'key'],
    deletePrefix: ['bucket', 'prefix', 'output'],
    deletem3u8: ['bucket', 'key', 'deletets'],
    setdeadline: ['bucket', 'prefix', 'deadline'],
    compress: ['bucket', 'keys', 'saveas'],
  };
  const op = opName as FmgrOpName;
  for (const name of m.keys()) {
    if (!allowed[op].includes(name)) throw new FopsSyntaxError(`${op} does not take ${name}`);
  }
  const opt = (name: string) => m.get(name);
  switch (op) {
    case 'fetch': {
      const md5 = opt('md5');
      if (md5 !== undefined && !/^[0-9a-f]{32}$/i.test(md5)) throw new FopsSyntaxError('md5 must be 32 hex digits');
      return {
        op,
        fetchURL: need(m, 'fetchURL', op),
        bucket: need(m, 'bucket', op),
        key: opt('key'),
        prefix: opt('prefix'),
        md5,
      };
    }
    case 'copy':
    case 'move': {
      const src = splitEntry(need(m, 'resource', op), 'resource');
      return {
        op,
        srcBucket: src.bucket,
        srcKey: src.key,
        bucket: need(m, 'bucket', op),
        key: opt('key'),
        prefix: opt('prefix'),
      };
    }
    case 'delete':
      return { op, bucket: need(m, 'bucket', op), key: need(m, 'key', op) };
    case 'deletePrefix':
      return { op, bucket: need(m, 'bucket', op), prefix: need(m, 'prefix', op), output: opt('output') };
    case 'deletem3u8': {
      const d = opt('deletets');
      if (d !== undefined && d !== '0' && d !== '1') throw new FopsSyntaxError('deletets must be 0 or 1');
      return {
        op,
        bucket: need(m, 'bucket', op),
        key: need(m, 'key', op),
        deletets: d === undefined ? undefined : (Number(d) as 0 | 1),
      };
    }
    case 'setdeadline': {
      const d = need(m, 'deadline', op);
      if (!/^-?\d+$/.test(d) || Number(d) < -1)
        throw new FopsSyntaxError('deadline must be a whole number of days, -1 or more');
      return { op, bucket: need(m, 'bucket', op), prefix: opt('prefix'), deadline: Number(d) };
    }
    case 'compress': {
      const keys = need(m, 'keys', op)
        .split('|')
        .map((k) => {
          try {
            return urlsafeB64DecodeText(k);
          } catch {
            throw new FopsSyntaxError('each compress key must be URL-safe Base64');
          }
        });
      const save = splitEntry(need(m, 'saveas', op), 'saveas');
      return { op, bucket: need(m, 'bucket', op), keys, saveAsBucket: save.bucket, saveAsKey: save.key };
    }
  }
}

/** The cmd string an Fmgr status item shows for an operation. */
export function fopCommand(op: FmgrOp): string {
  return `${op.op}/${buildFop(op)}`;
}
