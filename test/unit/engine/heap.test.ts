/**
 * The uploader's young generation stays at its starting size (base/heap.ts, issue 19): a
 * process that built an UploadEngine allocates a fixed amount of short-lived objects (some of
 * them surviving a while, as requests and progress records do), and V8's new space must not
 * have grown. Without it V8 doubles the new space under steady allocation (2 × 16 MiB
 * semi-spaces at most), memory the uploader then keeps. A worker thread started after the
 * engine (as the small-file reader is) must not undo it: one coming online resets V8's flags.
 * A fresh child process, so nothing this
 * test runner allocated counts; the work is a count of objects, not a time, so the outcome
 * does not depend on the machine's speed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'bl-heap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the uploader process', () => {
  it('keeps its young generation at its starting size under steady allocation', (ctx) => {
    const script = path.join(dir, 'child.ts');
    const src = (rel: string) => JSON.stringify(path.join(ROOT, rel));
    writeFileSync(
      script,
      `import v8 from 'node:v8';\n` +
        `import { Worker } from 'node:worker_threads';\n` +
        `import { UploadEngine } from ${src('src-main/engine/engine.ts')};\n` +
        `import { openAppDatabase } from ${src('src-main/store/app-db.ts')};\n` +
        `import { SqliteTransferStore } from ${src('src-main/store/transfer-repo.ts')};\n` +
        `const db = openAppDatabase(process.argv[2]);\n` +
        `new UploadEngine({ store: new SqliteTransferStore(db), account: () => { throw new Error('no account'); } });\n` +
        // A worker thread started after the engine (the small-file reader, the WAL checkpointer
        // start theirs so): one coming online puts V8's flags back to their defaults.
        `const worker = new Worker('setTimeout(() => {}, 60_000)', { eval: true });\n` +
        `await new Promise((resolve) => worker.once('online', resolve));\n` +
        `await new Promise((resolve) => setTimeout(resolve, 20));\n` +
        `const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;\n` +
        `const before = newSpace();\n` +
        `let kept = [];\n` +
        `for (let i = 0; i < 3_000_000; i++) {\n` +
        `  const o = { i, name: 'chunk ' + i, parts: [i, i + 1] };\n` +
        `  if (i % 100 === 0) kept.push(o);\n` +
        `  if (kept.length > 2000) kept = [];\n` +
        `}\n` +
        `db.close();\n` +
        `await worker.terminate();\n` +
        `process.stdout.write(JSON.stringify({ before, after: newSpace() }));\n`,
    );
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/run-ts.mjs'), script, path.join(dir, 'app.db')], {
      encoding: 'utf8',
      cwd: ROOT,
    });
    if (r.status !== 0) throw new Error(r.stderr);
    const { before, after } = JSON.parse(r.stdout) as { before: number; after: number };
    ctx.annotate(`new space: ${(before / 2 ** 20).toFixed(1)} MiB before, ${(after / 2 ** 20).toFixed(1)} MiB after`);
    expect(after).toBeLessThanOrEqual(before);
  }, 60_000);
});
