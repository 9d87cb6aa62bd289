import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import FindMyWay from 'find-my-way';
import { openDatabase, type Db } from '../store/db';
import { handleAdmin, type SweepResult } from './admin';
import { BlockStore } from './block-store';
import { handleBput, handleMkblk, type ChunkDeps } from './chunk-routes';
import { OffsetClock, DAY_MS } from './clock';
import type { Clock, EmulatorConfig, EmulatorContext, ObjectStore, RouteHandler } from './contracts';
import { answerPreflight, setCorsHeaders } from './cors';
import { CtxSigner } from './ctx';
import { lockDataDir } from './data-lock';
import { downloadTarget, handleDownload, objectUrl } from './download';
import { FaultInjector, type FaultConfig, type FaultEndpoint, type FaultEvent } from './faults';
import { mountFmgr, type FmgrService } from './fmgr';
import { HttpError, sendJson } from './http-util';
import { MergeLog } from './merge';
import { EMULATOR_MIGRATIONS } from './migrations';
import { handleMkfile, type MkfileDeps } from './mkfile';
import type { NotifyRetry } from './notify';
import { ObjectStoreError, SqliteObjectStore } from './object-store';
import { mountVca } from './vca';

export const DEFAULT_ACCESS_KEY = 'blocklift-ak';
export const DEFAULT_SECRET_KEY = 'blocklift-sk';
export const DEFAULT_BUCKET = 'local';
export const DEFAULT_PURGE_AGE_MS = 30 * DAY_MS;
export const DEFAULT_PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** An unread request body up to this size is drained after an early error reply; a larger one closes the connection. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** On close, requests under way get this long to finish before their connections are destroyed. */
const CLOSE_GRACE_MS = 1_000;

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
  /** Stops the server, background work and timers, and closes the database. Idempotent. */
  close(): Promise<void>;
}

interface RouteEntry {
  endpoint: FaultEndpoint | undefined;
  handler: RouteHandler;
}

function endpointOfPath(p: string): FaultEndpoint | undefined {
  if (p.startsWith('/fmgr')) return 'fmgr';
  if (p.startsWith('/v1/vca')) return 'vca';
  return undefined;
}

/**
 * Starts the emulator: one node:http server on 127.0.0.1 serving the upload endpoints
 * (mkblk, bput, mkfile), Fmgr and VCA (mounted from fmgr.ts and vca.ts), downloads under
 * /dl and the admin routes under /admin. Resolves once it listens; the caller owns it and
 * calls close().
 */
export async function startEmulator(opts: StartEmulatorOptions): Promise<RunningEmulator> {
  if (opts.host !== undefined && opts.host !== '127.0.0.1') throw new Error('the emulator listens on 127.0.0.1 only');
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const buckets = opts.buckets?.length ? [...new Set(opts.buckets)] : [DEFAULT_BUCKET];
  for (const b of buckets) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(b))
      throw new Error(
        `bucket name "${b}" may use letters, digits, ".", "_" and "-" (1 to 63, starting with a letter or digit)`,
      );
  }
  const clock = new OffsetClock(opts.clock);
  const purgeAgeMs = opts.purgeAgeMs ?? DEFAULT_PURGE_AGE_MS;
  const faults = new FaultInjector(opts.faults ?? {});
  const adminToken = opts.adminToken ?? randomBytes(18).toString('base64url');
  const config: EmulatorConfig = {
    accessKey: opts.accessKey ?? DEFAULT_ACCESS_KEY,
    secretKey: opts.secretKey ?? DEFAULT_SECRET_KEY,
    buckets,
    downloadBaseUrl: '', // set once the port is known
  };

  const unlock = lockDataDir(dataDir);
  let db: Db;
  let store: SqliteObjectStore;
  let blocks: BlockStore;
  let merges: MergeLog;
  let signer: CtxSigner;
  try {
    db = openDatabase(path.join(dataDir, 'emulator.db'), EMULATOR_MIGRATIONS);
    try {
      store = new SqliteObjectStore(db, dataDir, clock, buckets);
      blocks = new BlockStore(db, dataDir, clock);
      merges = new MergeLog(db, clock);
      signer = CtxSigner.fromDb(db);
    } catch (e) {
      db.close();
      throw e;
    }
  } catch (e) {
    unlock();
    throw e;
  }
  let baseUrl = '';

  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  const addRoute = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD',
    p: string,
    endpoint: FaultEndpoint | undefined,
    handler: RouteHandler,
  ) => {
    const entry: RouteEntry = { endpoint, handler };
    router.on(method, p, () => undefined, entry);
  };
  const closeHooks: Array<() => void | Promise<void>> = [];
  const ctx: EmulatorContext = {
    config,
    objects: store,
    db,
    clock,
    route: (method, p, handler) => addRoute(method, p, endpointOfPath(p), handler),
    onClose: (fn) => void closeHooks.push(fn),
    objectUrl: (bucket, key) => objectUrl(config.downloadBaseUrl, bucket, key),
  };

  const chunkDeps: ChunkDeps = { config, objects: store, clock, blocks, signer, faults, uploadUrl: () => baseUrl };
  let fmgr: FmgrService | undefined;
  const mkfileDeps: MkfileDeps = {
    ...chunkDeps,
    store,
    merges,
    submitPersistentOps: (opName, fops, o) => {
      if (!fmgr) throw new HttpError(503, 'the Fmgr service is not running');
      return fmgr.submit(opName, fops, o);
    },
  };
  addRoute('POST', '/mkblk/:blockSize/:blockOrder', 'mkblk', (req, res, params) =>
    handleMkblk(chunkDeps, req, res, params),
  );
  addRoute('POST', '/bput/:ctx/:offset', 'bput', (req, res, params) => handleBput(chunkDeps, req, res, params));
  addRoute('POST', '/mkfile/:fileSize', 'mkfile', (req, res, params) => handleMkfile(mkfileDeps, req, res, params));
  addRoute('POST', '/mkfile/:fileSize/*', 'mkfile', (req, res, params) => handleMkfile(mkfileDeps, req, res, params));
  const openStreams = new Set<Readable>();
  // Downloads are not in the router: it folds trailing slashes, which are part of a key.
  const downloadEntry: RouteEntry = {
    endpoint: 'download',
    handler: (req, res, params) => handleDownload({ objects: store, openStreams }, req, res, params),
  };

  const sweepNow = (): SweepResult => {
    const cutoff = clock.now() - purgeAgeMs;
    return {
      blocks: blocks.purgeOlderThan(cutoff),
      objects: store.sweepExpired(),
      merges: merges.purgeOlderThan(cutoff),
    };
  };
  const adminTarget = { token: adminToken, faults, clock, sweepNow, blockCount: () => blocks.count() };

  const inFlight = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    const p = dispatch(req, res).finally(() => inFlight.delete(p));
    inFlight.add(p);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  function findRoute(
    method: string,
    urlPath: string,
  ): { store: RouteEntry; params: Record<string, string | undefined> } | undefined {
    if (urlPath.startsWith('/dl/') && (method === 'GET' || method === 'HEAD')) {
      const target = downloadTarget(urlPath);
      if (!target) throw new HttpError(404, 'a download path is /dl/<bucket>/<key>');
      return { store: downloadEntry, params: { bucket: target.bucket, '*': target.key } };
    }
    const found = router.find(method as 'GET', urlPath);
    return found ? { store: found.store as RouteEntry, params: found.params } : undefined;
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Reqid', randomBytes(8).toString('hex'));
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const urlPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
    let codeStyle: 'string' | 'number' = 'string';
    try {
      if (urlPath === '/admin' || urlPath.startsWith('/admin/')) {
        await handleAdmin(adminTarget, req, res, urlPath);
        return;
      }
      setCorsHeaders(req, res);
      if (req.method === 'OPTIONS') {
        answerPreflight(req, res);
        return;
      }
      try {
        decodeURIComponent(urlPath);
      } catch {
        throw new HttpError(400, 'the path has malformed percent-encoding');
      }
      const match = findRoute(req.method ?? 'GET', urlPath);
      if (!match) throw new HttpError(404, `no such endpoint: ${req.method} ${urlPath.slice(0, 200)}`);
      const entry = match.store;
      if (entry.endpoint === 'fmgr') codeStyle = 'number';
      if (entry.endpoint && faults.active) {
        const delayMs = faults.latencyFor(entry.endpoint);
        if (delayMs > 0) await sleep(delayMs);
        const status = faults.errorFor(entry.endpoint);
        if (status !== undefined)
          throw new HttpError(status, `injected fault: ${entry.endpoint} answered ${status}`, codeStyle);
      }
      await entry.handler(req, res, match.params, query);
    } catch (e) {
      try {
        await replyError(req, res, e, codeStyle);
      } catch (again) {
        process.stderr.write(`blocklift emulator: could not send an error reply: ${(again as Error).message}\n`);
        res.destroy();
      }
    }
  }

  // Longer than clients keep idle sockets, so a reused keep-alive socket is not closed under a request.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // An Expect other than 100-continue: 417 with the JSON error body every other error has
  // (node's default answers without a body).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('X-Reqid', randomBytes(8).toString('hex'));
    setCorsHeaders(req, res);
    res.setHeader('Connection', 'close');
    const expect = String(req.headers.expect ?? '').slice(0, 100);
    sendJson(res, 417, { code: '417', message: `Expect "${expect}" is not supported (only 100-continue is)` });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable)
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"code":"400","message":"malformed HTTP request"}',
      );
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e: unknown) => {
    db.close();
    unlock();
    throw e;
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  config.downloadBaseUrl = `${baseUrl}/dl`;

  try {
    fmgr = mountFmgr(ctx, { notifyRetry: opts.notifyRetry, stepDelayMs: opts.fmgrStepDelayMs });
    mountVca(ctx, {
      labelsFile: opts.vcaLabelsFile,
      analysisDelayMs: opts.vcaDelayMs,
      notifyRetry: opts.notifyRetry,
      smartMediaDisabledBuckets: opts.smartMediaDisabledBuckets,
    });
  } catch (e) {
    server.close();
    for (const hook of closeHooks) await hook();
    db.close();
    unlock();
    throw e;
  }

  const sweepTimer = setInterval(() => {
    try {
      sweepNow();
    } catch (e) {
      process.stderr.write(`blocklift emulator: purge sweep failed: ${(e as Error).message}\n`);
    }
  }, opts.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS);
  sweepTimer.unref();

  let closing: Promise<void> | undefined;
  // Always finishes, whatever clients left behind (the embedded emulator lives in the app's
  // process): idle connections go at once, requests under way get CLOSE_GRACE_MS, then
  // every connection and file stream is destroyed; the lock goes last, even after an error.
  const close = () => {
    closing ??= (async () => {
      clearInterval(sweepTimer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      try {
        await settledWithin([...inFlight], CLOSE_GRACE_MS);
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        for (const stream of openStreams) stream.destroy();
        await settledWithin([...inFlight, closed], CLOSE_GRACE_MS);
        for (const hook of closeHooks) await hook();
        db.close();
      } finally {
        unlock();
      }
    })();
    return closing;
  };

  const running: RunningEmulator = {
    uploadUrl: baseUrl,
    mgrUrl: baseUrl,
    downloadBaseUrl: config.downloadBaseUrl,
    adminUrl: `${baseUrl}/admin`,
    adminToken,
    port,
    dataDir,
    config,
    clock,
    objects: store,
    fmgr,
    objectUrl: ctx.objectUrl,
    sweepNow,
    setFaults: (cfg) => faults.set(cfg),
    faultEvents: () => [...faults.events],
    blockCount: () => blocks.count(),
    close,
  };
  return running;
}

/** Waits until every promise settled, or `ms` passed. */
async function settledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Reads and discards the rest of a request body, up to `limit` bytes, so that a reply sent
 * before the body was read is not lost to a reset when the connection closes with unread
 * bytes in it. Resolves true once the whole body was read; false when it is larger than the
 * limit or the request broke off (the connection must close then).
 */
export function drainBody(req: IncomingMessage, limit: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ok: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (!ok) req.pause();
      resolve(ok);
    };
    const onData = (c: Buffer) => {
      seen += c.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
    req.resume();
  });
}

/** Turns a thrown error into the JSON error reply; unexpected errors become 500 and are logged. */
async function replyError(
  req: IncomingMessage,
  res: ServerResponse,
  e: unknown,
  codeStyle: 'string' | 'number',
): Promise<void> {
  // After a reset the request has no socket any more: nothing can be answered.
  const socket = req.socket as IncomingMessage['socket'] | null;
  if (!socket || socket.destroyed || res.destroyed) return;
  let status = 500;
  let message = 'internal error of the emulator';
  let style = codeStyle;
  if (e instanceof HttpError) {
    status = e.status;
    message = e.message;
    style = e.codeStyle === 'number' ? 'number' : codeStyle;
  } else if (e instanceof ObjectStoreError) {
    status = e.code === 'no-such-bucket' ? 631 : e.code === 'no-such-key' ? 404 : 400;
    message = e.message;
  } else {
    process.stderr.write(`blocklift emulator: ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}\n`);
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The reply waits for the unread body (bounded): a client still sending it would
  // otherwise meet a reset or EPIPE instead of the reply when the connection closes.
  if (!(await drainBody(req, DRAIN_LIMIT_BYTES))) res.setHeader('Connection', 'close');
  if (res.destroyed || res.headersSent) return;
  sendJson(res, status, { code: style === 'number' ? status : String(status), message });
}
