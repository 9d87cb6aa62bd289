import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeElectron } from './fake-electron';

vi.mock('electron', () => fakeElectron);
const { SafeStorageSecretStore, KEYCHAIN_PREFIX, SESSION_PREFIX, WEAK_PREFIX } =
  await import('../../../src-main/electron/secrets');
const { SecretError } = await import('../../../src-main/service/secrets');
const { usableBounds } = await import('../../../src-main/electron/window');
const { rendererFile } = await import('../../../src-main/electron/app-protocol');

describe('SafeStorageSecretStore', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a secret encrypted (never in clear on disk, mode 0600) and resolves its keychain reference', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-secrets-'));
    const file = path.join(dir, 'secrets.json');
    const store = new SafeStorageSecretStore(file);
    const ref = store.store('account-1', 'the-secret-key');
    expect(ref).toBe(`${KEYCHAIN_PREFIX}account-1`);
    expect(readFileSync(file, 'utf8')).not.toContain('the-secret-key');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new SafeStorageSecretStore(file).resolve(ref)).toBe('the-secret-key');
    store.forget(ref);
    expect(() => store.resolve(ref)).toThrow(/no secret named account-1/);
  });

  it('passes the other reference kinds to the headless store', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-secrets-'));
    const store = new SafeStorageSecretStore(path.join(dir, 'secrets.json'));
    expect(store.resolve(store.remember('cli', 'run-only'))).toBe('run-only');
    expect(() => store.resolve('env:BLOCKLIFT_NO_SUCH_VARIABLE_SET')).toThrow();
  });
});

describe('window bounds and the app protocol', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];

  it('restores saved bounds only when they are on a display', () => {
    const saved = { x: 100, y: 80, width: 1000, height: 700, maximized: false };
    expect(usableBounds(saved, screen)).toEqual(saved);
    expect(usableBounds({ ...saved, x: 2500 }, screen)).toBeNull();
    expect(usableBounds({ ...saved, width: 50 }, screen)).toBeNull();
    expect(usableBounds(null, screen)).toBeNull();
  });

  it('serves files of the renderer folder only', () => {
    const dir = path.resolve('/srv/renderer');
    expect(rendererFile(dir, 'app://renderer/')).toBe(path.join(dir, 'index.html'));
    expect(rendererFile(dir, 'app://renderer/assets/index-1.js')).toBe(path.join(dir, 'assets/index-1.js'));
    // The URL parser folds encoded dot segments: what is left stays inside the folder.
    expect(rendererFile(dir, 'app://renderer/%2e%2e/%2e%2e/etc/passwd')).toBe(path.join(dir, 'etc/passwd'));
    expect(rendererFile(dir, 'app://renderer/..%2Fsecrets.json')).toBeNull();
  });
});

describe('SafeStorageSecretStore by safeStorage backend (issue 20.3)', () => {
  let dir = '';
  afterEach(() => {
    fakeElectron.safeStorage.backend = 'gnome_libsecret';
    rmSync(dir, { recursive: true, force: true });
  });
  const open = (backend: string, platform: NodeJS.Platform = 'linux') => {
    fakeElectron.safeStorage.backend = backend;
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-secrets-'));
    const file = path.join(dir, 'secrets.json');
    return { file, store: new SafeStorageSecretStore(file, undefined, platform) };
  };
  const onDisk = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };

  it.each([
    ['gnome_libsecret', 'linux'],
    ['kwallet6', 'linux'],
    ['keychain', 'darwin'],
    ['dpapi', 'win32'],
  ] as const)('with a keyring (%s) stores encrypted for good, whatever the weak setting', (backend, platform) => {
    const { file, store } = open(platform === 'linux' ? backend : 'basic_text', platform);
    expect(store.info(false)).toEqual({ kind: 'keyring', backend });
    expect(store.info(true)).toEqual({ kind: 'keyring', backend });
    const ref = store.store('account:1', 'the-secret-key', { allowWeak: false });
    expect(ref).toBe(`${KEYCHAIN_PREFIX}account:1`);
    expect(onDisk(file)).toContain('account:1');
    expect(onDisk(file)).not.toContain('the-secret-key');
    // A restart (a new store on the same file) still has it.
    expect(new SafeStorageSecretStore(file, undefined, platform).resolve(ref)).toBe('the-secret-key');
  });

  it.each(['basic_text', 'unknown'])(
    'without a keyring (%s) keeps the secret in memory for the session only, and after a restart says why',
    (backend) => {
      const { file, store } = open(backend);
      expect(store.info(false)).toEqual({ kind: 'session', backend });
      const ref = store.store('account:1', 'the-secret-key');
      expect(ref).toBe(`${SESSION_PREFIX}account:1`);
      expect(store.resolve(ref)).toBe('the-secret-key');
      expect(onDisk(file)).not.toContain('account:1');
      const restarted = new SafeStorageSecretStore(file, undefined, 'linux');
      expect(() => restarted.resolve(ref)).toThrow(/one session only, because no system keyring was found/);
      store.forget(ref);
      expect(() => store.resolve(ref)).toThrow(SecretError);
    },
  );

  it('without a keyring and with "store secrets without a keyring" on, stores it flagged weak', () => {
    const { file, store } = open('basic_text');
    expect(store.info(true)).toEqual({ kind: 'weak', backend: 'basic_text' });
    const ref = store.store('account:1', 'the-secret-key', { allowWeak: true });
    expect(ref).toBe(`${WEAK_PREFIX}account:1`);
    expect(onDisk(file)).not.toContain('the-secret-key');
    expect(new SafeStorageSecretStore(file, undefined, 'linux').resolve(ref)).toBe('the-secret-key');
    // Turned off again: the next save is kept for the session, and the weak copy is gone from disk.
    const session = store.store('account:1', 'another-key', { allowWeak: false });
    expect(session).toBe(`${SESSION_PREFIX}account:1`);
    expect(onDisk(file)).not.toContain('account:1');
  });
});
