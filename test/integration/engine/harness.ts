import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { UploadEngine, type EngineOptions } from '../../../src-main/engine/engine';
import { LocalTokenSigner, type TokenProvider } from '../../../src-main/engine/tokens';
import type { Db } from '../../../src-main/store/db';
import { openAppDatabase } from '../../../src-main/store/app-db';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import type { TransferSnapshot } from '../../../src-main/shared/models';
import { startTestEmulator, type TestEmulator, type TestEmulatorOptions } from '../../helpers/emulator';

/**
 * A real engine wired to a real emulator on 127.0.0.1:0, a real SQLite file and a real
 * temp folder. `close()` closes all of it.
 */
export interface Rig {
  emu: TestEmulator;
  dir: string;
  dbFile: string;
  db: Db;
  store: SqliteTransferStore;
  accountId: number;
  engine: UploadEngine;
  client: UploadClient;
  mgr: MgrClient;
  /** Writes `size` random bytes to dir/name and returns them. */
  file(name: string, size: number): Promise<Buffer>;
  /** Downloads an object and returns its bytes. */
  download(key: string): Promise<Buffer>;
  /** Waits until the transfer reaches a terminal state. */
  settled(id: number, timeoutMs?: number): Promise<TransferSnapshot>;
  /** A new engine on the same database (the old one must be closed first). */
  newEngine(overrides?: Partial<EngineOptions>): UploadEngine;
  close(): Promise<void>;
}

export async function startRig(
  opts: {
    emulator?: TestEmulatorOptions;
    engine?: Partial<EngineOptions>;
    tokens?: (emu: TestEmulator) => TokenProvider;
  } = {},
): Promise<Rig> {
  const emu = await startTestEmulator(opts.emulator);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bl-engine-'));
  const dbFile = path.join(dir, 'app.db');
  const db = openAppDatabase(dbFile);
  const store = new SqliteTransferStore(db);
  const accountId = new AccountRepo(db).upsert({
    name: 'Local',
    uploadUrl: emu.uploadUrl,
    mgrUrl: emu.mgrUrl,
    downloadDomain: emu.downloadBaseUrl,
    accessKey: emu.config.accessKey,
    secretRef: null,
    tokenUrl: null,
  });
  const client = new UploadClient({ uploadUrl: emu.uploadUrl, timeoutMs: 10_000 });
  const mgr = new MgrClient({ mgrUrl: emu.mgrUrl });
  const tokens = opts.tokens
    ? opts.tokens(emu)
    : new LocalTokenSigner(emu.config.accessKey, emu.config.secretKey, { now: () => emu.clock.now() });
  const make = (overrides: Partial<EngineOptions> = {}) => {
    const e = new UploadEngine({
      store,
      account: () => ({ client, tokens }),
      backoff: { baseDelayMs: 20, maxDelayMs: 200 },
      now: () => emu.clock.now(),
      ...opts.engine,
      ...overrides,
    });
    e.start();
    return e;
  };
  const rig: Rig = {
    emu,
    dir,
    dbFile,
    db,
    store,
    accountId,
    engine: make(),
    client,
    mgr,
    async file(name, size) {
      const data = randomBytes(size);
      const p = path.join(dir, name);
      await writeFile(p, data);
      return data;
    },
    async download(key) {
      const r = await mgr.download(emu.objectUrl(emu.bucket, key));
      if (r.status !== 200)
        throw new Error(`download of ${key} answered ${r.status}: ${r.body.toString('utf8', 0, 200)}`);
      return r.body;
    },
    settled(id, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = (s: TransferSnapshot | undefined) => {
          if (s && ['done', 'failed', 'canceled', 'skipped'].includes(s.state)) {
            clearTimeout(timer);
            off();
            resolve(s);
          }
        };
        const timer = setTimeout(() => {
          off();
          reject(new Error(`transfer ${id} did not settle in ${timeoutMs} ms: ${JSON.stringify(rig.engine.get(id))}`));
        }, timeoutMs);
        const off = rig.engine.onTransferChange((s) => s.id === id && check(s));
        check(rig.engine.get(id));
      });
    },
    newEngine(overrides) {
      rig.engine = make(overrides);
      return rig.engine;
    },
    async close() {
      await rig.engine.close();
      client.close();
      mgr.close();
      db.close();
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

export function sha1(b: Uint8Array): string {
  return createHash('sha1').update(b).digest('hex');
}

export { etagOfBuffer };
export const MiB = 1024 * 1024;
