import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
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
  /** Queues files of `dir` by name (as the user's 'manual' adds), each under the key `key(name)` (default its name). */
  enqueueFiles(names: readonly string[], key?: (name: string) => string): number[];
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
    /** Where the engine's upload client sends its requests (a proxy in front of the emulator); default the emulator. */
    uploadUrl?: (emu: TestEmulator) => string;
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
  const client = new UploadClient({ uploadUrl: opts.uploadUrl?.(emu) ?? emu.uploadUrl, timeoutMs: 10_000 });
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
    enqueueFiles(names, key = (name) => name) {
      return rig.engine.enqueue(
        names.map((name) => ({
          accountId,
          bucket: emu.bucket,
          key: key(name),
          localPath: path.join(dir, name),
          source: 'manual' as const,
        })),
      );
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

/**
 * An HTTP proxy on 127.0.0.1 in front of `target` (set it before the first request) that
 * holds the replies to bput: the
 * service has taken the chunk (its ctx is used), but the client sees the reply only
 * `holdMs` later, as on a machine too busy to read it at once. `held` counts replies being
 * held now. `close()` stops it.
 */
export interface ReplyHoldingProxy {
  url: string;
  target: string;
  holdMs: number;
  readonly held: number;
  close(): Promise<void>;
}

export async function startReplyHoldingProxy(holdMs: number): Promise<ReplyHoldingProxy> {
  const agent = new http.Agent({ keepAlive: true });
  let held = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { host: _host, connection: _connection, ...headers } = req.headers;
      const up = http.request(
        new URL(req.url ?? '/', proxy.target),
        { method: req.method, headers, agent },
        (reply) => {
          const body: Buffer[] = [];
          reply.on('data', (c: Buffer) => body.push(c));
          reply.on('end', () => {
            const send = () => {
              const { connection: _c, 'transfer-encoding': _t, ...replyHeaders } = reply.headers;
              res.writeHead(reply.statusCode ?? 502, replyHeaders).end(Buffer.concat(body));
            };
            const hold = req.url?.startsWith('/bput/') ? proxy.holdMs : 0;
            if (hold === 0) return send();
            held++;
            setTimeout(() => {
              held--;
              send();
            }, hold);
          });
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: ReplyHoldingProxy = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    target: '',
    holdMs,
    get held() {
      return held;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      agent.destroy();
    },
  };
  return proxy;
}
