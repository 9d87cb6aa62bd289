import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUCKET } from '../../../src-main/emulator/server';
import { browsingFolderChooser } from '../../../src-main/headless/browse';
import { startHeadlessDoor, type HeadlessDoor } from '../../../src-main/headless/server';
import { AppService } from '../../../src-main/service/app-service';
import type {
  AddTransfersResult,
  AppStatus,
  FolderChoice,
  Result,
  TransferPage,
} from '../../../src-main/shared/contract';
import {
  DOOR_BROWSE_PATH,
  DOOR_STAGE_COMMIT_PATH,
  DOOR_STAGE_PATH,
  type FolderListing,
} from '../../../src-main/shared/wire';

describe('headless door: browser drops and the folder browser', () => {
  let tmp = '';
  let service: AppService;
  let door: HeadlessDoor;
  let home = '';
  const staging = () => path.join(tmp, 'data', 'staging');

  const post = async <T>(p: string, body: unknown): Promise<{ status: number; result: Result<T> }> => {
    const res = await fetch(`${door.url}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${door.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, result: (await res.json()) as Result<T> };
  };
  const put = (p: string, body: Buffer) =>
    fetch(`${door.url}${p}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${door.token}`, 'content-type': 'application/octet-stream' },
      body,
    });

  beforeAll(async () => {
    tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-door-stage-')));
    home = path.join(tmp, 'home');
    await mkdir(path.join(home, 'Photos', '2026'), { recursive: true });
    await writeFile(path.join(home, 'Photos', 'a.jpg'), 'jpeg');
    await mkdir(path.join(tmp, 'outside'));
    await symlink(path.join(tmp, 'outside'), path.join(home, 'escape'));
    service = await AppService.open({
      dataDir: path.join(tmp, 'data'),
      door: { door: 'headless', chooseFolder: browsingFolderChooser(home) },
    });
    door = await startHeadlessDoor({
      backend: service,
      version: 'test',
      rendererDir: path.join(tmp, 'none'),
      stagingDir: staging(),
      browseRoot: home,
    });
  });

  afterAll(async () => {
    await door?.close();
    await service?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('streams dropped files to the staging folder, queues them with their relative keys, and deletes them once uploaded', async () => {
    const { result } = await post<{ batch: string }>(DOOR_STAGE_PATH, {});
    if (!result.ok) throw new Error('no batch');
    const { batch } = result.value;
    const big = Buffer.alloc(5 * 1024 * 1024 + 17, 9);
    expect((await put(`${DOOR_STAGE_PATH}/${batch}/card/DCIM%20001/big.bin`, big)).status).toBe(200);
    expect((await put(`${DOOR_STAGE_PATH}/${batch}/note.txt`, Buffer.from('hi'))).status).toBe(200);
    expect(existsSync(path.join(staging(), batch, 'card', 'DCIM 001', 'big.bin'))).toBe(true);
    const committed = await post<AddTransfersResult>(DOOR_STAGE_COMMIT_PATH, {
      batch,
      target: { bucket: DEFAULT_BUCKET, prefix: 'dropped/' },
    });
    if (!committed.result.ok) throw new Error(JSON.stringify(committed.result.error));
    expect(committed.result.value.queued).toHaveLength(2);
    // Wait for the condition: both uploaded and the batch folder gone.
    for (;;) {
      const list = await service.transfers.list({ states: ['done'] });
      const page = list.ok ? (list.value as TransferPage) : undefined;
      if (page?.total === 2 && !existsSync(path.join(staging(), batch))) {
        expect(page.rows.map((r) => r.key).sort()).toEqual(['dropped/card/DCIM 001/big.bin', 'dropped/note.txt']);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await readdir(staging())).toEqual([]);
  });

  it('a dropped file whose name cannot be a key is named in the answer by its name in the batch, with the reason, and its staged copy deleted', async () => {
    const { result } = await post<{ batch: string }>(DOOR_STAGE_PATH, {});
    if (!result.ok) throw new Error('no batch');
    const { batch } = result.value;
    expect((await put(`${DOOR_STAGE_PATH}/${batch}/tabs/ok.txt`, Buffer.from('ok'))).status).toBe(200);
    expect((await put(`${DOOR_STAGE_PATH}/${batch}/tabs/a%09b.txt`, Buffer.from('tab'))).status).toBe(200);
    expect(existsSync(path.join(staging(), batch, 'tabs', 'a\tb.txt'))).toBe(true);
    const committed = await post<AddTransfersResult>(DOOR_STAGE_COMMIT_PATH, {
      batch,
      target: { bucket: DEFAULT_BUCKET, prefix: 'tabs/' },
    });
    if (!committed.result.ok) throw new Error(JSON.stringify(committed.result.error));
    expect(committed.result.value.queued).toHaveLength(1);
    expect(committed.result.value.skipped).toEqual([
      { path: 'tabs/a\tb.txt', code: 'key-invalid', reason: expect.stringContaining('control character U+0009') },
    ]);
    expect(existsSync(path.join(staging(), batch, 'tabs', 'a\tb.txt'))).toBe(false);
  });

  it('a refused commit deletes its batch (nothing was queued from it)', async () => {
    const { result } = await post<{ batch: string }>(DOOR_STAGE_PATH, {});
    if (!result.ok) throw new Error('no batch');
    const { batch } = result.value;
    expect((await put(`${DOOR_STAGE_PATH}/${batch}/r.txt`, Buffer.from('r'))).status).toBe(200);
    const committed = await post(DOOR_STAGE_COMMIT_PATH, {
      batch,
      target: { bucket: DEFAULT_BUCKET, accountId: 99_999 },
    });
    expect(committed.result.ok).toBe(false);
    expect(existsSync(path.join(staging(), batch))).toBe(false);
  });

  it('refuses staged names that leave the batch folder and unknown batches', async () => {
    const { result } = await post<{ batch: string }>(DOOR_STAGE_PATH, {});
    if (!result.ok) throw new Error('no batch');
    expect((await put(`${DOOR_STAGE_PATH}/${result.value.batch}/..%2F..%2Fevil.txt`, Buffer.from('x'))).status).toBe(
      400,
    );
    expect((await put(`${DOOR_STAGE_PATH}/not-a-batch/a.txt`, Buffer.from('x'))).status).toBe(400);
    const commit = await post(DOOR_STAGE_COMMIT_PATH, { batch: '../data', target: { bucket: DEFAULT_BUCKET } });
    expect(commit.result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });

  it('lists folders of the home folder, and nothing outside it (also through a link)', async () => {
    const top = await post<FolderListing>(DOOR_BROWSE_PATH, {});
    expect(top.result).toMatchObject({ ok: true, value: { path: home, parent: null } });
    const photos = await post<FolderListing>(DOOR_BROWSE_PATH, { path: path.join(home, 'Photos') });
    if (!photos.result.ok) throw new Error('photos');
    expect(photos.result.value.parent).toBe(home);
    expect(photos.result.value.entries.map((e) => [e.name, e.kind])).toEqual([
      ['2026', 'folder'],
      ['a.jpg', 'file'],
    ]);
    for (const p of [tmp, path.join(home, '..'), path.join(home, 'escape'), '/etc'])
      expect((await post(DOOR_BROWSE_PATH, { path: p })).result, p).toMatchObject({
        ok: false,
        error: { code: 'path-not-found' },
      });
  });

  it('answers app.chooseFolder with the same listing, under the same rules (the screen draws the browser)', async () => {
    const status = await post<AppStatus>('/api/app.status', undefined);
    expect(status.result).toMatchObject({ ok: true, value: { can: { chooseFolder: true, localPaths: false } } });
    const top = await post<FolderChoice>('/api/app.chooseFolder', {});
    expect(top.result).toMatchObject({ ok: true, value: { kind: 'listing', listing: { path: home, parent: null } } });
    const photos = await post<FolderChoice>('/api/app.chooseFolder', { path: path.join(home, 'Photos') });
    const byRoute = await post<FolderListing>(DOOR_BROWSE_PATH, { path: path.join(home, 'Photos') });
    if (!byRoute.result.ok) throw new Error('photos');
    expect(photos.result).toEqual({ ok: true, value: { kind: 'listing', listing: byRoute.result.value } });
    for (const p of [tmp, path.join(home, 'escape'), '/etc'])
      expect((await post('/api/app.chooseFolder', { path: p })).result, p).toMatchObject({
        ok: false,
        error: { code: 'path-not-found' },
      });
    expect((await post('/api/app.chooseFolder', { path: '' })).result).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
  });
});
