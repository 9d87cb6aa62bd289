import type { MgrClient } from '../protocol/client';
import { FMGR_DONE_ITEM_CODES, FMGR_TERMINAL_TASK_CODES } from '../protocol/codes';
import { FMGR_FAILED_ITEM_CODES } from '../shared/task-views';
import type { FmgrOp } from '../protocol/fops';

/**
 * What a watch root may ask of the service besides uploads: deleting the remote object of
 * a deleted local file, and a server-side copy or move for a renamed one. The service
 * layer wires it (with task tracking); `fmgrRemoteOps` is a plain implementation over an
 * MgrClient. Resolving means the service finished the operation successfully; rejecting
 * means it did not (the root then uploads instead, or reports the delete as failed).
 */
export interface RemoteOps {
  deleteObject(a: { accountId: number; bucket: string; key: string }): Promise<void>;
  relocateObject(a: {
    accountId: number;
    bucket: string;
    fromKey: string;
    toKey: string;
    mode: 'copy' | 'move';
  }): Promise<void>;
}

export class RemoteOpError extends Error {
  override readonly name = 'RemoteOpError';
  constructor(
    readonly code: 'fmgr-failed' | 'fmgr-timeout',
    message: string,
  ) {
    super(message);
  }
}

/** The first failed item of an Fmgr status, as the reason a remote op failed (also used by service/tracked-remote-ops.ts). */
export function failedItemReason(
  op: string,
  items: ReadonlyArray<{ code: number; error?: string | null; desc?: string; description?: string }>,
): string | undefined {
  const failed = items.find((i) => FMGR_FAILED_ITEM_CODES.has(i.code));
  return (
    failed && `Fmgr ${op} failed: ${failed.error || failed.desc || failed.description || `item code ${failed.code}`}`
  );
}

/**
 * Submits one Fmgr operation and polls its status until the task is terminal or every item
 * is done (pollMs apart, at most timeoutMs). Rejects with RemoteOpError when an item failed.
 * One client per account: `clientFor(accountId)`.
 */
export function fmgrRemoteOps(
  clientFor: (accountId: number) => MgrClient,
  opts: { pollMs?: number; timeoutMs?: number } = {},
): RemoteOps {
  const pollMs = opts.pollMs ?? 500;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  async function run(accountId: number, op: FmgrOp): Promise<void> {
    const client = clientFor(accountId);
    const { persistentId } = await client.fmgrSubmit(op.op, [op], { force: 1 });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const st = await client.fmgrStatus(persistentId);
      const failed = failedItemReason(op.op, st.items);
      if (failed) throw new RemoteOpError('fmgr-failed', failed);
      if (
        FMGR_TERMINAL_TASK_CODES.has(st.code) ||
        (st.items.length > 0 && st.items.every((i) => FMGR_DONE_ITEM_CODES.has(i.code)))
      )
        return;
      if (Date.now() > deadline)
        throw new RemoteOpError(
          'fmgr-timeout',
          `Fmgr ${op.op} task ${persistentId} did not finish within ${timeoutMs} ms`,
        );
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
  return remoteOpsOver(run);
}

/** RemoteOps from one function that runs a single Fmgr operation to its end (resolves) or failure (rejects). */
export function remoteOpsOver(run: (accountId: number, op: FmgrOp) => Promise<void>): RemoteOps {
  return {
    deleteObject: (a) => run(a.accountId, { op: 'delete', bucket: a.bucket, key: a.key }),
    relocateObject: (a) =>
      run(a.accountId, { op: a.mode, srcBucket: a.bucket, srcKey: a.fromKey, bucket: a.bucket, key: a.toKey }),
  };
}
