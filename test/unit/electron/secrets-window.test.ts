import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeElectron } from './fake-electron';

vi.mock('electron', () => fakeElectron);
const { SafeStorageSecretStore, KEYCHAIN_PREFIX } = await import('../../../src-main/electron/secrets');
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
