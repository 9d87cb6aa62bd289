import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../base/logger';
import type { Db } from '../base/sqlite';

/**
 * What the emulator's parts share. The server (server.ts) owns the HTTP listener, the
 * router, the object store and the clock; the Fmgr and VCA services mount their routes
 * through `EmulatorContext` and act on stored objects only through `ObjectStore`.
 */

/** Time source; tests move it forward instead of waiting. */
export interface Clock {
  now(): number;
}

export interface StoredObject {
  bucket: string;
  key: string;
  size: number;
  /** The service's etag of the content (protocol-notes "The file hash"). */
  hash: string;
  mimeType: string;
  /** Unix ms of the merge. */
  putTime: number;
  /** Unix ms after which the object is gone, or null for no deadline. */
  expiresAt: number | null;
}

export interface PutMeta {
  mimeType?: string;
  /** Retention in days from now; undefined keeps no deadline. */
  deadlineDays?: number;
}

/**
 * Objects of the emulator, bytes under the data folder and metadata in SQLite. Expired
 * objects are invisible to every method. Writes are atomic: a reader sees the old object
 * or the new one, never a partial one. Keys are arbitrary text: the store maps them to
 * safe file names, so no key can write outside the data folder.
 */
export interface ObjectStore {
  hasBucket(bucket: string): boolean;
  buckets(): string[];
  stat(bucket: string, key: string): StoredObject | undefined;
  /** Objects whose key starts with prefix, in key order. */
  list(bucket: string, prefix: string): StoredObject[];
  /** Absolute path of the object's bytes; valid until the object changes. */
  contentPath(bucket: string, key: string): string | undefined;
  /**
   * The object with its bytes opened for reading (the caller closes `fd`), both taken in one
   * step: an overwrite or delete afterwards leaves the open file whole.
   */
  openContent(bucket: string, key: string): { object: StoredObject; fd: number } | undefined;
  /** Stores bytes taken from `tmpFile` (moved, not copied); tmpFile must be on the data volume (see tmpPath). */
  putFromFile(bucket: string, key: string, tmpFile: string, meta: PutMeta): StoredObject;
  putBuffer(bucket: string, key: string, data: Uint8Array, meta: PutMeta): StoredObject;
  copy(srcBucket: string, srcKey: string, dstBucket: string, dstKey: string): StoredObject;
  delete(bucket: string, key: string): boolean;
  /** Sets the retention of an object in days from now; -1 removes the deadline. */
  setDeadline(bucket: string, key: string, days: number): boolean;
  /** A fresh temp file path on the data volume, for building an object before putFromFile. */
  tmpPath(): string;
}

export interface EmulatorConfig {
  accessKey: string;
  secretKey: string;
  buckets: string[];
  /** Base URL of downloads, e.g. http://127.0.0.1:PORT/dl (no trailing slash). */
  downloadBaseUrl: string;
}

export type RouteHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
  query: URLSearchParams,
) => void | Promise<void>;

export interface EmulatorContext {
  config: EmulatorConfig;
  objects: ObjectStore;
  /** The emulator's own metadata database; every table comes from its migrations (migrations.ts). */
  db: Db;
  clock: Clock;
  /** Registers a route on the shared router; the server adds CORS headers and turns thrown errors into JSON 500s. */
  route(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, handler: RouteHandler): void;
  /** Where the parts report what a caller cannot see (a task that stopped on an error). */
  logger: Logger;
  /** Registers something to stop when the emulator closes (timers, pending notifications). */
  onClose(fn: () => void | Promise<void>): void;
  /** Public download URL of an object (used for Fmgr item url and VCA sources). */
  objectUrl(bucket: string, key: string): string;
}
