import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MgrClient, UploadClient } from '../../src-main/protocol/client';
import { etagOfBuffer } from '../../src-main/protocol/etag';
import { UploadEngine, type EngineOptions } from '../../src-main/engine/engine';
import { LocalTokenSigner } from '../../src-main/engine/tokens';
import type { Db } from '../../src-main/store/db';
import { openAppDatabase } from '../../src-main/store/app-db';
import { AccountRepo } from '../../src-main/store/account-repo';
import { SqliteTransferStore } from '../../src-main/store/transfer-repo';
import type { TransferSnapshot } from '../../src-main/shared/models';
import type { ChaosContext } from './context';

/** The real engine on a real SQLite file under the run's root, talking to `uploadUrl`. */
export interface EngineRig {
  db: Db;
  dbFile: string;
  store: SqliteTransferStore;
  accountId: number;
  engine: UploadEngine;
  client: UploadClient;
  /** Closes the engine and starts a new one on the same database (the next run of the app). */
  restartEngine(): Promise<UploadEngine>;
  close(): Promise<void>;
}

export interface RigOptions {
  dir: string;
  uploadUrl: string;
  /** Idle timeout of the upload client. */
  timeoutMs?: number;
  engine?: Partial<EngineOptions>;
  now?: () => number;
}

export function openEngineRig(ctx: ChaosContext, o: RigOptions): EngineRig {
  const dbFile = path.join(o.dir, 'app.db');
  const db = openAppDatabase(dbFile);
  const store = new SqliteTransferStore(db);
  const accountId = new AccountRepo(db).upsert({
    name: 'Chaos',
    uploadUrl: o.uploadUrl,
    mgrUrl: o.uploadUrl,
    downloadDomain: null,
    accessKey: ctx.accessKey,
    secretRef: null,
    tokenUrl: null,
  });
  const client = new UploadClient({ uploadUrl: o.uploadUrl, timeoutMs: o.timeoutMs ?? 10_000 });
  const tokens = new LocalTokenSigner(ctx.accessKey, ctx.secretKey, o.now ? { now: o.now } : {});
  const make = () => {
    const e = new UploadEngine({
      store,
      account: () => ({ client, tokens }),
      backoff: { baseDelayMs: 20, maxDelayMs: 200 },
      ...(o.now ? { now: o.now } : {}),
      ...o.engine,
    });
    e.start();
    return e;
  };
  const rig: EngineRig = {
    db,
    dbFile,
    store,
    accountId,
    engine: make(),
    client,
    async restartEngine() {
      await rig.engine.close();
      rig.engine = make();
      return rig.engine;
    },
    async close() {
      await rig.engine.close();
      client.close();
      db.close();
    },
  };
  return rig;
}

const TERMINAL = ['done', 'failed', 'canceled', 'skipped'];

/** Waits until every id is in a terminal state or `timeoutMs` passes; returns the snapshots. */
export async function settleAll(engine: UploadEngine, ids: number[], timeoutMs: number): Promise<TransferSnapshot[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const snaps = ids.map((id) => engine.get(id)!);
    if (snaps.every((s) => TERMINAL.includes(s.state)) || Date.now() > end) return snaps;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, 250);
      const off = engine.onTransferChange((s) => TERMINAL.includes(s.state) && done());
      function done() {
        clearTimeout(t);
        off();
        resolve();
      }
    });
  }
}

/** Turns an engine retry log line ("bput 503: … (request id x) → retry") into a cause. */
export function retryCause(message: string): string {
  const m = /^([\w-]+)(?: (\d{3}))?: (.*?)(?: \(request id [^)]*\))? → ([\w-]+)$/s.exec(message);
  if (!m) return message.slice(0, 60);
  const [, endpoint, status, text, action] = m;
  const what =
    status ??
    (text ?? '')
      .replace(/127\.0\.0\.1:\d+/g, 'the host')
      .replace(/[\d.]+ ?(s|ms|bytes)\b/g, 'N $1')
      .slice(0, 50);
  return `${endpoint} ${what} → ${action}`;
}

/** Adds the engine's logged retries to the report, by cause; returns how many. */
export function countRetries(ctx: ChaosContext, db: Db): number {
  const rows = db.prepare(`SELECT message FROM event_log WHERE kind = 'retry'`).all() as Array<{ message: string }>;
  for (const r of rows) ctx.rec.retry(retryCause(r.message));
  const errors = db.prepare(`SELECT message FROM event_log WHERE level = 'error'`).all() as Array<{ message: string }>;
  ctx.errorsSeen.push(...rows.map((r) => r.message), ...errors.map((r) => r.message));
  return rows.length;
}

export interface Verdict {
  ok: boolean;
  why?: string;
}

/**
 * The claim "done means verified", checked from outside: the transfer is done, its etag is
 * the etag of the local bytes, the service's hash equals it, and the downloaded object is
 * the local file byte for byte.
 */
export async function verifyDone(
  rig: EngineRig,
  snap: TransferSnapshot,
  download: (key: string) => Promise<Buffer>,
): Promise<Verdict & { bytes: number }> {
  const local = await readFile(snap.localPath);
  const rec = rig.store.getTransfer(snap.id);
  if (snap.state !== 'done')
    return { ok: false, bytes: 0, why: `${snap.key} ended ${snap.state}: ${JSON.stringify(snap.lastError)}` };
  const etag = etagOfBuffer(local);
  if (rec?.etag !== etag || rec.remoteHash !== etag)
    return {
      ok: false,
      bytes: 0,
      why: `${snap.key} done with etag ${rec?.etag}, remote ${rec?.remoteHash}, file ${etag}`,
    };
  const remote = await download(snap.key);
  if (!remote.equals(local))
    return {
      ok: false,
      bytes: 0,
      why: `${snap.key}: downloaded ${remote.length} bytes differ from the ${local.length} local`,
    };
  return { ok: true, bytes: local.length };
}

/** A downloader for an emulator's public URLs (no faults on downloads). */
export function downloader(mgrUrl: string, objectUrl: (key: string) => string): (key: string) => Promise<Buffer> {
  const mgr = new MgrClient({ mgrUrl });
  return async (key) => {
    const r = await mgr.download(objectUrl(key));
    if (r.status !== 200)
      throw new Error(`download of ${key} answered ${r.status}: ${r.body.toString('utf8', 0, 200)}`);
    return r.body;
  };
}
