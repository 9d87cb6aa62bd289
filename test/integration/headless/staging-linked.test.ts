import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StagedFiles } from '../../../src-main/headless/staging';
import { AppService } from '../../../src-main/service/app-service';
import { stagingDir } from '../../../src-main/service/data-dir';

/**
 * A data folder reached through a link (a moved home, a synced folder): the door stages a
 * dropped file under <data>/staging as given, the queue keeps that path, and the transfer views
 * name it as dropped with no real-path lookup (service/data-dir.ts `droppedAs`, the one
 * translation); a link a person names to a staged file is followed to its real path, which is
 * no drop. Real app service (embedded emulator), real folders and links.
 */
describe('a data folder reached through a link', () => {
  let tmp = '';
  let dataDir = '';
  let service: AppService;
  let staged: StagedFiles;
  let target = { accountId: 0, bucket: '' };

  beforeAll(async () => {
    tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-stage-linked-')));
    await mkdir(path.join(tmp, 'real-data'));
    dataDir = path.join(tmp, 'data');
    await symlink(path.join(tmp, 'real-data'), dataDir);
    service = await AppService.open({ dataDir, door: { door: 'headless' } });
    const status = await service.app.status();
    if (!status.ok) throw new Error(status.error.message);
    target = { accountId: status.value.emulator!.accountId, bucket: 'local' };
    staged = new StagedFiles(stagingDir(dataDir), service);
    await staged.swept;
  });
  afterAll(async () => {
    staged?.dispose();
    await service?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  const stage = async (batch: string, rel: string, text: string) => {
    const file = staged.pathOf(batch, rel)!;
    await staged.write(file, Readable.from([Buffer.from(text)]));
    return file;
  };

  it('a dropped file: kept under the staging folder as given and named as dropped; a skipped one: named as dropped, its copy deleted', async () => {
    const batch = staged.newBatch();
    const file = await stage(batch, 'photos/a.txt', 'dropped');
    const link = staged.pathOf(batch, 'photos/link.txt')!;
    await symlink(file, link);
    const res = await staged.commit(batch, target, undefined);
    if (!res.ok) throw new Error(res.error.message);
    expect(res.value.skipped.map((s) => s.path)).toEqual(['photos/link.txt']);
    expect(await lstat(link).catch(() => undefined)).toBeUndefined();
    expect(res.value.queued).toHaveLength(1);
    const view = await service.transfers.get({ id: res.value.queued[0]! });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.localPath).toBe(path.join(dataDir, 'staging', batch, 'photos', 'a.txt'));
    expect(view.value.droppedAs).toBe('photos/a.txt');
  });

  it('a link a person names to a staged file: the queue keeps its real path, the view names it by that path, not as dropped', async () => {
    const file = await stage(staged.newBatch(), 'b.txt', 'named through a link');
    const named = path.join(tmp, 'named-link.txt');
    await symlink(file, named);
    const res = await service.transfers.add({ paths: [named], target, source: 'manual' });
    if (!res.ok) throw new Error(res.error.message);
    const view = await service.transfers.get({ id: res.value.queued[0]! });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.localPath).toBe(await realpath(file));
    expect(view.value.localPath.startsWith(path.join(tmp, 'real-data', 'staging'))).toBe(true);
    expect(view.value.droppedAs).toBeUndefined();
    expect(existsSync(file)).toBe(true);
  });
});
