import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * One uploading process per queue database. Two engines on one database would each pick
 * the same queued transfer and upload it twice, each committing the other's offsets; the
 * lock file `<db>.lock` (created exclusively, holding the owner's pid and what it runs)
 * keeps the second one out with a message naming the first. A lock whose process is gone
 * (killed, crashed) is stale and taken over. Plain readers (status, review) need no lock:
 * SQLite's busy timeout covers them.
 */

export class QueueInUseError extends Error {
  override readonly name = 'QueueInUseError';
  readonly code = 'queue-in-use';
  constructor(
    readonly pid: number,
    readonly holder: string,
    dbFile: string,
  ) {
    super(
      `the queue ${dbFile} is in use by process ${pid} (${holder}); wait for it to finish, stop it, or give another --db`,
    );
  }
}

export interface QueueLock {
  /** Removes the lock file if it is still this process's; idempotent. */
  release(): void;
}

interface LockContent {
  pid: number;
  command: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockContent | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContent>;
    return typeof v.pid === 'number' ? { pid: v.pid, command: String(v.command ?? '?') } : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock of `dbFile` for `command` (e.g. "blocklift upload"); throws QueueInUseError when another live process holds it. */
export function lockQueue(dbFile: string, command: string): QueueLock {
  const file = `${dbFile}.lock`;
  // Written in full first, then linked into place: link() is atomic and fails when the lock
  // exists, so no process ever reads a half-written lock.
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ pid: process.pid, command } satisfies LockContent));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw e;
      }
      const holder = readLock(file);
      if (holder && holder.pid !== process.pid && alive(holder.pid))
        throw new QueueInUseError(holder.pid, holder.command, dbFile);
      // Its process is gone (killed, crashed): the lock is stale; take it over.
      try {
        unlinkSync(file);
      } catch {
        /* another process removed it first; try again */
      }
    }
  } finally {
    unlinkSync(tmp);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readLock(file)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', release);
  return { release };
}
