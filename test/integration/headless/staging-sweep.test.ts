import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StagedFiles } from '../../../src-main/headless/staging';
import type { DoorBackend } from '../../../src-main/service/door-backend';
import type { TransferPage, TransferQuery } from '../../../src-main/shared/contract';

/**
 * The staging folder of the headless door (headless/staging.ts) does not keep what nothing
 * will read: at start it deletes what earlier runs left (batches never committed, files whose
 * transfer ended while the app was not running), never a file a queued, running, paused or
 * failed transfer reads; a batch opened and not committed for an hour is dropped. Real temp
 * folders; the queue is a stand-in answering transfers.list with the rows a test gives.
 */

const UUID = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;

let tmp: string;
let dir: string;
beforeEach(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-stage-sweep-')));
  dir = path.join(tmp, 'staging');
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A queue whose transfers still reading are `reading` (by local path); it records the queries. */
function backendReading(reading: string[], queries: TransferQuery[] = []): DoorBackend {
  return {
    on: () => () => undefined,
    transfers: {
      list: async (q: TransferQuery) => {
        queries.push(q);
        const rows = reading
          .filter((p) => !q.text || p.toLowerCase().includes(q.text.toLowerCase()))
          .slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 200))
          .map((localPath, i) => ({ id: i + 1, localPath, state: 'queued' }));
        return { ok: true, value: { rows, total: reading.length, totals: {} } as unknown as TransferPage };
      },
    },
  } as unknown as DoorBackend;
}

async function file(rel: string): Promise<string> {
  const p = path.join(dir, rel);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, rel);
  return p;
}

describe('the staging folder is swept', () => {
  it('at start: leftovers go, files that transfers still read stay', async () => {
    const read = await file(`${UUID(1)}/photos/keep.jpg`);
    const sibling = await file(`${UUID(1)}/photos/gone.jpg`);
    const abandoned = await file(`${UUID(2)}/half/written.bin`);
    const stray = await file('not-a-batch.tmp');
    const queries: TransferQuery[] = [];
    const staged = new StagedFiles(dir, backendReading([read, '/elsewhere/x.jpg'], queries));
    await staged.swept;
    staged.dispose();
    expect(existsSync(read)).toBe(true);
    expect(existsSync(sibling)).toBe(false);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(path.join(dir, UUID(2)))).toBe(false);
    expect(existsSync(stray)).toBe(false);
    expect(await readdir(dir)).toEqual([UUID(1)]);
    // Only transfers that may still read their file are asked for, and only those under the staging folder.
    expect(queries[0]).toMatchObject({ text: dir, states: expect.arrayContaining(['queued', 'uploading', 'failed']) });
    expect(queries[0]!.states).not.toContain('done');
  });

  it('at start, with the staging folder reached through a link: a file a transfer reads by its real path stays', async () => {
    // A transfer a person added by naming a link to a staged file reads it by its real path
    // (a named link is followed); the door knows the staging folder through the data folder's link.
    const read = await file(`${UUID(4)}/keep.bin`);
    const gone = await file(`${UUID(4)}/gone.bin`);
    const linked = path.join(tmp, 'linked-staging');
    await symlink(dir, linked);
    const staged = new StagedFiles(linked, backendReading([read]));
    await staged.swept;
    staged.dispose();
    expect(existsSync(read)).toBe(true);
    expect(existsSync(gone)).toBe(false);
  });

  it('at start with no staging folder, or a queue that does not answer: nothing breaks, nothing is deleted', async () => {
    const none = new StagedFiles(dir, backendReading([]));
    await none.swept;
    none.dispose();
    const kept = await file(`${UUID(3)}/a.txt`);
    const silent = {
      on: () => () => undefined,
      transfers: { list: async () => ({ ok: false, error: { code: 'internal', message: 'x', params: {} } }) },
    } as unknown as DoorBackend;
    const staged = new StagedFiles(dir, silent);
    await staged.swept;
    staged.dispose();
    expect(existsSync(kept)).toBe(true);
  });

  it('a batch opened in this run is not swept while open; once idle for the abandon time it is dropped', async () => {
    let now = 1_000_000;
    const staged = new StagedFiles(dir, backendReading([]), { abandonAfterMs: 3600_000, now: () => now });
    await staged.swept;
    const batch = staged.newBatch();
    const p = staged.pathOf(batch, 'big/part.bin')!;
    await staged.write(p, Readable.from([Buffer.from('half')]));
    await staged.sweep();
    expect(existsSync(p)).toBe(true);
    now += 3600_000 - 1;
    await staged.dropAbandoned();
    expect(existsSync(p)).toBe(true);
    now += 1;
    await staged.dropAbandoned();
    expect(existsSync(path.join(dir, batch))).toBe(false);
    staged.dispose();
  });
});
