import { RemoteOpError, failedItemReason, remoteOpsOver, type RemoteOps } from '../sync/remote-ops';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import { TaskError } from '../tasks/task-error';

/** How long a watch root waits for its delete, copy or move task before giving up on it. */
export const REMOTE_OP_TIMEOUT_MS = 10 * 60_000;

/**
 * The watch roots' RemoteOps (local delete → Fmgr delete; rename → Fmgr copy/move) over the
 * FmgrTracker, so each one is a tracked task with its snapshots, visible like any other.
 * Resolves when the task settled with no failed item; rejects with RemoteOpError:
 * 'fmgr-failed' when the service refused the submission, an item failed, or the task was
 * lost; 'fmgr-timeout' when it did not settle within timeoutMs or the core closed meanwhile
 * (the task itself goes on being tracked at the next start).
 */
export function trackedRemoteOps(
  fmgr: FmgrTracker,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): RemoteOps {
  const timeoutMs = opts.timeoutMs ?? REMOTE_OP_TIMEOUT_MS;
  return remoteOpsOver(async (accountId, op) => {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    const onOuterAbort = () => ac.abort();
    opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const submitted = await fmgr.submit(accountId, op.op, [op], { force: 1 }, ac.signal);
      const t = await fmgr.waitUntilSettled(submitted.id, ac.signal);
      const failed = failedItemReason(op.op, t.items);
      if (failed) throw new RemoteOpError('fmgr-failed', failed);
      if (t.tracking !== 'done')
        throw new RemoteOpError(
          'fmgr-failed',
          `Fmgr ${op.op} task ${t.persistentId} ended ${t.tracking}${t.error ? `: ${t.error.message}` : ''}`,
        );
    } catch (e) {
      if (e instanceof RemoteOpError) throw e;
      if (e instanceof TaskError && e.code === 'aborted') {
        throw new RemoteOpError(
          'fmgr-timeout',
          `Fmgr ${op.op} did not finish within ${timeoutMs} ms or the app closed; the task is still followed`,
        );
      }
      throw new RemoteOpError('fmgr-failed', e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onOuterAbort);
    }
  });
}
