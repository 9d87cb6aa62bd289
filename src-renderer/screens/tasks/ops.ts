/**
 * The form of each of the eight Fmgr operations: which fields it has, which are required, and
 * how the typed values become an `FmgrOp` — checked here before anything is sent (the service
 * checks again). Pure, so the rules are tested without a screen.
 */
import type { FmgrOp, FmgrOpName } from '../../../src-main/shared/fmgr-ops';

export type FieldName =
  | 'fetchURL'
  | 'bucket'
  | 'key'
  | 'prefix'
  | 'md5'
  | 'srcBucket'
  | 'srcKey'
  | 'output'
  | 'deletets'
  | 'deadline'
  | 'keys'
  | 'saveAsBucket'
  | 'saveAsKey';

export interface FieldSpec {
  name: FieldName;
  required: boolean;
  kind: 'text' | 'url' | 'count' | 'lines' | 'flag';
}

const f = (name: FieldName, required: boolean, kind: FieldSpec['kind'] = 'text'): FieldSpec => ({
  name,
  required,
  kind,
});

export const OP_FIELDS: Record<FmgrOpName, FieldSpec[]> = {
  fetch: [f('fetchURL', true, 'url'), f('bucket', true), f('key', false), f('prefix', false), f('md5', false)],
  copy: [f('srcBucket', true), f('srcKey', true), f('bucket', true), f('key', false), f('prefix', false)],
  move: [f('srcBucket', true), f('srcKey', true), f('bucket', true), f('key', false), f('prefix', false)],
  delete: [f('bucket', true), f('key', true)],
  deletePrefix: [f('bucket', true), f('prefix', true), f('output', false)],
  deletem3u8: [f('bucket', true), f('key', true), f('deletets', false, 'flag')],
  setdeadline: [f('bucket', true), f('prefix', false), f('deadline', true, 'count')],
  compress: [f('bucket', true), f('keys', true, 'lines'), f('saveAsBucket', true), f('saveAsKey', true)],
};

export type OpValues = Partial<Record<FieldName, string | boolean>>;
/** Field → what is wrong with it: 'required', 'url' or 'count' (the screen words it). */
export type OpErrors = Partial<Record<FieldName, 'required' | 'url' | 'count'>>;

export function buildOp(op: FmgrOpName, values: OpValues): { ok: true; op: FmgrOp } | { ok: false; errors: OpErrors } {
  const errors: OpErrors = {};
  const out: Record<string, unknown> = { op };
  for (const spec of OP_FIELDS[op]) {
    const raw = values[spec.name];
    if (spec.kind === 'flag') {
      if (raw === true) out[spec.name] = 1;
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '') {
      if (spec.required) errors[spec.name] = 'required';
      continue;
    }
    if (spec.kind === 'url' && !/^https?:\/\/\S+$/i.test(text)) errors[spec.name] = 'url';
    else if (spec.kind === 'count' && !/^\d+$/.test(text)) errors[spec.name] = 'count';
    else if (spec.kind === 'count') out[spec.name] = Number(text);
    else if (spec.kind === 'lines') {
      const lines = text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      out[spec.name] = lines;
    } else out[spec.name] = text;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, op: out as unknown as FmgrOp };
}
