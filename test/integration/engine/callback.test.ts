import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import { MiB, etagOfBuffer, sha1, startRig, type Rig } from './harness';

/** A real callback receiver on 127.0.0.1 answering `body` to every POST. */
async function startReceiver(body: string): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    hits: () => n,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let rig: Rig | undefined;
let rx: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await rig?.close();
  await rx?.close();
  rig = undefined;
  rx = undefined;
});

async function uploadWithCallback(reply: string, callback: boolean) {
  rx = await startReceiver(reply);
  const url = rx.url;
  rig = await startRig({
    tokens: (emu) =>
      new LocalTokenSigner(emu.config.accessKey, emu.config.secretKey, {
        now: () => emu.clock.now(),
        policy: callback ? { callbackUrl: url, callbackBody: 'key=$(key)' } : {},
      }),
    engine: { backoff: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 } },
  });
  const data = await rig.file('cb.bin', 5 * MiB + 7);
  const [id] = rig.engine.enqueue([
    {
      accountId: rig.accountId,
      bucket: rig.emu.bucket,
      key: 'cb.bin',
      localPath: path.join(rig.dir, 'cb.bin'),
      source: 'manual',
    },
  ]);
  const snap = await rig.settled(id!);
  return { data, snap, rec: rig.store.getTransfer(id!)! };
}

describe('engine: mkfile with a callbackUrl policy', () => {
  it('a callback reply without hash ends done, not verified, with a warning and no remote hash', async () => {
    const { data, snap, rec } = await uploadWithCallback('{"ok":true}', true);
    expect(snap.lastError, JSON.stringify(snap)).toBeNull();
    expect(snap.state).toBe('done');
    expect(snap.warning).toMatch(/hash could not be compared/);
    expect(rec.remoteHash).toBeNull();
    expect(rec.returnBody).toEqual({ ok: true });
    expect(rx!.hits()).toBe(1); // stored once, never uploaded again
    expect(sha1(await rig!.download('cb.bin'))).toBe(sha1(data));
  });

  it('a callback reply with the hash is compared as usual', async () => {
    // The receiver cannot know the etag in advance: answer with a wrong one, which must fail.
    const { snap } = await uploadWithCallback('{"hash":"FiqubDXJT8-0FdvpX0CLnOke6Ebt","key":"cb.bin"}', true);
    expect(snap.state).toBe('failed');
    expect(snap.lastError?.code).toBe('hash-mismatch');
  });

  it('without callbackUrl a normal upload is verified (remote hash = etag)', async () => {
    const { data, snap, rec } = await uploadWithCallback('{"ok":true}', false);
    expect(snap.state).toBe('done');
    expect(snap.warning).toBeNull();
    expect(rec.remoteHash).toBe(etagOfBuffer(data));
    expect(rx!.hits()).toBe(0);
  });
});
