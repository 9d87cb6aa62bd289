import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/emulator/clock';
import { EMULATOR_MIGRATIONS } from '../../../src-main/emulator/migrations';
import { keyProblem, ObjectStoreError, SqliteObjectStore } from '../../../src-main/emulator/object-store';
import { etagOfBuffer } from '../../../src-main/protocol/etag';
import { openDatabase, type Db } from '../../../src-main/store/db';

const DAY_MS = 86_400_000;

describe('SqliteObjectStore', () => {
  let dir: string;
  let db: Db;
  let clock: ManualClock;
  let store: SqliteObjectStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-objects-'));
    db = openDatabase(path.join(dir, 'emulator.db'), EMULATOR_MIGRATIONS);
    clock = new ManualClock(1_000_000);
    store = new SqliteObjectStore(db, dir, clock, ['b', 'c']);
  });
  afterEach(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const objectFiles = () => readdirSync(path.join(dir, 'objects'));

  it('stores bytes under generated names, never the key; a replace removes the old bytes', () => {
    const o = store.putBuffer('b', '../../escape', Buffer.from('one'), { mimeType: 'text/plain' });
    expect(o).toMatchObject({
      bucket: 'b',
      key: '../../escape',
      size: 3,
      hash: etagOfBuffer(Buffer.from('one')),
      mimeType: 'text/plain',
      putTime: 1_000_000,
      expiresAt: null,
    });
    expect(existsSync(path.join(dir, '..', 'escape'))).toBe(false);
    expect(objectFiles()).toHaveLength(1);
    expect(objectFiles()[0]).toMatch(/^[0-9a-f]{32}$/);
    store.putBuffer('b', '../../escape', Buffer.from('two!'), {});
    expect(objectFiles()).toHaveLength(1);
    expect(readFileSync(store.contentPath('b', '../../escape')!, 'utf8')).toBe('two!');
    expect(store.stat('b', '../../escape')?.mimeType).toBe('application/octet-stream');
  });

  it('putFromFile moves a temp file in and hashes it', () => {
    const tmp = store.tmpPath();
    writeFileSync(tmp, 'from file');
    const o = store.putFromFile('c', 'f', tmp, {});
    expect(o.hash).toBe(etagOfBuffer(Buffer.from('from file')));
    expect(existsSync(tmp)).toBe(false);
  });

  it('lists by prefix in key order; copy, delete', () => {
    for (const k of ['p/2', 'p/1', 'q/1', 'p/10']) store.putBuffer('b', k, Buffer.from(k), {});
    expect(store.list('b', 'p/').map((o) => o.key)).toEqual(['p/1', 'p/10', 'p/2']);
    expect(store.list('b', '').length).toBe(4);
    store.copy('b', 'p/1', 'c', 'copied');
    expect(readFileSync(store.contentPath('c', 'copied')!, 'utf8')).toBe('p/1');
    expect(store.delete('b', 'p/1')).toBe(true);
    expect(store.delete('b', 'p/1')).toBe(false);
    expect(store.stat('c', 'copied')).toBeDefined();
    expect(objectFiles()).toHaveLength(4);
  });

  it('expiry: deadlines hide objects, setDeadline -1 removes one, the sweep deletes the bytes', () => {
    store.putBuffer('b', 'short', Buffer.from('x'), { deadlineDays: 1 });
    store.putBuffer('b', 'kept', Buffer.from('y'), { deadlineDays: 1 });
    expect(store.setDeadline('b', 'kept', -1)).toBe(true);
    expect(store.setDeadline('b', 'missing', 3)).toBe(false);
    clock.advance(DAY_MS);
    expect(store.stat('b', 'short')).toBeUndefined();
    expect(store.list('b', '').map((o) => o.key)).toEqual(['kept']);
    expect(store.sweepExpired()).toBe(1);
    expect(objectFiles()).toHaveLength(1);
  });

  it('refuses unknown buckets and bad keys by code', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e instanceof ObjectStoreError ? e.code : 'other';
      }
      return 'none';
    };
    expect(code(() => store.putBuffer('nope', 'k', Buffer.alloc(1), {}))).toBe('no-such-bucket');
    expect(code(() => store.putBuffer('b', 'a\u0000b', Buffer.alloc(1), {}))).toBe('bad-key');
    expect(code(() => store.copy('b', 'missing', 'b', 'x'))).toBe('no-such-key');
    expect(keyProblem('')).toMatch(/empty/);
    expect(keyProblem('x'.repeat(1025))).toMatch(/longer/);
    expect(keyProblem('\ud800')).toMatch(/Unicode/);
    expect(keyProblem('ok/😀')).toBeUndefined();
  });
});
