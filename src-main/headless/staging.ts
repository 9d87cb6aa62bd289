import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, realpath, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { isDiskFull } from '../base/disk-full';
import { onUnexpectedError } from '../base/unexpected-error';
import { droppedAs } from '../service/data-dir';
import { failure, type DoorBackend } from '../service/door-backend';
import type { AddTransfersInput, AddTransfersResult, Result, TransferTarget } from '../shared/contract';
import { STAGED_COPY_DELETED_STATES, TRANSFER_STATES, type TransferState } from '../shared/models';
import { catalogMessage } from '../shared/errors';
import { DOOR_STAGE_COMMIT_PATH, DOOR_STAGE_PATH } from '../shared/wire';

/** Transfer states after which a staged copy is no longer needed. */
const FINISHED = new Set(STAGED_COPY_DELETED_STATES);
/** States of a transfer that still reads (or may read again: a failed one is retried) its staged copy. */
const READING: TransferState[] = TRANSFER_STATES.filter((s) => !FINISHED.has(s));

export interface StagingSweepOptions {
  /** A batch opened but not committed for this long is abandoned (the browser was closed mid-stage); default 1 h. */
  abandonAfterMs?: number;
  /** How often abandoned batches are looked for; default 10 min. */
  checkEveryMs?: number;
  now?: () => number;
}

/**
 * Files dropped in a browser have no local path: the page streams each one to the door,
 * which writes it under <stagingDir>/<batch>/<relative path>, then commits the batch, which
 * queues the batch folder through `transfers.add` (keys are the relative paths). A staged
 * file is deleted once its transfer is done, canceled or skipped (a failed one stays for a
 * retry); the batch folder goes when it is empty.
 */
export class StagedFiles {
  private readonly unsubscribe: () => void;
  /** Batches of this process not committed yet, and when each was last written to. */
  private readonly open = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly abandonAfterMs: number;
  private readonly now: () => number;
  /** The sweep at start: what earlier runs left (uncommitted batches, files nothing reads any more). */
  readonly swept: Promise<void>;

  constructor(
    readonly dir: string,
    private readonly backend: DoorBackend,
    opts: StagingSweepOptions = {},
  ) {
    this.abandonAfterMs = opts.abandonAfterMs ?? 3600_000;
    this.now = opts.now ?? Date.now;
    this.unsubscribe = backend.on((e) => {
      if (e.name !== 'transfers') return;
      for (const t of e.payload.changed) if (FINISHED.has(t.state)) void this.release(t.localPath);
    });
    this.swept = this.sweep().catch((e: unknown) => onUnexpectedError(e, 'staging sweep'));
    this.timer = setInterval(() => {
      this.dropAbandoned().catch((e: unknown) => onUnexpectedError(e, 'staging sweep'));
    }, opts.checkEveryMs ?? 600_000);
    this.timer.unref();
  }

  /** A new batch id (a folder name). */
  newBatch(): string {
    const batch = randomUUID();
    this.open.set(batch, this.now());
    return batch;
  }

  /**
   * Deletes every staged file no transfer reads (a transfer queued, running, paused or failed
   * from the staging folder keeps its file) and the folders left empty, except the batches
   * this process has open. Run at start: a batch never committed (the browser closed, serve
   * killed mid-stage) or a file whose transfer ended while the app was not running is removed.
   */
  async sweep(): Promise<void> {
    const reading = await this.readingPaths();
    if (reading === undefined) return; // the queue cannot be read: keep everything
    let batches: string[];
    try {
      batches = await readdir(this.dir);
    } catch {
      return; // no staging folder yet
    }
    for (const batch of batches) {
      if (this.open.has(batch)) continue;
      await this.sweepTree(path.join(this.dir, batch), reading);
    }
  }

  /** Deletes the batches opened in this process and not committed for `abandonAfterMs`. */
  async dropAbandoned(): Promise<void> {
    const now = this.now();
    for (const [batch, at] of [...this.open]) {
      if (now - at < this.abandonAfterMs) continue;
      this.open.delete(batch);
      await rm(path.join(this.dir, batch), { recursive: true, force: true });
    }
  }

  /**
   * Local paths under the staging folder of transfers that still read them; undefined when the
   * queue does not answer. The door's own transfers name it as given; one a person added by
   * naming a link to a staged file names it by its real path (a named link is followed), which
   * counts too when a link leads to the staging folder: the one place a real path is mapped back.
   */
  private async readingPaths(): Promise<Set<string> | undefined> {
    const dirs = [this.dir];
    const real = await realpath(this.dir).catch(() => this.dir);
    if (real !== this.dir) dirs.push(real);
    const out = new Set<string>();
    for (const dir of dirs) {
      for (let offset = 0; ;) {
        const page = await this.backend.transfers.list({ states: READING, text: dir, offset, limit: 1000 });
        if (!page.ok) return undefined;
        for (const row of page.value.rows) {
          const local = path.resolve(row.localPath);
          out.add(local);
          if (real !== this.dir && local.startsWith(real + path.sep))
            out.add(path.join(this.dir, path.relative(real, local)));
        }
        offset += page.value.rows.length;
        if (page.value.rows.length === 0 || offset >= page.value.total) break;
      }
    }
    return out;
  }

  /** Deletes what no transfer reads below `dir`; true when `dir` itself was removed. */
  private async sweepTree(dir: string, reading: Set<string>): Promise<boolean> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') return false;
      if (reading.has(dir)) return false;
      await unlink(dir).catch(() => undefined);
      return true;
    }
    let left = 0;
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!(await this.sweepTree(p, reading))) left++;
      } else if (reading.has(p)) left++;
      else await unlink(p).catch(() => left++);
    }
    if (left > 0) return false;
    return rmdir(dir).then(
      () => true,
      () => false,
    );
  }

  /** A batch's folder; undefined for anything but a batch id. */
  batchDir(batch: string): string | undefined {
    return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(batch)
      ? path.join(this.dir, batch)
      : undefined;
  }

  /** The staged path of a file; undefined when the batch or relative path would leave the staging folder. */
  pathOf(batch: string, relPath: string): string | undefined {
    const dir = this.batchDir(batch);
    if (!dir) return undefined;
    const parts = relPath.split(/[\\/]+/).filter((p) => p !== '');
    if (parts.length === 0 || parts.some((p) => p === '.' || p === '..' || p.includes('\0'))) return undefined;
    return path.join(dir, ...parts);
  }

  /** Streams a body to its staged path; a write that fails leaves no partial file behind. */
  async write(file: string, body: Readable): Promise<void> {
    const batch = path.relative(this.dir, file).split(path.sep)[0]!;
    // A PUT to a batch keeps it open (or reopens one this process did not open: a browser
    // that kept its batch id across a restart).
    this.open.set(batch, this.now());
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await pipeline(body, createWriteStream(file));
    } catch (e) {
      await unlink(file).catch(() => undefined);
      throw e;
    }
  }

  async commit(batch: string, target: TransferTarget, options: AddTransfersInput['options']) {
    const folder = this.batchDir(batch);
    if (!folder) return failure('invalid-input', 'The upload batch is not valid.', { detail: 'batch' });
    const input: AddTransfersInput = { paths: [folder], target, source: 'manual', ...(options ? { options } : {}) };
    const res = await this.backend.transfers.add(input);
    this.open.delete(batch);
    return this.settle(folder, res);
  }

  /**
   * After a commit: a refused add queued nothing, so the batch goes; a file the add left out
   * (skipped) or found already uploaded is deleted (no transfer reads it), and a skipped file
   * is named by its path in the batch (what the person dropped), not by the staging path.
   */
  private async settle(folder: string, res: Result<AddTransfersResult>): Promise<Result<AddTransfersResult>> {
    if (!res.ok) {
      await rm(folder, { recursive: true, force: true });
      return res;
    }
    // The add names the files below the batch folder as given (a folder the door made, not a link).
    for (const s of res.value.skipped) await this.release(s.path);
    for (const a of res.value.alreadyUploaded) await this.release(a.path);
    const skipped = res.value.skipped.map((s) => ({ ...s, path: droppedAs(this.dir, s.path) ?? s.path }));
    return { ok: true, value: { ...res.value, skipped } };
  }

  /** Deletes a staged file and its now-empty folders up to the staging folder. */
  private async release(localPath: string): Promise<void> {
    const rel = path.relative(this.dir, localPath);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return;
    await unlink(localPath).catch(() => undefined);
    for (let d = path.dirname(localPath); d.startsWith(this.dir + path.sep); d = path.dirname(d)) {
      if (
        !(await rmdir(d).then(
          () => true,
          () => false,
        ))
      )
        break;
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    this.unsubscribe();
  }
}

/**
 * PUT  /api/door/stage/<batch>/<relative path>   body: the file's bytes (streamed to disk)
 * POST /api/door/stage                            → { batch } (a new batch id)
 * POST /api/door/stage-commit  { batch, target, options? } → the Result of transfers.add
 */
export function registerStagingRoutes(app: FastifyInstance, staged: StagedFiles): void {
  app.post(DOOR_STAGE_PATH, async () => ({ ok: true, value: { batch: staged.newBatch() } }));
  void app.register(async (scope) => {
    // Bodies of this scope are files: handed over as a stream, never buffered or size-limited.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.put(`${DOOR_STAGE_PATH}/:batch/*`, async (req, reply) => {
      const { batch, '*': rel } = req.params as { batch: string; '*': string };
      const file = staged.pathOf(batch, decodeURIComponent(rel));
      if (!file)
        return reply.code(400).send(failure('invalid-input', 'The staged file name is not valid.', { detail: rel }));
      try {
        await staged.write(file, req.body as Readable);
      } catch (e) {
        if (!isDiskFull(e)) throw e;
        // 507 Insufficient Storage: the browser keeps the file and can send it again later.
        req.raw.resume();
        const params = { path: staged.dir };
        return reply.code(507).send(failure('disk-full', catalogMessage('disk-full', params), params));
      }
      return { ok: true, value: { staged: true } };
    });
  });
  app.post(DOOR_STAGE_COMMIT_PATH, async (req) => {
    const body = (req.body ?? {}) as { batch?: unknown; target?: unknown; options?: AddTransfersInput['options'] };
    if (typeof body.batch !== 'string' || typeof body.target !== 'object' || body.target === null)
      return failure('invalid-input', 'A commit needs a batch and a target.', { detail: 'batch, target' });
    return staged.commit(body.batch, body.target as TransferTarget, body.options);
  });
}
