import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import FindMyWay from 'find-my-way';
import type { Logger } from '../base/logger';
import { handleAdmin, type AdminTarget } from './admin';
import type { RouteHandler } from './contracts';
import { answerPreflight, setCorsHeaders } from './cors';
import { downloadTarget } from './download';
import type { FaultEndpoint, FaultInjector } from './faults';
import { drainBody, HttpError, sendJson } from './http-util';
import { ObjectStoreError } from './object-store';

/** An unread request body up to this size is drained after an early error reply; a larger one closes the connection. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const KEEP_ALIVE_TIMEOUT_MS = 30_000;
/** On close, requests under way get this long to finish before their connections are destroyed. */
const CLOSE_GRACE_MS = 1_000;

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

interface RouteEntry {
  endpoint: FaultEndpoint | undefined;
  handler: RouteHandler;
}

/**
 * The emulator's routes: find-my-way for the service endpoints, and downloads apart, since
 * the router folds trailing slashes and those are part of a key (`/dl/b/photos/`).
 */
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 2048 });
  private download: RouteEntry | undefined;

  /** `endpoint` names the route for fault injection (none: faults never touch it). */
  add(method: Method, path: string, endpoint: FaultEndpoint | undefined, handler: RouteHandler): void {
    this.router.on(method, path, () => undefined, { endpoint, handler } satisfies RouteEntry);
  }

  /** GET and HEAD of `/dl/<bucket>/<key…>`; the handler gets params `bucket` and `*` (the key, exact). */
  setDownload(handler: RouteHandler): void {
    this.download = { endpoint: 'download', handler };
  }

  find(method: string, urlPath: string): { entry: RouteEntry; params: Record<string, string | undefined> } | undefined {
    if (this.download && urlPath.startsWith('/dl/') && (method === 'GET' || method === 'HEAD')) {
      const target = downloadTarget(urlPath);
      if (!target) throw new HttpError(404, 'a download path is /dl/<bucket>/<key>');
      return { entry: this.download, params: { bucket: target.bucket, '*': target.key } };
    }
    const found = this.router.find(method as 'GET', urlPath);
    return found ? { entry: found.store as RouteEntry, params: found.params } : undefined;
  }
}

export interface HttpServerDeps {
  routes: RouteTable;
  faults: FaultInjector;
  admin: AdminTarget;
  logger: Logger;
}

/**
 * The emulator's node:http server on 127.0.0.1: every reply gets an X-Reqid; /admin goes
 * to the admin routes, everything else gets CORS headers and goes through fault injection
 * to its route; thrown errors become the JSON error reply. Tracks its requests,
 * connections and download streams so that close() always finishes.
 */
export class EmulatorHttpServer {
  /** Download file streams while open (download.ts); destroyed on close. */
  readonly openStreams = new Set<Readable>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;

  constructor(private readonly deps: HttpServerDeps) {
    this.server = http.createServer((req, res) => {
      const p = this.dispatch(req, res).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    });
    // Longer than clients keep idle sockets, so a reused keep-alive socket is not closed under a request.
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // An Expect other than 100-continue: 417 with the JSON error body every other error has
    // (node's default answers without a body).
    this.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('X-Reqid', randomBytes(8).toString('hex'));
      setCorsHeaders(req, res);
      res.setHeader('Connection', 'close');
      const expect = String(req.headers.expect ?? '').slice(0, 100);
      sendJson(res, 417, { code: '417', message: `Expect "${expect}" is not supported (only 100-continue is)` });
    });
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable)
        socket.end(
          'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"code":"400","message":"malformed HTTP request"}',
        );
      else socket.destroy();
    });
  }

  /** Listens on 127.0.0.1:`port` (0 picks one); resolves with the port. */
  listen(port: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /**
   * Always finishes, whatever clients left behind (the embedded emulator lives in the app's
   * process): idle connections go at once, requests under way get CLOSE_GRACE_MS, then every
   * connection and download stream is destroyed.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await settledWithin([...this.inFlight], CLOSE_GRACE_MS);
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    for (const stream of this.openStreams) stream.destroy();
    await settledWithin([...this.inFlight, closed], CLOSE_GRACE_MS);
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Reqid', randomBytes(8).toString('hex'));
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const urlPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : rawUrl.slice(q + 1));
    let codeStyle: 'string' | 'number' = 'string';
    try {
      if (urlPath === '/admin' || urlPath.startsWith('/admin/')) {
        await handleAdmin(this.deps.admin, req, res, urlPath);
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
      const match = this.deps.routes.find(req.method ?? 'GET', urlPath);
      if (!match) throw new HttpError(404, `no such endpoint: ${req.method} ${urlPath.slice(0, 200)}`);
      const { entry } = match;
      if (entry.endpoint === 'fmgr') codeStyle = 'number';
      if (entry.endpoint) await this.injectFaults(entry.endpoint, codeStyle);
      await entry.handler(req, res, match.params, query);
    } catch (e) {
      try {
        await this.replyError(req, res, e, codeStyle);
      } catch (again) {
        this.deps.logger.error(`could not send an error reply: ${(again as Error).message}`);
        res.destroy();
      }
    }
  }

  private async injectFaults(endpoint: FaultEndpoint, codeStyle: 'string' | 'number'): Promise<void> {
    const faults = this.deps.faults;
    if (!faults.active) return;
    const delayMs = faults.latencyFor(endpoint);
    if (delayMs > 0) await sleep(delayMs);
    const status = faults.errorFor(endpoint);
    if (status !== undefined) throw new HttpError(status, `injected fault: ${endpoint} answered ${status}`, codeStyle);
  }

  /** Turns a thrown error into the JSON error reply; unexpected errors become 500 and are logged. */
  private async replyError(
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
      this.deps.logger.error(`${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
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
}

/** Waits until every promise settled, or `ms` passed. */
async function settledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
