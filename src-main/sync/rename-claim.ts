import path from 'node:path';
import { etagOfFile } from '../protocol/etag';
import type { SyncRepo } from '../store/sync-repo';
import type { WatchRootEvent } from './events';
import { uploadedRow } from './index-rows';
import type { WatchRootOptions } from './options';
import { problemEvent } from './problems';
import type { RemoteOps } from './remote-ops';
import type { RootIdentity } from './root-indexer';
import type { ScannedFile } from './scanner';

export interface RenameClaimDeps {
  root: RootIdentity;
  options: Pick<WatchRootOptions, 'rename' | 'localDelete'>;
  repo: SyncRepo;
  remote?: RemoteOps;
  emit(e: WatchRootEvent): void;
}

/**
 * A new file with the size and etag of a missing uploaded row is that row renamed: its
 * object is copied (deletes kept) or moved (deletes propagate) on the service to the new
 * key instead of uploading, and the row moves to the new path. Returns whether it was
 * claimed; a failed copy or move is a problem and the file is uploaded instead.
 */
export async function claimRename(d: RenameClaimDeps, f: ScannedFile, newKey: string): Promise<boolean> {
  const { remote, options, root } = d;
  if (!remote || options.rename !== 'server-side') return false;
  const candidates = d.repo.missingWithSize(root.id, f.size).filter((r) => r.etag !== null && r.remoteKey !== null);
  if (candidates.length === 0) return false;
  let etag: string;
  try {
    etag = (await etagOfFile(path.join(root.path, ...f.relPath.split('/')))).etag;
  } catch {
    return false;
  }
  const old = candidates.find((r) => r.etag === etag);
  if (!old || old.remoteKey === null) return false;
  const mode = options.localDelete === 'delete-remote' ? 'move' : 'copy';
  if (old.remoteKey !== newKey) {
    try {
      await remote.relocateObject({
        accountId: root.accountId,
        bucket: root.bucket,
        fromKey: old.remoteKey,
        toKey: newKey,
        mode,
      });
    } catch (e) {
      const code = mode === 'move' ? 'rename-move-failed' : 'rename-copy-failed';
      d.emit(problemEvent(root.id, f.relPath, code, { from: old.remoteKey, reason: (e as Error).message }));
      return false;
    }
  }
  d.repo.deleteFiles(root.id, [old.relPath]);
  d.repo.putFiles(root.id, [uploadedRow(f, etag, newKey)]);
  d.emit({
    type: 'file-done',
    rootId: root.id,
    relPath: f.relPath,
    key: newKey,
    etag,
    size: f.size,
    status: mode === 'move' ? 'moved' : 'copied',
    from: old.relPath,
  });
  return true;
}
