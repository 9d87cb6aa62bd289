import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { SecretStoreInfo } from '../shared/contract';

/**
 * Where account secrets (SK) come from. An account row holds only a reference
 * (store/account-repo.ts `secretRef`); a SecretStore turns it into the secret, in the main
 * process only. Secrets never go into events, snapshots, logs or the database.
 *
 * References this file understands (headless mode, design.md "Data model"):
 *   env:NAME      the environment variable NAME
 *   file:/abs     the trimmed content of a file only its owner may read (mode 0600 or 0400)
 *   memory:NAME   a secret given for this run only (a CLI flag), never written anywhere
 * The Electron layer plugs in its own store (safeStorage) by implementing SecretStore and
 * delegating the other forms to HeadlessSecretStore.
 */
export interface SecretStore {
  /** The secret a reference names. Throws SecretError (with a code) when it cannot. */
  resolve(ref: string): string;
  /** Keeps a secret for this run only (never on disk); returns the reference to store in the account row. */
  remember(name: string, secret: string): string;
  /**
   * Stores a secret permanently (the account editor's "save"); returns the reference to
   * put in the account row. Throws SecretError 'secret-store-unavailable' when it cannot
   * keep it safely. Storing again under the same name replaces it. `allowWeak` is the
   * setting storeSecretsWithoutKeyring: where no real keyring exists, a store keeps the
   * secret for the session only unless it is true.
   */
  store(name: string, secret: string, opts?: { allowWeak?: boolean }): string;
  /** Deletes a secret this store made with `store` (other references are left alone). */
  forget(ref: string): void;
  /** Where `store` keeps a secret now, with that setting (shown in Settings; never a secret). */
  info(allowWeak: boolean): SecretStoreInfo;
  /** A secret kept for one session (memory:, session:) that this run does not hold: it must be given again. */
  sessionEnded(ref: string): boolean;
}

export type SecretErrorCode =
  | 'secret-ref-invalid'
  | 'secret-env-missing'
  | 'secret-file-unreadable'
  | 'secret-file-unsafe'
  | 'secret-file-empty'
  | 'secret-memory-missing'
  | 'secret-store-unavailable';

export class SecretError extends Error {
  override readonly name = 'SecretError';
  constructor(
    readonly code: SecretErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The folder of the data folder where HeadlessSecretStore keeps stored secrets. */
export const SECRETS_DIR = 'secrets';

/** Mode bits that let anyone but the owner read or write the file. */
const GROUP_OTHER_BITS = 0o077;

/**
 * Reads a secret file, refusing one that others may read or write (the user fixes it with
 * chmod 600). The check is skipped on Windows, where mode bits do not describe access.
 */
export function readSecretFile(file: string): string {
  if (!path.isAbsolute(file))
    throw new SecretError(
      'secret-ref-invalid',
      `the secret file "${file}" must be given as an absolute path (file:/…)`,
    );
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SecretError(
      'secret-file-unreadable',
      `cannot read the secret file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (process.platform !== 'win32' && (mode & GROUP_OTHER_BITS) !== 0) {
    throw new SecretError(
      'secret-file-unsafe',
      `the secret file ${file} can be read by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${file}`,
    );
  }
  const secret = text.trim();
  if (secret === '')
    throw new SecretError('secret-file-empty', `the secret file ${file} is empty; put the secret key in it`);
  return secret;
}

/**
 * env:, file: and memory: references (see SecretStore). With `dir` (the data folder's
 * `secrets/`), `store` writes each secret to its own file there, mode 0600, and answers a
 * `file:` reference to it; without `dir` it refuses (nowhere safe to keep it).
 */
export class HeadlessSecretStore implements SecretStore {
  private readonly memory = new Map<string, string>();

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly dir?: string,
  ) {}

  info(): SecretStoreInfo {
    return { kind: 'files', backend: null };
  }

  sessionEnded(ref: string): boolean {
    return ref.startsWith('memory:') && !this.memory.has(ref.slice('memory:'.length));
  }

  store(name: string, secret: string): string {
    if (!secret) throw new SecretError('secret-ref-invalid', 'an empty secret cannot be stored');
    if (!this.dir) throw new SecretError('secret-store-unavailable', 'no secrets folder is configured for this run');
    const file = path.join(
      path.resolve(this.dir),
      `${createHash('sha256').update(name).digest('hex').slice(0, 24)}.key`,
    );
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${secret}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    } catch (e) {
      throw new SecretError(
        'secret-store-unavailable',
        `cannot write the secrets folder ${path.dirname(file)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    return `file:${file}`;
  }

  forget(ref: string): void {
    if (!this.dir || !ref.startsWith('file:')) return;
    const file = ref.slice('file:'.length);
    if (path.dirname(file) === path.resolve(this.dir)) rmSync(file, { force: true });
  }

  /**
   * Keeps a secret for this run only (never on disk) and returns its reference,
   * `memory:<name>`, to put in an account row.
   */
  remember(name: string, secret: string): string {
    if (!secret) throw new SecretError('secret-ref-invalid', 'an empty secret cannot be kept');
    this.memory.set(name, secret);
    return `memory:${name}`;
  }

  resolve(ref: string): string {
    const i = ref.indexOf(':');
    const kind = i > 0 ? ref.slice(0, i) : '';
    const rest = ref.slice(i + 1);
    switch (kind) {
      case 'env': {
        const v = this.env[rest];
        if (!v)
          throw new SecretError(
            'secret-env-missing',
            `the environment variable ${rest} that holds this account's secret key is not set`,
          );
        return v;
      }
      case 'file':
        return readSecretFile(rest);
      case 'memory': {
        const v = this.memory.get(rest);
        if (v === undefined)
          throw new SecretError(
            'secret-memory-missing',
            `this account's secret key was given on the command line of another run; give it again (--sk or BLOCKLIFT_SK)`,
          );
        return v;
      }
      default:
        throw new SecretError(
          'secret-ref-invalid',
          `unknown secret reference "${kind || ref.slice(0, 20)}": use env:NAME or file:/path/to/0600-file`,
        );
    }
  }
}
