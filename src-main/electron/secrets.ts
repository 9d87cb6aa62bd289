import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { safeStorage } from 'electron';
import { HeadlessSecretStore, SecretError, type SecretStore } from '../service/secrets';
import type { SecretStoreInfo } from '../shared/contract';

/** The reference of a secret kept by the OS keychain through safeStorage. */
export const KEYCHAIN_PREFIX = 'keychain:';
/** The reference of a secret stored without a keyring (safeStorage's fixed key on Linux): the user chose it. */
export const WEAK_PREFIX = 'weak:';
/** The reference of a secret kept in memory for this session only (no keyring, weak storing not chosen). */
export const SESSION_PREFIX = 'session:';

/**
 * Linux safeStorage backends that are no keyring: `basic_text` encrypts with a key written
 * in Chromium's source (no desktop keyring found, or `--password-store=basic`); `unknown`
 * is answered before the app is ready. Electron docs: safeStorage.getSelectedStorageBackend.
 */
const NO_KEYRING = new Set(['basic_text', 'unknown']);

/**
 * Account secrets in the desktop app: encrypted with Electron's safeStorage and kept,
 * encrypted, in one JSON file of the data folder. Where safeStorage uses a real keyring
 * (Keychain on macOS, DPAPI on Windows, libsecret or kwallet on Linux) rows hold
 * `keychain:<name>`. Where it does not (Linux `basic_text`), a secret is kept in memory for
 * this session only (`session:<name>`; after a restart the account says to enter it again),
 * unless the setting storeSecretsWithoutKeyring is on: then it is stored with safeStorage's
 * fixed key and the row holds `weak:<name>`. The other reference forms (env:, file:,
 * memory:) are delegated to HeadlessSecretStore.
 * Decrypted secrets stay in the main process; nothing here is sent to a window.
 */
export class SafeStorageSecretStore implements SecretStore {
  private readonly session = new Map<string, string>();

  constructor(
    private readonly file: string,
    private readonly others: SecretStore = new HeadlessSecretStore(),
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** safeStorage's backend: Electron's name on Linux, `keychain` on macOS, `dpapi` on Windows. */
  backend(): string {
    if (this.platform === 'darwin') return 'keychain';
    if (this.platform === 'win32') return 'dpapi';
    if (this.platform !== 'linux') return 'unknown';
    // A runtime that cannot say which backend it uses is treated as having no keyring.
    return 'getSelectedStorageBackend' in safeStorage ? safeStorage.getSelectedStorageBackend() : 'unknown';
  }

  info(allowWeak: boolean): SecretStoreInfo {
    const backend = this.backend();
    if (!NO_KEYRING.has(backend)) return { kind: 'keyring', backend };
    return { kind: allowWeak ? 'weak' : 'session', backend };
  }

  sessionEnded(ref: string): boolean {
    if (ref.startsWith(SESSION_PREFIX)) return !this.session.has(ref.slice(SESSION_PREFIX.length));
    return this.others.sessionEnded(ref);
  }

  resolve(ref: string): string {
    if (ref.startsWith(SESSION_PREFIX)) {
      const secret = this.session.get(ref.slice(SESSION_PREFIX.length));
      if (secret === undefined)
        throw new SecretError(
          'secret-memory-missing',
          `this account's secret key was kept for one session only, because no system keyring was found; enter it again in Settings (or turn on "Store secrets without a keyring")`,
        );
      return secret;
    }
    const prefix = ref.startsWith(KEYCHAIN_PREFIX) ? KEYCHAIN_PREFIX : ref.startsWith(WEAK_PREFIX) ? WEAK_PREFIX : '';
    if (!prefix) return this.others.resolve(ref);
    const name = ref.slice(prefix.length);
    const sealed = this.read()[name];
    if (!sealed) throw new SecretError('secret-ref-invalid', `no secret named ${name} is stored in the keychain file`);
    return safeStorage.decryptString(Buffer.from(sealed, 'base64'));
  }

  remember(name: string, secret: string): string {
    return this.others.remember(name, secret);
  }

  /**
   * Stores a secret and returns its reference: encrypted for good with a keyring; without
   * one, in memory for this session (`allowWeak` off) or encrypted with the fixed key (on).
   */
  store(name: string, secret: string, opts: { allowWeak?: boolean } = {}): string {
    if (!secret) throw new SecretError('secret-ref-invalid', 'an empty secret cannot be stored');
    const kind = this.info(opts.allowWeak === true).kind;
    if (kind === 'session') {
      this.session.set(name, secret);
      this.drop(name);
      return `${SESSION_PREFIX}${name}`;
    }
    if (!safeStorage.isEncryptionAvailable())
      throw new SecretError('secret-store-unavailable', 'the system keychain is not available to encrypt the secret');
    const all = this.read();
    all[name] = safeStorage.encryptString(secret).toString('base64');
    this.write(all);
    this.session.delete(name);
    return `${kind === 'weak' ? WEAK_PREFIX : KEYCHAIN_PREFIX}${name}`;
  }

  /** Deletes a stored secret (a reference of another kind is left alone). */
  forget(ref: string): void {
    if (ref.startsWith(SESSION_PREFIX)) this.session.delete(ref.slice(SESSION_PREFIX.length));
    else if (ref.startsWith(KEYCHAIN_PREFIX)) this.drop(ref.slice(KEYCHAIN_PREFIX.length));
    else if (ref.startsWith(WEAK_PREFIX)) this.drop(ref.slice(WEAK_PREFIX.length));
  }

  /** Removes a name from the file (a secret replaced by a session-only one leaves nothing behind). */
  private drop(name: string): void {
    const all = this.read();
    if (!(name in all)) return;
    delete all[name];
    this.write(all);
  }

  private read(): Record<string, string> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  private write(all: Record<string, string>): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
