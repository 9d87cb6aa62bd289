import type { SyncRepo } from '../store/sync-repo';
import type { WatchRootEvent } from './events';
import type { WatchRootOptions } from './options';
import { problemEvent } from './problems';
import type { RemoteOps } from './remote-ops';
import type { RootIdentity } from './root-indexer';

export interface MissingFilesDeps {
  root: RootIdentity;
  options: Pick<WatchRootOptions, 'localDelete'>;
  repo: SyncRepo;
  remote?: RemoteOps;
  emit(e: WatchRootEvent): void;
  now?: () => number;
}

/**
 * Files gone from a root: their rows become `missing` (a rename may still claim them, see
 * rename-claim.ts), and once they waited long enough the local-delete policy is applied
 * (`delete-remote` deletes the uploaded object; `keep` only forgets the row). Callers
 * serialize calls with the root's other index work.
 */
export class MissingFiles {
  private readonly now: () => number;

  constructor(private readonly d: MissingFilesDeps) {
    this.now = d.now ?? Date.now;
  }

  /** Marks rows gone from the folder (files, or everything under a folder) as missing. */
  mark(relPaths: readonly string[]): number {
    const now = this.now();
    const { repo, root } = this.d;
    const rows = [];
    for (const p of relPaths) {
      const direct = repo.getFile(root.id, p);
      const affected = direct ? [direct] : repo.filesUnder(root.id, p);
      for (const r of affected)
        if (r.state !== 'missing') rows.push({ ...r, state: 'missing' as const, missingSince: now });
    }
    repo.putFiles(root.id, rows);
    return rows.length;
  }

  /**
   * Applies the local-delete policy to rows missing since `beforeMs` or longer: with
   * `delete-remote`, the uploaded object is deleted on the service; then the row goes.
   * A row whose remote delete fails stays missing and is tried again later.
   */
  async finalize(beforeMs: number): Promise<number> {
    const { root, options, remote } = this.d;
    const rows = this.d.repo.missingSince(root.id, beforeMs);
    const gone: string[] = [];
    for (const r of rows) {
      if (options.localDelete === 'delete-remote' && r.remoteKey !== null && r.etag !== null) {
        if (!remote) {
          this.d.emit(problemEvent(root.id, r.relPath, 'delete-not-wired', { path: r.relPath, key: r.remoteKey }));
        } else {
          try {
            await remote.deleteObject({ accountId: root.accountId, bucket: root.bucket, key: r.remoteKey });
            this.d.emit({
              type: 'file-done',
              rootId: root.id,
              relPath: r.relPath,
              key: r.remoteKey,
              etag: r.etag,
              size: r.size,
              status: 'deleted',
            });
          } catch (e) {
            this.d.emit(
              problemEvent(root.id, r.relPath, 'delete-failed', { key: r.remoteKey, reason: (e as Error).message }),
            );
            continue;
          }
        }
      }
      gone.push(r.relPath);
    }
    this.d.repo.deleteFiles(root.id, gone);
    return gone.length;
  }
}
