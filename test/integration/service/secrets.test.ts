import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadlessSecretStore, SecretError } from '../../../src-main/service/secrets';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(SecretError);
    return (e as SecretError).code;
  }
}

describe('secret references (real files)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('env:NAME reads the variable; a missing one is a clear error', () => {
    const s = new HeadlessSecretStore({ MY_SK: 'sk-from-env' });
    expect(s.resolve('env:MY_SK')).toBe('sk-from-env');
    expect(codeOf(() => s.resolve('env:OTHER'))).toBe('secret-env-missing');
  });

  it('file:/path reads a 0600 file, trimmed; refuses one others can read, saying chmod 600', () => {
    const f = path.join(dir, 'sk');
    writeFileSync(f, 'sk-from-file\n', { mode: 0o600 });
    const s = new HeadlessSecretStore({});
    expect(s.resolve(`file:${f}`)).toBe('sk-from-file');
    chmodSync(f, 0o640);
    try {
      s.resolve(`file:${f}`);
      expect.unreachable();
    } catch (e) {
      expect((e as SecretError).code).toBe('secret-file-unsafe');
      expect((e as SecretError).message).toContain(`chmod 600 ${f}`);
    }
    expect(codeOf(() => s.resolve(`file:${path.join(dir, 'missing')}`))).toBe('secret-file-unreadable');
    expect(codeOf(() => s.resolve('file:relative/sk'))).toBe('secret-ref-invalid');
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    expect(codeOf(() => s.resolve(`file:${empty}`))).toBe('secret-file-empty');
  });

  it('memory: secrets live only in the store that remembered them; unknown kinds are refused', () => {
    const s = new HeadlessSecretStore({});
    const ref = s.remember('cli x', 'sk-in-memory');
    expect(ref).toBe('memory:cli x');
    expect(s.resolve(ref)).toBe('sk-in-memory');
    expect(codeOf(() => new HeadlessSecretStore({}).resolve(ref))).toBe('secret-memory-missing');
    expect(codeOf(() => s.resolve('keychain:x'))).toBe('secret-ref-invalid');
    expect(codeOf(() => s.resolve('plain-secret'))).toBe('secret-ref-invalid');
  });

  it('store() keeps a secret permanently in a 0600 file of its folder, replaces it under the same name; forget() deletes only its own', () => {
    const folder = path.join(dir, 'secrets');
    const s = new HeadlessSecretStore({}, folder);
    const ref = s.store('account:7', 'first-secret');
    expect(ref.startsWith(`file:${folder}${path.sep}`)).toBe(true);
    expect(ref).not.toContain('first-secret');
    expect(statSync(ref.slice(5)).mode & 0o777).toBe(0o600);
    expect(s.resolve(ref)).toBe('first-secret');
    // A new store of the same process reads it (it is on disk, not in memory).
    expect(new HeadlessSecretStore({}, folder).resolve(ref)).toBe('first-secret');
    expect(s.store('account:7', 'second-secret')).toBe(ref);
    expect(s.resolve(ref)).toBe('second-secret');
    const outside = path.join(dir, 'mine.key');
    writeFileSync(outside, 'keep me', { mode: 0o600 });
    s.forget(`file:${outside}`);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    s.forget(ref);
    expect(codeOf(() => s.resolve(ref))).toBe('secret-file-unreadable');
    expect(codeOf(() => new HeadlessSecretStore({}).store('x', 'y'))).toBe('secret-store-unavailable');
    expect(codeOf(() => s.store('x', ''))).toBe('secret-ref-invalid');
  });
});
