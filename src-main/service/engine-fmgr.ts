import type { AccountAccess } from '../engine/engine';
import type { FmgrAccess } from '../engine/upload-resources';
import type { FmgrTracker } from '../tasks/fmgr-tracker';

/**
 * The engine's Fmgr submissions for an account (engine/same-bytes.ts: the copy on the service
 * of a file whose bytes were stored already, or the removal of a copy that was not the file)
 * go through the FmgrTracker, as a person's do: each is recorded with the transfer it is for
 * (`forTransfer`, migration 9) and followed like any task the app started, so the Tasks
 * screen, the `fmgr` batches and `fmgr.list` show it, and a restart resumes it. The engine
 * still asks the status itself on its own short schedule, so a copy ends as soon as it is
 * done and not at the tracker's next poll. An account without `fmgr` stays without it.
 */
export function withTrackedFmgr(access: AccountAccess, accountId: number, tracker: () => FmgrTracker): AccountAccess {
  const direct = access.fmgr;
  if (!direct) return access;
  const fmgr: FmgrAccess = {
    fmgrSubmit: async (op, ops, opts, signal, forTransfer) => {
      const task = await tracker().submit(accountId, op, ops, opts, signal, forTransfer);
      return { persistentId: task.persistentId };
    },
    fmgrStatus: (persistentId, signal) => direct.fmgrStatus(persistentId, signal),
  };
  return { ...access, fmgr };
}
