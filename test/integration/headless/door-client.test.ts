import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUnexpectedErrorHandler } from '../../../src-main/common/unexpected-error';
import { connectDoor, type DoorClient } from '../../../src-main/cli/door-client';
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
