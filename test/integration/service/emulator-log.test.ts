import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOG_DIR, LOG_FILE, RotatingLog } from '../../../src-main/service/log-file';
import { ContractWorld, value } from './contract-world';

/** The embedded emulator lives in the app's process: what it reports goes to the app's log, never to stderr. */
describe('the embedded emulator logs through the app', () => {
  let w: ContractWorld | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await w?.close();
    w = undefined;
  });

  /** Uploads one file, then removes the emulator's copy behind its back: a download of it is an internal error. */
  async function breakAnObject(): Promise<string> {
    const svc = w!.svc;
    const file = path.join(w!.tmp, 'gone.txt');
    await writeFile(file, 'soon gone');
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'gone.txt' } })).queued;
    await w!.until(() => w!.lastSeen(id!)?.state === 'done', 'the upload done');
    const objects = path.join(w!.dataDir, 'emulator', 'objects');
    for (const name of await readdir(objects)) await rm(path.join(objects, name), { recursive: true, force: true });
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const res = await fetch(`${local.downloadDomain}/gone.txt`);
    expect(res.status).toBe(500);
    await res.arrayBuffer();
    return '/dl/';
  }

  it('by default into <data>/logs/blocklift.log, nothing on stderr', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    w = await ContractWorld.create();
    await w.open();
    const logFile = path.join(w.dataDir, LOG_DIR, LOG_FILE);
    const marker = await breakAnObject();
    const text = await readFile(logFile, 'utf8');
    expect(text).toMatch(new RegExp(`error embedded emulator: GET ${marker}\\S*gone\\.txt`));
    expect(text).toContain('ENOENT');
    await w.svc.close();
    const written = stderr.mock.calls.map((c) => String(c[0]));
    expect(written.filter((l) => /emulator|ENOENT|gone\.txt/.test(l))).toEqual([]);
  });

  it("into the door's own log when it passes one (as blocklift serve and the desktop app do)", async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    w = await ContractWorld.create();
    const log = new RotatingLog({ dataDir: path.join(w.tmp, 'door-log') });
    await w.open({ logger: log.logger() });
    await breakAnObject();
    expect(await readFile(log.file, 'utf8')).toMatch(/error embedded emulator: GET \/dl\/\S*gone\.txt/);
    expect(existsSync(path.join(w.dataDir, LOG_DIR))).toBe(false);
    expect(stderr.mock.calls.map((c) => String(c[0])).filter((l) => /emulator|ENOENT/.test(l))).toEqual([]);
  });
});
