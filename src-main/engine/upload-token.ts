import { parseUploadToken } from '../protocol/tokens';
import { tokenExpiring, type IssuedToken, type TokenProvider } from './tokens';

/**
 * True when the token's policy has a callbackUrl: mkfile's reply is then the callback's
 * answer (protocol-notes "mkfile"). Works for locally signed and remote tokens alike, since
 * both carry their policy; an unreadable policy counts as no callback.
 */
export function tokenHasCallback(token: string): boolean {
  try {
    const url = parseUploadToken(token).policy.callbackUrl;
    return typeof url === 'string' && url.length > 0;
  } catch {
    return false;
  }
}

/**
 * The token of one file upload: for its bucket and current key (a rename changes it), with
 * or without overwrite. `current` reuses the token until it comes within `marginMs` of its
 * deadline; `refresh` asks the provider for a new one after the service refused the token a
 * request used. A refusal is final ("fresh token refused", `refusedFresh`) only for the
 * token fetched by the last refresh and not yet accepted by any call: a request still in
 * flight with an older token that gets 401 after another block refreshed just retries with
 * the current one. Concurrent refreshes share one provider call.
 */
export class UploadToken {
  private token: IssuedToken | undefined;
  /** The token fetched after a refusal, until a call with it succeeds. */
  private refreshed: IssuedToken | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly provider: TokenProvider,
    private readonly bucket: string,
    private key: string,
    private overwrite: boolean,
    private readonly now: () => number,
    private readonly marginMs: number,
  ) {}

  get currentKey(): string {
    return this.key;
  }

  get overwriting(): boolean {
    return this.overwrite;
  }

  /** Later tokens are for this key / overwrite flag. */
  retarget(key: string, overwrite: boolean): void {
    this.key = key;
    this.overwrite = overwrite;
    this.token = undefined;
    this.refreshed = undefined;
  }

  async current(signal: AbortSignal): Promise<IssuedToken> {
    if (this.refreshing) await this.refreshing;
    if (this.token && !tokenExpiring(this.token, this.now(), this.marginMs)) return this.token;
    this.token = await this.provider.get({ bucket: this.bucket, key: this.key, overwrite: this.overwrite }, { signal });
    return this.token;
  }

  /**
   * The service refused `used`: fetch a new token, unless the current one is already newer
   * than `used` (another request refreshed meanwhile; the caller retries with it).
   */
  async refresh(used: IssuedToken | undefined, signal: AbortSignal): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (used !== undefined && this.token !== undefined && used !== this.token) return;
    const p = (async () => {
      this.token = await this.provider.get(
        { bucket: this.bucket, key: this.key, overwrite: this.overwrite },
        { fresh: true, signal },
      );
      this.refreshed = this.token;
    })();
    this.refreshing = p;
    try {
      await p;
    } finally {
      this.refreshing = undefined;
    }
  }

  /** True when `t` was fetched by the last refresh and no call has accepted it yet. */
  refusedFresh(t: IssuedToken | undefined): boolean {
    return t !== undefined && t === this.refreshed;
  }

  /** A call with `t` succeeded. */
  accepted(t: IssuedToken): void {
    if (t === this.refreshed) this.refreshed = undefined;
  }

  /** True when `t` is past its deadline (with a 1 s allowance for clock skew in flight). */
  expired(t: IssuedToken | undefined): boolean {
    return t !== undefined && tokenExpiring(t, this.now(), 1000);
  }
}
