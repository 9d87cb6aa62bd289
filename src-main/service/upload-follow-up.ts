import type { EngineStore } from '../engine/ports';
import type { CoreProblem } from '../shared/events';
import type { AccountRepo } from '../store/account-repo';
import type { SyncRepo } from '../store/sync-repo';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import { TaskError } from '../tasks/task-error';
import type { VcaTracker } from '../tasks/vca-tracker';

export interface UploadFollowUpDeps {
  accounts: AccountRepo;
  roots: Pick<SyncRepo, 'getRoot'>;
  transfers: Pick<EngineStore, 'getTransfer'>;
  fmgr: FmgrTracker;
  vca: VcaTracker;
  /** Reports what could not be done (shown to the user as a 'problem' event). */
  problem: (p: CoreProblem) => void;
  /** Aborted when the core closes: creations in flight stop. */
  signal: AbortSignal;
}

/**
 * What happens after an upload, across layers:
 * - a finished transfer whose mkfile reply names a persistentId (policy persistentOps) gets
 *   its Fmgr task tracked (origin 'upload');
 * - an uploaded video of a root with "VCA for videos" gets a VCA job (origin 'watch'), its
 *   source the object's access URL from the account's download domain.
 * Failures become problems, never exceptions. `settle()` waits for creations in flight.
 */
export class UploadFollowUp {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly d: UploadFollowUpDeps) {}

  transferDone(transferId: number): void {
    const rec = this.d.transfers.getTransfer(transferId);
    if (!rec?.returnBody) return;
    try {
      this.d.fmgr.trackUpload(rec.accountId, rec.returnBody);
    } catch (e) {
      this.d.problem({ code: e instanceof TaskError ? e.code : 'fmgr-track-failed', message: `the Fmgr task started by the upload of ${rec.key} cannot be followed: ${(e as Error).message}`, transferId, key: rec.key });
    }
  }

  videoUploaded(rootId: number, key: string): void {
    const root = this.d.roots.getRoot(rootId);
    if (!root) return;
    const account = this.d.accounts.get(root.accountId);
    const base = { rootId, key };
    if (!account?.downloadDomain) {
      this.d.problem({ ...base, code: 'vca-no-download-domain', message: `no VCA job for ${key}: the account has no download domain; set one in the account settings` });
      return;
    }
    const p = this.d.vca
      .createForObject({ accountId: root.accountId, bucket: root.bucket, key, downloadDomain: account.downloadDomain, origin: 'watch' }, this.d.signal)
      .then(
        () => undefined,
        (e: unknown) => {
          if (this.d.signal.aborted) return;
          this.d.problem({ ...base, code: e instanceof TaskError ? e.code : 'vca-create-failed', message: `no VCA job for ${key}: ${(e as Error).message}` });
        },
      )
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }
}
