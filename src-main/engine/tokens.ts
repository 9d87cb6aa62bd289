import { httpCall } from '../protocol/http';
import { RouteTable, type ProxyChoice, type Route } from '../protocol/proxy';
import { ServiceError } from '../protocol/errors';
import {
  parseUploadToken,
  policyDeadlineMs,
  signUploadToken,
  TokenFormatError,
  type UploadPolicy,
} from '../protocol/tokens';

/** What an upload needs a token for. */
export interface TokenRequest {
  bucket: string;
  key: string;
  /** Ask for a policy that replaces an existing key. */
  overwrite: boolean;
}

export interface IssuedToken {
  token: string;
  /** The policy's deadline (Unix ms), when the token says. */
  deadlineMs: number | undefined;
}

/**
 * Source of upload tokens. `get` may return a cached token still valid for a while;
 * `fresh: true` asks for a new one (after the service refused the last one).
 */
export interface TokenProvider {
  get(req: TokenRequest, opts?: { fresh?: boolean; signal?: AbortSignal }): Promise<IssuedToken>;
}

/** True when the token's deadline is past or closer than marginMs. */
export function tokenExpiring(t: IssuedToken, nowMs: number, marginMs: number): boolean {
  return t.deadlineMs !== undefined && nowMs >= t.deadlineMs - marginMs;
}

/**
 * Signs tokens locally from AK/SK with short deadlines (ttlMs, default 10 minutes), scoped
 * to bucket:key; a cached token is re-signed when less than half its life is left.
 * `policy` adds members (returnBody, fsizeLimit, callbackUrl…) to every token.
 */
export class LocalTokenSigner implements TokenProvider {
  private readonly cache = new Map<string, IssuedToken>();
  private readonly ttlMs: number;

  constructor(
    private readonly accessKey: string,
    private readonly secretKey: string,
    private readonly opts: { ttlMs?: number; now?: () => number; policy?: Partial<UploadPolicy> } = {},
  ) {
    if (!accessKey || !secretKey) throw new RangeError('local signing needs an access key and a secret key');
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
  }

  async get(req: TokenRequest, opts: { fresh?: boolean } = {}): Promise<IssuedToken> {
    const now = (this.opts.now ?? Date.now)();
    const id = `${req.bucket}\n${req.key}\n${req.overwrite ? 1 : 0}`;
    const cached = this.cache.get(id);
    if (cached && !opts.fresh && !tokenExpiring(cached, now, this.ttlMs / 2)) return cached;
    const deadlineMs = now + this.ttlMs;
    const policy: UploadPolicy = { ...this.opts.policy, scope: `${req.bucket}:${req.key}`, deadline: deadlineMs };
    if (req.overwrite) policy.overwrite = 1;
    const issued = { token: signUploadToken(this.accessKey, this.secretKey, policy), deadlineMs };
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(id, issued);
    return issued;
  }
}

/**
 * Gets tokens from a token provider URL, for users who must not hold the secret key:
 * `GET <url>?bucket=<b>&key=<k>&overwrite=<0|1>`, answered 200 with either JSON
 * `{"token": "..."}` (also accepted: `uploadToken`, `uptoken`) or the bare token as text.
 * The deadline is read from the token's own policy. Failures are ServiceErrors with
 * endpoint 'token'.
 */
export class RemoteTokenProvider implements TokenProvider {
  private readonly cache = new Map<string, IssuedToken>();
  private readonly routes: RouteTable;

  constructor(
    private readonly url: string,
    private readonly opts: { timeoutMs?: number; now?: () => number; marginMs?: number; proxy?: ProxyChoice } = {},
  ) {
    new URL(url); // throws TypeError on a malformed URL, at construction
    this.routes = new RouteTable(opts.proxy, 4);
  }

  /** Closes the idle connections to the token URL (or its proxy). */
  close(): void {
    this.routes.close();
  }

  async get(req: TokenRequest, opts: { fresh?: boolean; signal?: AbortSignal } = {}): Promise<IssuedToken> {
    const now = (this.opts.now ?? Date.now)();
    const id = `${req.bucket}\n${req.key}\n${req.overwrite ? 1 : 0}`;
    const cached = this.cache.get(id);
    if (cached && !opts.fresh && !tokenExpiring(cached, now, this.opts.marginMs ?? 30_000)) return cached;
    const u = new URL(this.url);
    u.searchParams.set('bucket', req.bucket);
    u.searchParams.set('key', req.key);
    u.searchParams.set('overwrite', req.overwrite ? '1' : '0');
    let route: Route;
    try {
      route = this.routes.route(u);
    } catch (e) {
      // A proxy setting that cannot be used fails the call as a network error that names it.
      throw new ServiceError({ kind: 'network', endpoint: 'token', message: (e as Error).message, cause: e });
    }
    const reply = await httpCall({
      endpoint: 'token',
      method: 'GET',
      url: u,
      idleTimeoutMs: this.opts.timeoutMs ?? 15_000,
      signal: opts.signal,
      maxReplyBytes: 64 * 1024,
      ...route,
    });
    const text = reply.body.toString('utf8').trim();
    if (reply.status !== 200) {
      throw new ServiceError({
        kind: 'service',
        endpoint: 'token',
        status: reply.status,
        code: 'token-provider-refused',
        message: `the token URL answered ${reply.status}: ${text.slice(0, 200)}`,
      });
    }
    const token = extractToken(text);
    let deadlineMs: number | undefined;
    try {
      deadlineMs = policyDeadlineMs(parseUploadToken(token).policy);
    } catch (e) {
      if (!(e instanceof TokenFormatError)) throw e;
      throw new ServiceError({
        kind: 'bad-reply',
        endpoint: 'token',
        status: reply.status,
        code: 'bad-token',
        message: `the token URL did not return an upload token: ${e.message}`,
      });
    }
    const issued = { token, deadlineMs };
    if (this.cache.size > 1000) this.cache.clear();
    this.cache.set(id, issued);
    return issued;
  }
}

function extractToken(text: string): string {
  if (text.startsWith('{')) {
    try {
      const o = JSON.parse(text) as Record<string, unknown>;
      for (const name of ['token', 'uploadToken', 'uptoken']) {
        const v = o[name];
        if (typeof v === 'string' && v) return v;
      }
    } catch {
      // fall through: treated as a bare token, which parseUploadToken then refuses
    }
  }
  return text;
}
