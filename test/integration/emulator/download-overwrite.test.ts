/**
 * A download that races an overwrite of its key gets the old bytes or the new bytes, whole:
 * never a broken connection, never a mix.
 */
import http from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const KiB = 1024;

function download(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('download racing an overwrite', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('every GET gets the old or the new bytes whole, over a bounded loop of overwrites', async () => {
    const versions = [Buffer.alloc(300 * KiB, 'a'), Buffer.alloc(200 * KiB, 'b')];
    emu.objects.putBuffer(emu.bucket, 'race', versions[0]!, {});
    const url = emu.objectUrl(emu.bucket, 'race');
    const outcomes: string[] = [];
    for (let i = 0; i < 150; i++) {
      const gets = [download(url), download(url), download(url)];
      for (let turn = 0; turn < i % 4; turn++) await nextTurn();
      emu.objects.putBuffer(emu.bucket, 'race', versions[(i + 1) % 2]!, {});
      for (const r of await Promise.allSettled(gets)) {
        if (r.status === 'rejected') outcomes.push(`error: ${(r.reason as Error).message}`);
        else if (!versions.some((v) => v.equals(r.value))) outcomes.push(`mixed body of ${r.value.length} bytes`);
      }
    }
    expect(outcomes).toEqual([]);
  });
});
