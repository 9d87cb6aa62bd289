import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { ContractWorld, value } from './contract-world';

/**
 * Issue 19 through the contract: a watched folder meets a file whose bytes a manual upload
 * of the same account stored earlier; the app copies it on the service instead of sending
 * it, the transfer's detail says where it was copied from, and the copy's Fmgr task is in the
 * tasks list labelled as that transfer's. The embedded emulator, the
 * app's own SQLite file, real folders.
 */
describe('bytes not sent twice, as the app does it', () => {
  let w: ContractWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('a watched file with the bytes of an earlier manual upload is copied on the service; its detail names the source', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const data = randomBytes(5 * 1024 * 1024 + 7);
    const manual = path.join(w.tmp, 'manual', 'report.bin');
    await mkdir(path.dirname(manual));
    await writeFile(manual, data);
    const [first] = value(
      await svc.transfers.add({ paths: [manual], target: { bucket: 'local', key: 'm/report.bin' } }),
    ).queued;
    await w.until(() => w.lastSeen(first!)?.state === 'done', 'the manual upload');
    expect(value(await svc.transfers.get({ id: first! })).copiedFrom).toBeNull();

    const watched = path.join(w.tmp, 'watched');
    await mkdir(path.join(watched, 'sub'), { recursive: true });
    await copyFile(manual, path.join(watched, 'sub', 'copy.bin'));
    value(await svc.roots.add({ path: watched, bucket: 'local', prefix: 'w/', options: { stabilityMs: 200 } }));
    const find = () =>
      w.events
        .flatMap((e) => (e.name === 'transfers' ? e.payload.changed : []))
        .find((t) => t.key === 'w/sub/copy.bin' && t.state === 'done');
    await w.until(() => find() !== undefined, 'the watched file done', 40_000);
    const detail = value(await svc.transfers.get({ id: find()!.id }));
    expect(detail.source).toBe('watch');
    expect(detail).toMatchObject({ state: 'done', verified: true, etagCheck: 'matched', etag: etagOfBuffer(data) });
    expect(detail.copiedFrom).toEqual({ bucket: 'local', key: 'm/report.bin' });
    expect(detail.bytesDone).toBe(data.length);
    expect(detail.size).toBe(data.length);
    expect(detail.url).not.toBeNull();

    // The copy's Fmgr task is one of the tasks the app follows (the Tasks screen's list),
    // labelled as this transfer's, and followed to its end like a submitted one.
    const copyTasks = async () => value(await svc.fmgr.list({})).filter((t) => t.forTransfer?.transferId === detail.id);
    const [task] = await copyTasks();
    expect(task).toMatchObject({
      op: 'copy',
      origin: 'submitted',
      forTransfer: { transferId: detail.id, key: 'w/sub/copy.bin' },
    });
    expect(await copyTasks()).toHaveLength(1);
    expect(value(await svc.fmgr.list({})).filter((t) => t.forTransfer !== null)).toHaveLength(1);
    await w.until(
      () =>
        w.events.some(
          (e) => e.name === 'fmgr' && e.payload.changed.some((t) => t.id === task!.id && t.tracking === 'done'),
        ),
      'the copy task followed to its end',
    );
    const done = value(await svc.fmgr.get({ id: task!.id }));
    expect(done.items).toEqual([expect.objectContaining({ cmd: expect.stringContaining('copy'), code: 3 })]);
    expect(done.history.length).toBeGreaterThan(0);

    // The object is the file: downloaded and compared.
    const dl = new MgrClient({ mgrUrl: 'http://127.0.0.1:1' });
    try {
      const got = await dl.download(detail.url!);
      expect(got.status).toBe(200);
      expect(got.body.equals(data)).toBe(true);
    } finally {
      dl.close();
    }
  });

  it('clearing the finished transfers keeps what the account stored: the next file with those bytes is still copied', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const data = randomBytes(2 * 1024 * 1024 + 3);
    const first = path.join(w.tmp, 'first.bin');
    const twin = path.join(w.tmp, 'twin.bin');
    await writeFile(first, data);
    await writeFile(twin, data);
    const [id1] = value(
      await svc.transfers.add({ paths: [first], target: { bucket: 'local', key: 'c/first.bin' } }),
    ).queued;
    await w.until(() => w.lastSeen(id1!)?.state === 'done', 'the first upload');
    expect(value(await svc.transfers.remove({ all: true })).count).toBe(1);
    expect(value(await svc.transfers.list({})).total).toBe(0);

    const [id2] = value(
      await svc.transfers.add({ paths: [twin], target: { bucket: 'local', key: 'c/twin.bin' } }),
    ).queued;
    // By key: SQLite gives the first id again once every row is gone.
    const twinDone = () =>
      w.events.some(
        (e) => e.name === 'transfers' && e.payload.changed.some((t) => t.key === 'c/twin.bin' && t.state === 'done'),
      );
    await w.until(twinDone, 'the twin');
    const detail = value(await svc.transfers.get({ id: id2! }));
    expect(detail).toMatchObject({ verified: true, copiedFrom: { bucket: 'local', key: 'c/first.bin' } });
  });
});
