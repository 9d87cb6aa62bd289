import type { EngineStore } from '../engine/ports';
import type { CoreProblem } from '../shared/events';
import type { AccountRepo } from '../store/account-repo';
import type { SyncRepo } from '../store/sync-repo';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import { TaskError } from '../tasks/task-error';
import type { VcaRequestQueue } from './vca-requests';

export interface UploadFollowUpDeps {
  accounts: AccountRepo;
  roots: Pick<SyncRepo, 'getRoot'>;
  transfers: Pick<EngineStore, 'getTransfer'>;
  fmgr: FmgrTracker;
  /** VCA jobs to create, stored before the service is asked and retried (vca-requests.ts). */
  vcaRequests: VcaRequestQueue;
  /** Reports what could not be done (shown to the user as a 'problem' event). */
  problem: (p: CoreProblem) => void;
}

/**
 * What happens after an upload, across layers:
 * - a finished transfer whose mkfile reply names a persistentId (policy persistentOps) gets
 *   its Fmgr task tracked (origin 'upload');
 * - an uploaded video of a root with "VCA for videos" gets a VCA job (origin 'watch'), its
 *   source the object's access URL from the account's download domain: the request is
 *   stored first and retried until it succeeds or fails for good (vca-requests.ts).
 * Failures become problems, never exceptions. `settle()` waits for creations in flight.
 */
export class UploadFollowUp {
  constructor(private readonly d: UploadFollowUpDeps) {}

  transferDone(transferId: number): void {
    const rec = this.d.transfers.getTransfer(transferId);
    if (!rec?.returnBody) return;
    try {
      this.d.fmgr.trackUpload(rec.accountId, rec.returnBody);
    } catch (e) {
      this.d.problem({
        code: e instanceof TaskError ? e.code : 'fmgr-track-failed',
        message: `the Fmgr task started by the upload of ${rec.key} cannot be followed: ${(e as Error).message}`,
        transferId,
        key: rec.key,
      });
    }
  }

  videoUploaded(rootId: number, key: string): void {
    const root = this.d.roots.getRoot(rootId);
    if (!root) return;
    const account = this.d.accounts.get(root.accountId);
    this.d.vcaRequests.request({
      accountId: root.accountId,
      bucket: root.bucket,
      key,
      downloadDomain: account?.downloadDomain ?? null,
      origin: 'watch',
      rootId,
    });
  }

  /** Resumes the stored VCA requests (core open). */
  resume(): void {
    this.d.vcaRequests.resume();
  }

  /** Waits for the VCA creations in flight. */
  async settle(): Promise<void> {
    await this.d.vcaRequests.settle();
  }

  /** Stops the retry timers; pending requests stay stored for the next open. */
  dispose(): void {
    this.d.vcaRequests.dispose();
  }
}
