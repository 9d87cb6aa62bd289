import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

/**
 * How a client reaches the service: `none` connects directly; `url` sends every request
 * through that HTTP proxy; `system` reads HTTPS_PROXY / HTTP_PROXY / NO_PROXY (upper or
 * lower case, lower case wins) from `env` (default process.env).
 */
export type ProxyChoice =
  | { mode: 'none' }
  | { mode: 'url'; url: string }
  | { mode: 'system'; env?: Readonly<Record<string, string | undefined>> };

/**
 * The proxy for one target URL, or undefined for a direct connection. Under `system`,
 * loopback targets (localhost, 127.0.0.0/8, ::1) always go direct (a remote proxy cannot
 * reach this computer's loopback), and NO_PROXY entries (`*`, `host`, `.domain`,
 * `*.domain`, optionally `:port`) exclude the hosts they name. Throws TypeError on a proxy
 * URL that is not http:// (https:// proxies are not supported).
 */
export function proxyFor(target: URL, choice: ProxyChoice | undefined): URL | undefined {
  if (!choice || choice.mode === 'none') return undefined;
  if (choice.mode === 'url') return parseProxyUrl(choice.url);
  const env = choice.env ?? process.env;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopback(host)) return undefined;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (noProxyMatches(envValue(env, 'no_proxy') ?? '', host, port)) return undefined;
  const raw = target.protocol === 'https:' ? envValue(env, 'https_proxy') : envValue(env, 'http_proxy');
  return raw ? parseProxyUrl(raw.includes('://') ? raw : `http://${raw}`) : undefined;
}

function envValue(env: Readonly<Record<string, string | undefined>>, lower: string): string | undefined {
  const v = env[lower] ?? env[lower.toUpperCase()];
  return v?.trim() || undefined;
}

function parseProxyUrl(value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`proxy "${redactUserinfo(value)}" is not a URL`);
  }
  if (u.protocol !== 'http:') throw new TypeError('a proxy must be an http:// URL');
  return u;
}

function redactUserinfo(value: string): string {
  return value.replace(/\/\/[^/@]*@/, '//…@');
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

function noProxyMatches(noProxy: string, host: string, port: string): boolean {
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    if (m[2] && m[2] !== port) continue;
    const name = m[1]!.replace(/^\*/, '').replace(/^\./, '');
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** `Proxy-Authorization` for a proxy URL with a user name, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const cred = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(cred).toString('base64')}`;
}

const AGENT_OPTS = { keepAlive: true, keepAliveMsecs: 10_000, scheduling: 'lifo' as const };

/**
 * Sockets the upload client may open per route at once. Not a limit of its own: the engine's
 * scheduler bounds the upload requests in flight (at the defaults up to 32 × its window's
 * factor of 4, engine/window.ts), and a lower cap here would hold the requests past it inside
 * node:http, where the window cannot see them (it widened, and the requests out stayed at the
 * cap). A guard against a runaway caller; limits configured above 64 requests can reach it.
 */
export const SOCKETS_PER_ROUTE = 256;

/**
 * Keep-alive agent for https:// targets through an HTTP proxy: each new socket is a
 * `CONNECT host:port` tunnel through the proxy, then TLS to the target inside it (the
 * target's certificate is checked as on a direct connection). A proxy that answers the
 * CONNECT with anything but 2xx fails the request with an error naming its status.
 */
export class TunnelAgent extends https.Agent {
  constructor(
    private readonly proxy: URL,
    opts: https.AgentOptions = {},
  ) {
    super({ ...AGENT_OPTS, ...opts });
  }

  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const done = callback ?? (() => undefined);
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port ?? 443);
    const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const raw = net.connect(Number(this.proxy.port || 80), this.proxy.hostname);
    const auth = proxyAuthorization(this.proxy);
    const fail = (e: Error) => {
      raw.destroy();
      done(e, raw);
    };
    raw.once('error', fail);
    // A proxy that never answers the CONNECT fails it (the request's own timeout starts with its socket).
    raw.setTimeout(30_000, () =>
      fail(Object.assign(new Error('the proxy did not answer CONNECT within 30 s'), { code: 'ETIMEDOUT' })),
    );
    raw.once('connect', () => {
      const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
      if (auth) lines.push(`Proxy-Authorization: ${auth}`);
      raw.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16 * 1024) fail(new Error('the proxy sent an oversized reply to CONNECT'));
        return;
      }
      raw.off('data', onData);
      raw.off('error', fail);
      raw.setTimeout(0);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1];
      if (!status || !status.startsWith('2')) {
        const e = Object.assign(new Error(`the proxy refused the tunnel to ${authority} (${status ?? 'no status'})`), {
          code: 'EPROXY',
        });
        fail(e);
        return;
      }
      // Bytes after the proxy's reply belong to the TLS stream: put them back first.
      const rest = head.subarray(end + 4);
      if (rest.length) raw.unshift(rest);
      const secure = tls.connect({ ...(options as tls.ConnectionOptions), socket: raw, servername: sniName(host) });
      done(null, secure);
    };
    raw.on('data', onData);
    return undefined;
  }
}

function sniName(host: string): string | undefined {
  return net.isIP(host) ? undefined : host;
}

/**
 * What a client sends through: `agent` for the connection, and `forward` when the target is
 * http:// and a proxy is used (the request then goes to the proxy with the absolute URI).
 */
export interface Route {
  agent: http.Agent;
  forward?: URL;
}

/**
 * Keeps one keep-alive agent per (target protocol, proxy) and picks the route of each
 * target URL from the choice. `close()` destroys every agent it made.
 */
export class RouteTable {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly choice: ProxyChoice | undefined,
    private readonly maxSockets = 32,
  ) {}

  route(target: URL): Route {
    const proxy = proxyFor(target, this.choice);
    const id = `${target.protocol}|${proxy?.href ?? 'direct'}`;
    let r = this.routes.get(id);
    if (r) return r;
    const opts = { ...AGENT_OPTS, maxSockets: this.maxSockets };
    if (!proxy) r = { agent: target.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts) };
    else if (target.protocol === 'https:') r = { agent: new TunnelAgent(proxy, opts) };
    else r = { agent: new http.Agent(opts), forward: proxy };
    this.routes.set(id, r);
    return r;
  }

  close(): void {
    for (const r of this.routes.values()) r.agent.destroy();
    this.routes.clear();
  }
}
