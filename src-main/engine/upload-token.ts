import { tokenExpiring, type IssuedToken, type TokenProvider } from './tokens';

/**
 * The token of one file upload: for its bucket and current key (a rename changes it), with
 * or without overwrite. `current` reuses the token until it comes within `marginMs` of its
 * deadline; `refresh` asks the provider for a new one after the service refused it, and
 * `fresh` stays true until a call with it succeeds (a second refusal is then final).
 */
export class UploadToken {
  private token: IssuedToken | undefined;
  fresh = false;

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
  }

  async current(signal: AbortSignal): Promise<IssuedToken> {
    if (this.token && !tokenExpiring(this.token, this.now(), this.marginMs)) return this.token;
    this.token = await this.provider.get({ bucket: this.bucket, key: this.key, overwrite: this.overwrite }, { signal });
    return this.token;
  }

  async refresh(signal: AbortSignal): Promise<void> {
    this.token = await this.provider.get({ bucket: this.bucket, key: this.key, overwrite: this.overwrite }, { fresh: true, signal });
    this.fresh = true;
  }

  /** A call with the current token succeeded. */
  accepted(): void {
    this.fresh = false;
  }

  /** True when `t` is past its deadline (with a 1 s allowance for clock skew in flight). */
  expired(t: IssuedToken | undefined): boolean {
    return t !== undefined && tokenExpiring(t, this.now(), 1000);
  }
}
