import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { safeStorage } from 'electron';
import { HeadlessSecretStore, SecretError, type SecretStore } from '../service/secrets';

/** The reference of a secret kept by the OS keychain through safeStorage. */
export const KEYCHAIN_PREFIX = 'keychain:';

/**
 * Account secrets in the desktop app: encrypted with Electron's safeStorage (the OS
 * keychain's key: Keychain on macOS, DPAPI on Windows, libsecret/kwallet on Linux) and kept,
 * encrypted, in one JSON file of the data folder. Account rows hold `keychain:<name>`; the
 * other reference forms (env:, file:, memory:) are delegated to HeadlessSecretStore.
 * Decrypted secrets stay in the main process; nothing here is sent to a window.
 */
export class SafeStorageSecretStore implements SecretStore {
  constructor(
    private readonly file: string,
    private readonly others: SecretStore = new HeadlessSecretStore(),
  ) {}

  resolve(ref: string): string {
    if (!ref.startsWith(KEYCHAIN_PREFIX)) return this.others.resolve(ref);
    const name = ref.slice(KEYCHAIN_PREFIX.length);
    const sealed = this.read()[name];
    if (!sealed) throw new SecretError('secret-ref-invalid', `no secret named ${name} is stored in the keychain file`);
    return safeStorage.decryptString(Buffer.from(sealed, 'base64'));
  }

  remember(name: string, secret: string): string {
    return this.others.remember(name, secret);
  }

  /** Stores a secret for good (encrypted) and returns its reference. */
  store(name: string, secret: string): string {
    if (!safeStorage.isEncryptionAvailable())
      throw new SecretError('secret-store-unavailable', 'the system keychain is not available to encrypt the secret');
    const all = this.read();
    all[name] = safeStorage.encryptString(secret).toString('base64');
    this.write(all);
    return `${KEYCHAIN_PREFIX}${name}`;
  }

  /** Deletes a stored secret (a reference of another kind is left alone). */
  forget(ref: string): void {
    if (!ref.startsWith(KEYCHAIN_PREFIX)) return;
    const all = this.read();
    delete all[ref.slice(KEYCHAIN_PREFIX.length)];
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
