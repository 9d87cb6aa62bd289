import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * Lock files that name their process, and "is this process alive": the one helper of the
 * queue lock (service/queue-lock.ts), the emulator's data-folder lock (emulator/data-lock.ts)
 * and the door file's staleness check (service/door-file.ts).
 */

/** Whether a process with this id exists (one of another user counts: it is running). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a lock file says: its process, and what the taker wrote beside it (`command`…). */
export interface PidLockHolder {
  pid: number;
  details: Record<string, unknown>;
}

export type PidLockResult = { ok: true; release: () => void } | { ok: false; holder: PidLockHolder };

/** A lock file's holder: JSON `{pid, …details}`, or a bare pid (older emulator locks); undefined when unreadable. */
export function readPidLock(file: string): PidLockHolder | undefined {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof v === 'number') return Number.isInteger(v) && v > 0 ? { pid: v, details: {} } : undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  const { pid, ...details } = v as Record<string, unknown>;
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? { pid, details } : undefined;
}

/**
 * Takes `file` for this process: written in full as `{pid, …details}` first, then linked into
 * place (link() is atomic and fails when the file exists, so nobody reads half a lock). A lock
 * whose process is gone (killed, crashed) or that cannot be read is stale and taken over. One
 * held by a live process is not: the result names it. `ownProcessHolds`: a lock of this very
 * process counts as held (a second emulator in one process) rather than as this process's
 * own to take over (a queue lock left by an earlier open).
 *
 * `release()` removes the file while it is still this process's; calling it again does nothing.
 */
export function takePidLock(
  file: string,
  opts: { details?: Record<string, string | number>; ownProcessHolds?: boolean } = {},
): PidLockResult {
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ ...opts.details, pid: process.pid }));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw e;
      }
      const holder = readPidLock(file);
      const own = holder?.pid === process.pid;
      if (holder && (own ? opts.ownProcessHolds : processAlive(holder.pid))) return { ok: false, holder };
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
  return {
    ok: true,
    release: () => {
      if (released) return;
      released = true;
      releaseOwnPidLock(file);
    },
  };
}

/**
 * Removes `file` if it names this process: what `release()` does, also for a lock whose taker
 * can no longer release it (a worker thread of this process that ended).
 */
export function releaseOwnPidLock(file: string): void {
  if (readPidLock(file)?.pid !== process.pid) return;
  try {
    unlinkSync(file);
  } catch {
    /* already gone */
  }
}
