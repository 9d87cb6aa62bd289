import { z } from 'zod';
import type { AppError } from './contract';
import { catalogMessage, isErrorCode, type ErrorCode } from './errors';

/**
 * How the contract's schemas (schemas.ts, fmgr-ops.ts) say what is wrong: a domain rule is a
 * zod check whose issue carries the catalog code and the params of the catalog's message
 * (`params.code`), with words a person understands; `coded` gives every issue of a whole
 * subtree one code (a folder's options). `appErrorOfIssues` turns a refusal into the
 * contract's AppError: the first issue's code, else 'invalid-input'. The service's door, the
 * CLI and the renderer's forms all read refusals through it.
 */

type Params = AppError['params'];

/** The params of an issue that carries a catalog code (zod keeps them on custom issues). */
export interface CodedParams {
  code: ErrorCode;
  [name: string]: string | number | boolean | null;
}

/**
 * A domain rule as a zod check: `problem` returns what is wrong in words, or undefined; the
 * issue carries `code` and the params `params` makes (the words are passed as `detail`).
 */
export function rule<T>(
  code: ErrorCode,
  problem: (value: T) => string | undefined,
  params: (value: T, words: string) => Params = (_v, words) => ({ detail: words }),
): z.core.CheckFn<T> {
  return (ctx) => {
    const words = problem(ctx.value);
    if (words === undefined) return;
    const coded: CodedParams = { ...params(ctx.value, words), code };
    ctx.issues.push({ code: 'custom', input: ctx.value, message: words, params: coded });
  };
}

/**
 * `schema`, with every issue it raises carrying `code` (an issue with a code of its own keeps
 * it). `detail` says where: "<name>.<path>: <message>" ("stabilityMs: Too small…").
 */
export function coded<S extends z.ZodType>(code: ErrorCode, schema: S): z.ZodType<z.output<S>, z.input<S>> {
  return z.unknown().transform((value, ctx) => {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    for (const i of r.error.issues) {
      const where = i.path.map(String).join('.');
      const own = i.code === 'custom' ? (i.params as Partial<CodedParams> | undefined) : undefined;
      const params: CodedParams =
        own && own.code && isErrorCode(own.code)
          ? (own as CodedParams)
          : { code, detail: where ? `${where}: ${i.message}` : i.message };
      ctx.issues.push({ code: 'custom', input: value, path: i.path, message: i.message, params });
    }
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<S>, z.input<S>>;
}

/** The catalog code and params an issue carries, if any. */
export function codeOfIssue(issue: z.core.$ZodIssue): CodedParams | undefined {
  if (issue.code !== 'custom') return undefined;
  const p = issue.params as Partial<CodedParams> | undefined;
  return p && typeof p.code === 'string' && isErrorCode(p.code) ? (p as CodedParams) : undefined;
}

/** One line per issue ("target.bucket: Too small…"), the first five. */
export function issuesDetail(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`)
    .join('; ');
}

/**
 * A refusal as the contract's AppError: the first issue's catalog code and params when it
 * carries one (the message is the catalog's, filled in), else 'invalid-input' with every
 * issue in `detail`.
 */
export function appErrorOfIssues(issues: readonly z.core.$ZodIssue[]): AppError {
  const first = issues[0];
  const coded = first && codeOfIssue(first);
  if (coded) {
    const { code, ...params } = coded;
    return { code, message: catalogMessage(code, params), params };
  }
  const params = { detail: issuesDetail(issues) };
  return { code: 'invalid-input', message: catalogMessage('invalid-input', params), params };
}

/** The words of the first issue (for a form's field or a command-line flag). */
export function firstProblem(issues: readonly z.core.$ZodIssue[]): string {
  return issues[0]?.message ?? 'not valid';
}
