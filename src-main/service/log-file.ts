import { appendFileSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { formatLogLine, type Logger, type LogFields } from '../base/logger';
import type { AppEventMessage } from '../shared/contract';

/** The log folder inside the data folder, and the current file's name. */
export const LOG_DIR = 'logs';
export const LOG_FILE = 'blocklift.log';

/**
 * The oldest generation is renamed to `blocklift.log.deleting-<pid>-<time>-<n>` (a name no
 * file has, so the rename deletes nothing) and deleted off the thread; a name of this form
 * left by a crash is deleted at the next start or rotation.
 */
const DELETING = `${LOG_FILE}.deleting-`;
let deletingSeq = 0;

export interface RotatingLogOptions {
  /** The data folder; the log is <dataDir>/logs/blocklift.log. */
  dataDir: string;
  /** Rotate when the current file would pass this size (default 1 MiB). */
  maxBytes?: number;
  /** Older files kept: blocklift.log.1 (newest) … .N (default 3). */
  keep?: number;
  now?: () => Date;
}

/**
 * The app's log file (what the doors did and every problem the app met), rotated by size:
 * blocklift.log → .1 → … → .keep, the oldest deleted. One line per entry:
 * `<ISO time> <level> <message>`. Writes are synchronous and small (a line), so a crash
 * loses nothing written; a write that fails (disk full, folder removed) is dropped, never
 * thrown at the caller. Callers never pass secrets (problems and door events carry none).
 *
 * Rotation runs inside a write, on the caller's thread (serve's main thread), so it only
 * renames there: deleting the oldest file can wait on the disk (31 ms seen on a disk mounted
 * with `discard`), so that file is renamed out of the way and deleted asynchronously
 * (`settled()` resolves once every such delete has ended).
 */
export class RotatingLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly now: () => Date;
  private size: number;
  private readonly dir: string;
  private readonly deleting = new Set<Promise<void>>();

  constructor(opts: RotatingLogOptions) {
    this.dir = path.join(opts.dataDir, LOG_DIR);
    mkdirSync(this.dir, { recursive: true });
    this.file = path.join(this.dir, LOG_FILE);
    this.maxBytes = opts.maxBytes ?? 1024 * 1024;
    this.keep = opts.keep ?? 3;
    this.now = opts.now ?? (() => new Date());
    this.size = fileSize(this.file);
    this.deleteRenamed(); // left by a crash during a delete
  }

  /** Resolves once every delete started so far (rotations, leftovers) has ended; it never rejects. */
  async settled(): Promise<void> {
    while (this.deleting.size) await Promise.all(this.deleting);
  }

  write(level: 'info' | 'warn' | 'error', message: string): void {
    const line = `${this.now().toISOString()} ${level} ${message.replace(/\r?\n/g, '\n    ')}\n`;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      appendFileSync(this.file, line, { mode: 0o600 });
      this.size += bytes;
    } catch {
      // A log line that cannot be written is dropped: logging never breaks the app.
    }
  }

  /**
   * This log as a Logger (base/logger.ts), for parts that report with no reply or event to
   * carry it (the embedded emulator): one line per entry with its fields; debug is dropped.
   */
  logger(prefix = ''): Logger {
    const at =
      (level: 'info' | 'warn' | 'error') =>
      (message: string, fields?: LogFields): void =>
        this.write(level, formatLogLine(prefix, 'info', message, fields));
    return { debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
  }

  /** Writes every problem event batch of a service; returns the unsubscribe function. */
  follow(on: (listener: (e: AppEventMessage) => void) => () => void): () => void {
    return on((e) => {
      if (e.name !== 'problems') return;
      for (const p of e.payload.problems) {
        const where = [p.transferId && `transfer ${p.transferId}`, p.rootId && `root ${p.rootId}`, p.key]
          .filter(Boolean)
          .join(', ');
        this.write('warn', `problem ${p.code}${where ? ` (${where})` : ''}: ${p.message}`);
      }
    });
  }

  /**
   * Renames only (cheap, and the order of files and lines is kept at every step); the oldest
   * generation is then deleted off the thread, with any leftover of its kind.
   */
  private rotate(): void {
    renameIfExists(
      `${this.file}.${this.keep}`,
      path.join(this.dir, `${DELETING}${process.pid}-${Date.now()}-${++deletingSeq}`),
    );
    for (let i = this.keep - 1; i >= 1; i--) {
      renameIfExists(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    renameIfExists(this.file, `${this.file}.1`);
    this.size = 0;
    this.deleteRenamed();
  }

  /** Deletes every renamed-out generation in the folder asynchronously; a failure leaves it for the next time. */
  private deleteRenamed(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.startsWith(DELETING));
    } catch {
      return; // the folder is gone: the next write fails and is dropped
    }
    for (const n of names) {
      const done = rm(path.join(this.dir, n), { force: true }).then(
        () => undefined,
        () => undefined,
      );
      this.deleting.add(done);
      void done.then(() => this.deleting.delete(done));
    }
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function renameIfExists(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * The app's log file as a Logger, the file opened at the first line (a run that logs nothing
 * creates no log folder). What the core uses when its door passed no logger of its own.
 */
export function lazyLogFile(dataDir: string): Logger {
  let log: Logger | undefined;
  const at =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void => {
      try {
        log ??= new RotatingLog({ dataDir }).logger();
      } catch {
        return; // no log folder (read-only disk): logging never breaks the app
      }
      log[level](message, fields);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
