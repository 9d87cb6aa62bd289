import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUnexpectedErrorHandler } from '../../../src-main/common/unexpected-error';
import { CliError } from '../../../src-main/cli/cli-error';
import { connectDoor, connectRunningApp, type DoorClient } from '../../../src-main/cli/door-client';
import { DOOR_FILE } from '../../../src-main/service/door-file';
import { startHeadlessDoor } from '../../../src-main/headless/server';
import { AppService } from '../../../src-main/service/app-service';
import type { AppEventMessage } from '../../../src-main/shared/contract';

/**
 * The command line's door client (cli/door-client.ts) over the door's RPC client core
 * (common/door-rpc.ts), against a real headless door on a real app service: a listener that
 * throws reaches onUnexpectedError, and neither the other listeners nor later frames stop.
 */
describe('the CLI door client', () => {
  let tmp = '';
  let service: AppService;
  let door: Awaited<ReturnType<typeof startHeadlessDoor>>;
  let client: DoorClient;

  beforeAll(async () => {
    tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-door-client-')));
    service = await AppService.open({ dataDir: path.join(tmp, 'data'), embeddedEmulator: false });
    door = await startHeadlessDoor({
      backend: service,
      version: 'test',
      rendererDir: path.join(tmp, 'no-renderer'),
      stagingDir: path.join(tmp, 'staging'),
    });
    client = await connectDoor({ url: door.url, token: door.token });
  });

  afterAll(async () => {
    await client?.close();
    await door?.close();
    await service?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('keeps reading frames and calling the other listeners when a listener throws', async () => {
    const reported: Array<{ error: unknown; context: string | undefined }> = [];
    const restore = setUnexpectedErrorHandler((error, context) => reported.push({ error, context }));
    try {
      const boom = new Error('a listener bug');
      const seen: AppEventMessage[] = [];
      let thrown = 0;
      client.on(() => {
        thrown++;
        throw boom;
      });
      client.on((e) => seen.push(e));
      const settingsEvents = () => seen.filter((e) => e.name === 'settings').map((e) => e.payload);

      const first = await client.settings.set({ bandwidthLimit: 1_000_000 });
      expect(first).toMatchObject({ ok: true, value: { bandwidthLimit: 1_000_000 } });
      await expect
        .poll(settingsEvents, { timeout: 10_000 })
        .toContainEqual(expect.objectContaining({ bandwidthLimit: 1_000_000 }));
      // The frames after the throw are still read: a second reply, and a second event.
      const second = await client.settings.set({ bandwidthLimit: 2_000_000 });
      expect(second).toMatchObject({ ok: true, value: { bandwidthLimit: 2_000_000 } });
      await expect
        .poll(settingsEvents, { timeout: 10_000 })
        .toContainEqual(expect.objectContaining({ bandwidthLimit: 2_000_000 }));
      expect(thrown).toBeGreaterThanOrEqual(2);
      expect(reported.filter((r) => r.error === boom && r.context === 'door event listener')).toHaveLength(thrown);
    } finally {
      restore();
    }
  });
});

/**
 * A door file whose process lives but whose door takes the connection and never answers (an
 * app stuck, or stopped with SIGSTOP): the command says so instead of working in-process,
 * which would ask for credentials the app holds or fail on the queue it holds. A port that
 * refuses (the app is gone and its pid reused) is a stale file, ignored as before.
 */
describe('the CLI and a running app that does not answer', () => {
  let tmp = '';
  let silent: Server;
  const sockets = new Set<Socket>();
  let sleeper: ChildProcess;

  beforeAll(async () => {
    tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-door-silent-')));
    silent = createServer((s) => sockets.add(s)); // takes the connection, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    // A live process of another pid stands for the app (the door file's own pid is ignored).
    sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
  });

  afterAll(async () => {
    sleeper?.kill('SIGKILL');
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
    await rm(tmp, { recursive: true, force: true });
  });

  async function doorAt(port: number): Promise<{ dataDir: string; db: string }> {
    const dataDir = await mkdtemp(path.join(tmp, 'data-'));
    const db = path.join(dataDir, 'blocklift.db');
    await writeFile(
      path.join(dataDir, DOOR_FILE),
      JSON.stringify({ url: `http://127.0.0.1:${port}`, token: 't', pid: sleeper.pid, db }),
      { mode: 0o600 },
    );
    return { dataDir, db };
  }

  it('says the app did not answer, with its process and URL, and what to do', async () => {
    const { port } = silent.address() as AddressInfo;
    const { dataDir, db } = await doorAt(port);
    const err = await connectRunningApp(dataDir, db, 500).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(1);
    expect((err as CliError).message).toContain(`process ${sleeper.pid}, http://127.0.0.1:${port}`);
    expect((err as CliError).message).toMatch(/did not answer within 1 s: it may be stuck\. Try again/);
  });

  it('ignores a door file whose port refuses: no app there', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const { dataDir, db } = await doorAt(port);
    expect(await connectRunningApp(dataDir, db, 500)).toBeUndefined();
  });
});
