import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stagingDir } from '../../../src-main/service/data-dir';
import type { AddTransfersInput } from '../../../src-main/shared/contract';
import { ContractWorld, value } from './contract-world';

/**
 * Queues `input` with the engine not started, removes `gone`, then opens the app again: the
 * engine runs the transfer on a file that is no longer there. Returns its id once failed.
 */
async function queuedThenGone(w: ContractWorld, input: AddTransfersInput, gone: string): Promise<number> {
  const [id] = value(await (await w.open({ startEngine: false })).transfers.add(input)).queued;
  if (id === undefined) throw new Error(`nothing queued from ${JSON.stringify(input.paths)}`);
  await w.svc.close();
  await rm(gone);
  await w.open();
  await w.until(() => w.lastSeen(id)?.state === 'failed', `transfer ${id} failed`);
  return id;
}

describe('a dropped file that fails', () => {
  let w: ContractWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  it('is named as dropped in its failure wherever a person reads it; the log keeps the staged path', async () => {
    w = await ContractWorld.create();
    // Queued as the door queues a dropped folder (its batch folder in the staging folder); its
    // staged copy is gone when the app runs it: the engine's failure names the path it read.
    const batch = path.join(stagingDir(w.dataDir), randomUUID());
    const staged = path.join(batch, 'card', 'clip.mp4');
    await mkdir(path.dirname(staged), { recursive: true });
    await writeFile(staged, 'x'.repeat(1000));
    const target = { bucket: 'local', prefix: 'dropped/' };
    const id = await queuedThenGone(w, { paths: [batch], target, source: 'manual' }, staged);
    const svc = w.svc;

    const said = 'card/clip.mp4 does not exist (moved or deleted?)';
    const error = { code: 'file-missing', message: said };
    // The events (the screens, the desktop notification, the CLI), the list and the detail.
    expect(w.lastSeen(id)).toMatchObject({ droppedAs: 'card/clip.mp4', localPath: staged, lastError: error });
    const row = value(await svc.transfers.list({ states: ['failed'] })).rows.find((r) => r.id === id);
    expect(row?.lastError).toEqual(error);
    const detail = value(await svc.transfers.get({ id }));
    expect(detail.lastError).toEqual(error);
    expect(detail.lastReply?.body).toBe(said);

    // The support bundle: the entry says it as the app does, and keeps the staged copy's path
    // beside it; the event log (for support) keeps the path the engine read.
    const bundle = value(await svc.app.supportBundle());
    const unzip = (name: string) => execFileSync('unzip', ['-p', bundle.path, name], { encoding: 'utf8' });
    const failed = JSON.parse(unzip('transfers/failed.json')) as Array<Record<string, unknown>>;
    expect(failed.find((t) => t.id === id)).toMatchObject({
      localPath: staged,
      droppedAs: 'card/clip.mp4',
      code: 'file-missing',
      reason: said,
    });
    expect(unzip('event-log.txt')).toContain(`transfer-failed #${id} ${staged} does not exist (moved or deleted?)`);
  });

  it('a file that was not dropped keeps its path in the message', async () => {
    w = await ContractWorld.create();
    const file = path.join(w.tmp, 'mine.bin');
    await writeFile(file, 'mine');
    const id = await queuedThenGone(w, { paths: [file], target: { bucket: 'local', key: 'mine.bin' } }, file);
    expect(w.lastSeen(id)?.droppedAs).toBeUndefined();
    expect(w.lastSeen(id)?.lastError?.message).toBe(`${file} does not exist (moved or deleted?)`);
  });
});
