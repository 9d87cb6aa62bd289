import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { fopCommand } from '../../../src-main/protocol/fops';
import { verifyNotification } from '../../../src-main/protocol/tokens';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

interface Received {
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A callback receiver on loopback whose answer each test sets. */
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  answer: { status: number; body: string };
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const answer = { status: 200, body: '{"ok":true}' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    answer,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('emulator: callbackUrl and persistentOps of mkfile', () => {
  let emu: TestEmulator;
  let up: UploadClient;
  let mgr: MgrClient;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    emu = await startTestEmulator();
    up = new UploadClient({ uploadUrl: emu.uploadUrl });
    mgr = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
    rx = await startReceiver();
  });
  afterAll(async () => {
    up.close();
    mgr.close();
    await rx.close();
    await emu.close();
  });

  async function upload(key: string, policy: Record<string, unknown>, data: Buffer) {
    const token = emu.token({ scope: `local:${key}`, ...policy });
    const batch = randomUUID();
    const b = await up.mkblk({ token, blockSize: data.length, blockOrder: 0, batch, chunk: data });
    return up.mkfile({ token, fileSize: data.length, batch, ctxs: [b.ctx], vars: { user: 'u1' } });
  }

  it('POSTs the rendered callbackBody, signed; the callback reply becomes the response', async () => {
    const data = randomBytes(123);
    // The reply passes through as is; it carries key and hash because the protocol client requires them.
    rx.answer.status = 200;
    rx.answer.body = JSON.stringify({ accepted: 'yes', n: 1, key: 'cb.bin', hash: etagOfBuffer(data) });
    const callbackUrl = `${rx.url}/cb?x=1`;
    const r = await upload(
      'cb.bin',
      { callbackUrl, callbackBody: 'key=$(key)&size=$(fsize)&who=$(x:user)&h=$(hash)' },
      data,
    );
    expect(r.body).toEqual({ accepted: 'yes', n: 1, key: 'cb.bin', hash: etagOfBuffer(data) });
    const got = rx.received.at(-1)!;
    expect(got.url).toBe('/cb?x=1');
    expect(got.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(got.body))).toEqual({
      key: 'cb.bin',
      size: '123',
      who: 'u1',
      h: etagOfBuffer(data),
    });
    expect(
      verifyNotification(got.authorization, emu.config.accessKey, emu.config.secretKey, callbackUrl, got.body),
    ).toBe(true);
    expect(verifyNotification(got.authorization, emu.config.accessKey, 'other-sk', callbackUrl, got.body)).toBe(false);
  });

  it('579 when the callback answers an error, answers non-JSON, or cannot be reached; the file is stored anyway', async () => {
    for (const [i, setup] of [
      () => Object.assign(rx.answer, { status: 500, body: '{}' }),
      () => Object.assign(rx.answer, { status: 200, body: 'not json' }),
    ].entries()) {
      setup();
      const data = randomBytes(10 + i);
      const e = await upload(`cb-fail-${i}`, { callbackUrl: `${rx.url}/cb` }, data).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).status).toBe(579);
      expect((await mgr.download(emu.objectUrl('local', `cb-fail-${i}`))).body.equals(data)).toBe(true);
    }
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/cb`;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = await upload('cb-dead', { callbackUrl: deadUrl }, Buffer.from('x')).catch((err: unknown) => err);
    expect((e as ServiceError).status).toBe(579);
    expect(emu.objects.stat('local', 'cb-dead')).toBeDefined();
  });

  it('persistentOps become an Fmgr task: persistentId in the reply and in returnBody, the task runs', async () => {
    const data = randomBytes(200);
    const persistentOps = fopCommand({
      op: 'copy',
      srcBucket: 'local',
      srcKey: 'po.bin',
      bucket: 'local',
      key: 'po-copy.bin',
    });
    const r = await upload('po.bin', { persistentOps, returnBody: 'pid=$(persistentId)' }, data);
    expect(typeof r.body.persistentId).toBe('string');
    expect(r.body.pid).toBe(r.body.persistentId);
    const id = r.body.persistentId as string;
    const deadline = Date.now() + 10_000;
    let status = await mgr.fmgrStatus(id);
    while (status.code !== 3 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      status = await mgr.fmgrStatus(id);
    }
    expect(status.code).toBe(3);
    expect(status.items[0]?.code).toBe(3);
    expect((await mgr.download(emu.objectUrl('local', 'po-copy.bin'))).body.equals(data)).toBe(true);
  });

  it('invalid persistentOps are refused (400) before anything is stored', async () => {
    const e = await upload('po-bad.bin', { persistentOps: 'nosuchop/bucket/bG9jYWw=' }, Buffer.from('x')).catch(
      (err: unknown) => err,
    );
    expect((e as ServiceError).status).toBe(400);
    expect(emu.objects.stat('local', 'po-bad.bin')).toBeUndefined();
  });
});
