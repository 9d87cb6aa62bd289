import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlockState } from '../../../src-main/engine/block-state';
import { FileSource } from '../../../src-main/engine/file-source';
import { etagFromUnitDigests, etagOfBuffer } from '../../../src-main/protocol/etag';

const MiB = 1024 * 1024;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bl-block-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Feeds a block chunk by chunk, acknowledging each as the service would. */
function feed(b: BlockState, data: Buffer, chunkBytes: number, upTo = data.length): void {
  while (b.nextOffset < upTo) {
    const len = Math.min(chunkBytes, upTo - b.nextOffset);
    const hashed = b.hashChunk(data.subarray(b.nextOffset, b.nextOffset + len));
    b.acknowledge(b.nextOffset + len, `ctx@${b.nextOffset + len}`, hashed, 1);
  }
}

describe('BlockState', () => {
  it('hashes 4 MiB units across chunk boundaries: the etag equals the whole-content etag', () => {
    const data = randomBytes(9 * MiB + 123);
    const blocks = [new BlockState(0, 0, 8 * MiB), new BlockState(1, 8 * MiB, MiB + 123)];
    feed(blocks[0]!, data.subarray(0, 8 * MiB), 3 * MiB);
    feed(blocks[1]!, data.subarray(8 * MiB), 300 * 1024);
    expect(etagFromUnitDigests(blocks.flatMap((b) => b.unitDigests()))).toBe(etagOfBuffer(data));
  });

  it('an unacknowledged chunk leaves the hash state untouched', () => {
    const data = randomBytes(MiB);
    const b = new BlockState(0, 0, MiB);
    b.hashChunk(data.subarray(0, 1000)); // sent, never acknowledged
    feed(b, data, 256 * 1024);
    expect(etagFromUnitDigests(b.unitDigests())).toBe(etagOfBuffer(data));
  });

  it('restores mid-unit from the stored row by re-reading only the acknowledged part of the unit', async () => {
    const data = randomBytes(12 * MiB);
    const file = path.join(dir, 'f');
    writeFileSync(file, data);
    const a = new BlockState(1, 4 * MiB, 8 * MiB);
    const part = data.subarray(4 * MiB);
    feed(a, part, 1536 * 1024, 5 * MiB + 512 * 1024); // 1 unit done + 1.5 MiB of the next
    const row = {
      index: 1,
      size: 8 * MiB,
      nextOffset: a.nextOffset,
      lastCtx: a.lastCtx,
      ctxTimeMs: 5,
      unitSha1s: a.unitSha1s(),
    };
    const fh = await FileSource.open(file);
    try {
      const b = new BlockState(1, 4 * MiB, 8 * MiB);
      expect(await b.restore(row, fh, Buffer.alloc(MiB))).toBe(true);
      expect(b.nextOffset).toBe(row.nextOffset);
      feed(b, part, MiB);
      expect(etagFromUnitDigests(b.unitDigests())).toBe(
        etagFromUnitDigests([
          ...(function* () {
            const c = new BlockState(1, 4 * MiB, 8 * MiB);
            feed(c, part, 4 * MiB);
            yield* c.unitDigests();
          })(),
        ]),
      );
      // Inconsistent rows are refused, so the block starts over.
      expect(
        await new BlockState(1, 4 * MiB, 8 * MiB).restore(
          { ...row, unitSha1s: Buffer.alloc(0) },
          fh,
          Buffer.alloc(MiB),
        ),
      ).toBe(false);
      expect(await new BlockState(1, 4 * MiB, 8 * MiB).restore({ ...row, lastCtx: null }, fh, Buffer.alloc(MiB))).toBe(
        false,
      );
    } finally {
      await fh.close();
    }
  });
});
