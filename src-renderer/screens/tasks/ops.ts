/**
 * The form of each of the eight Fmgr operations: which fields it shows and how, and how the
 * typed values become an `FmgrOp`. Which fields are required and every value's rule come from
 * the contract's schema of the operation (shared/fmgr-ops.ts), the one the service checks
 * with: the form refuses what the door would, with the same words. Pure, so the rules are
 * tested without a screen.
 */
import { FMGR_OP_SCHEMAS, type FmgrOp, type FmgrOpName } from '../../../src-main/shared/fmgr-ops';

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
  /** From the operation's schema: the field may not be left out. */
  required: boolean;
  kind: 'text' | 'url' | 'count' | 'lines' | 'flag';
}

const kinds: Partial<Record<FieldName, FieldSpec['kind']>> = {
  fetchURL: 'url',
  deadline: 'count',
  keys: 'lines',
  deletets: 'flag',
};

/** The fields of an operation in the schema's order, required where the schema says so. */
function fieldsOf(op: FmgrOpName): FieldSpec[] {
  const shape = FMGR_OP_SCHEMAS[op].shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
  return Object.keys(shape)
    .filter((name) => name !== 'op')
    .map((name) => ({
      name: name as FieldName,
      required: !shape[name]!.safeParse(undefined).success,
      kind: kinds[name as FieldName] ?? 'text',
    }));
}

export const OP_FIELDS = Object.fromEntries(
  (Object.keys(FMGR_OP_SCHEMAS) as FmgrOpName[]).map((op) => [op, fieldsOf(op)]),
) as Record<FmgrOpName, FieldSpec[]>;

export type OpValues = Partial<Record<FieldName, string | boolean>>;
/**
 * Field → what is wrong with it: 'required', 'url' or 'count' (the screen words it), or a
 * rule of the operation's schema broken, with the schema's words.
 */
export type OpErrors = Partial<Record<FieldName, 'required' | 'url' | 'count' | { rule: string }>>;

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
  const checked = FMGR_OP_SCHEMAS[op].safeParse(out);
  if (checked.success) return { ok: true, op: checked.data };
  for (const issue of checked.error.issues) {
    const field = String(issue.path[0] ?? '') as FieldName;
    if (field && !errors[field]) errors[field] = { rule: issue.message };
  }
  return { ok: false, errors };
}
