import { describe, expect, it } from 'vitest';
import type { SyncFileRecord } from '../../../src-main/store/sync-repo';
import { classifyFile } from '../../../src-main/sync/reconcile';

const f = { relPath: 'a', size: 10, mtimeMs: 1000 };
const row = (extra: Partial<SyncFileRecord>): SyncFileRecord => ({
  relPath: 'a',
  size: 10,
  mtimeMs: 1000,
  etag: 'E',
  remoteKey: 'k',
  state: 'uploaded',
  transferId: null,
  errorCode: null,
  errorMessage: null,
  missingSince: null,
  ...extra,
});

describe('classifyFile', () => {
  it.each([
    ['no row', undefined, undefined, 'new'],
    ['uploaded, same', row({}), undefined, 'unchanged'],
    ['uploaded, other size', row({ size: 11 }), undefined, 'changed'],
    ['uploaded, other mtime', row({ mtimeMs: 1001 }), undefined, 'changed'],
    ['skipped, same', row({ state: 'skipped' }), undefined, 'unchanged'],
    ['skipped, changed', row({ state: 'skipped', size: 1 }), undefined, 'changed'],
    ['failed, same', row({ state: 'failed' }), undefined, 'retry'],
    ['failed, changed', row({ state: 'failed', size: 1 }), undefined, 'changed'],
    ['queued, transfer running', row({ state: 'queued', transferId: 1 }), 'uploading', 'in-flight'],
    [
      'queued, transfer running, file changed meanwhile',
      row({ state: 'queued', transferId: 1, size: 1 }),
      'queued',
      'in-flight',
    ],
    ['queued, transfer done', row({ state: 'queued', transferId: 1 }), 'done', 'unchanged'],
    ['queued, transfer done, file changed', row({ state: 'queued', transferId: 1, size: 1 }), 'done', 'changed'],
    ['queued, transfer failed', row({ state: 'queued', transferId: 1 }), 'failed', 'retry'],
    ['queued, transfer canceled', row({ state: 'queued', transferId: 1 }), 'canceled', 'unchanged'],
    ['queued, queue does not know it', row({ state: 'queued', transferId: 1 }), 'unknown', 'retry'],
    ['queued, no transfer id (crash between writes)', row({ state: 'queued' }), undefined, 'retry'],
    ['missing, back unchanged', row({ state: 'missing' }), undefined, 'unchanged'],
    ['missing, back changed', row({ state: 'missing', mtimeMs: 5 }), undefined, 'changed'],
    ['missing, never uploaded', row({ state: 'missing', etag: null }), undefined, 'changed'],
    ['rejected', row({ state: 'rejected' }), undefined, 'rejected'],
  ] as const)('%s → %s', (_name, r, transfer, expected) => {
    expect(classifyFile(r, f, transfer)).toBe(expected);
  });
});
