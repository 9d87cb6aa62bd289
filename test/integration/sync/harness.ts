import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UploadEngine } from '../../../src-main/engine/engine';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import { MgrClient, UploadClient } from '../../../src-main/protocol/client';
import type { TransferSnapshot } from '../../../src-main/shared/models';
import { AccountRepo } from '../../../src-main/store/account-repo';
import { openAppDatabase } from '../../../src-main/store/app-db';
import type { Db } from '../../../src-main/store/db';
import { SyncRepo } from '../../../src-main/store/sync-repo';
import { SqliteTransferStore } from '../../../src-main/store/transfer-repo';
import type { WatchRootEvent } from '../../../src-main/sync/events';
import { normalizeWatchOptions } from '../../../src-main/sync/options';
import { fmgrRemoteOps } from '../../../src-main/sync/remote-ops';
import { WatchManager } from '../../../src-main/sync/watch-manager';
import { WatchRoot, type WatchRootDeps } from '../../../src-main/sync/watch-root';
import type { WatcherBackend } from '../../../src-main/sync/watcher';
import { catalogProblemFaults } from '../../helpers/catalog-problem';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/**
 * A real app stack for sync tests: the emulator on 127.0.0.1:0, an app database file, the
 * real UploadEngine, a watch root over a temp folder. `openRun()` opens database, engine
 * and root; `closeRun()` closes them (a "restart" is closeRun + openRun on the same files).
 * `dispose()` fails the test when a problem event the root emitted, or the reason of a state
 * it went to, cannot be translated (catalogProblemFaults): every sync test checks the
 * problems it provokes.
 */
export class SyncHarness {
  emu!: TestEmulator;
  folder!: string;
  dbFile!: string;
  private tmp!: string;
  db: Db | undefined;
  engine: UploadEngine | undefined;
  root: WatchRoot | undefined;
  repo: SyncRepo | undefined;
  events: WatchRootEvent[] = [];
  /** What keeps each problem event seen so far from being translated (kept when a test clears `events`). */
  problemFaults: string[] = [];
  transfers: TransferSnapshot[] = [];
  private clients: Array<{ close(): void }> = [];

  static async create(): Promise<SyncHarness> {
    const h = new SyncHarness();
    h.emu = await startTestEmulator();
    h.tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-sync-it-')));
    h.folder = path.join(h.tmp, 'watched');
    h.dbFile = path.join(h.tmp, 'state', 'app.db');
    await import('node:fs/promises').then((f) => f.mkdir(h.folder));
    return h;
  }

  mgr(): MgrClient {
    const c = new MgrClient({
      mgrUrl: this.emu.mgrUrl,
      accessKey: this.emu.config.accessKey,
      secretKey: this.emu.config.secretKey,
    });
    this.clients.push(c);
    return c;
  }

  /** A WatchManager over this run's database and engine, wired as the app wires it (parcel backend). */
  watchManager(): WatchManager {
    return new WatchManager({
      repo: this.repo!,
      queue: this.engine!,
      control: this.engine!,
      dataDir: path.dirname(this.dbFile),
      backend: 'parcel',
    });
  }

  async openRun(opts: {
    backend: WatcherBackend;
    options?: Record<string, unknown>;
    remote?: boolean;
    maxFiles?: number;
    startEngine?: boolean;
    /** The clock of the root's stability rule (default the real one). */
    now?: () => number;
    /** The root's start of its OS watches (a test wraps the real one to drop events). */
    startWatcher?: WatchRootDeps['startWatcher'];
    burstQuietMs?: number;
  }): Promise<WatchRoot> {
    const db = openAppDatabase(this.dbFile);
    this.db = db;
    const accountId = new AccountRepo(db).upsert({
      name: 'Local',
      uploadUrl: this.emu.uploadUrl,
      mgrUrl: this.emu.mgrUrl,
      downloadDomain: null,
      accessKey: this.emu.config.accessKey,
      secretRef: null,
      tokenUrl: null,
    });
    const client = new UploadClient({ uploadUrl: this.emu.uploadUrl });
    this.clients.push(client);
    const tokens = new LocalTokenSigner(this.emu.config.accessKey, this.emu.config.secretKey);
    // What the app's account gives the engine: a 406 asks what is stored (GET /stat) before the policy.
    const statClient = this.mgr();
    this.engine = new UploadEngine({
      store: new SqliteTransferStore(db),
      account: () => ({ client, tokens, stored: (bucket, key, signal) => statClient.stat(bucket, key, signal) }),
      // maxFiles bounds every transfer in flight, small (form upload) ones included, so a
      // test that runs one file at a time gets a fixed order.
      ...(opts.maxFiles
        ? { limits: { maxFiles: opts.maxFiles, maxSmallFiles: opts.maxFiles, maxBlocks: opts.maxFiles } }
        : {}),
    });
    this.engine.onTransferChange((t) => this.transfers.push(t));
    this.repo = new SyncRepo(db);
    const record =
      this.repo.findRootByPath(this.folder) ??
      this.repo.addRoot({
        path: this.folder,
        accountId,
        bucket: this.emu.bucket,
        prefix: 'up/',
        options: opts.options ?? {},
      });
    const mgr = this.mgr();
    this.root = new WatchRoot({
      record,
      options: normalizeWatchOptions({ stabilityMs: 300, ...opts.options }),
      repo: this.repo,
      queue: this.engine,
      control: this.engine,
      remote: opts.remote ? fmgrRemoteOps(() => mgr, { pollMs: 20 }) : undefined,
      backend: opts.backend,
      housekeepingMs: 100,
      missingGraceMs: 1500,
      now: opts.now,
      startWatcher: opts.startWatcher,
      burstQuietMs: opts.burstQuietMs,
    });
    this.root.on((e) => {
      this.events.push(e);
      if (e.type === 'problem') this.problemFaults.push(...catalogProblemFaults(e));
      // Why a root is unavailable or paused is said in the UI's language the same way.
      if (e.type === 'state' && e.reason !== null)
        this.problemFaults.push(
          ...catalogProblemFaults({
            code: e.reasonCode ?? '(no code)',
            message: e.reason,
            params: e.reasonParams ?? {},
          }),
        );
    });
    if (opts.startEngine !== false) this.engine.start();
    return this.root;
  }

  /** Waits until the root has nothing waiting and the engine nothing to do, twice in a row. */
  async settle(): Promise<void> {
    for (let i = 0; i < 2; i++) {
      await this.root!.whenSettled();
      await this.engine!.whenIdle();
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  /** Keys of the transfers that ended 'done' since the last call (one entry per transfer). */
  takeUploads(): string[] {
    const done = new Map<number, string>();
    for (const t of this.transfers) if (t.state === 'done') done.set(t.id, t.key);
    this.transfers = [];
    return [...done.values()].sort();
  }

  async closeRun(): Promise<void> {
    await this.root?.close();
    await this.engine?.close();
    for (const c of this.clients) c.close();
    this.clients = [];
    this.db?.close();
    this.root = undefined;
    this.engine = undefined;
    this.db = undefined;
  }

  async dispose(): Promise<void> {
    await this.closeRun();
    await this.emu.close();
    await rm(this.tmp, { recursive: true, force: true });
    if (this.problemFaults.length)
      throw new Error(`problem events a UI cannot translate:\n${this.problemFaults.join('\n')}`);
  }
}
