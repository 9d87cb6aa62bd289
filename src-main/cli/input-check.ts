import type { z } from 'zod';
import { codeOfIssue } from '../shared/schema-rules';
import { CliError } from './cli-error';

/**
 * Checks a command's input with the contract's schema (shared/schemas.ts) before anything is
 * opened: the same rules and words as the app's door, said with the flag the person typed.
 * `flagOf` names the flag of a field path ("stabilityMs" → "--stability-ms"); a refusal is a
 * CliError (exit 2) "<flag>: <what is wrong>", whose --json code is the rule's catalog code.
 */
export function checked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  flagOf: (path: readonly PropertyKey[]) => string | undefined,
): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const flag = flagOf(issue.path) ?? issue.path.map(String).join('.');
  throw new CliError(`${flag ? `${flag}: ` : ''}${issue.message}`, 2, codeOfIssue(issue)?.code ?? 'bad-input');
}
