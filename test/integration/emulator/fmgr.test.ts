import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MgrClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import type { FmgrOp } from '../../../src-main/protocol/fops';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { mgrClient, putObject, startReceiver, waitTask } from './fmgr-support';

// Every Fmgr operation end to end through the real server and the protocol client, with
// its effect checked on the emulator's storage by downloading (or statting) the objects.

let emu: TestEmulator;
let mgr: MgrClient;
let files: http.Server;
let filesBase: string;
let tmp: string;
const served = Buffer.from('fetched bytes '.repeat(300));

beforeAll(async () => {
  emu = await startTestEmulator({ buckets: ['b1', 'b2'] });
  mgr = mgrClient(emu);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'blocklift-fmgr-test-'));
  files = http.createServer((req, res) => {
    if (req.url === '/media/clip.bin') res.writeHead(200, { 'Content-Length': served.length }).end(served);
    else if (req.url === '/moved') res.writeHead(302, { Location: '/media/clip.bin' }).end();
    else res.writeHead(404).end('nope');
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  mgr?.close();
  await emu?.close();
  files?.closeAllConnections();
  await new Promise((r) => files?.close(r));
  await rm(tmp, { recursive: true, force: true });
});

async function download(bucket: string, key: string): Promise<{ status: number; body: Buffer }> {
  const r = await mgr.download(emu.objectUrl(bucket, key));
  return { status: r.status, body: r.body };
}

async function run(ops: FmgrOp[], opts: { force?: 0 | 1 } = {}) {
  const { persistentId } = await mgr.fmgrSubmit(ops[0]!.op, ops, opts);
  return waitTask(mgr, persistentId);
}

describe('Fmgr operations against the emulator storage', () => {
  it('copy: the destination gets the bytes, the source stays, the item reports key, hash, fsize and url', async () => {
    const { hash } = await putObject(emu, 'b1', 'copy/src.txt', 'copy me');
    const { status } = await run([
      { op: 'copy', srcBucket: 'b1', srcKey: 'copy/src.txt', bucket: 'b2', key: 'copy/dst.txt' },
    ]);
    expect(status.code).toBe(3);
    expect(status.items).toHaveLength(1);
    const item = status.items[0]!;
    expect(item).toMatchObject({
      code: 3,
      desc: 'processing succeeded',
      key: 'copy/dst.txt',
      hash,
      fsize: 7,
      url: emu.objectUrl('b2', 'copy/dst.txt'),
    });
    expect(item.cmd.startsWith('copy/resource/')).toBe(true);
    expect((await download('b2', 'copy/dst.txt')).body.toString()).toBe('copy me');
    expect((await download('b1', 'copy/src.txt')).status).toBe(200);
  });

  it('copy with a prefix and no key keeps the source key under the prefix', async () => {
    await putObject(emu, 'b1', 'pfx/a.txt', 'A');
    const { status } = await run([
      { op: 'copy', srcBucket: 'b1', srcKey: 'pfx/a.txt', bucket: 'b1', prefix: 'backup/' },
    ]);
    expect(status.items[0]).toMatchObject({ code: 3, key: 'backup/pfx/a.txt' });
    expect((await download('b1', 'backup/pfx/a.txt')).body.toString()).toBe('A');
  });

  it('copy onto an existing key fails "file exists" without force and replaces it with force=1', async () => {
    await putObject(emu, 'b1', 'force/src.txt', 'new content');
    await putObject(emu, 'b1', 'force/dst.txt', 'old content');
    const op: FmgrOp = { op: 'copy', srcBucket: 'b1', srcKey: 'force/src.txt', bucket: 'b1', key: 'force/dst.txt' };
    const refused = await run([op]);
    expect(refused.status.code).toBe(3);
    expect(refused.status.items[0]).toMatchObject({ code: 2, desc: 'processing failed' });
    expect(refused.status.items[0]!.error).toMatch(/file exists/);
    expect((await download('b1', 'force/dst.txt')).body.toString()).toBe('old content');
    const forced = await run([op], { force: 1 });
    expect(forced.status.items[0]).toMatchObject({ code: 3 });
    expect((await download('b1', 'force/dst.txt')).body.toString()).toBe('new content');
  });

  it('move: the source is gone and the destination has the bytes', async () => {
    await putObject(emu, 'b1', 'move/src.bin', Buffer.from([1, 2, 3, 4]));
    const { status } = await run([
      { op: 'move', srcBucket: 'b1', srcKey: 'move/src.bin', bucket: 'b2', key: 'moved.bin' },
    ]);
    expect(status.items[0]).toMatchObject({ code: 3, key: 'moved.bin', fsize: 4 });
    expect((await download('b1', 'move/src.bin')).status).toBe(404);
    expect([...(await download('b2', 'moved.bin')).body]).toEqual([1, 2, 3, 4]);
  });

  it('a missing source or bucket fails its item with the reason, other items of the task still run', async () => {
    await putObject(emu, 'b1', 'multi/ok.txt', 'ok');
    const { status } = await run([
      { op: 'copy', srcBucket: 'b1', srcKey: 'multi/absent.txt', bucket: 'b1', key: 'multi/x.txt' },
      { op: 'copy', srcBucket: 'b1', srcKey: 'multi/ok.txt', bucket: 'nobucket', key: 'multi/y.txt' },
      { op: 'copy', srcBucket: 'b1', srcKey: 'multi/ok.txt', bucket: 'b1', key: 'multi/z.txt' },
    ]);
    expect(status.items.map((i) => i.code)).toEqual([2, 2, 3]);
    expect(status.items[0]!.error).toMatch(/file not found: b1:multi\/absent\.txt/);
    expect(status.items[1]!.error).toMatch(/bucket not found: nobucket/);
    expect((await download('b1', 'multi/z.txt')).body.toString()).toBe('ok');
  });

  it('delete: the object is gone; deleting it again fails the item', async () => {
    await putObject(emu, 'b1', 'del/one.txt', 'x');
    const first = await run([{ op: 'delete', bucket: 'b1', key: 'del/one.txt' }]);
    expect(first.status.items[0]).toMatchObject({ code: 3, key: 'del/one.txt' });
    expect((await download('b1', 'del/one.txt')).status).toBe(404);
    const again = await run([{ op: 'delete', bucket: 'b1', key: 'del/one.txt' }]);
    expect(again.status.items[0]!.code).toBe(2);
    expect(again.status.items[0]!.error).toMatch(/file not found/);
  });

  it('deletePrefix: everything under the prefix goes, the rest stays, output lists the deleted keys', async () => {
    for (const k of ['dp/a.txt', 'dp/sub/b.txt', 'dp/sub/c.txt', 'dq/keep.txt']) await putObject(emu, 'b1', k, k);
    const { status } = await run([{ op: 'deletePrefix', bucket: 'b1', prefix: 'dp/', output: 'reports/deleted.txt' }]);
    expect(status.items[0]).toMatchObject({
      code: 3,
      key: 'reports/deleted.txt',
      url: emu.objectUrl('b1', 'reports/deleted.txt'),
      hash: '',
    });
    expect(status.items[0]!.fsize).toBeUndefined();
    expect(emu.objects.list('b1', 'dp/')).toEqual([]);
    expect((await download('b1', 'dq/keep.txt')).status).toBe(200);
    expect((await download('b1', 'reports/deleted.txt')).body.toString()).toBe(
      'dp/a.txt\ndp/sub/b.txt\ndp/sub/c.txt\n',
    );
  });

  it('deletem3u8 with deletets=1 deletes the playlist and its segments; deletets=0 only the playlist', async () => {
    const playlist = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:10',
      '#EXTINF:10,',
      'seg0.ts',
      '#EXTINF:10,',
      emu.objectUrl('b1', 'hls/seg1.ts'),
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    for (const k of ['hls/seg0.ts', 'hls/seg1.ts', 'hls/other.ts']) await putObject(emu, 'b1', k, k);
    await putObject(emu, 'b1', 'hls/index.m3u8', playlist);
    const { status } = await run([{ op: 'deletem3u8', bucket: 'b1', key: 'hls/index.m3u8', deletets: 1 }]);
    expect(status.items[0]).toMatchObject({ code: 3, key: 'hls/index.m3u8' });
    expect(emu.objects.list('b1', 'hls/').map((o) => o.key)).toEqual(['hls/other.ts']);

    for (const k of ['hls2/seg0.ts']) await putObject(emu, 'b1', k, k);
    await putObject(emu, 'b1', 'hls2/index.m3u8', '#EXTM3U\nseg0.ts\n');
    await run([{ op: 'deletem3u8', bucket: 'b1', key: 'hls2/index.m3u8', deletets: 0 }]);
    expect(emu.objects.list('b1', 'hls2/').map((o) => o.key)).toEqual(['hls2/seg0.ts']);
  });

  it('deletem3u8 on something that is not a playlist fails and deletes nothing', async () => {
    await putObject(emu, 'b1', 'hls3/fake.m3u8', 'not a playlist');
    const { status } = await run([{ op: 'deletem3u8', bucket: 'b1', key: 'hls3/fake.m3u8', deletets: 1 }]);
    expect(status.items[0]!.code).toBe(2);
    expect(status.items[0]!.error).toMatch(/not an m3u8 playlist/);
    expect(emu.objects.stat('b1', 'hls3/fake.m3u8')).toBeDefined();
  });

  it('setdeadline: every object under the prefix expires after the days given; -1 removes the deadline', async () => {
    for (const k of ['sd/a.txt', 'sd/b.txt', 'sx/c.txt']) await putObject(emu, 'b1', k, k);
    const before = emu.clock.now();
    const { status } = await run([{ op: 'setdeadline', bucket: 'b1', prefix: 'sd/', deadline: 2 }]);
    expect(status.items[0]).toMatchObject({ code: 3, key: 'sd/' });
    const day = 24 * 3600 * 1000;
    for (const k of ['sd/a.txt', 'sd/b.txt']) {
      const exp = emu.objects.stat('b1', k)!.expiresAt!;
      expect(exp).toBeGreaterThanOrEqual(before + 2 * day);
      expect(exp).toBeLessThan(before + 2 * day + 60_000);
    }
    expect(emu.objects.stat('b1', 'sx/c.txt')!.expiresAt).toBeNull();
    await run([{ op: 'setdeadline', bucket: 'b1', prefix: 'sd/a', deadline: -1 }]);
    expect(emu.objects.stat('b1', 'sd/a.txt')!.expiresAt).toBeNull();
    emu.clock.advance(3 * day);
    try {
      expect((await download('b1', 'sd/b.txt')).status).toBe(404);
      expect((await download('b1', 'sd/a.txt')).status).toBe(200);
    } finally {
      emu.clock.advance(-3 * day);
    }
  });

  it('compress: saves a zip that unzip opens, holding each key with its bytes', async () => {
    const contents: Record<string, string> = {
      'zip/a.txt': 'alpha '.repeat(100),
      'zip/dir/b.txt': 'beta',
      'zip/c.bin': '\u0000\u0001\u0002',
    };
    for (const [k, v] of Object.entries(contents)) await putObject(emu, 'b1', k, v);
    const { status } = await run([
      { op: 'compress', bucket: 'b1', keys: Object.keys(contents), saveAsBucket: 'b2', saveAsKey: 'archives/all.zip' },
    ]);
    const item = status.items[0]!;
    expect(item).toMatchObject({ code: 3, key: 'archives/all.zip', url: emu.objectUrl('b2', 'archives/all.zip') });
    const zip = await download('b2', 'archives/all.zip');
    expect(item.fsize).toBe(zip.body.length);
    const file = path.join(tmp, 'all.zip');
    await writeFile(file, zip.body);
    expect(execFileSync('unzip', ['-tq', file]).toString()).toMatch(/No errors detected/);
    for (const [k, v] of Object.entries(contents)) expect(execFileSync('unzip', ['-p', file, k]).toString()).toBe(v);
  });

  it('compress with a missing key fails the item and saves nothing', async () => {
    await putObject(emu, 'b1', 'zip2/a.txt', 'a');
    const { status } = await run([
      {
        op: 'compress',
        bucket: 'b1',
        keys: ['zip2/a.txt', 'zip2/absent.txt'],
        saveAsBucket: 'b1',
        saveAsKey: 'zip2/out.zip',
      },
    ]);
    expect(status.items[0]!.code).toBe(2);
    expect(status.items[0]!.error).toMatch(/zip2\/absent\.txt/);
    expect(emu.objects.stat('b1', 'zip2/out.zip')).toBeUndefined();
  });

  it('fetch: stores the URL content under the key (or prefix + file name), checking md5', async () => {
    const md5 = createHash('md5').update(served).digest('hex');
    const { status } = await run([
      { op: 'fetch', fetchURL: `${filesBase}/media/clip.bin`, bucket: 'b1', key: 'fetched/clip.bin', md5 },
      { op: 'fetch', fetchURL: `${filesBase}/moved`, bucket: 'b1', prefix: 'fetched/p-' },
      {
        op: 'fetch',
        fetchURL: `${filesBase}/media/clip.bin`,
        bucket: 'b1',
        key: 'fetched/bad.bin',
        md5: '0'.repeat(32),
      },
      { op: 'fetch', fetchURL: `${filesBase}/absent.bin`, bucket: 'b1', key: 'fetched/absent.bin' },
    ]);
    expect(status.items.map((i) => i.code)).toEqual([3, 3, 2, 2]);
    expect(status.items[0]).toMatchObject({ key: 'fetched/clip.bin', fsize: served.length });
    expect((await download('b1', 'fetched/clip.bin')).body.equals(served)).toBe(true);
    expect(status.items[1]!.key).toBe('fetched/p-moved');
    expect(status.items[2]!.error).toMatch(/md5 mismatch/);
    expect(emu.objects.stat('b1', 'fetched/bad.bin')).toBeUndefined();
    expect(status.items[3]!.error).toMatch(/HTTP 404/);
  });
});

describe('Fmgr states and errors', () => {
  it('a task and its item move through their states in order, observed by polling', async () => {
    const slow = await startTestEmulator({ fmgrStepDelayMs: 80, notifyRetry: { attempts: 3, baseDelayMs: 80 } });
    const m = mgrClient(slow);
    const rx = await startReceiver(slow);
    try {
      await putObject(slow, slow.bucket, 's.txt', 's');
      const { persistentId } = await m.fmgrSubmit('copy', [
        { op: 'copy', srcBucket: slow.bucket, srcKey: 's.txt', bucket: slow.bucket, key: 't.txt' },
      ]);
      const { codes, itemCodes } = await waitTask(m, persistentId);
      expect(codes).toEqual([0, 1, 3]);
      expect(itemCodes[0]).toEqual([0, 1, 3]);

      rx.answers.push(500); // the first attempt fails and each is held, so "notifying" lasts
      rx.holdMs = 100;
      const notified = await m.fmgrSubmit('delete', [{ op: 'delete', bucket: slow.bucket, key: 't.txt' }], {
        notifyURL: rx.url('/n'),
      });
      const seen = await waitTask(m, notified.persistentId, { notified: true });
      expect(seen.codes).toEqual([0, 1, 3, 4, 6]);
      expect(seen.itemCodes[0]).toEqual([0, 1, 3, 4, 6]);
    } finally {
      m.close();
      await slow.close();
      await rx.close();
    }
  });

  it('answers 404 with a numeric code for an unknown persistentId and 400 without one', async () => {
    const e = await mgr.fmgrStatus('fmgr-unknown').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ status: 404, code: 404 });
    const raw = await mgr.download(`${emu.mgrUrl}/fmgr/status`);
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.body.toString())).toMatchObject({ code: 400 });
  });

  it('refuses a submission with a bad token, unknown op or malformed fops (nothing queued)', async () => {
    const wrongKeys = mgrClient({ ...emu, config: { ...emu.config, secretKey: 'wrong' } });
    try {
      await expect(wrongKeys.fmgrSubmit('delete', [{ op: 'delete', bucket: 'b1', key: 'x' }])).rejects.toMatchObject({
        status: 401,
      });
    } finally {
      wrongKeys.close();
    }
    const post = async (op: string, body: string) => {
      const { signManagementToken } = await import('../../../src-main/protocol/tokens');
      const auth = signManagementToken(emu.config.accessKey, emu.config.secretKey, `/fmgr/${op}`, body);
      const r = await fetch(`${emu.mgrUrl}/fmgr/${op}`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
      return { status: r.status, body: (await r.json()) as { code: number; message: string } };
    };
    const unknown = await post('explode', 'fops=bucket/YjE=/key/eA==');
    expect(unknown).toMatchObject({ status: 400, body: { code: 400 } });
    expect(unknown.body.message).toMatch(/unknown Fmgr operation/);
    const bad = await post('delete', 'fops=bucket/YjE=/key');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/name without a value/);
    const empty = await post('delete', 'fops=');
    expect(empty.body.message).toMatch(/fops is required/);
    const badNotify = await post('delete', 'fops=bucket/YjE=/key/eA==&notifyURL=%%%');
    expect(badNotify.body.message).toMatch(/notifyURL/);
  });

  it('keeps finished tasks across a restart', async () => {
    const first = await startTestEmulator();
    let second: TestEmulator | undefined;
    let m = mgrClient(first);
    try {
      await putObject(first, first.bucket, 'r.txt', 'r');
      const { persistentId } = await m.fmgrSubmit('delete', [{ op: 'delete', bucket: first.bucket, key: 'r.txt' }]);
      const done = await waitTask(m, persistentId);
      m.close();
      second = await first.restart();
      m = mgrClient(second);
      expect(await m.fmgrStatus(persistentId)).toEqual(done.status);
    } finally {
      m.close();
      await (second ?? first).close();
    }
  });

  it('resumes a task that was still pending when the emulator stopped', async () => {
    const first = await startTestEmulator({ fmgrStepDelayMs: 200 });
    let second: TestEmulator | undefined;
    let m = mgrClient(first);
    try {
      await putObject(first, first.bucket, 'p.txt', 'p');
      const { persistentId } = await m.fmgrSubmit('copy', [
        { op: 'copy', srcBucket: first.bucket, srcKey: 'p.txt', bucket: first.bucket, key: 'q.txt' },
      ]);
      expect((await m.fmgrStatus(persistentId)).code).toBe(0);
      m.close();
      second = await first.restart({ fmgrStepDelayMs: 5 });
      m = mgrClient(second);
      const { status } = await waitTask(m, persistentId);
      expect(status.items[0]).toMatchObject({ code: 3, key: 'q.txt' });
      expect(second.objects.stat(second.bucket, 'q.txt')).toBeDefined();
    } finally {
      m.close();
      await (second ?? first).close();
    }
  });
});
