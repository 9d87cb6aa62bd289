import { z } from 'zod';
import type { WatchRootOptions } from '../shared/watch-views';
import { checkKeyTemplate } from './keymap';

export type { WatchRootOptions };

export const DEFAULT_STABILITY_MS = 2000;

const optionsSchema = z.object({
  ignore: z.array(z.string()).default([]),
  useDefaultIgnores: z.boolean().default(true),
  includeOnly: z.array(z.string().min(1)).default([]),
  includeHidden: z.boolean().default(false),
  symlinks: z.enum(['skip', 'follow']).default('skip'),
  stabilityMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3600_000)
    .default(DEFAULT_STABILITY_MS),
  conflict: z.enum(['skip', 'overwrite', 'rename']).default('overwrite'),
  localDelete: z.enum(['keep', 'delete-remote']).default('keep'),
  rename: z.enum(['server-side', 'upload']).default('server-side'),
  vcaForVideos: z.boolean().default(false),
  keyTemplate: z.string().min(1).default('{relpath}'),
  templateTimeZone: z.enum(['local', 'utc']).default('local'),
  deadlineDays: z.number().int().min(1).optional(),
});

export class WatchOptionsError extends Error {
  override readonly name = 'WatchOptionsError';
  readonly code = 'invalid-watch-options';
}

/** Fills defaults and checks every option; throws WatchOptionsError naming the first bad field. */
export function normalizeWatchOptions(input: unknown = {}): WatchRootOptions {
  const parsed = optionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'options';
    throw new WatchOptionsError(`watch option ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const problem = checkKeyTemplate(parsed.data.keyTemplate);
  if (problem) throw new WatchOptionsError(`watch option keyTemplate: ${problem}`);
  return parsed.data;
}
