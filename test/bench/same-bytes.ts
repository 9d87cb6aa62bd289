/**
 * Bytes not sent twice (issue 19), measured: the `dedupe` section of `npm run bench`, and the
 * world test/bench/same-bytes-cost.ts measures the copy threshold in.
 *
 * The section: 50 files are uploaded first (an earlier transfer, folder `earlier/`); then a
 * tree of 100 files, 50 of them byte-identical copies of those and 50 new, is uploaded twice
 * into fresh keys: at the engine's defaults, then with the copy on the service off (the plain
 * upload; second, since the first run's objects are stored bytes too). The bytes the emulator took in for each (its mkblk/bput body counter,
 * `uploadCounts().chunkBytes`; the files are above the form-upload size, so every byte sent
 * is counted) give `dedupe_bytes_pct` = defaults / plain × 100. Every object of both runs is
 * downloaded and compared with its file, and every transfer must be done and verified.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UploadEngine, type EngineOptions } from '../../src-main/engine/engine';
import { LocalTokenSigner } from '../../src-main/engine/tokens';
import { startEmulator, type RunningEmulator } from '../../src-main/emulator/server';
import { MgrClient, UploadClient } from '../../src-main/protocol/client';
import { AccountRepo } from '../../src-main/store/account-repo';
import { openAppDatabase } from '../../src-main/store/app-db';
import type { Db } from '../../src-main/store/db';
import { SqliteTransferStore } from '../../src-main/store/transfer-repo';
import type { TransferSnapshot } from '../../src-main/shared/models';

const MiB = 1024 * 1024;

/** An emulator in this process, the app's SQLite file, and engines whose account can stat and copy. */
export class SameBytesWorld {
  private constructor(
    readonly tmp: string,
    readonly emu: RunningEmulator,
    readonly db: Db,
    readonly store: SqliteTransferStore,
    readonly accountId: number,
    readonly client: UploadClient,
    readonly mgr: MgrClient,
  ) {}

  static async start(): Promise<SameBytesWorld> {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-same-bytes-'));
    const emu = await startEmulator({ dataDir: path.join(tmp, 'emu'), port: 0 });
    const db = openAppDatabase(path.join(tmp, 'app.db'));
    const store = new SqliteTransferStore(db);
    const accountId = new AccountRepo(db).upsert({
      name: 'bench',
      uploadUrl: emu.uploadUrl,
      mgrUrl: emu.mgrUrl,
      downloadDomain: emu.downloadBaseUrl,
      accessKey: emu.config.accessKey,
      secretRef: null,
      tokenUrl: null,
    });
    const client = new UploadClient({ uploadUrl: emu.uploadUrl });
    const mgr = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
    return new SameBytesWorld(tmp, emu, db, store, accountId, client, mgr);
  }

  get bucket(): string {
    return this.emu.config.buckets[0]!;
  }

  /** A started engine at its defaults but for `opts`, whose account can stat and submit Fmgr tasks. */
  engine(opts: Partial<EngineOptions> = {}): UploadEngine {
    const tokens = new LocalTokenSigner(this.emu.config.accessKey, this.emu.config.secretKey);
    const e = new UploadEngine({
      store: this.store,
      account: () => ({
        client: this.client,
        tokens,
        stored: (b, k, signal) => this.mgr.stat(b, k, signal),
        fmgr: this.mgr,
      }),
      ...opts,
    });
    e.start();
    return e;
  }

  /** Uploads `files` (path → key) with `engine` and waits until every one is done and verified. */
  async upload(engine: UploadEngine, files: ReadonlyArray<readonly [string, string]>): Promise<TransferSnapshot[]> {
    const ids = engine.enqueue(
      files.map(([localPath, key]) => ({
        accountId: this.accountId,
        bucket: this.bucket,
        key,
        localPath,
        source: 'manual' as const,
      })),
    );
    await engine.whenIdle();
    const out = ids.map((id) => engine.get(id)!);
    for (const s of out) {
      const rec = this.store.getTransfer(s.id)!;
      if (rec.state !== 'done' || rec.remoteHash === null || rec.remoteHash !== rec.etag)
        throw new Error(
          `${s.key}: ${rec.state}, not done and verified (${rec.lastError?.message ?? rec.warning ?? ''})`,
        );
    }
    return out;
  }

  /** Downloads every object and compares it with its file; throws on the first difference. */
  async verifyByDownload(files: ReadonlyArray<readonly [string, string]>): Promise<void> {
    for (const [localPath, key] of files) {
      const got = await this.mgr.download(this.emu.objectUrl(this.bucket, key));
      if (got.status !== 200) throw new Error(`download of ${key} answered ${got.status}`);
      if (!got.body.equals(await readFile(localPath))) throw new Error(`${key} is not the bytes of ${localPath}`);
    }
  }

  sentBytes(): number {
    return this.emu.uploadCounts().chunkBytes;
  }

  async close(): Promise<void> {
    this.client.close();
    this.mgr.close();
    this.db.close();
    await this.emu.close();
    await rm(this.tmp, { recursive: true, force: true });
  }
}

/** File sizes of the tree: above the form-upload size (4 MiB) and the copy threshold, varied. */
function sizeOf(i: number): number {
  return 4 * MiB + 1 + ((i * 7919) % (2 * MiB));
}

export async function runSameBytesBench(): Promise<Record<string, number>> {
  const w = await SameBytesWorld.start();
  try {
    const earlierDir = path.join(w.tmp, 'earlier');
    const treeDir = path.join(w.tmp, 'tree');
    await mkdir(earlierDir);
    await mkdir(path.join(treeDir, 'copies'), { recursive: true });
    await mkdir(path.join(treeDir, 'new'), { recursive: true });
    const earlier: Array<[string, string]> = [];
    const tree: Array<[string, string]> = [];
    for (let i = 0; i < 50; i++) {
      const p = path.join(earlierDir, `e${i}.bin`);
      await writeFile(p, randomBytes(sizeOf(i)));
      earlier.push([p, `earlier/e${i}.bin`]);
      const copy = path.join(treeDir, 'copies', `c${i}.bin`);
      await copyFile(p, copy);
      tree.push([copy, `copies/c${i}.bin`]);
      const fresh = path.join(treeDir, 'new', `n${i}.bin`);
      await writeFile(fresh, randomBytes(sizeOf(i + 50)));
      tree.push([fresh, `new/n${i}.bin`]);
    }
    const first = w.engine();
    await w.upload(first, earlier);
    await first.close();

    // At the engine's defaults (first: the plain run's objects would be stored bytes too).
    const dedupeKeys = tree.map(([p, k]) => [p, `dedupe/${k}`] as const);
    const engine = w.engine();
    let before = w.sentBytes();
    const t0 = performance.now();
    const done = await w.upload(engine, dedupeKeys);
    const dedupeMs = performance.now() - t0;
    const dedupeBytes = w.sentBytes() - before;
    await engine.close();
    const copied = done.filter((s) => w.store.getTransfer(s.id)!.copiedFrom !== null).length;

    // The plain upload: the same tree with the copy off.
    const plainKeys = tree.map(([p, k]) => [p, `plain/${k}`] as const);
    const plainEngine = w.engine({ copyMinBytes: Infinity });
    before = w.sentBytes();
    await w.upload(plainEngine, plainKeys);
    const plainBytes = w.sentBytes() - before;
    await plainEngine.close();

    await w.verifyByDownload(earlier);
    await w.verifyByDownload(plainKeys);
    await w.verifyByDownload(dedupeKeys);
    return {
      dedupe_bytes_pct: (dedupeBytes / plainBytes) * 100,
      dedupe_copied_files: copied,
      dedupe_plain_mib: plainBytes / MiB,
      dedupe_sent_mib: dedupeBytes / MiB,
      dedupe_upload_s: dedupeMs / 1000,
    };
  } finally {
    await w.close();
  }
}
