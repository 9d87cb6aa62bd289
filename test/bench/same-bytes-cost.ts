/**
 * What a copy on the service costs against sending the bytes, by file size and round trip:
 * the measurement behind engine/same-bytes.ts DEFAULT_COPY_MIN_BYTES (engine/README.md
 * "Bytes not sent twice"). Not part of `npm run bench`; run it with
 *   node bin/run-ts.mjs test/bench/same-bytes-cost.ts
 * The emulator runs in this process with its default Fmgr step time (20 ms per state) and the
 * added latency of its faults option on every request. For each latency and size, three
 * rounds, medians: the upload of a new file at the engine's defaults (copy off), and the same
 * bytes from another path made by a copy (the etag read, stat of the source, the copy task
 * followed, stat of the new object); and the etag read alone, which is what a file pays that
 * meets a stored object of its size but not of its bytes. Loopback has no bandwidth limit, so
 * the upload times are its round trips and local costs; the last column says below which
 * uplink rate the copy is also the faster way (size / (copy − upload)).
 */
import { randomBytes } from 'node:crypto';
import { copyFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { etagOfFile } from '../../src-main/protocol/etag';
import { SameBytesWorld } from './same-bytes';

const KiB = 1024;
const MiB = 1024 * KiB;
const SIZES = [256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB];
const LATENCIES_MS = [0, 20, 50];
const ROUNDS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const label = (n: number) => (n >= MiB ? `${n / MiB} MiB` : `${n / KiB} KiB`);

async function main(): Promise<void> {
  const load = os.loadavg().map((l) => l.toFixed(1));
  process.stdout.write(
    `${new Date().toISOString().slice(0, 16)} UTC, node ${process.version}, ${os.cpus().length} cores, load average ${load.join(' / ')}; medians of ${ROUNDS} rounds:\n`,
  );
  const w = await SameBytesWorld.start();
  // One engine at a time on the app database (a started engine takes up queued rows).
  const timed = async (copyMinBytes: number, file: string, key: string) => {
    const e = w.engine({ copyMinBytes });
    try {
      const t0 = performance.now();
      const [s] = await w.upload(e, [[file, key]]);
      return { ms: performance.now() - t0, copied: w.store.getTransfer(s!.id)!.copiedFrom !== null };
    } finally {
      await e.close();
    }
  };
  const lines: string[] = [];
  try {
    for (const latencyMs of LATENCIES_MS) {
      w.emu.setFaults(latencyMs ? { latencyMs } : {});
      for (const size of SIZES) {
        const up: number[] = [];
        const cp: number[] = [];
        const rd: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const name = `${latencyMs}-${size}-${r}`;
          const a = path.join(w.tmp, `a-${name}.bin`);
          const b = path.join(w.tmp, `b-${name}.bin`);
          await writeFile(a, randomBytes(size));
          await copyFile(a, b);
          const u = await timed(Infinity, a, `up/${name}`);
          if (u.copied) throw new Error(`${name}: copied with the copy off`);
          up.push(u.ms);
          const c = await timed(1, b, `cp/${name}`);
          if (!c.copied) throw new Error(`${name}: not copied`);
          cp.push(c.ms);
          const t0 = performance.now();
          await etagOfFile(b);
          rd.push(performance.now() - t0);
        }
        const u = median(up);
        const c = median(cp);
        const below = c > u ? `${(size / 1e6 / ((c - u) / 1000)).toFixed(1)} MB/s` : 'any';
        lines.push(
          `${String(latencyMs).padStart(3)} ms  ${label(size).padStart(8)}  upload ${u.toFixed(0).padStart(5)} ms  copy ${c
            .toFixed(0)
            .padStart(5)} ms  etag read ${median(rd).toFixed(1).padStart(6)} ms  copy faster below ${below}`,
        );
        process.stdout.write(`${lines[lines.length - 1]}\n`);
      }
    }
  } finally {
    await w.close();
  }
}

await main();
