import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { refusal, type DoorBackend } from '../service/door-backend';
import { doorCsp } from '../service/door-csp';
import { catalogMessage } from '../shared/errors';
import { TOKEN_COOKIE, TOKEN_QUERY } from '../shared/wire';
import { hostAllowed, isLoopbackHost, newToken, tokenMatches } from './access';
import { registerApiRoutes } from './api-routes';
import { registerBrowseRoute } from './browse';
import { registerStagingRoutes, StagedFiles } from './staging';

export interface HeadlessDoorOptions {
  backend: DoorBackend;
  /** The app's version, sent in the WebSocket hello. */
  version: string;
  /** The built renderer (dist/renderer); `/` answers 503 with a hint when it is missing. */
  rendererDir: string;
  /** Where browser-dropped files are staged before upload (inside the data folder). */
  stagingDir: string;
  /** The folder browser shows this folder and below only (default: the user's home). */
  browseRoot?: string;
  /** Default 127.0.0.1. A non-loopback address needs `exposed: true`. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** The user asked to listen beyond loopback (the CLI's --host). */
  exposed?: boolean;
  /** Default: 32 random bytes. */
  token?: string;
  /** The Fmgr/VCA notification receiver, mounted at /notify/ without the token (it checks signatures). */
  notificationHandler?: (req: IncomingMessage, res: ServerResponse) => void;
  /** `npm run dev`: the Vite dev server's URL; a visit with the token is sent there, and its origin may open the WebSocket. */
  devRendererUrl?: string;
}

export interface HeadlessDoor {
  /** http://host:port (no token). */
  url: string;
  port: number;
  token: string;
  /** The URL to open once: it carries the token, which the door then keeps in a cookie. */
  loginUrl: string;
  /** Stops listening, closes every WebSocket; the backend stays open (its owner closes it). */
  close(): Promise<void>;
}

export const NOTIFY_PREFIX = '/notify/';

export class DoorConfigError extends Error {
  override readonly name = 'DoorConfigError';
}

/**
 * Starts the headless door (design.md "headless/"): the built renderer at `/`, the contract
 * at `/api/<method>` (HTTP POST) and `/api/ws` (WebSocket), the staging and folder-browser
 * routes, and the notification receivers at /notify/. Every route but /notify/ needs the
 * token (access.ts).
 */
export async function startHeadlessDoor(opts: HeadlessDoorOptions): Promise<HeadlessDoor> {
  const host = opts.host ?? '127.0.0.1';
  const loopbackOnly = isLoopbackHost(host);
  if (!loopbackOnly && !opts.exposed)
    throw new DoorConfigError(`refusing to listen on ${host} (not loopback) without an explicit --host`);
  const token = opts.token ?? newToken();
  const devOrigins = opts.devRendererUrl ? [new URL(opts.devRendererUrl).origin] : [];
  let port = 0;
  const notify = opts.notificationHandler;
  const app = Fastify({
    logger: false,
    // Stopping (SIGINT/SIGTERM) must not wait for a browser's keep-alive connections.
    forceCloseConnections: true,
    bodyLimit: 16 * 1024 * 1024,
    serverFactory: (handler) =>
      createServer((req, res) => {
        if (notify && req.url?.startsWith(NOTIFY_PREFIX)) notify(req, res);
        else handler(req, res);
      }),
  });
  const staged = new StagedFiles(opts.stagingDir, opts.backend);
  // A verb whose input is `void` may come with an empty JSON body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('the body is not JSON'), { statusCode: 400 }), undefined);
    }
  });
  await app.register(fastifyCookie);
  await app.register(fastifyWebsocket, { options: { maxPayload: 4 * 1024 * 1024 } });
  app.addHook('onRequest', async (req, reply) =>
    guard(req, reply, { token, loopbackOnly, port: () => port, devRendererUrl: opts.devRendererUrl }),
  );
  app.addHook('onSend', async (_req, reply) => {
    // A page gets the accounts' media origins as they are now; other replies the fixed policy.
    const page = String(reply.getHeader('content-type') ?? '').startsWith('text/html');
    reply.header('Content-Security-Policy', await doorCsp(opts.backend, page));
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Content-Type-Options', 'nosniff');
  });
  await registerApiRoutes(app, { backend: opts.backend, version: opts.version, devOrigins });
  registerStagingRoutes(app, staged);
  registerBrowseRoute(app, opts.browseRoot ?? os.homedir());
  await registerRenderer(app, opts.rendererDir);
  await app.listen({ host, port: opts.port ?? 0 });
  port = (app.server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost}:${port}`;
  return {
    url,
    port,
    token,
    loginUrl: `${url}/?${TOKEN_QUERY}=${token}`,
    close: async () => {
      staged.dispose();
      await app.close();
    },
  };
}

interface GuardContext {
  token: string;
  loopbackOnly: boolean;
  port: () => number;
  devRendererUrl: string | undefined;
}

/**
 * The token and Host checks of every request (access.ts); a first visit's token becomes a
 * cookie. A refusal is the JSON error envelope (`door-host-refused` 403, `door-token-missing` 401).
 */
async function guard(req: FastifyRequest, reply: FastifyReply, ctx: GuardContext): Promise<void> {
  if (!hostAllowed({ loopbackOnly: ctx.loopbackOnly, port: ctx.port() }, req.headers.host)) {
    await reply.code(403).send(refusal('door-host-refused', { host: String(req.headers.host ?? '').slice(0, 200) }));
    return;
  }
  const query = req.query as Record<string, string | undefined>;
  const fromQuery = query[TOKEN_QUERY];
  if (tokenMatches(ctx.token, fromQuery)) {
    reply.setCookie(TOKEN_COOKIE, ctx.token, { httpOnly: true, sameSite: 'strict', path: '/' });
    if (req.method === 'GET' && !req.headers.upgrade) {
      const clean = new URL(req.url, 'http://door');
      clean.searchParams.delete(TOKEN_QUERY);
      const target = ctx.devRendererUrl ?? `${clean.pathname}${clean.search}`;
      await reply.redirect(target, 303);
    }
    return;
  }
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (tokenMatches(ctx.token, req.cookies[TOKEN_COOKIE]) || tokenMatches(ctx.token, bearer)) return;
  if (req.method === 'GET' && !req.headers.upgrade && /\btext\/html\b/.test(req.headers.accept ?? '')) {
    // A browser opening a page (a bookmark, or a reload after serve started again with a new
    // token): the same refusal as a page a person reads, not a JSON envelope.
    await reply
      .code(401)
      .type('text/html; charset=utf-8')
      .send(refusedPage(catalogMessage('door-token-missing', {})));
    return;
  }
  await reply.code(401).send(refusal('door-token-missing'));
}

/** The page a browser gets without the token: what to do, in the catalog's words. */
function refusedPage(message: string): string {
  const text = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blocklift: open the address serve printed</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40em; margin: 4em auto; padding: 0 1em">
<h1 style="font-size: 1.3em">Blocklift</h1>
<p>${text}</p>
</body></html>
`;
}

async function registerRenderer(app: FastifyInstance, rendererDir: string): Promise<void> {
  if (existsSync(rendererDir)) {
    await app.register(fastifyStatic, { root: rendererDir, index: 'index.html' });
    return;
  }
  app.get('/', async (_req, reply) =>
    reply.code(503).type('text/plain').send('The renderer is not built: run `npm run build`.\n'),
  );
}
