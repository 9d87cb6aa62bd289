import { takePidLock } from '../base/pid-lock';

/**
 * One uploading process per queue database. Two engines on one database would each pick
 * the same queued transfer and upload it twice, each committing the other's offsets; the
 * lock file `<db>.lock` (base/pid-lock.ts: created atomically, holding the owner's pid and what it runs)
 * keeps the second one out with a message naming the first. A lock whose process is gone
 * (killed, crashed) is stale and taken over. Plain readers (status, review) need no lock:
 * SQLite's busy timeout covers them.
 */

/**
 * The message says what is in use and by whom; what else the user can do depends on the door
 * (the CLI's upload has --db and --data, `serve` only --data, the desktop app neither), so each
 * caller adds its own hint.
 */
export class QueueInUseError extends Error {
  override readonly name = 'QueueInUseError';
  readonly code = 'queue-in-use';
  constructor(
    readonly pid: number,
    readonly holder: string,
    dbFile: string,
  ) {
    super(`the queue ${dbFile} is in use by process ${pid} (${holder}); wait for it to finish or stop it`);
  }
}

export interface QueueLock {
  /** Removes the lock file if it is still this process's; idempotent. */
  release(): void;
}

/** Takes the lock of `dbFile` for `command` (e.g. "blocklift upload"); throws QueueInUseError when another live process holds it. */
export function lockQueue(dbFile: string, command: string): QueueLock {
  // A lock of this process (an earlier open that was not released) is its own to take over.
  const lock = takePidLock(`${dbFile}.lock`, { details: { command } });
  if (!lock.ok) throw new QueueInUseError(lock.holder.pid, String(lock.holder.details.command ?? '?'), dbFile);
  const release = () => {
    process.off('exit', release);
    lock.release();
  };
  process.on('exit', release);
  return { release };
}
