import {
  DEFAULT_STABILITY_MS,
  WATCH_OPTION_DEFAULTS,
  WATCH_OPTION_FIELDS,
  type WatchRootOptions,
} from '../shared/watch-views';

export type { WatchRootOptions };
export { DEFAULT_STABILITY_MS };

export class WatchOptionsError extends Error {
  override readonly name = 'WatchOptionsError';
  readonly code = 'invalid-watch-options';
}

/**
 * Fills defaults and checks every option with the contract's rules (shared/watch-views.ts);
 * throws WatchOptionsError naming the first bad field.
 */
export function normalizeWatchOptions(input: unknown = {}): WatchRootOptions {
  // Stored options of older versions may carry fields this version dropped: only the known ones count.
  const parsed = WATCH_OPTION_FIELDS.strip().safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'options';
    throw new WatchOptionsError(`watch option ${where}: ${issue?.message ?? 'invalid'}`);
  }
  const given = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
  return { ...WATCH_OPTION_DEFAULTS, ...given };
}
