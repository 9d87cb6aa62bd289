import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { UploadClient } from '../../protocol/client';
import { UploadEngine } from '../../engine/engine';
import { LocalTokenSigner, RemoteTokenProvider, type TokenProvider } from '../../engine/tokens';
import { PlanError, checkBlockSize } from '../../engine/plan';
import type { ConflictPolicy, TransferOptions, TransferSnapshot } from '../../shared/models';
import { AddFilesError, addFiles } from '../../service/add-files';
import { openAppDatabase } from '../../store/app-db';
import { AccountRepo } from '../../store/account-repo';
import { SqliteTransferStore } from '../../store/transfer-repo';
import { addAccountOptions, readAccountFlags, requireCredentials } from '../account-options';
import { collect, wholeNumber } from '../option-parsers';
import { CliError } from '../cli-error';

/**
 * `blocklift upload <path...> --bucket <b>`: uploads files and directory trees through the
 * SQLite queue and the engine. Re-running the same command continues unfinished transfers
 * (same account, bucket, key and local path) from their committed offsets. Exit code 0 when
 * every file is done or skipped, 1 when any failed, 130 when interrupted.
 */

const MiB = 1024 * 1024;

interface UploadFlags {
  bucket?: string;
  key?: string;
  prefix?: string;
  concurrency: string;
  blockSize: string;
  chunkSize?: string;
  overwrite?: boolean;
  conflict?: string;
  mime?: string;
  deadline?: string;
  var?: string[];
  limit?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('upload')
    .description('upload files or directory trees (resumable: run the same command again to continue)')
    .argument('<path...>', 'files or directories; a directory uploads its tree, keys are paths relative to it')
    .option('--bucket <b>', 'destination bucket (required)')
    .option('--key <k>', 'object key, for a single file')
    .option('--prefix <p>', 'prefix put before every key (e.g. "photos/")')
    .option('--concurrency <N>', 'files uploading at once (blocks in flight: twice that)', '4')
    .option('--block-size <MiB>', 'block size in MiB, a multiple of 4', '4')
    .option('--chunk-size <KiB>', 'fixed chunk size in KiB (default: adapts between 256 KiB and 4 MiB)')
    .option('--overwrite', 'replace objects that already exist (same as --conflict overwrite)')
    .option('--conflict <policy>', 'when the key exists: skip, overwrite or rename', 'skip')
    .option('--mime <type>', 'MIME type stored with every file')
    .option('--deadline <days>', 'retention in days; the service deletes the objects after that')
    .option('--var <name=value>', 'custom variable x:name (repeatable)', collect)
    .option('--limit <KiB/s>', 'bandwidth limit for all files together, KiB per second');
  addAccountOptions(cmd).action(async (paths: string[], opts: Record<string, unknown>) => {
    process.exitCode = await runUpload(paths, opts);
  });
}

/** Everything the flags mean, checked before anything is opened. */
function parseFlags(paths: string[], opts: Record<string, unknown>) {
  const acc = readAccountFlags(opts);
  const f = opts as unknown as UploadFlags;
  if (!f.bucket) throw new CliError('--bucket is required');
  if (!acc.uploadUrl)
    throw new CliError(
      '--upload-url (or BLOCKLIFT_UPLOAD_URL) is required, e.g. http://127.0.0.1:8088 for `blocklift emulator`',
    );
  requireCredentials(acc);
  if (f.key !== undefined && f.prefix !== undefined) throw new CliError('give --key or --prefix, not both');
  const concurrency = wholeNumber('--concurrency', f.concurrency, 1, 64);
  const blockSize = wholeNumber('--block-size', f.blockSize, 4, 1024) * MiB;
  try {
    checkBlockSize(blockSize);
  } catch (e) {
    if (e instanceof PlanError) throw new CliError(`--block-size must be a multiple of 4 (MiB), not ${f.blockSize}`);
    throw e;
  }
  const chunkBytes =
    f.chunkSize === undefined ? undefined : wholeNumber('--chunk-size', f.chunkSize, 64, blockSize / 1024) * 1024;
  const conflictText = f.overwrite ? 'overwrite' : (f.conflict ?? 'skip');
  if (!['skip', 'overwrite', 'rename'].includes(conflictText))
    throw new CliError(`--conflict must be skip, overwrite or rename, not "${conflictText}"`);
  const options: TransferOptions = { conflict: conflictText as ConflictPolicy };
  if (f.mime !== undefined) options.mimeType = f.mime;
  if (f.deadline !== undefined) options.deadlineDays = wholeNumber('--deadline', f.deadline, 0, 36500);
  for (const v of f.var ?? []) {
    const m = /^([A-Za-z0-9_-]+)=(.*)$/s.exec(v);
    if (!m) throw new CliError(`--var must look like name=value (name: letters, digits, _ and -), not "${v}"`);
    options.vars = { ...options.vars, [m[1]!]: m[2]! };
  }
  const limitBytesPerSec = f.limit === undefined ? null : wholeNumber('--limit', f.limit, 1, 10_000_000) * 1024;
  return {
    acc,
    bucket: f.bucket,
    key: f.key,
    prefix: f.prefix ?? '',
    concurrency,
    blockSize,
    chunkBytes,
    options,
    limitBytesPerSec,
  };
}

async function runUpload(paths: string[], opts: Record<string, unknown>): Promise<number> {
  const flags = parseFlags(paths, opts);
  const { acc } = flags;
  const dbFile = acc.db;
  let db;
  try {
    db = openAppDatabase(dbFile);
  } catch (e) {
    throw new CliError(`cannot open the queue database ${dbFile}: ${(e as Error).message}`);
  }
  const client = new UploadClient({ uploadUrl: acc.uploadUrl! });
  const tokens: TokenProvider = acc.tokenUrl
    ? new RemoteTokenProvider(acc.tokenUrl)
    : new LocalTokenSigner(acc.accessKey!, acc.secretKey!);
  const store = new SqliteTransferStore(db);
  const accountId = new AccountRepo(db).upsert({
    name: `cli ${acc.uploadUrl}${acc.accessKey ? ` ${acc.accessKey}` : ''}`,
    uploadUrl: acc.uploadUrl!,
    mgrUrl: acc.mgrUrl ?? null,
    downloadDomain: null,
    accessKey: acc.accessKey ?? null,
    secretRef: acc.tokenUrl ? null : 'cli: --sk or BLOCKLIFT_SK',
    tokenUrl: acc.tokenUrl ?? null,
  });
  const engine = new UploadEngine({
    store,
    account: () => ({ client, tokens }),
    limits: { maxFiles: flags.concurrency, maxBlocks: 2 * flags.concurrency, maxBlocksPerFile: 2 * flags.concurrency },
    chunkBytes: flags.chunkBytes,
    defaultBlockSize: flags.blockSize,
    defaultConflict: flags.options.conflict,
    bandwidthBytesPerSec: flags.limitBytesPerSec,
  });

  // Re-running the same command continues what is unfinished instead of starting over, and
  // reports files already uploaded (done, same size and mtime) without sending them again.
  let added;
  try {
    added = await addFiles(
      { store, queue: engine },
      {
        paths,
        accountId,
        bucket: flags.bucket,
        prefix: flags.prefix,
        key: flags.key,
        source: 'cli',
        blockSize: flags.blockSize,
        options: flags.options,
      },
    );
  } catch (e) {
    await engine.close();
    client.close();
    db.close();
    if (e instanceof AddFilesError) throw new CliError(e.message);
    throw e;
  }
  for (const k of added.skipped) {
    process.stdout.write(
      acc.json
        ? `${JSON.stringify({ path: k.path, status: 'skipped', reason: k.reason })}\n`
        : `skipped  ${k.path}: ${k.reason}\n`,
    );
  }
  const ids = [...added.queued, ...added.alreadyUploaded.map((a) => a.id)];
  const mine = new Set(ids);

  const out = new Reporter(acc.json, ids.length, (id) => store.getTransfer(id)?.remoteHash ?? null);
  const results = new Map<number, TransferSnapshot>();
  let resolveAll!: () => void;
  const allDone = new Promise<void>((r) => (resolveAll = r));
  const onSettled = (s: TransferSnapshot) => {
    if (!mine.has(s.id) || results.has(s.id) || !['done', 'failed', 'skipped', 'canceled'].includes(s.state)) return;
    results.set(s.id, s);
    out.finished(s);
    if (results.size === mine.size) resolveAll();
  };
  engine.onTransferChange(onSettled);
  engine.onProgress((p) => mine.has(p.id) && out.progress(p.id, p.bytesDone, p.size));
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    resolveAll();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    engine.start();
    for (const id of ids) {
      const s = engine.get(id);
      if (s) onSettled(s);
    }
    if (mine.size === 0) resolveAll();
    await allDone;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await engine.close();
    out.stop();
    client.close();
    db.close();
  }
  if (interrupted) {
    process.stderr.write('blocklift: interrupted; run the same command again to continue\n');
    return 130;
  }
  const failed = [...results.values()].filter((s) => s.state === 'failed' || s.state === 'canceled').length;
  if (!acc.json)
    process.stderr.write(
      `${results.size - failed} of ${results.size} file(s) uploaded or skipped${failed ? `, ${failed} failed` : ''}\n`,
    );
  return failed ? 1 : 0;
}

/**
 * Output: with --json one JSON line per finished file on stdout ({key, hash, size, status,
 * verified, path, error?, warning?}; `verified` is true only when the service's hash equalled
 * the etag computed while reading: a 579 or a callback reply without hash is done but not
 * verified, and its text line says so); on a terminal a progress bar on stderr (per-file lines printed
 * when it stops); otherwise one text line per finished file.
 */
class Reporter {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly bytes = new Map<number, { done: number; size: number }>();
  private readonly held: string[] = [];
  private readonly startedMs = performance.now();
  private finishedCount = 0;

  constructor(
    private readonly json: boolean,
    private readonly fileCount: number,
    /** The hash the service returned for a transfer, null when it returned none. */
    private readonly remoteHashOf: (id: number) => string | null,
  ) {
    if (!json && process.stderr.isTTY) {
      this.bar = new cliProgress.SingleBar(
        {
          format:
            ' {bar} {percentage}% | {doneMiB}/{totalMiB} MiB | {speed} MiB/s | ETA {eta_formatted} | {files}/{fileCount} files',
          stream: process.stderr,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(1, 0, { doneMiB: '0', totalMiB: '?', speed: '0', files: 0, fileCount });
    }
  }

  progress(id: number, done: number, size: number): void {
    this.bytes.set(id, { done, size });
    this.redraw();
  }

  finished(s: TransferSnapshot): void {
    this.finishedCount++;
    this.bytes.set(s.id, { done: s.size, size: s.size });
    const verified = s.state === 'done' && s.etag !== null && this.remoteHashOf(s.id) === s.etag;
    if (this.json) {
      const line = {
        key: s.key,
        hash: s.state === 'done' ? s.etag : null,
        size: s.size,
        status: s.state,
        verified,
        path: s.localPath,
        ...(s.lastError ? { error: s.lastError } : {}),
        ...(s.warning ? { warning: s.warning } : {}),
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
      return;
    }
    const text = `${s.state.padEnd(8)} ${s.key} (${s.size} bytes)${s.state === 'done' ? ` ${s.etag}${verified ? '' : ' NOT VERIFIED'}` : ''}${s.lastError ? `: ${s.lastError.message}` : ''}${s.warning ? ` [${s.warning}]` : ''}`;
    if (this.bar) this.held.push(text);
    else process.stdout.write(`${text}\n`);
    this.redraw();
  }

  private redraw(): void {
    if (!this.bar) return;
    let done = 0;
    let total = 0;
    for (const b of this.bytes.values()) {
      done += b.done;
      total += b.size;
    }
    const seconds = (performance.now() - this.startedMs) / 1000;
    this.bar.setTotal(Math.max(1, total));
    this.bar.update(done, {
      doneMiB: (done / MiB).toFixed(1),
      totalMiB: (total / MiB).toFixed(1),
      speed: seconds > 0 ? (done / MiB / seconds).toFixed(1) : '0',
      files: this.finishedCount,
      fileCount: this.fileCount,
    });
  }

  stop(): void {
    this.bar?.stop();
    for (const line of this.held) process.stdout.write(`${line}\n`);
  }
}
