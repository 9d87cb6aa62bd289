import type { ApiArea, AppApi, Result } from '../../shared/contract';
import { SCHEMAS } from '../../shared/schemas';
import { appError, knownError } from './errors';

type VerbOf<A extends ApiArea, V extends keyof AppApi[A]> = AppApi[A][V];
type In<F> = F extends (input: infer I) => Promise<Result<unknown>> ? I : never;
type Out<F> = F extends (input: never) => Promise<Result<infer O>> ? O : never;

/** What an area implements: each verb takes its parsed input and returns (or resolves to) its value, or throws. */
export type AreaImpl<A extends ApiArea> = {
  [V in keyof AppApi[A]]: (input: In<VerbOf<A, V>>) => Out<VerbOf<A, V>> | Promise<Out<VerbOf<A, V>>>;
};

/** Where an error nobody expected goes (the event log), with the method it came from. */
export type InternalErrorSink = (method: string, e: unknown) => void;

/**
 * The one place that turns a verb into the contract's shape: the input is parsed with the
 * verb's schema (a failure is 'invalid-input', the verb does not run), the verb runs, and
 * whatever it throws becomes `{ ok: false, error }` with a catalog code (errors.ts; a schema's
 * refusal carries the code of the rule it broke, shared/schema-rules.ts). An
 * error no mapping knows is logged through `sink` and answered 'internal' without its text
 * (its message could name internals). Never rejects.
 */
export function area<A extends ApiArea>(name: A, impl: AreaImpl<A>, sink: InternalErrorSink): AppApi[A] {
  const out: Record<string, (input: unknown) => Promise<Result<unknown>>> = {};
  for (const verb of Object.keys(impl) as Array<keyof AppApi[A] & string>) {
    const method = `${name}.${verb}` as keyof typeof SCHEMAS;
    const schema = SCHEMAS[method];
    const fn = impl[verb] as (input: unknown) => unknown;
    out[verb] = async (input: unknown): Promise<Result<unknown>> => {
      try {
        const parsed = schema.parse(input);
        return { ok: true, value: await fn(parsed) };
      } catch (e) {
        const known = knownError(e);
        if (known) return { ok: false, error: known };
        sink(method, e);
        return { ok: false, error: appError('internal', { detail: `${method} failed` }) };
      }
    };
  }
  return out as unknown as AppApi[A];
}
