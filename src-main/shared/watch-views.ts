import type { ConflictPolicy } from './models';

export type { WatchRootState, WatchScanCounts, WatchEvent } from './events';

/**
 * The options of one watch root, normalized once here (defaults filled, values checked);
 * everything past this file reads `WatchRootOptions` and never re-validates.
 */
export interface WatchRootOptions {
  /** Extra ignore rules, gitignore syntax, one rule per entry. */
  ignore: string[];
  /** Apply DEFAULT_IGNORES (.DS_Store, Thumbs.db, *.tmp, *.part, ~$*, .git/ …). */
  useDefaultIgnores: boolean;
  /** When not empty, only files matching one of these globs (picomatch, on the relative path) are uploaded. */
  includeOnly: string[];
  /** Upload files and folders whose name starts with a dot. */
  includeHidden: boolean;
  /** `skip` ignores symbolic links; `follow` uploads what they point to, loop-safe. */
  symlinks: 'skip' | 'follow';
  /**
   * A file is uploaded only after its size and mtime stayed the same for this long
   * (a file already older than this when first seen is ready at once).
   */
  stabilityMs: number;
  /** What an existing remote key does to an upload (passed to the engine). */
  conflict: ConflictPolicy;
  /** What deleting a local file does: `keep` the remote object, or `delete-remote` through an Fmgr delete. */
  localDelete: 'keep' | 'delete-remote';
  /**
   * `server-side`: a file recognised (by etag) as a renamed, already uploaded file costs no
   * upload: an Fmgr move (when localDelete is delete-remote) or copy (when it is keep).
   * `upload`: upload it again under its new key.
   */
  rename: 'server-side' | 'upload';
  /** Ask for a video content analysis job for uploaded videos (acted on by the tasks layer). */
  vcaForVideos: boolean;
  /** Key template after the prefix; see keymap.ts for the placeholders. */
  keyTemplate: string;
  /** Dates in key templates in local time (default) or UTC. */
  templateTimeZone: 'local' | 'utc';
  /** Retention in days of uploaded objects (mkfile Deadline); undefined keeps none. */
  deadlineDays?: number;
}

/** What a front end sends for a root's options: any subset; the service fills defaults and checks every field. */
export type WatchRootOptionsInput = Partial<WatchRootOptions>;
