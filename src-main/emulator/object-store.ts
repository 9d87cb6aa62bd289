import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../base/sqlite';
import { StatementCache } from './stmt-cache';
import { DAY_MS } from './clock';
import type { Clock, ObjectStore, PutMeta, StoredObject } from './contracts';
import { ETAG_UNIT_BYTES, EtagHasher, etagOfBuffer } from '../protocol/etag';

/** Why an ObjectStore call refused; callers branch on `code`. */
export type ObjectStoreErrorCode = 'no-such-bucket' | 'no-such-key' | 'bad-key';

export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  constructor(
    readonly code: ObjectStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Longest key accepted, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Returns a reason when `key` cannot be an object key, else undefined. */
export function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'the key is empty';
  if (key.includes('\0')) return 'the key contains a NUL byte';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `the key is longer than ${MAX_KEY_BYTES} bytes`;
  if (LONE_SURROGATE.test(key)) return 'the key is not valid Unicode text';
  return undefined;
}

interface ObjectRow {
  bucket: string;
  key: string;
  file: string;
  size: number;
  hash: string;
  mime_type: string;
  put_time: number;
  expires_at: number | null;
}

const DEFAULT_MIME = 'application/octet-stream';

function toObject(r: ObjectRow): StoredObject {
  return {
    bucket: r.bucket,
    key: r.key,
    size: r.size,
    hash: r.hash,
    mimeType: r.mime_type,
    putTime: r.put_time,
    expiresAt: r.expires_at,
  };
}

function newFileName(): string {
  return randomBytes(16).toString('hex');
}

/**
 * ObjectStore over <data>/objects (bytes, under generated names that never derive from
 * the key) and the `objects` table. A put moves the new bytes into place under a fresh
 * name, then swaps the row in one statement, then removes the old bytes: a reader holding
 * the old path keeps reading the old object (POSIX keeps an open file alive).
 */
export class SqliteObjectStore implements ObjectStore {
  private readonly objectsDir: string;
  private readonly tmpDir: string;

  private readonly stmts: StatementCache;

  constructor(
    private readonly db: Db,
    dataDir: string,
    private readonly clock: Clock,
    private readonly bucketNames: readonly string[],
  ) {
    this.stmts = new StatementCache(db);
    this.objectsDir = path.join(dataDir, 'objects');
    this.tmpDir = path.join(dataDir, 'tmp');
    mkdirSync(this.objectsDir, { recursive: true });
    // Temp files of a previous run are garbage (a put either finished or did not).
    rmSync(this.tmpDir, { recursive: true, force: true });
    mkdirSync(this.tmpDir, { recursive: true });
  }

  hasBucket(bucket: string): boolean {
    return this.bucketNames.includes(bucket);
  }

  buckets(): string[] {
    return [...this.bucketNames];
  }

  private row(bucket: string, key: string): ObjectRow | undefined {
    return this.stmts
      .get<[string, string, number], ObjectRow>(
        'SELECT * FROM objects WHERE bucket = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)',
      )
      .get(bucket, key, this.clock.now());
  }

  stat(bucket: string, key: string): StoredObject | undefined {
    const r = this.row(bucket, key);
    return r ? toObject(r) : undefined;
  }

  list(bucket: string, prefix: string): StoredObject[] {
    return this.stmts
      .get<[string, string, string, number], ObjectRow>(
        'SELECT * FROM objects WHERE bucket = ? AND substr(key, 1, length(?)) = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key',
      )
      .all(bucket, prefix, prefix, this.clock.now())
      .map(toObject);
  }

  contentPath(bucket: string, key: string): string | undefined {
    const r = this.row(bucket, key);
    return r ? path.join(this.objectsDir, r.file) : undefined;
  }

  openContent(bucket: string, key: string): { object: StoredObject; fd: number } | undefined {
    const r = this.row(bucket, key);
    return r ? { object: toObject(r), fd: openSync(path.join(this.objectsDir, r.file), 'r') } : undefined;
  }

  private checkTarget(bucket: string, key: string): void {
    if (!this.hasBucket(bucket)) throw new ObjectStoreError('no-such-bucket', `bucket "${bucket}" does not exist`);
    const problem = keyProblem(key);
    if (problem) throw new ObjectStoreError('bad-key', problem);
  }

  /** Stores an already-hashed file; used by mkfile, which computes the etag while merging. */
  /**
   * `alongside`, when given, runs inside the transaction that records the object (after it),
   * so whatever it writes to the database commits with the object or not at all.
   */
  putHashedFile(
    bucket: string,
    key: string,
    tmpFile: string,
    size: number,
    hash: string,
    meta: PutMeta,
    alongside?: (stored: StoredObject) => void,
  ): StoredObject {
    this.checkTarget(bucket, key);
    const file = newFileName();
    moveFile(tmpFile, path.join(this.objectsDir, file));
    const now = this.clock.now();
    const row: ObjectRow = {
      bucket,
      key,
      file,
      size,
      hash,
      mime_type: meta.mimeType || DEFAULT_MIME,
      put_time: now,
      expires_at: meta.deadlineDays === undefined ? null : now + meta.deadlineDays * DAY_MS,
    };
    const old = this.db.transaction(() => {
      const prev = this.stmts
        .get<[string, string], { file: string }>('SELECT file FROM objects WHERE bucket = ? AND key = ?')
        .get(bucket, key);
      this.stmts
        .get(
          `INSERT INTO objects (bucket, key, file, size, hash, mime_type, put_time, expires_at)
           VALUES (@bucket, @key, @file, @size, @hash, @mime_type, @put_time, @expires_at)
           ON CONFLICT (bucket, key) DO UPDATE SET file = excluded.file, size = excluded.size, hash = excluded.hash,
             mime_type = excluded.mime_type, put_time = excluded.put_time, expires_at = excluded.expires_at`,
        )
        .run(row);
      if (prev) this.stmts.get('INSERT OR IGNORE INTO orphan_files (file) VALUES (?)').run(prev.file);
      alongside?.(toObject(row));
      return prev?.file;
    })();
    if (old) this.removeFile(old);
    return toObject(row);
  }

  putFromFile(bucket: string, key: string, tmpFile: string, meta: PutMeta): StoredObject {
    this.checkTarget(bucket, key);
    // Objects put this way are small (Fmgr results); hashing reads them once.
    const { size, hash } = hashFileSync(tmpFile);
    return this.putHashedFile(bucket, key, tmpFile, size, hash, meta);
  }

  putBuffer(bucket: string, key: string, data: Uint8Array, meta: PutMeta): StoredObject {
    this.checkTarget(bucket, key);
    const tmp = this.tmpPath();
    writeFileSync(tmp, data);
    return this.putHashedFile(bucket, key, tmp, data.byteLength, etagOfBuffer(data), meta);
  }

  copy(srcBucket: string, srcKey: string, dstBucket: string, dstKey: string): StoredObject {
    const src = this.row(srcBucket, srcKey);
    if (!src) throw new ObjectStoreError('no-such-key', `${srcBucket}:${srcKey} does not exist`);
    this.checkTarget(dstBucket, dstKey);
    const tmp = this.tmpPath();
    copyFileSync(path.join(this.objectsDir, src.file), tmp);
    return this.putHashedFile(dstBucket, dstKey, tmp, src.size, src.hash, { mimeType: src.mime_type });
  }

  delete(bucket: string, key: string): boolean {
    const r = this.row(bucket, key);
    if (!r) return false;
    this.db.transaction(() => {
      this.stmts.get('DELETE FROM objects WHERE bucket = ? AND key = ?').run(bucket, key);
      this.stmts.get('INSERT OR IGNORE INTO orphan_files (file) VALUES (?)').run(r.file);
    })();
    this.removeFile(r.file);
    return true;
  }

  setDeadline(bucket: string, key: string, days: number): boolean {
    if (!Number.isInteger(days) || days < -1)
      throw new RangeError(`deadline must be a whole number of days, -1 or more, not ${days}`);
    if (!this.row(bucket, key)) return false;
    const expiresAt = days === -1 ? null : this.clock.now() + days * DAY_MS;
    this.stmts.get('UPDATE objects SET expires_at = ? WHERE bucket = ? AND key = ?').run(expiresAt, bucket, key);
    return true;
  }

  tmpPath(): string {
    return path.join(this.tmpDir, newFileName());
  }

  /** Removes expired objects and leftover files; returns how many objects went. */
  sweepExpired(): number {
    const expired = this.stmts
      .get<[number], { bucket: string; key: string; file: string }>(
        'SELECT bucket, key, file FROM objects WHERE expires_at IS NOT NULL AND expires_at <= ?',
      )
      .all(this.clock.now());
    this.db.transaction(() => {
      for (const r of expired) {
        this.stmts.get('DELETE FROM objects WHERE bucket = ? AND key = ?').run(r.bucket, r.key);
        this.stmts.get('INSERT OR IGNORE INTO orphan_files (file) VALUES (?)').run(r.file);
      }
    })();
    for (const { file } of this.stmts.get<[], { file: string }>('SELECT file FROM orphan_files').all())
      this.removeFile(file);
    return expired.length;
  }

  private removeFile(file: string): void {
    try {
      rmSync(path.join(this.objectsDir, file), { force: true });
      this.stmts.get('DELETE FROM orphan_files WHERE file = ?').run(file);
    } catch {
      // stays in orphan_files; the next sweep tries again
    }
  }
}

function hashFileSync(file: string): { size: number; hash: string } {
  const fd = openSync(file, 'r');
  try {
    const hasher = new EtagHasher();
    const buf = Buffer.allocUnsafe(ETAG_UNIT_BYTES);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hasher.update(buf.subarray(0, n));
    }
    return { size: hasher.bytes, hash: hasher.digest() };
  } finally {
    closeSync(fd);
  }
}

/** rename, or copy and remove when the source is on another file system. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    copyFileSync(from, to);
    rmSync(from, { force: true });
  }
}
