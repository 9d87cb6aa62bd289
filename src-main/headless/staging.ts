import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import { isDiskFull } from '../base/disk-full';
import { failure, type DoorBackend } from '../service/door-backend';
import type { AddTransfersInput, TransferTarget } from '../shared/contract';
import { catalogMessage } from '../shared/errors';
import { DOOR_STAGE_COMMIT_PATH, DOOR_STAGE_PATH } from '../shared/wire';

/** Transfer states after which a staged copy is no longer needed. */
const FINISHED = new Set(['done', 'canceled', 'skipped']);

/**
 * Files dropped in a browser have no local path: the page streams each one to the door,
 * which writes it under <stagingDir>/<batch>/<relative path>, then commits the batch, which
 * queues the batch folder through `transfers.add` (keys are the relative paths). A staged
 * file is deleted once its transfer is done, canceled or skipped (a failed one stays for a
 * retry); the batch folder goes when it is empty.
 */
export class StagedFiles {
  private readonly unsubscribe: () => void;

  constructor(
    readonly dir: string,
    private readonly backend: DoorBackend,
  ) {
    this.unsubscribe = backend.on((e) => {
      if (e.name !== 'transfers') return;
      for (const t of e.payload.changed) if (FINISHED.has(t.state)) void this.release(t.localPath);
    });
  }

  /** A new batch id (a folder name). */
  newBatch(): string {
    return randomUUID();
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
    return this.backend.transfers.add(input);
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
