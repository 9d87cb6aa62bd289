import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { silentLogger, type Logger } from '../base/logger';
import type { SweepResult } from './admin';
import { handleBput, handleMkblk, type ChunkDeps } from './chunk-routes';
import { OffsetClock, DAY_MS } from './clock';
import type { Clock, EmulatorConfig, EmulatorContext, ObjectStore } from './contracts';
import { handleDownload, objectUrl } from './download';
import { FaultInjector, type FaultConfig, type FaultEndpoint, type FaultEvent } from './faults';
import { mountFmgr, type FmgrService } from './fmgr';
import { handleFormUpload } from './form-upload';
import { EmulatorHttpServer, RouteTable } from './http-server';
import { BatchBuffers, directIoDisabledByEnv } from './direct-io';
import { HashPool } from './hash-pool';
import { HttpError } from './http-util';
import { handleMkfile, type MkfileDeps } from './mkfile';
import type { NotifyRetry } from './notify';
import { openStorage, type EmulatorStorage } from './storage';
import { mountStat } from './stat';
import { mountVca } from './vca';
import { UploadCounter, type UploadCounts } from './upload-counts';

export const DEFAULT_ACCESS_KEY = 'blocklift-ak';
export const DEFAULT_SECRET_KEY = 'blocklift-sk';
export const DEFAULT_BUCKET = 'local';
export const DEFAULT_PURGE_AGE_MS = 30 * DAY_MS;
export const DEFAULT_PURGE_INTERVAL_MS = 60 * 60 * 1000;

export interface StartEmulatorOptions {
  /** 0 (the default here) picks a free port. */
  port?: number;
  /** Only loopback is served. */
  host?: '127.0.0.1';
  /** Objects, unmerged blocks and metadata live here; created when missing. */
  dataDir: string;
  accessKey?: string;
  secretKey?: string;
  buckets?: string[];
  /** Time source; the emulator wraps it in an OffsetClock that the admin route can move. */
  clock?: Clock;
  /** Unmerged blocks older than this are purged. Default 30 days. */
  purgeAgeMs?: number;
  /** How often the purge sweep runs. Default 1 hour. */
  purgeIntervalMs?: number;
  faults?: FaultConfig;
  /** Bearer token of the admin routes; random when not given. */
  adminToken?: string;
  vcaLabelsFile?: string;
  vcaDelayMs?: number;
  /** Buckets whose VCA requests answer 401 Smart Media Service Not Enabled. */
  smartMediaDisabledBuckets?: readonly string[];
  notifyRetry?: NotifyRetry;
  /** Minimum time each Fmgr state lasts (fmgr.ts). */
  fmgrStepDelayMs?: number;
  /**
   * Where the emulator reports what no reply can carry (a background task that stopped, an
   * internal error). Silent by default: the embedded emulator lives in the desktop app's
   * process and must not write to its stderr; the `blocklift emulator` command passes a
   * stderr logger.
   */
  logger?: Logger;
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:PORT (upload endpoints) */
  uploadUrl: string;
  /** e.g. http://127.0.0.1:PORT (Fmgr and VCA endpoints; same port) */
  mgrUrl: string;
  /** e.g. http://127.0.0.1:PORT/dl; an object is at <downloadBaseUrl>/<bucket>/<key> */
  downloadBaseUrl: string;
  adminUrl: string;
  adminToken: string;
  port: number;
  dataDir: string;
  config: EmulatorConfig;
  clock: OffsetClock;
  objects: ObjectStore;
  fmgr: FmgrService;
  /** The public download URL of an object. */
  objectUrl(bucket: string, key: string): string;
  /** Runs the purge sweep now (unmerged blocks older than purgeAgeMs, expired objects). */
  sweepNow(): SweepResult;
  /** Replaces the fault configuration (`{}` turns faults off); the PRNG restarts from its seed. */
  setFaults(cfg: FaultConfig): void;
  faultEvents(): FaultEvent[];
  /** Unmerged blocks currently held. */
  blockCount(): number;
  /** What mkblk and bput took in since this instance started (chunk-routes.ts); a copy. */
  uploadCounts(): UploadCounts;
  /** Stops the server, background work and timers, and closes the database. Idempotent. */
  close(): Promise<void>;
}

function endpointOfPath(p: string): FaultEndpoint | undefined {
  if (p.startsWith('/fmgr')) return 'fmgr';
  if (p.startsWith('/v1/vca')) return 'vca';
  if (p.startsWith('/stat/')) return 'stat';
  return undefined;
}

/** The options checked and defaulted. */
interface Settings {
  dataDir: string;
  config: EmulatorConfig;
  clock: OffsetClock;
  faults: FaultInjector;
  adminToken: string;
  logger: Logger;
}

function settingsOf(opts: StartEmulatorOptions): Settings {
  if (opts.host !== undefined && opts.host !== '127.0.0.1') throw new Error('the emulator listens on 127.0.0.1 only');
  const buckets = opts.buckets?.length ? [...new Set(opts.buckets)] : [DEFAULT_BUCKET];
  for (const b of buckets) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(b))
      throw new Error(
        `bucket name "${b}" may use letters, digits, ".", "_" and "-" (1 to 63, starting with a letter or digit)`,
      );
  }
  return {
    dataDir: path.resolve(opts.dataDir),
    config: {
      accessKey: opts.accessKey ?? DEFAULT_ACCESS_KEY,
      secretKey: opts.secretKey ?? DEFAULT_SECRET_KEY,
      buckets,
      downloadBaseUrl: '', // set once the port is known
    },
    clock: new OffsetClock(opts.clock),
    faults: new FaultInjector(opts.faults ?? {}),
    adminToken: opts.adminToken ?? randomBytes(18).toString('base64url'),
    logger: opts.logger ?? silentLogger,
  };
}

/** The upload endpoints (mkblk, bput, mkfile, form upload) and downloads. */
function mountUploads(
  routes: RouteTable,
  s: Settings,
  storage: EmulatorStorage,
  more: {
    uploadUrl: () => string;
    fmgr: () => FmgrService | undefined;
    openStreams: EmulatorHttpServer['openStreams'];
    hashes: HashPool;
    buffers: BatchBuffers;
    counts: UploadCounter;
  },
): void {
  const { config, clock, faults } = s;
  const { objects, blocks, signer, merges } = storage;
  const chunkDeps: ChunkDeps = {
    config,
    objects,
    clock,
    blocks,
    signer,
    faults,
    hashes: more.hashes,
    buffers: more.buffers,
    uploadUrl: more.uploadUrl,
    counts: more.counts,
  };
  const mkfileDeps: MkfileDeps = {
    ...chunkDeps,
    store: objects,
    merges,
    submitPersistentOps: (opName, fops, o) => {
      const fmgr = more.fmgr();
      if (!fmgr) throw new HttpError(503, 'the Fmgr service is not running');
      return fmgr.submit(opName, fops, o);
    },
  };
  routes.add('POST', '/mkblk/:blockSize/:blockOrder', 'mkblk', (req, res, p) => handleMkblk(chunkDeps, req, res, p));
  routes.add('POST', '/bput/:ctx/:offset', 'bput', (req, res, p) => handleBput(chunkDeps, req, res, p));
  routes.add('POST', '/mkfile/:fileSize', 'mkfile', (req, res, p) => handleMkfile(mkfileDeps, req, res, p));
  routes.add('POST', '/mkfile/:fileSize/*', 'mkfile', (req, res, p) => handleMkfile(mkfileDeps, req, res, p));
  routes.add('POST', '/file/upload', 'form', (req, res) => handleFormUpload(mkfileDeps, req, res));
  routes.setDownload((req, res, p) => handleDownload({ objects, openStreams: more.openStreams }, req, res, p));
}

/** What Fmgr and VCA see of the emulator. */
function contextOf(
  s: Settings,
  storage: EmulatorStorage,
  routes: RouteTable,
  closeHooks: Array<() => void | Promise<void>>,
): EmulatorContext {
  return {
    config: s.config,
    objects: storage.objects,
    db: storage.db,
    clock: s.clock,
    logger: s.logger,
    route: (method, p, handler) => routes.add(method, p, endpointOfPath(p), handler),
    onClose: (fn) => void closeHooks.push(fn),
    objectUrl: (bucket, key) => objectUrl(s.config.downloadBaseUrl, bucket, key),
  };
}

/** Fmgr, VCA and stat, on the shared router. */
function mountServices(ctx: EmulatorContext, opts: StartEmulatorOptions): FmgrService {
  const fmgr = mountFmgr(ctx, { notifyRetry: opts.notifyRetry, stepDelayMs: opts.fmgrStepDelayMs });
  mountVca(ctx, {
    labelsFile: opts.vcaLabelsFile,
    analysisDelayMs: opts.vcaDelayMs,
    notifyRetry: opts.notifyRetry,
    smartMediaDisabledBuckets: opts.smartMediaDisabledBuckets,
  });
  mountStat(ctx);
  return fmgr;
}

/** Runs the purge sweep every `intervalMs` (the timer does not keep the process alive); returns the stop function. */
function sweepEvery(intervalMs: number, sweepNow: () => SweepResult, logger: Logger): () => void {
  const timer = setInterval(() => {
    try {
      sweepNow();
    } catch (e) {
      logger.error(`purge sweep failed: ${(e as Error).message}`);
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Starts the emulator: one node:http server on 127.0.0.1 (http-server.ts) serving the upload
 * endpoints (mkblk, bput, mkfile, form upload), Fmgr and VCA (mounted from fmgr.ts and
 * vca.ts), downloads under /dl and the admin routes under /admin. Resolves once it listens;
 * the caller owns it and calls close().
 */
export async function startEmulator(opts: StartEmulatorOptions): Promise<RunningEmulator> {
  const s = settingsOf(opts);
  mkdirSync(s.dataDir, { recursive: true });
  const storage = openStorage(s.dataDir, s.clock, s.config.buckets);
  const purgeAgeMs = opts.purgeAgeMs ?? DEFAULT_PURGE_AGE_MS;
  const sweepNow = () => storage.sweep(s.clock.now() - purgeAgeMs);
  const routes = new RouteTable();
  const closeHooks: Array<() => void | Promise<void>> = [];
  const counts = new UploadCounter();
  const uploadCounts = () => counts.snapshot();
  const http = new EmulatorHttpServer({
    routes,
    faults: s.faults,
    logger: s.logger,
    admin: {
      token: s.adminToken,
      faults: s.faults,
      clock: s.clock,
      sweepNow,
      blockCount: () => storage.blocks.count(),
      uploadCounts,
    },
  });
  let baseUrl = '';
  let fmgr: FmgrService | undefined;
  const hashes = new HashPool();
  const buffers = new BatchBuffers(directIoDisabledByEnv() ? null : s.dataDir);
  mountUploads(routes, s, storage, {
    uploadUrl: () => baseUrl,
    fmgr: () => fmgr,
    openStreams: http.openStreams,
    hashes,
    buffers,
    counts,
  });
  const ctx = contextOf(s, storage, routes, closeHooks);
  const stop = async () => {
    try {
      await http.close();
      await hashes.close();
      buffers.close();
      for (const hook of closeHooks) await hook();
    } finally {
      storage.close();
    }
  };
  let port: number;
  try {
    port = await http.listen(opts.port ?? 0);
    baseUrl = `http://127.0.0.1:${port}`;
    s.config.downloadBaseUrl = `${baseUrl}/dl`;
    // Mounted once the port is known: resumed tasks and jobs use download URLs at once.
    fmgr = mountServices(ctx, opts);
  } catch (e) {
    await stop();
    throw e;
  }
  const stopSweeps = sweepEvery(opts.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS, sweepNow, s.logger);
  let closing: Promise<void> | undefined;
  const close = () => {
    stopSweeps();
    closing ??= stop();
    return closing;
  };
  return {
    uploadUrl: baseUrl,
    mgrUrl: baseUrl,
    downloadBaseUrl: s.config.downloadBaseUrl,
    adminUrl: `${baseUrl}/admin`,
    adminToken: s.adminToken,
    port,
    dataDir: s.dataDir,
    config: s.config,
    clock: s.clock,
    objects: storage.objects,
    fmgr,
    objectUrl: ctx.objectUrl,
    sweepNow,
    setFaults: (cfg) => s.faults.set(cfg),
    faultEvents: () => [...s.faults.events],
    blockCount: () => storage.blocks.count(),
    uploadCounts,
    close,
  };
}
