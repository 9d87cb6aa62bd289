import type { Command } from 'commander';
import { UploadClient } from '../../protocol/client';
import { UploadEngine } from '../../engine/engine';
import { LocalTokenSigner, RemoteTokenProvider, type TokenProvider } from '../../engine/tokens';
import { PlanError, checkBlockSize } from '../../engine/plan';
import type { ConflictPolicy, TransferOptions, TransferSnapshot } from '../../shared/models';
import { AddFilesError, addFiles, type AddFilesResult } from '../../service/add-files';
import { RetryNotices } from '../retry-notices';
import { UploadReporter } from '../upload-report';
import { openAppDatabase } from '../../store/app-db';
import { AccountRepo } from '../../store/account-repo';
import { SqliteTransferStore } from '../../store/transfer-repo';
import { addAccountOptions, readAccountFlags, requireCredentials, takeQueueLock } from '../account-options';
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

/** Opens the queue for this process: lock first (one uploading process per database), then the database. */
function openQueue(dbFile: string) {
  const lock = takeQueueLock(dbFile, 'blocklift upload');
  try {
    return { db: openAppDatabase(dbFile), lock };
  } catch (e) {
    lock.release();
    throw new CliError(`cannot open the queue database ${dbFile}: ${(e as Error).message}`, 1);
  }
}

type Flags = ReturnType<typeof parseFlags>;

/** The queue (locked), the flags' account and an engine over them, not started; closeAll() releases all. */
function openSession(flags: Flags) {
  const { acc } = flags;
  const { db, lock } = openQueue(acc.db);
  // Like curl: HTTP(S)_PROXY and NO_PROXY of the environment (loopback hosts always direct).
  const proxy = { mode: 'system' } as const;
  const client = new UploadClient({ uploadUrl: acc.uploadUrl!, proxy });
  const tokens: TokenProvider = acc.tokenUrl
    ? new RemoteTokenProvider(acc.tokenUrl, { proxy })
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
  const closeAll = async () => {
    await engine.close();
    client.close();
    db.close();
    lock.release();
  };
  return { store, engine, accountId, closeAll };
}

async function runUpload(paths: string[], opts: Record<string, unknown>): Promise<number> {
  const flags = parseFlags(paths, opts);
  const { acc } = flags;
  const { store, engine, accountId, closeAll } = openSession(flags);
  let added: AddFilesResult;
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
    await closeAll();
    if (e instanceof AddFilesError) throw new CliError(e.message);
    throw e;
  }
  const out = new UploadReporter(
    acc.json,
    added.queued.length,
    added.bytesQueued,
    (id) => store.getTransfer(id)?.remoteHash ?? null,
  );
  for (const k of added.skipped) out.skipped(k);
  for (const a of added.alreadyUploaded) out.unchanged(a);
  let results: Map<number, TransferSnapshot>;
  let interrupted: boolean;
  try {
    ({ results, interrupted } = await runQueued(engine, added.queued, out));
  } finally {
    await closeAll();
    out.stop();
  }
  if (interrupted) {
    process.stderr.write('blocklift: interrupted; run the same command again to continue\n');
    return 130;
  }
  const failed = [...results.values()].filter((s) => s.state === 'failed' || s.state === 'canceled').length;
  const leftOut = added.skipped.filter((k) => k.code !== 'symlink-in-tree').length;
  if (!acc.json) {
    const parts = [
      `${results.size - failed} of ${results.size} file(s) uploaded or skipped`,
      added.alreadyUploaded.length ? `${added.alreadyUploaded.length} already uploaded` : '',
      failed ? `${failed} failed` : '',
      leftOut ? `${leftOut} could not be read or used (listed above)` : '',
    ];
    process.stderr.write(`${parts.filter(Boolean).join(', ')}\n`);
  }
  return failed || leftOut ? 1 : 0;
}

/** Starts the engine and waits until every id settled (or SIGINT/SIGTERM). */
async function runQueued(
  engine: UploadEngine,
  ids: readonly number[],
  out: UploadReporter,
): Promise<{ results: Map<number, TransferSnapshot>; interrupted: boolean }> {
  const mine = new Set(ids);
  const results = new Map<number, TransferSnapshot>();
  let resolveAll!: () => void;
  const allDone = new Promise<void>((r) => (resolveAll = r));
  const onSettled = (s: TransferSnapshot) => {
    if (!mine.has(s.id) || results.has(s.id) || !['done', 'failed', 'skipped', 'canceled'].includes(s.state)) return;
    results.set(s.id, s);
    out.finished(s);
    if (results.size === mine.size) resolveAll();
  };
  const offChange = engine.onTransferChange(onSettled);
  const notices = new RetryNotices();
  const offProgress = engine.onProgress((p) => {
    if (!mine.has(p.id)) return;
    out.progress(p.id, p.bytesDone);
    const n = notices.accept(p);
    const s = n && engine.get(n.id);
    if (n && s) out.retrying(s, n.reason, n.nextAttemptAt);
  });
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    resolveAll();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const id of ids) {
      const s = engine.get(id);
      if (s) out.progress(id, s.bytesDone);
    }
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
    offChange();
    offProgress();
  }
  return { results, interrupted };
}
