import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractWorld } from './contract-world';

/**
 * roots.plan and roots.add refuse a folder that holds or lies inside an emulator's data
 * folder (the watch would upload the emulator's own output forever), as `blocklift watch`
 * does; the embedded emulator's data, inside Blocklift's own data folder, does not count.
 */

let w: ContractWorld;
afterEach(async () => w?.close());

describe('roots: emulator data folders', () => {
  it('refuses a folder holding an emulator data folder, or inside one, with root-refused; allows a folder holding the app data folder', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    // The temp folder holds Blocklift's data folder, whose embedded emulator keeps emulator.db in data/emulator.
    const allowed = await svc.roots.plan({ path: w.tmp, bucket: 'local' });
    expect(allowed.ok, JSON.stringify(allowed)).toBe(true);
    const work = path.join(w.tmp, 'work');
    const emuData = path.join(work, 'deep', 'emu-data');
    await mkdir(path.join(emuData, 'objects'), { recursive: true });
    await writeFile(path.join(emuData, 'emulator.db'), '');

    for (const folder of [work, path.join(emuData, 'objects')]) {
      const plan = await svc.roots.plan({ path: folder, bucket: 'local' });
      expect(!plan.ok && plan.error.code).toBe('root-refused');
      const add = await svc.roots.add({ path: folder, bucket: 'local' });
      expect(!add.ok && add.error.code).toBe('root-refused');
      expect(!add.ok && add.error.message).toContain(emuData);
    }
    const refusals = await Promise.all(
      [work, path.join(emuData, 'objects')].map(async (p) => {
        const r = await svc.roots.add({ path: p, bucket: 'local' });
        return !r.ok && r.error.params.refusal;
      }),
    );
    expect(refusals).toEqual(['root-holds-emulator-data', 'root-inside-emulator-data']);
    expect((await svc.roots.list()).ok && (await svc.roots.list())).toMatchObject({ value: [] });
  });
});
