import path from 'node:path';
import { releaseOwnPidLock, takePidLock } from '../base/pid-lock';

/** Another live emulator uses the data folder. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

/**
 * Takes <dataDir>/emulator.lock (naming this process, base/pid-lock.ts) so two emulators never
 * share one data folder, not even two in one process. A lock left by a process that is gone is
 * taken over. Returns the release function.
 */
const lockFile = (dataDir: string) => path.join(dataDir, 'emulator.lock');

export function lockDataDir(dataDir: string): () => void {
  const lock = takePidLock(lockFile(dataDir), { ownProcessHolds: true });
  if (lock.ok) return lock.release;
  const pid = lock.holder.pid;
  const who = pid === process.pid ? 'another emulator in this process' : `process ${pid}`;
  throw new DataDirInUseError(
    `the data folder ${dataDir} is in use by ${who}; stop it or choose another --data folder`,
  );
}

/** Releases the data folder's lock left by an emulator of this process that ended without releasing it (a worker thread). */
export function releaseOwnDataDirLock(dataDir: string): void {
  releaseOwnPidLock(lockFile(dataDir));
}
