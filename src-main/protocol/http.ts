import http from 'node:http';
import https from 'node:https';
import { ServiceError, type Endpoint } from './errors';
import { proxyAuthorization } from './proxy';

/**
 * One HTTP exchange with the service over node:http keep-alive (measured faster here than
 * global fetch for 4 MiB bodies). Resolves with the status, headers and whole body of any
 * reply, including error statuses; rejects only with a ServiceError of kind network,
 * timeout or aborted (or bad-reply when the reply is larger than maxReplyBytes).
 */
export interface HttpCall {
  endpoint: Endpoint;
  method: 'GET' | 'POST' | 'HEAD';
  url: URL;
  headers?: Record<string, string | number>;
  /** Parts (an array) are sent one after the other as one body, without joining them first. */
  body?: Uint8Array | string | readonly Uint8Array[];
  /** No byte moving in either direction for this long fails the call (kind timeout). */
  idleTimeoutMs: number;
  /**
   * Once the reply's headers arrived, its whole body must arrive within this (kind timeout):
   * a server trickling bytes faster than the idle timeout would otherwise hold the call
   * forever. Undefined for none (downloads, whose bodies may be large).
   */
  replyDeadlineMs?: number;
  signal?: AbortSignal;
  maxReplyBytes?: number;
  agent?: http.Agent;
  /**
   * An HTTP proxy for an http:// target: the request goes to the proxy with the absolute
   * URI (the agent then pools connections to the proxy). https:// targets tunnel through
   * their agent instead (proxy.ts TunnelAgent).
   */
  forward?: URL;
}

export interface HttpReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  requestId: string | undefined;
}

const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

export function httpCall(call: HttpCall): Promise<HttpReply> {
  const { endpoint, url } = call;
  return new Promise<HttpReply>((resolve, reject) => {
    if (call.signal?.aborted) {
      reject(
        new ServiceError({
          kind: 'aborted',
          endpoint,
          message: 'canceled before it was sent',
          cause: call.signal.reason,
        }),
      );
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    const parts =
      call.body === undefined
        ? []
        : typeof call.body === 'string'
          ? [Buffer.from(call.body, 'utf8')]
          : 'byteLength' in call.body
            ? [call.body]
            : call.body;
    const headers: Record<string, string | number> = { ...call.headers };
    if (call.body !== undefined) headers['Content-Length'] = parts.reduce((n, p) => n + p.byteLength, 0);
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    const fail = (e: ServiceError) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      call.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      reject(e);
    };
    const onAbort = () =>
      fail(new ServiceError({ kind: 'aborted', endpoint, message: 'canceled', cause: call.signal?.reason }));
    const fwd = call.forward;
    if (fwd) {
      const auth = proxyAuthorization(fwd);
      if (auth) headers['Proxy-Authorization'] = auth;
    }
    const onReply = (res: http.IncomingMessage) => {
      const requestId = headerString(res.headers['x-reqid']);
      const chunks: Buffer[] = [];
      let size = 0;
      const limit = call.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
      if (call.replyDeadlineMs !== undefined) {
        const ms = call.replyDeadlineMs;
        deadline = setTimeout(() => {
          const message = `the reply did not finish within ${Math.round(ms / 1000)} s of its start`;
          fail(new ServiceError({ kind: 'timeout', endpoint, status: res.statusCode, requestId, message }));
        }, ms);
      }
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          fail(
            new ServiceError({
              kind: 'bad-reply',
              endpoint,
              status: res.statusCode,
              requestId,
              message: `reply larger than ${limit} bytes`,
            }),
          );
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        call.signal?.removeEventListener('abort', onAbort);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size), requestId });
      });
      res.on('error', (e) => fail(networkError(endpoint, e)));
      res.on('aborted', () =>
        fail(
          new ServiceError({
            kind: 'network',
            endpoint,
            status: res.statusCode,
            requestId,
            message: 'connection closed in the middle of the reply',
          }),
        ),
      );
    };
    const opts = { method: call.method, agent: call.agent };
    const req = fwd
      ? http.request(
          {
            ...opts,
            host: fwd.hostname,
            port: fwd.port || 80,
            path: url.href,
            headers: { ...headers, Host: url.host },
          },
          onReply,
        )
      : lib.request(url, { ...opts, headers }, onReply);
    req.setTimeout(call.idleTimeoutMs, () => {
      fail(
        new ServiceError({
          kind: 'timeout',
          endpoint,
          message: `no answer from ${url.host} for ${Math.round(call.idleTimeoutMs / 1000)} s`,
        }),
      );
    });
    req.on('error', (e) => fail(networkError(endpoint, e, fwd ?? url, fwd ? ' (the proxy)' : '')));
    call.signal?.addEventListener('abort', onAbort, { once: true });
    // Written before the socket is assigned, the parts wait in the request and go out in one writev.
    for (let i = 0; i < parts.length - 1; i++) req.write(parts[i]);
    req.end(parts[parts.length - 1]);
  });
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function networkError(endpoint: Endpoint, e: Error & { code?: string }, url?: URL, what = ''): ServiceError {
  const where = url ? ` ${url.host}${what}` : '';
  const hint: Record<string, string> = {
    ECONNREFUSED: `nothing listens at${where}: check the host URL, or that the service/emulator is running`,
    ENOTFOUND: `host${where} not found: check the URL and your network`,
    ECONNRESET: 'the connection was reset',
    EPIPE: 'the connection was closed while sending',
    ETIMEDOUT: `connecting to${where} timed out`,
    EHOSTUNREACH: `host${where} is unreachable`,
  };
  const message = (e.code && hint[e.code]) || `network error: ${e.message}`;
  return new ServiceError({ kind: 'network', endpoint, message, code: e.code, cause: e });
}
