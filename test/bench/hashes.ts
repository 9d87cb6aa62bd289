/**
 * `node bin/run-ts.mjs test/bench/hashes.ts [MiB]`: SHA-1 and CRC-32, node:crypto and
 * node:zlib against hash-wasm, on this machine (not part of `npm test` or `npm run bench`).
 * Hashes MiB (default 512) of random bytes in 4 MiB updates, as the engine does, three rounds
 * alternating the two sides; prints each side's best round in GB/s. Then the one place
 * hash-wasm could serve the engine: resuming mid-block, where a saved SHA-1 state
 * (hash-wasm's save()/load()) replaces re-reading and re-hashing what the block already sent
 * (at most one 4 MiB etag unit, src-main/engine/README.md).
 * hash-wasm is a devDependency for this comparison only; the app does not load it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createCRC32, createSHA1 } from 'hash-wasm';

const MiB = 1024 * 1024;
const UNIT = 4 * MiB;
const total = Number(process.argv[2] ?? 512) * MiB;
const buf = randomBytes(UNIT);
const rounds = 3;

function gbps(bytes: number, ms: number): number {
  return bytes / 1e6 / ms;
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

const sides = {
  'SHA-1 node:crypto': async () => {
    const h = createHash('sha1');
    return time(() => {
      for (let done = 0; done < total; done += UNIT) h.update(buf);
      h.digest();
    });
  },
  'SHA-1 hash-wasm': async () => {
    const h = await createSHA1();
    return time(() => {
      h.init();
      for (let done = 0; done < total; done += UNIT) h.update(buf);
      h.digest();
    });
  },
  'CRC-32 node:zlib': async () =>
    time(() => {
      let c = 0;
      for (let done = 0; done < total; done += UNIT) c = crc32(buf, c);
    }),
  'CRC-32 hash-wasm': async () => {
    const h = await createCRC32();
    return time(() => {
      h.init();
      for (let done = 0; done < total; done += UNIT) h.update(buf);
      h.digest();
    });
  },
};

const best = new Map<string, number>();
for (let r = 0; r < rounds; r++)
  for (const [name, run] of Object.entries(sides)) {
    const ms = await run();
    best.set(name, Math.min(best.get(name) ?? Infinity, ms));
  }
console.log(`${total / MiB} MiB in 4 MiB updates, best of ${rounds}, node ${process.version}:`);
for (const [name, ms] of best) console.log(`  ${name.padEnd(20)} ${gbps(total, ms).toFixed(2)} GB/s`);

// Resume mid-block: restore a SHA-1 state vs re-hash the unit's bytes already sent.
const partial = buf.subarray(0, UNIT - 1);
const saved = await createSHA1();
saved.init();
saved.update(partial);
const state = saved.save();
const restore = await createSHA1();
let restoreMs = Infinity;
let rehashMs = Infinity;
for (let r = 0; r < 20; r++) {
  restoreMs = Math.min(
    restoreMs,
    time(() => restore.load(state)),
  );
  rehashMs = Math.min(
    rehashMs,
    time(() => createHash('sha1').update(partial)),
  );
}
console.log(
  `resume mid-unit (4 MiB - 1 byte already sent): hash-wasm load() ${restoreMs.toFixed(3)} ms, node:crypto re-hash ${rehashMs.toFixed(3)} ms (plus the read), once per block per resume`,
);
