import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { fopCommand } from '../../../src-main/protocol/fops';
import { makeWorld, ACCOUNT_ID, BAD_KEY_ACCOUNT_ID, type World } from './setup';

// Every Fmgr operation end to end: submitted through the tracker to the real emulator,
// followed by polling to its end, with its effect checked in the emulator's storage.
let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(async () => {
  await w.close();
});

const put = (key: string, text: string) => w.emu.objects.putBuffer(w.emu.bucket, key, Buffer.from(text), {});
const stat = (key: string) => w.emu.objects.stat(w.emu.bucket, key);

async function run(...args: Parameters<World['fmgr']['submit']>) {
  const submitted = await w.fmgr.submit(...args);
  expect(submitted.origin).toBe('submitted');
  expect(submitted.persistentId).not.toBe('');
  const done = await w.fmgr.waitUntilSettled(submitted.id);
  expect(done.tracking).toBe('done');
  expect(done.state).toBe('processing finished');
  return done;
}

describe('Fmgr operations against the emulator', () => {
  it('uploads with the UploadClient, then fetch copies a URL into the bucket', async () => {
    const up = new UploadClient({ uploadUrl: w.emu.uploadUrl });
    try {
      const data = Buffer.from('fetched content');
      const ctx = await up.mkblk({
        token: w.emu.token({ scope: `${w.emu.bucket}:src/fetch-me.txt` }),
        blockSize: data.length,
        blockOrder: 0,
        batch: 'b-fetch',
        chunk: data,
      });
      await up.mkfile({
        token: w.emu.token({ scope: `${w.emu.bucket}:src/fetch-me.txt` }),
        fileSize: data.length,
        batch: 'b-fetch',
        ctxs: [ctx.ctx],
      });
    } finally {
      up.close();
    }
    const url = w.emu.objectUrl(w.emu.bucket, 'src/fetch-me.txt');
    const md5 = createHash('md5').update('fetched content').digest('hex');
    const t = await run(ACCOUNT_ID, 'fetch', [
      { op: 'fetch', fetchURL: url, bucket: w.emu.bucket, key: 'fetched/one.txt', md5 },
    ]);
    expect(t.items).toHaveLength(1);
    expect(t.items[0]).toMatchObject({ code: 3, state: 'processing succeeded', key: 'fetched/one.txt', fsize: 15 });
    expect(t.items[0]!.hash).toBe(stat('src/fetch-me.txt')!.hash);
    expect(stat('fetched/one.txt')?.size).toBe(15);
  });

  it('copy keeps the source, move removes it', async () => {
    put('cm/a.txt', 'aaa');
    put('cm/b.txt', 'bbb');
    const c = await run(ACCOUNT_ID, 'copy', [
      { op: 'copy', srcBucket: w.emu.bucket, srcKey: 'cm/a.txt', bucket: w.emu.bucket, key: 'cm/a-copy.txt' },
    ]);
    expect(c.items[0]).toMatchObject({ code: 3, key: 'cm/a-copy.txt' });
    expect(stat('cm/a.txt')).toBeDefined();
    expect(stat('cm/a-copy.txt')?.hash).toBe(stat('cm/a.txt')?.hash);
    const m = await run(ACCOUNT_ID, 'move', [
      { op: 'move', srcBucket: w.emu.bucket, srcKey: 'cm/b.txt', bucket: w.emu.bucket, key: 'cm/b-moved.txt' },
    ]);
    expect(m.items[0]).toMatchObject({ code: 3, key: 'cm/b-moved.txt' });
    expect(stat('cm/b.txt')).toBeUndefined();
    expect(stat('cm/b-moved.txt')?.size).toBe(3);
  });

  it('delete removes several keys in one task, one item each; a missing key fails its item only', async () => {
    put('del/1', '1');
    put('del/2', '2');
    const t = await run(ACCOUNT_ID, 'delete', [
      { op: 'delete', bucket: w.emu.bucket, key: 'del/1' },
      { op: 'delete', bucket: w.emu.bucket, key: 'del/missing' },
      { op: 'delete', bucket: w.emu.bucket, key: 'del/2' },
    ]);
    expect(t.items.map((i) => i.state)).toEqual(['processing succeeded', 'processing failed', 'processing succeeded']);
    expect(t.items[1]!.error).toMatch(/\S/);
    expect(stat('del/1')).toBeUndefined();
    expect(stat('del/2')).toBeUndefined();
  });

  it('deletePrefix removes only the prefix', async () => {
    put('pre/x/1', '1');
    put('pre/x/2', '2');
    put('pre/y/3', '3');
    const t = await run(ACCOUNT_ID, 'deletePrefix', [{ op: 'deletePrefix', bucket: w.emu.bucket, prefix: 'pre/x/' }]);
    expect(t.items[0]!.code).toBe(3);
    expect(w.emu.objects.list(w.emu.bucket, 'pre/').map((o) => o.key)).toEqual(['pre/y/3']);
  });

  it('deletem3u8 with deletets=1 removes the playlist and its segments', async () => {
    put('hls/index.m3u8', '#EXTM3U\n#EXTINF:10,\nseg0.ts\n#EXTINF:10,\nseg1.ts\n#EXT-X-ENDLIST\n');
    put('hls/seg0.ts', 'zero');
    put('hls/seg1.ts', 'one');
    put('hls/other.ts', 'keep');
    const t = await run(ACCOUNT_ID, 'deletem3u8', [
      { op: 'deletem3u8', bucket: w.emu.bucket, key: 'hls/index.m3u8', deletets: 1 },
    ]);
    expect(t.items[0]!.code).toBe(3);
    expect(w.emu.objects.list(w.emu.bucket, 'hls/').map((o) => o.key)).toEqual(['hls/other.ts']);
  });

  it('setdeadline sets the retention of every key under the prefix', async () => {
    put('dl/a', 'a');
    put('dl/b', 'b');
    const before = w.emu.clock.now();
    const t = await run(ACCOUNT_ID, 'setdeadline', [
      { op: 'setdeadline', bucket: w.emu.bucket, prefix: 'dl/', deadline: 2 },
    ]);
    expect(t.items[0]!.code).toBe(3);
    for (const k of ['dl/a', 'dl/b']) {
      const exp = stat(k)!.expiresAt!;
      expect(exp).toBeGreaterThanOrEqual(before + 2 * 86_400_000 - 1_000);
      expect(exp).toBeLessThanOrEqual(w.emu.clock.now() + 2 * 86_400_000 + 1_000);
    }
  });

  it('compress zips the keys into saveas', async () => {
    put('zip/a.txt', 'alpha');
    put('zip/b.txt', 'beta');
    const t = await run(ACCOUNT_ID, 'compress', [
      {
        op: 'compress',
        bucket: w.emu.bucket,
        keys: ['zip/a.txt', 'zip/b.txt'],
        saveAsBucket: w.emu.bucket,
        saveAsKey: 'zip/out.zip',
      },
    ]);
    expect(t.items[0]).toMatchObject({ code: 3, key: 'zip/out.zip' });
    const dl = await w.client.download(w.emu.objectUrl(w.emu.bucket, 'zip/out.zip'));
    expect(dl.status).toBe(200);
    expect(dl.body.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(dl.body.includes(Buffer.from('zip/a.txt'))).toBe(true);
  });

  it('keeps the snapshots in SQLite and the task across a restart of the app', async () => {
    put('persist/a', 'a');
    const t = await run(ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: w.emu.bucket, key: 'persist/a' }]);
    await w.closeApp();
    w.reopenApp();
    const again = w.fmgr.get(t.id)!;
    expect(again).toMatchObject({
      persistentId: t.persistentId,
      tracking: 'done',
      code: 3,
      state: 'processing finished',
    });
    expect(again.items[0]).toMatchObject({ code: 3, state: 'processing succeeded' });
    const snaps = w.fmgr.snapshots(t.id);
    expect(snaps.length).toBeGreaterThan(0);
    expect(snaps[snaps.length - 1]!.code).toBe(3);
  });

  it('refuses an invalid operation before sending it, with a message', async () => {
    await expect(
      w.fmgr.submit(ACCOUNT_ID, 'setdeadline', [{ op: 'setdeadline', bucket: w.emu.bucket, deadline: -5 }]),
    ).rejects.toMatchObject({ code: 'bad-operation' });
    await expect(w.fmgr.submit(ACCOUNT_ID, 'delete', [])).rejects.toMatchObject({ code: 'bad-operation' });
    await expect(w.fmgr.submit(999, 'delete', [{ op: 'delete', bucket: 'b', key: 'k' }])).rejects.toMatchObject({
      code: 'no-account',
    });
  });

  it('a submission the service refuses becomes a TaskError and records nothing', async () => {
    const before = w.fmgr.list().length;
    const e = await w.fmgr
      .submit(BAD_KEY_ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: w.emu.bucket, key: 'k' }])
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ name: 'TaskError', code: 'http-401' });
    expect((e as Error).message).toMatch(/not accepted.*credentials/);
    expect(w.fmgr.list().length).toBe(before);
  });

  it('an operation on a missing bucket fails its item with the reason', async () => {
    const t = await run(ACCOUNT_ID, 'delete', [{ op: 'delete', bucket: 'no-such-bucket', key: 'k' }]);
    expect(t.items[0]).toMatchObject({ code: 2, state: 'processing failed' });
    expect(t.items[0]!.error).toMatch(/bucket/);
  });
});

describe('an upload whose policy has persistentOps', () => {
  it('is followed from the mkfile reply to the end of its task', async () => {
    const up = new UploadClient({ uploadUrl: w.emu.uploadUrl });
    const data = Buffer.from('uploaded with persistentOps');
    const persistentOps = fopCommand({
      op: 'copy',
      srcBucket: w.emu.bucket,
      srcKey: 'po/src.txt',
      bucket: w.emu.bucket,
      key: 'po/copy.txt',
    });
    const token = w.emu.token({ scope: `${w.emu.bucket}:po/src.txt`, persistentOps });
    let body: Record<string, unknown>;
    try {
      const ctx = await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch: 'b-po', chunk: data });
      ({ body } = await up.mkfile({ token, fileSize: data.length, batch: 'b-po', ctxs: [ctx.ctx] }));
    } finally {
      up.close();
    }
    const t = w.fmgr.trackUpload(ACCOUNT_ID, body)!;
    expect(t).toMatchObject({ origin: 'upload', persistentId: body.persistentId });
    const done = await w.fmgr.waitUntilSettled(t.id);
    expect(done).toMatchObject({ tracking: 'done', code: 3 });
    expect(done.items[0]).toMatchObject({ state: 'processing succeeded', key: 'po/copy.txt' });
    expect(stat('po/copy.txt')?.hash).toBe(stat('po/src.txt')?.hash);
    expect(w.fmgr.trackUpload(ACCOUNT_ID, { hash: 'x', key: 'y' })).toBeUndefined();
  });
});
