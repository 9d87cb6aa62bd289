import { DISK_FULL_RETRY_MS, isDiskFull } from '../base/disk-full';

export { DISK_FULL_RETRY_MS, isDiskFull };

/**
 * A transfer's failure as the engine records it: a stable code to branch on and a message
 * a person can act on. Codes: file-missing, file-unreadable, file-changed, file-vanished,
 * hash-mismatch, db-write-failed, disk-full (held and retried, never a failed state),
 * bad-reply, plus the retry policy's codes (retry.ts).
 */
export class TransferFailure extends Error {
  override readonly name = 'TransferFailure';
  /** The service's request id (X-Reqid) of the reply that ended the transfer, when one came. */
  readonly requestId: string | null;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown; requestId?: string | null },
  ) {
    super(message, options);
    this.requestId = options?.requestId ?? null;
  }
}

/** Why a running transfer was stopped from outside (the abort reason). */
export class StopRequest extends Error {
  override readonly name = 'StopRequest';
  constructor(readonly to: 'paused' | 'canceled' | 'queued') {
    super(`transfer ${to}`);
  }
}

/** Resolves after ms, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The failure that holds a transfer while the database's disk is full (the engine retries it). */
export function diskFullFailure(e: unknown): TransferFailure {
  return new TransferFailure(
    'disk-full',
    'the disk holding the queue database is full; the upload waits and goes on when space is freed',
    { cause: e },
  );
}

/**
 * Runs a store write; a failure fails the transfer with a clear code: disk-full (the engine
 * holds the transfer and retries) or db-write-failed (read-only, held by another process).
 */
export function storeWrite(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (isDiskFull(e)) throw diskFullFailure(e);
    throw new TransferFailure(
      'db-write-failed',
      `could not save upload progress to the database (${(e as { code?: string }).code ?? (e as Error).message}); ${/^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: string }).code)) ? 'another process holds it (two uploads on one database?)' : 'is it read-only?'}`,
      { cause: e },
    );
  }
}
