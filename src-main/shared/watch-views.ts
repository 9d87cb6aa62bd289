import { z } from 'zod';
import { checkKeyTemplate } from './keys';
import { coded, rule } from './schema-rules';

export type { WatchRootState, WatchScanCounts, WatchEvent } from './events';

const conflict = z.enum(['skip', 'overwrite', 'rename']);

/**
 * The options of one watch root, each field optional (what a front end sends: any subset),
 * with the rules of each value. `WATCH_OPTIONS` is this with every refusal carrying the
 * catalog code 'invalid-watch-options'; sync/options.ts fills the defaults
 * (WATCH_OPTION_DEFAULTS), and everything past it reads `WatchRootOptions` and never
 * re-validates.
 */
export const WATCH_OPTION_FIELDS = z
  .object({
    /** Extra ignore rules, gitignore syntax, one rule per entry. */
    ignore: z.array(z.string().max(4096)).max(10_000).optional(),
    /** Apply DEFAULT_IGNORES (.DS_Store, Thumbs.db, *.tmp, *.part, ~$*, .git/ …). */
    useDefaultIgnores: z.boolean().optional(),
    /** When not empty, only files matching one of these globs (picomatch, on the relative path) are uploaded. */
    includeOnly: z.array(z.string().min(1).max(4096)).max(10_000).optional(),
    /** Upload files and folders whose name starts with a dot. */
    includeHidden: z.boolean().optional(),
    /** `skip` ignores symbolic links; `follow` uploads what they point to, loop-safe. */
    symlinks: z.enum(['skip', 'follow']).optional(),
    /**
     * A file is uploaded only after its size and mtime stayed the same for this long
     * (a file already older than this when first seen is ready at once).
     */
    stabilityMs: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600_000)
      .optional(),
    /** What an existing remote key does to an upload (passed to the engine). */
    conflict: conflict.optional(),
    /** What deleting a local file does: `keep` the remote object, or `delete-remote` through an Fmgr delete. */
    localDelete: z.enum(['keep', 'delete-remote']).optional(),
    /**
     * `server-side`: a file recognised (by etag) as a renamed, already uploaded file costs no
     * upload: an Fmgr move (when localDelete is delete-remote) or copy (when it is keep).
     * `upload`: upload it again under its new key.
     */
    rename: z.enum(['server-side', 'upload']).optional(),
    /** Ask for a video content analysis job for uploaded videos (acted on by the tasks layer). */
    vcaForVideos: z.boolean().optional(),
    /** Key template after the prefix; see sync/keymap.ts for the placeholders. */
    keyTemplate: z
      .string()
      .min(1)
      .max(1024)
      .check(rule('invalid-watch-options', checkKeyTemplate, (_v, words) => ({ detail: `keyTemplate: ${words}` })))
      .optional(),
    /** Dates in key templates in local time (default) or UTC. */
    templateTimeZone: z.enum(['local', 'utc']).optional(),
    /** Retention in days of uploaded objects (mkfile Deadline); undefined keeps none. */
    deadlineDays: z.number().int().min(1).max(36500).optional(),
  })
  .strict();

/** A watch root's options as a front end sends them; every refusal is 'invalid-watch-options'. */
export const WATCH_OPTIONS = coded('invalid-watch-options', WATCH_OPTION_FIELDS);

/** What a front end sends for a root's options: any subset; the service fills defaults. */
export type WatchRootOptionsInput = z.output<typeof WATCH_OPTION_FIELDS>;

/** The options of one watch root, normalized once (defaults filled, values checked). */
export type WatchRootOptions = Required<Omit<WatchRootOptionsInput, 'deadlineDays'>> &
  Pick<WatchRootOptionsInput, 'deadlineDays'>;

export const DEFAULT_STABILITY_MS = 2000;

/** What an option left out means. */
export const WATCH_OPTION_DEFAULTS: Omit<WatchRootOptions, 'deadlineDays'> = {
  ignore: [],
  useDefaultIgnores: true,
  includeOnly: [],
  includeHidden: false,
  symlinks: 'skip',
  stabilityMs: DEFAULT_STABILITY_MS,
  conflict: 'overwrite',
  localDelete: 'keep',
  rename: 'server-side',
  vcaForVideos: false,
  keyTemplate: '{relpath}',
  templateTimeZone: 'local',
};
