/**
 * The floor under the uploader's CPU per GiB (issue 19): what the work every chunk must do
 * costs on its own, in this process's CPU-seconds (process.cpuUsage), with nothing else of
 * the engine around it. `node bin/run-ts.mjs test/bench/client-floor.ts` (BENCH_MIB=1024,
 * BENCH_ROUNDS=3; each figure is the median of the rounds, the parts alternating).
 *   read          fs read of the file in 4 MiB pieces into a reused buffer (page cache warm)
 *   read-direct   the same with O_DIRECT (no page-cache copy; the engine does not do this)
 *   sha1          node:crypto SHA-1 over 4 MiB buffers (the etag)
 *   crc32         base/crc32.ts over 4 MiB buffers (each chunk's reply check; @node-rs/crc32 where it loads)
 *   crc32-zlib    node:zlib's crc32 over the same, for comparison
 *   send          4 MiB POSTs over node:http keep-alive, 4 at a time, to a server in another
 *                 process that discards them (the client's side only)
 *   request       the fixed cost of one small POST and its JSON reply, in µs (per GiB: × 256)
 * Not part of `npm test`.
 */
import { fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from '../../src-main/base/crc32';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const CHUNK = 4 * MiB;
const BYTES = Number(process.env.BENCH_MIB ?? 1024) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

if (process.argv[2] === 'server') {
  const server = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => res.end('{"ctx":"c","crc32":1,"offset":4194304}'));
  });
  // Idle keep-alive sockets stay open between the parts (they may be idle for seconds).
  server.keepAliveTimeout = 0;
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
} else {
  await main();
}

function cpuSeconds(run: () => void | Promise<void>): Promise<number> {
  const c0 = process.cpuUsage();
  return Promise.resolve(run()).then(() => {
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1e6;
  });
}

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-floor-'));
  const here = fileURLToPath(import.meta.url);
  const server = fork(path.resolve(path.dirname(here), '../../bin/run-ts.mjs'), [here, 'server']);
  try {
    const port = await new Promise<number>((r) => server.once('message', (m) => r(m as number)));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const file = path.join(tmp, 'floor.bin');
    const pattern = randomBytes(16 * MiB);
    const w = await open(file, 'w');
    for (let pos = 0; pos < BYTES; pos += pattern.length) await w.write(pattern, 0, pattern.length, pos);
    await w.close();
    const buf = Buffer.allocUnsafeSlow(CHUNK);
    buf.set(pattern.subarray(0, CHUNK));
    const fh = await open(file, 'r');
    // O_DIRECT wants aligned memory: find the offset of a spare buffer at which a read is accepted.
    let direct: { fd: number; view: Buffer } | undefined;
    try {
      const fd = openSync(file, constants.O_RDONLY | constants.O_DIRECT);
      const raw = Buffer.allocUnsafeSlow(CHUNK + 4096);
      for (let at = 0; at < 4096 && !direct; at += 16) {
        try {
          readSync(fd, raw, at, 4096, 0);
          direct = { fd, view: raw.subarray(at, at + CHUNK) };
        } catch {
          // not aligned here
        }
      }
      if (!direct) closeSync(fd);
    } catch {
      // the file system refuses O_DIRECT
    }
    const post = (body: Buffer) =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/bput/c/0',
            method: 'POST',
            agent,
            headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length },
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (d: Buffer) => parts.push(d));
            res.on('end', () => {
              JSON.parse(Buffer.concat(parts).toString());
              resolve();
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const inParallel = async (count: number, each: () => Promise<void>) => {
      let next = 0;
      const worker = async () => {
        while (next++ < count) await each();
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    };
    const perGiB = (s: number) => s / (BYTES / GiB);
    const small = Buffer.alloc(64);
    const SMALL_REQUESTS = 2000;
    const parts: Record<string, () => Promise<number>> = {
      read: () =>
        cpuSeconds(async () => {
          for (let pos = 0; pos < BYTES; pos += CHUNK) await fh.read(buf, 0, CHUNK, pos);
        }).then(perGiB),
      ...(direct
        ? {
            'read-direct': () =>
              cpuSeconds(async () => {
                const d = direct!;
                const dh = await open(file, constants.O_RDONLY | constants.O_DIRECT);
                try {
                  for (let pos = 0; pos < BYTES; pos += CHUNK) await dh.read(d.view, 0, CHUNK, pos);
                } finally {
                  await dh.close();
                }
              }).then(perGiB),
          }
        : {}),
      sha1: () =>
        cpuSeconds(() => {
          for (let pos = 0; pos < BYTES; pos += CHUNK) createHash('sha1').update(buf).digest();
        }).then(perGiB),
      crc32: () =>
        cpuSeconds(() => {
          for (let pos = 0; pos < BYTES; pos += CHUNK) crc32(buf);
        }).then(perGiB),
      'crc32-zlib': () =>
        cpuSeconds(() => {
          for (let pos = 0; pos < BYTES; pos += CHUNK) zlibCrc32(buf);
        }).then(perGiB),
      send: () => cpuSeconds(() => inParallel(BYTES / CHUNK, () => post(buf))).then(perGiB),
      request: () =>
        cpuSeconds(() => inParallel(SMALL_REQUESTS, () => post(small))).then((s) => (s * 1e6) / SMALL_REQUESTS),
    };
    await parts.request!(); // warm the HTTP path once
    const got: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++) for (const [k, run] of Object.entries(parts)) (got[k] ??= []).push(await run());
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(
      `client-floor: ${BYTES / MiB} MiB, ${ROUNDS} rounds, node ${process.version}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    for (const [k, xs] of Object.entries(got)) {
      const unit = k === 'request' ? 'µs CPU per request' : 'CPU-s/GiB';
      process.stdout.write(
        `  ${k.padEnd(12)} ${median(xs).toFixed(k === 'request' ? 1 : 3)} ${unit}  (rounds: ${xs.map((x) => x.toFixed(3)).join(' ')})\n`,
      );
    }
    const sum = ['read', 'sha1', 'crc32', 'send'].reduce((a, k) => a + median(got[k]!), 0);
    process.stdout.write(
      `  read + sha1 + crc32 + send = ${sum.toFixed(3)} CPU-s/GiB; with 256 requests' fixed cost per GiB: ${(
        sum +
        (median(got.request!) * (GiB / CHUNK)) / 1e6
      ).toFixed(3)}\n`,
    );
    await fh.close();
    if (direct) closeSync(direct.fd);
    agent.destroy();
  } finally {
    server.kill();
    await rm(tmp, { recursive: true, force: true });
  }
}
