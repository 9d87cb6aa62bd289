/**
 * Issue 19: on a link with a round trip the engine widens what it keeps in flight, and
 * memory stays bounded. A real emulator on 127.0.0.1 answers every chunk request 250 ms late
 * (its latency fault: long beside the emulator's work on a 256 KiB chunk, even on a busy
 * machine); the engine uploads a real 32 MiB file (8 blocks) from a temp folder through a
 * loopback proxy of this test that counts the chunk requests (mkblk, bput) awaiting their
 * reply. Configured for 2 blocks and 1 MiB of read buffers (256 KiB chunks): a fixed window
 * never has more than 2 chunks out; the window must pass that (a chunk's buffer goes back
 * once its body is sent, so requests out are not bounded by the buffers), with the bytes
 * held in buffers never above the 1 MiB.
 * Small files: 600 files of 2 KiB, 500 ms on every form upload, 16 configured; the window
 * must pass 32 form uploads out at once (the window probes, and the HTTP agent lets them out).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { InFlightReport } from '../../../src-main/engine/engine';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { startRig, type Rig } from './harness';

const MiB = 1024 * 1024;
const LATENCY_MS = 250;
const CHUNK = 256 * 1024;

/** A loopback proxy to `target()` that counts the requests `counts` names in flight (request in, reply not yet out): chunk requests by default. */
async function countingProxy(
  target: () => string,
  counts: (req: http.IncomingMessage) => boolean = (req) => /^\/(mkblk|bput)\//.test(req.url ?? ''),
): Promise<{ url: string; most(): number; close(): Promise<void> }> {
  let now = 0;
  let most = 0;
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const to = new URL(target());
    let counted = counts(req);
    if (counted) most = Math.max(most, ++now);
    const done = () => {
      if (counted) now--;
      counted = false;
    };
    const up = http.request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers, agent },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', done);
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    most: () => most,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let rig: Rig | undefined;
let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
afterEach(async () => {
  await rig?.close();
  await proxy?.close();
  rig = proxy = undefined;
});

describe('engine: the in-flight window under 250 ms of latency', () => {
  /** Uploads `mib` MiB (blocks of 4 MiB, 256 KiB chunks); returns the most chunks out and the most bytes held. */
  const upload = async (adaptiveWindow: boolean | 'with-blocks', mib: number) => {
    let emuUrl = '';
    proxy = await countingProxy(() => emuUrl);
    rig = await startRig({
      emulator: { faults: { latencyMs: LATENCY_MS, latencyEndpoints: ['mkblk', 'bput'] } },
      engine: {
        chunkBytes: CHUNK,
        limits: { maxBlocks: 2, maxBlocksPerFile: 2, maxBytesInFlight: 4 * CHUNK },
        adaptiveWindow,
      },
      uploadUrl: (emu) => {
        emuUrl = emu.uploadUrl;
        return proxy!.url;
      },
    });
    const data = await rig.file('big.bin', mib * MiB);
    let bytesHeld = 0;
    let report: InFlightReport | undefined;
    const sampler = setInterval(() => {
      report = rig!.engine.inFlight();
      bytesHeld = Math.max(bytesHeld, report.bytesHeld);
    }, 5);
    try {
      const [id] = rig.engine.enqueue([
        {
          accountId: rig.accountId,
          bucket: rig.emu.bucket,
          key: 'big.bin',
          localPath: `${rig.dir}/big.bin`,
          source: 'manual',
        },
      ]);
      const snap = await rig.settled(id!, 120_000);
      expect(snap.state).toBe('done');
      expect(snap.etag).toBe(etagOfBuffer(data));
    } finally {
      clearInterval(sampler);
    }
    expect((await rig.download('big.bin')).equals(data)).toBe(true);
    return { most: proxy.most(), bytesHeld, report: rig.engine.inFlight() };
  };

  it('grows past the configured 2 blocks, the buffers within their 1 MiB', async () => {
    const r = await upload('with-blocks', 32);
    expect(r.most).toBeGreaterThan(2);
    expect(r.most).toBeLessThanOrEqual(2 * 4); // maxFactor 4
    expect(r.report.block!.peakFactor).toBeGreaterThan(1);
    expect(r.report.block!.minRttMs).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(r.bytesHeld).toBeLessThanOrEqual(4 * CHUNK);
  }, 180_000);

  it('a fixed window (adaptiveWindow: false) keeps the configured 2', async () => {
    const r = await upload(false, 8);
    expect(r.most).toBeLessThanOrEqual(2);
    expect(r.bytesHeld).toBeLessThanOrEqual(4 * CHUNK);
  }, 180_000);
});

describe('engine: small files under 500 ms of latency', () => {
  // 16 small files configured, so the window's widest (×4 = 64) is past the 32 sockets
  // node:http's agent used to allow: requests out above 32 show both the window and the agent.
  // 500 ms a request keeps the machine's part small (≈ 32 files a second at ×1, 128 at ×4),
  // so a busy machine still sees the rate follow the window; 600 files leave work for ×4
  // (its periods are 4 round trips, 2 s).
  it('widens past the configured 16 form uploads, and past 32 requests out, every file verified', async () => {
    let emuUrl = '';
    proxy = await countingProxy(
      () => emuUrl,
      (req) => req.method === 'POST' && (req.url ?? '').startsWith('/file/upload'),
    );
    rig = await startRig({
      emulator: { faults: { latencyMs: 500, latencyEndpoints: ['form'] } },
      engine: { limits: { maxSmallFiles: 16, maxRequests: 16 } },
      uploadUrl: (emu) => {
        emuUrl = emu.uploadUrl;
        return proxy!.url;
      },
    });
    const files: { name: string; data: Buffer }[] = [];
    for (let i = 0; i < 600; i++) {
      const name = `s${String(i).padStart(3, '0')}.bin`;
      files.push({ name, data: await rig.file(name, 2048) });
    }
    const ids = rig.engine.enqueue(
      files.map((f) => ({
        accountId: rig!.accountId,
        bucket: rig!.emu.bucket,
        key: f.name,
        localPath: `${rig!.dir}/${f.name}`,
        source: 'manual' as const,
      })),
    );
    for (const [i, id] of ids.entries()) {
      const snap = await rig.settled(id, 120_000);
      expect(snap.state).toBe('done');
      expect(snap.etag).toBe(etagOfBuffer(files[i]!.data));
    }
    const report = rig.engine.inFlight();
    expect(report.form!.minRttMs).toBeGreaterThanOrEqual(500);
    expect(report.form!.peakFactor).toBeGreaterThan(2);
    expect(proxy.most()).toBeGreaterThan(32);
    for (const f of files.slice(0, 20)) expect((await rig.download(f.name)).equals(f.data)).toBe(true);
  }, 180_000);
});
