import { createServer, type Server } from 'node:http';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UploadClient } from '../../../src-main/protocol/client';
import { LocalTokenSigner, RemoteTokenProvider } from '../../../src-main/engine/tokens';
import { signUploadToken } from '../../../src-main/protocol/tokens';
import { MiB, sha1, startRig, type Rig } from './harness';

let rig: Rig | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
}

const req = (r: Rig, name: string, key = name) => ({
  accountId: r.accountId,
  bucket: r.emu.bucket,
  key,
  localPath: path.join(r.dir, name),
  source: 'manual' as const,
});

/** Pauses transfer `id` once more than `bytes` of it were acknowledged, and waits until it is paused. */
async function pauseAfter(r: Rig, id: number, bytes: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const off = r.engine.onProgress(
      (p) => p.id === id && p.bytesDone > bytes && (off(), r.engine.pause(id), resolve()),
    );
  });
  await new Promise<void>((resolve) => {
    if (r.engine.get(id)!.state === 'paused') resolve();
    const off = r.engine.onTransferChange((s) => s.id === id && s.state === 'paused' && (off(), resolve()));
  });
}

describe('engine resilience', () => {
  it('gets tokens from a remote token URL (no secret in the uploader)', async () => {
    const seen: string[] = [];
    let sk = '';
    let ak = '';
    let now = () => Date.now();
    const url = await serve((q, res) => {
      const u = new URL(q.url ?? '/', 'http://x');
      seen.push(u.search);
      const policy = {
        scope: `${u.searchParams.get('bucket')}:${u.searchParams.get('key')}`,
        deadline: now() + 60_000,
        ...(u.searchParams.get('overwrite') === '1' ? { overwrite: 1 as const } : {}),
      };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ token: signUploadToken(ak, sk, policy) }));
    });
    rig = await startRig({ tokens: () => new RemoteTokenProvider(`${url}/token`) });
    ak = rig.emu.config.accessKey;
    sk = rig.emu.config.secretKey;
    now = () => rig!.emu.clock.now();
    const data = await rig.file('r.bin', 5 * MiB);
    const [id] = rig.engine.enqueue([req(rig, 'r.bin')]);
    const s = await rig.settled(id!);
    expect(s.lastError).toBeNull();
    expect(sha1(await rig.download('r.bin'))).toBe(sha1(data));
    expect(seen[0]).toContain('key=r.bin');
  });

  it('a token URL answering garbage fails the transfer with a clear error', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200);
      res.end('<html>login required</html>');
    });
    rig = await startRig({
      tokens: () => new RemoteTokenProvider(url),
      engine: { backoff: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 } },
    });
    await rig.file('g.bin', 1000);
    const [id] = rig.engine.enqueue([req(rig, 'g.bin')]);
    const s = await rig.settled(id!);
    expect(s.state).toBe('failed');
    expect(s.lastError?.message).toContain('did not return an upload token');
  });

  it('an upload host answering garbage fails cleanly, never done', async () => {
    const url = await serve((q, res) => {
      q.resume();
      q.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"ctx": 12, "nonsense": true');
      });
    });
    rig = await startRig({ engine: { backoff: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 } } });
    const garbage = new UploadClient({ uploadUrl: url });
    await rig.engine.close();
    rig.newEngine({
      account: () => ({ client: garbage, tokens: new LocalTokenSigner('ak', 'sk') }),
      backoff: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 },
    });
    await rig.file('h.bin', 1000);
    const [id] = rig.engine.enqueue([req(rig, 'h.bin')]);
    const s = await rig.settled(id!);
    garbage.close();
    expect(s.state).toBe('failed');
    expect(s.lastError?.message).toMatch(/not JSON/);
    expect(s.etag).toBeNull();
  });

  it('blocks older than the purge age are uploaded again, and the file is exact', async () => {
    rig = await startRig({ engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB, purgeAgeMs: 60_000 } });
    const r = rig;
    const data = await r.file('old.bin', 10 * MiB);
    const [id] = r.engine.enqueue([req(r, 'old.bin')]);
    await pauseAfter(r, id!, 2 * MiB);
    expect(r.store.listBlocks(id!).some((b) => b.nextOffset > 0)).toBe(true);
    r.emu.clock.advance(31 * 24 * 3600_000); // past the emulator's purge age (30 days) and ours
    r.emu.sweepNow();
    r.engine.resume(id!);
    const s = await r.settled(id!);
    expect(s.lastError).toBeNull();
    expect(sha1(await r.download('old.bin'))).toBe(sha1(data));
  });

  it('412 from mkfile (the service lost finished blocks) re-uploads them and completes', async () => {
    rig = await startRig({
      emulator: { purgeAgeMs: 60_000 },
      engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB, limits: { maxBlocksPerFile: 1 } },
    });
    const r = rig;
    const data = await r.file('lost.bin', 10 * MiB);
    const [id] = r.engine.enqueue([req(r, 'lost.bin')]);
    await pauseAfter(r, id!, 5 * MiB);
    expect(r.store.listBlocks(id!)[0]!.nextOffset).toBe(4 * MiB); // block 0 finished before the pause
    r.emu.clock.advance(120_000); // the emulator purges after 1 minute; the engine still trusts its blocks
    r.emu.sweepNow();
    r.engine.resume(id!);
    const s = await r.settled(id!);
    expect(s.lastError).toBeNull();
    expect(s.state).toBe('done');
    expect(sha1(await r.download('lost.bin'))).toBe(sha1(data));
    const log = r.db.prepare("SELECT message FROM event_log WHERE kind = 'retry'").all() as Array<{ message: string }>;
    expect(log.some((l) => l.message.includes('reupload-blocks'))).toBe(true);
  });

  it('a service answering block-so-far CRCs is recognised: blocks track their CRC and the file completes', async () => {
    rig = await startRig({ engine: { chunkBytes: 512 * 1024 } });
    const r = rig;
    const { crc32 } = await import('node:zlib');
    const { request } = await import('node:http');
    const target = new URL(r.emu.uploadUrl);
    const crcOfCtx = new Map<string, number>();
    let rewritten = 0;
    // A real proxy in front of the emulator that answers bput with the CRC of the block so far.
    const url = await serve((q, res) => {
      const chunks: Buffer[] = [];
      q.on('data', (c: Buffer) => chunks.push(c));
      q.on('end', () => {
        const body = Buffer.concat(chunks);
        const fwd = request(
          { host: target.hostname, port: target.port, method: q.method, path: q.url, headers: q.headers },
          (up) => {
            const parts: Buffer[] = [];
            up.on('data', (c: Buffer) => parts.push(c));
            up.on('end', () => {
              let text = Buffer.concat(parts).toString('utf8');
              const m = /^\/(mkblk|bput)\/([^/]+)/.exec(q.url ?? '');
              if (up.statusCode === 200 && m) {
                const reply = JSON.parse(text) as { ctx: string; crc32: number };
                const before = m[1] === 'bput' ? crcOfCtx.get(decodeURIComponent(m[2]!)) : 0;
                if (before !== undefined) {
                  const soFar = crc32(body, before);
                  crcOfCtx.set(reply.ctx, soFar);
                  if (m[1] === 'bput') {
                    reply.crc32 = soFar;
                    rewritten++;
                  }
                  text = JSON.stringify(reply);
                }
              }
              const headers = { ...up.headers };
              delete headers['content-length'];
              res.writeHead(up.statusCode ?? 502, headers);
              res.end(text);
            });
          },
        );
        fwd.end(body);
      });
    });
    const client = new UploadClient({ uploadUrl: url });
    const signer = new LocalTokenSigner(r.emu.config.accessKey, r.emu.config.secretKey, {
      now: () => r.emu.clock.now(),
    });
    await r.engine.close();
    r.newEngine({ account: () => ({ client, tokens: signer }), chunkBytes: 512 * 1024 });
    const data = await r.file('crc.bin', 9 * MiB);
    const [id] = r.engine.enqueue([req(r, 'crc.bin')]);
    const s = await r.settled(id!);
    client.close();
    expect(s.lastError).toBeNull();
    expect(s.state).toBe('done');
    expect(rewritten).toBeGreaterThan(10);
    expect(sha1(await r.download('crc.bin'))).toBe(sha1(data));
  });

  it('a file rewritten mid-upload starts over and the stored object is the new content', async () => {
    rig = await startRig({ engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB } });
    const r = rig;
    await r.file('chg.bin', 8 * MiB);
    const [id] = r.engine.enqueue([req(r, 'chg.bin')]);
    const v2 = randomBytes(8 * MiB);
    let rewritten = false;
    const off = r.engine.onProgress((p) => {
      if (!rewritten && p.id === id && p.bytesDone > 2 * MiB) {
        rewritten = true;
        writeFileSync(path.join(r.dir, 'chg.bin'), v2);
      }
    });
    const s = await r.settled(id!);
    off();
    expect(rewritten).toBe(true);
    expect(s.state).toBe('done');
    expect(sha1(await r.download('chg.bin'))).toBe(sha1(readFileSync(path.join(r.dir, 'chg.bin'))));
    expect(sha1(await r.download('chg.bin'))).toBe(sha1(v2));
  });

  it('a file deleted mid-upload fails with file-vanished, never done', async () => {
    rig = await startRig({ engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB } });
    const r = rig;
    await r.file('gone.bin', 6 * MiB);
    const [id] = r.engine.enqueue([req(r, 'gone.bin')]);
    let deleted = false;
    const { unlinkSync } = await import('node:fs');
    const off = r.engine.onProgress((p) => {
      if (!deleted && p.id === id && p.bytesDone > MiB) {
        deleted = true;
        unlinkSync(path.join(r.dir, 'gone.bin'));
      }
    });
    const s = await r.settled(id!);
    off();
    expect(s.state).toBe('failed');
    expect(s.lastError?.code).toBe('file-vanished');
    expect(r.emu.objects.stat(r.emu.bucket, 'gone.bin')).toBeUndefined();
  });

  it('a file that shrinks mid-upload fails saying the size it had and the size it has (not only the old one)', async () => {
    rig = await startRig({ engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB } });
    const r = rig;
    await r.file('shrunk.bin', 12 * MiB);
    const [id] = r.engine.enqueue([req(r, 'shrunk.bin')]);
    let cut = false;
    const off = r.engine.onProgress((p) => {
      if (!cut && p.id === id && p.bytesDone > 2 * MiB) {
        cut = true;
        truncateSync(path.join(r.dir, 'shrunk.bin'), 3 * MiB + 5);
      }
    });
    const s = await r.settled(id!);
    off();
    expect(s.state).toBe('failed');
    expect(s.lastError?.code).toBe('file-changed');
    // The row shows the planned size (12.0 MB) next to this line: the line says it is 3.0 MB now.
    expect(s.lastError?.message).toBe(
      `${path.join(r.dir, 'shrunk.bin')} became shorter while it was uploaded: it was 12.0 MB (12582912 bytes) when the upload started and is 3.0 MB (3145733 bytes) now; upload it again when it is complete`,
    );
    expect(r.emu.objects.stat(r.emu.bucket, 'shrunk.bin')).toBeUndefined();
  });

  it('a file that shrinks before its resume re-reads a block says the size it had and the size it has', async () => {
    rig = await startRig({
      engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 8 * MiB, limits: { maxBlocksPerFile: 1 } },
    });
    const r = rig;
    const file = path.join(r.dir, 'resumed.bin');
    await r.file('resumed.bin', 12 * MiB);
    const [id] = r.engine.enqueue([req(r, 'resumed.bin')]);
    await pauseAfter(r, id!, 2 * MiB);
    const part = r.store.listBlocks(id!)[0]!.nextOffset;
    expect(part).toBeGreaterThan(2 * MiB);
    expect(part).toBeLessThan(4 * MiB); // block 0 resumes mid-unit: its restore reads [0, part) back
    // The file shrinks after the resumed run's stat (size and mtime as stored: the blocks are
    // kept) and before the restore reads: the run's read of its blocks is that moment.
    const { SqliteTransferStore } = await import('../../../src-main/store/transfer-repo');
    let shrunk = false;
    class ShrinksBeforeRestore extends SqliteTransferStore {
      override listBlocks(transferId: number) {
        if (!shrunk && transferId === id && this.getTransfer(transferId)?.state === 'uploading') {
          shrunk = true;
          truncateSync(file, MiB + 5);
        }
        return super.listBlocks(transferId);
      }
    }
    await r.engine.close();
    r.newEngine({ store: new ShrinksBeforeRestore(r.db), chunkBytes: 256 * 1024 });
    r.engine.resume(id!);
    const s = await r.settled(id!);
    expect(shrunk).toBe(true);
    expect(s.state).toBe('failed');
    expect(s.lastError).toEqual({
      code: 'file-changed',
      message: `${file} became shorter while it was uploaded: it was 12.0 MB (12582912 bytes) when the upload started and is 1.0 MB (1048581 bytes) now; upload it again when it is complete`,
    });
  });

  it('a path that is not a regular file fails with file-unreadable', async () => {
    rig = await startRig();
    const r = rig;
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(r.dir, 'a-dir'));
    const [id] = r.engine.enqueue([req(r, 'a-dir')]);
    const s = await r.settled(id!);
    expect(s.state).toBe('failed');
    expect(s.lastError).toMatchObject({ code: 'file-unreadable' });
    expect(s.lastError?.message).toContain('not a regular file');
  });

  it('a FIFO fails with file-unreadable at once instead of waiting for a writer', async (t) => {
    if (process.platform === 'win32') t.skip('FIFOs (mkfifo) exist on POSIX systems only');
    rig = await startRig();
    const r = rig;
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(r.dir, 'a-fifo')]);
    const [id] = r.engine.enqueue([req(r, 'a-fifo')]);
    const s = await r.settled(id!);
    expect(s.state).toBe('failed');
    expect(s.lastError).toMatchObject({ code: 'file-unreadable' });
    expect(s.lastError?.message).toContain('not a regular file');
  });

  it(
    'a full database holds the transfer (retried every ~2 s as disk-full), and it finishes when space returns',
    { timeout: 180_000 },
    async () => {
      rig = await startRig({ engine: { chunkBytes: 256 * 1024 } });
      const r = rig;
      const data = await r.file('full.bin', 12 * MiB + 3);
      const retries: Array<{ reason: string; nextAttemptAt: number; at: number }> = [];
      const states: string[] = [];
      const offP = r.engine.onProgress((p) => p.retry && retries.push({ ...p.retry, at: Date.now() }));
      const offC = r.engine.onTransferChange((t) => states.push(t.state));
      // A paused transfer whose block rows will use up the blocks table's last page.
      const [pad] = r.store.insertTransfers([req(r, 'full.bin', 'pad')], { blockSize: 4 * MiB, conflict: 'skip' });
      r.store.updateTransfer(pad!, { state: 'paused' });
      const [id] = r.engine.enqueue([req(r, 'full.bin')]);
      // The transfer row exists and its run has started; now every free byte of the database
      // is used and its file may not grow: the engine's next writes (the transfer's blocks)
      // hit SQLITE_FULL, as on a full disk.
      r.db.pragma(`max_page_count = ${r.db.pragma('page_count', { simple: true }) as number}`);
      const fillSettings = r.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
      for (let n = 0, size = 4096; size >= 1; n++) {
        try {
          fillSettings.run(`filler-${n}`, 'x'.repeat(size));
        } catch {
          size = Math.floor(size / 2);
        }
      }
      const fillBlocks = r.db.prepare('INSERT INTO blocks (transfer_id, idx, size) VALUES (?, ?, 1)');
      for (let i = 0; ; i++) {
        try {
          fillBlocks.run(pad, i);
        } catch {
          break;
        }
      }
      await expect.poll(() => retries.length, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(2);
      expect(retries[0]!.reason).toMatch(/^disk-full: .*database is full.* → retry$/);
      // About 2 s apart (a hold, not a busy loop), never failed.
      expect(retries[1]!.at - retries[0]!.at).toBeGreaterThanOrEqual(1500);
      expect(retries[0]!.nextAttemptAt - retries[0]!.at).toBeGreaterThan(1000);
      expect(states).not.toContain('failed');
      expect(r.engine.get(id!)!.state).not.toBe('failed');
      // Space returns.
      r.db.pragma('max_page_count = 1073741823');
      const s = await r.settled(id!);
      offP();
      offC();
      expect(s.state).toBe('done');
      expect(states).not.toContain('failed');
      expect(sha1(await r.download('full.bin'))).toBe(sha1(data));
      expect(r.db.pragma('integrity_check', { simple: true })).toBe('ok');
    },
  );

  it('progress events are throttled to about 10 a second per transfer, with speed and ETA', async () => {
    rig = await startRig({ engine: { chunkBytes: 256 * 1024, bandwidthBytesPerSec: 16 * MiB } });
    const r = rig;
    await r.file('pr.bin', 24 * MiB);
    const times: number[] = [];
    let withSpeed = 0;
    const [id] = r.engine.enqueue([req(r, 'pr.bin')]);
    const off = r.engine.onProgress((p) => {
      if (p.id !== id) return;
      times.push(performance.now());
      if (p.speed > 0 && p.etaSeconds !== null) withSpeed++;
    });
    await r.settled(id!);
    off();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // every gap ≥ 100 ms except the final forced update
    expect(gaps.slice(0, -1).every((g) => g >= 99)).toBe(true);
    expect(times.length).toBeGreaterThan(5);
    expect(withSpeed).toBeGreaterThan(3);
  });
});
