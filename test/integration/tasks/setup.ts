import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MgrClient } from '../../../src-main/protocol/client';
import { openDatabase, type Db } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { FmgrTracker } from '../../../src-main/tasks/fmgr-tracker';
import { VcaTracker } from '../../../src-main/tasks/vca-tracker';
import { createNotificationHandler } from '../../../src-main/tasks/notify-receiver';
import type { PollPolicy } from '../../../src-main/tasks/poll-policy';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

import { FAST_POLICY } from '../../helpers/fast-policy';

export { FAST_POLICY };

export const ACCOUNT_ID = 7;
/** An account whose secret key is wrong: the service refuses its signed calls. */
export const BAD_KEY_ACCOUNT_ID = 8;

/**
 * One test's world: a real emulator, a real SQLite file in a temp folder, a MgrClient with
 * the emulator's keys, the two trackers, and (when `receiver` is set) a loopback HTTP server
 * mounting the notification handler under the path `/bl` of its public base URL.
 */
export interface World {
  emu: TestEmulator;
  dir: string;
  dbFile: string;
  db: Db;
  client: MgrClient;
  fmgr: FmgrTracker;
  vca: VcaTracker;
  publicBaseUrl: string | undefined;
  received: { url: string; status: number }[];
  /** Closes trackers and db (not the emulator): a restart of the app. */
  closeApp(): Promise<void>;
  /** Opens db and trackers again on the same file, and resumes. */
  reopenApp(): void;
  close(): Promise<void>;
}

export async function makeWorld(
  opts: { receiver?: boolean; policy?: PollPolicy; emulator?: Parameters<typeof startTestEmulator>[0] } = {},
): Promise<World> {
  const emu = await startTestEmulator(opts.emulator);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-tasks-'));
  const dbFile = path.join(dir, 'app.db');
  const client = new MgrClient({
    mgrUrl: emu.mgrUrl,
    accessKey: emu.config.accessKey,
    secretKey: emu.config.secretKey,
  });
  const badClient = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: 'not-the-secret' });
  const received: World['received'] = [];
  let server: http.Server | undefined;
  let publicBaseUrl: string | undefined;
  const w = { emu, dir, dbFile, client, received } as World;
  const build = () => {
    w.db = openDatabase(dbFile, MIGRATIONS);
    const deps = {
      db: w.db,
      account: (id: number) =>
        id === ACCOUNT_ID
          ? { client, mgrUrl: emu.mgrUrl }
          : id === BAD_KEY_ACCOUNT_ID
            ? { client: badClient, mgrUrl: emu.mgrUrl }
            : undefined,
      publicBaseUrl: () => publicBaseUrl,
      policy: opts.policy ?? FAST_POLICY,
    };
    w.fmgr = new FmgrTracker(deps);
    w.vca = new VcaTracker(deps);
  };
  build();
  if (opts.receiver) {
    server = http.createServer((req, res) => {
      const handler = createNotificationHandler({
        publicBaseUrl: () => publicBaseUrl,
        accountByAccessKey: (ak) =>
          ak === emu.config.accessKey ? { accountId: ACCOUNT_ID, secretKey: emu.config.secretKey } : undefined,
        fmgr: w.fmgr,
        vca: w.vca,
      });
      res.on('finish', () => received.push({ url: req.url ?? '', status: res.statusCode }));
      handler(req, res);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    publicBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bl`;
  }
  w.publicBaseUrl = publicBaseUrl;
  w.closeApp = async () => {
    await w.fmgr.dispose();
    await w.vca.dispose();
    w.db.close();
  };
  w.reopenApp = () => {
    build();
    w.fmgr.resume();
    w.vca.resume();
  };
  w.close = async () => {
    await w.closeApp();
    client.close();
    badClient.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  };
  return w;
}
