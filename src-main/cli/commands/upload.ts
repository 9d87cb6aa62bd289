import path from 'node:path';
import type { Command } from 'commander';
import type { AddTransfersResult } from '../../shared/contract';
import type { ConflictPolicy, TransferOptions } from '../../shared/models';
import { BLOCK_SIZE, OBJECT_KEY, TRANSFER_OPTIONS } from '../../shared/schemas';
import { printable } from '../../shared/keys';
import { UploadReporter } from '../upload-report';
import { addAccountOptions, readAccountFlags, requireUploadAccount, sameUploadAccount } from '../account-options';
import { openApp, sayHandedOff, type CliApp } from '../app-client';
import { transferFollower, type FollowOutcome } from '../follow-transfers';
import { collect, wholeNumber } from '../option-parsers';
import { valueOf } from '../service-result';
import { CliError } from '../cli-error';
import { checked } from '../input-check';
import { fileCount } from '../../common/units';

/**
 * `blocklift upload <path...> --bucket <b>`: files and directory trees through the app's
 * `transfers.add` (service/add-files.ts decides what is new, continued or unchanged), then
 * followed through its event batches. When an app runs on the data folder the upload is
 * handed to it (its settings, schedule and bandwidth apply; Ctrl-C stops following, not the
 * upload); otherwise the app service runs here, on the database, under the stored schedule
 * and bandwidth limit (the flags' --concurrency, --chunk-size and --limit tune this run).
 * Re-running the same command continues unfinished transfers from their committed offsets.
 * Exit code 0 when every file is done or skipped, 1 when any failed, 130 when interrupted.
 */

const MiB = 1024 * 1024;

interface UploadFlags {
  bucket?: string;
  key?: string;
  prefix?: string;
  concurrency?: string;
  blockSize?: string;
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
    .option('--concurrency <N>', "files uploading at once (blocks in flight: twice that); default: the app's setting")
    .option('--block-size <MiB>', "block size in MiB, a multiple of 4; default: the app's setting (4)")
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
  if (f.key !== undefined && f.prefix !== undefined) throw new CliError('give --key or --prefix, not both');
  // Checked here with the contract's rules (shared/schemas.ts), said with the flag.
  if (f.key !== undefined) {
    const key = f.key;
    checked(OBJECT_KEY, key, () => `--key "${printable(key)}" cannot be used`);
  }
  const concurrency = f.concurrency === undefined ? undefined : wholeNumber('--concurrency', f.concurrency, 1, 64);
  const blockSize =
    f.blockSize === undefined
      ? undefined
      : checked(BLOCK_SIZE, wholeNumber('--block-size', f.blockSize, 4, 1024) * MiB, () => '--block-size');
  const chunkBytes =
    f.chunkSize === undefined
      ? undefined
      : wholeNumber('--chunk-size', f.chunkSize, 64, (blockSize ?? 4 * MiB) / 1024) * 1024;
  const conflictText = f.overwrite ? 'overwrite' : (f.conflict ?? 'skip');
  if (!['skip', 'overwrite', 'rename'].includes(conflictText))
    throw new CliError(`--conflict must be skip, overwrite or rename, not "${conflictText}"`);
  const given: TransferOptions = { conflict: conflictText as ConflictPolicy };
  if (f.mime !== undefined) given.mimeType = f.mime;
  if (f.deadline !== undefined) given.deadlineDays = wholeNumber('--deadline', f.deadline, 0, 36500);
  for (const v of f.var ?? []) {
    const m = /^([A-Za-z0-9_-]+)=(.*)$/s.exec(v);
    if (!m) throw new CliError(`--var must look like name=value (name: letters, digits, _ and -), not "${v}"`);
    given.vars = { ...given.vars, [m[1]!]: m[2]! };
  }
  const options = checked(TRANSFER_OPTIONS, given, (p) => OPTION_FLAGS[String(p[0])]);
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

/** The flag of each field of TransferOptions. */
const OPTION_FLAGS: Record<string, string> = {
  mimeType: '--mime',
  deadlineDays: '--deadline',
  vars: '--var',
  conflict: '--conflict',
};

type Flags = ReturnType<typeof parseFlags>;

/** The running app of this data folder, or the app service opened here with the flags' engine tuning. */
function openUploadApp(flags: Flags) {
  const { acc } = flags;
  const account = acc.uploadUrl
    ? {
        name: `cli ${acc.uploadUrl}${acc.accessKey ? ` ${acc.accessKey}` : ''}`,
        uploadUrl: acc.uploadUrl,
        mgrUrl: acc.mgrUrl,
        accessKey: acc.accessKey,
        secretKey: acc.tokenUrl ? undefined : acc.secretKey,
        tokenUrl: acc.tokenUrl,
      }
    : undefined;
  const c = flags.concurrency;
  return openApp(acc, {
    account,
    sameAccount: sameUploadAccount(acc),
    beforeInProcess: () => {
      requireUploadAccount(acc);
    },
    inProcess: {
      embeddedEmulator: false,
      // One uploading process per queue database (the core takes the lock, named after us).
      queueLock: 'blocklift upload',
      resumeTrackers: false,
      startWatching: false,
      wakeDetector: false,
      // Flags given win for this run; the stored schedule still applies (the smaller limit wins).
      engine: {
        // An explicit --concurrency is a fixed count: the in-flight window (engine/window.ts) stays off.
        ...(c !== undefined
          ? { limits: { maxFiles: c, maxBlocks: 2 * c, maxBlocksPerFile: 2 * c }, adaptiveWindow: false }
          : {}),
        ...(flags.chunkBytes !== undefined ? { chunkBytes: flags.chunkBytes } : {}),
        ...(flags.limitBytesPerSec !== null ? { bandwidthBytesPerSec: flags.limitBytesPerSec } : {}),
      },
    },
  });
}

async function runUpload(paths: string[], opts: Record<string, unknown>): Promise<number> {
  const flags = parseFlags(paths, opts);
  const app = await openUploadApp(flags);
  try {
    // Subscribed before the add (nothing is missed); the reporter exists once the add says how much.
    const shown: { out?: UploadReporter } = {};
    const follower = transferFollower(app, {
      progress: (id, done) => shown.out?.progress(id, done),
      retrying: (t, reason, at) => shown.out?.retrying(t, reason, at),
      finished: (t) => shown.out?.finished(t),
      heldBySchedule: () => shown.out?.heldBySchedule(),
    });
    sayHandedOff(app, 'the upload is');
    let added;
    try {
      added = valueOf(
        await app.api.transfers.add({
          // The running app has a working directory of its own.
          paths: app.handedTo ? paths.map((p) => path.resolve(p)) : paths,
          target: {
            ...(app.accountId !== undefined ? { accountId: app.accountId } : {}),
            bucket: flags.bucket,
            ...(flags.prefix ? { prefix: flags.prefix } : {}),
            ...(flags.key !== undefined ? { key: flags.key } : {}),
          },
          options: { ...flags.options, ...(flags.blockSize !== undefined ? { blockSize: flags.blockSize } : {}) },
          source: 'cli',
        }),
        BAD_PATHS,
      );
    } catch (e) {
      follower.stop();
      throw e;
    }
    const out = (shown.out = new UploadReporter(flags.acc.json, added.queued.length, added.bytesQueued));
    for (const k of added.skipped) out.skipped(k);
    for (const a of added.alreadyUploaded) out.unchanged(a);
    let outcome;
    try {
      outcome = await follower.follow(added.queued);
    } finally {
      out.stop();
    }
    return summary(flags, app, added, outcome);
  } finally {
    await app.close();
  }
}

/** Failures of transfers.add that are the command's input (a path, a key): exit 2, as usage errors. */
const BAD_PATHS = ['input', 'local', 'not-found'] as const;

function summary(
  flags: Flags,
  app: CliApp,
  added: AddTransfersResult,
  { results, interrupted, lost }: FollowOutcome,
): number {
  if (interrupted) {
    process.stderr.write(
      app.handedTo
        ? `blocklift: stopped following; the upload goes on in the running app (${app.handedTo})\n`
        : 'blocklift: interrupted; run the same command again to continue\n',
    );
    return 130;
  }
  if (lost) {
    process.stderr.write('blocklift: the running app stopped before the upload ended; run the same command again\n');
    return 1;
  }
  const failed = [...results.values()].filter((s) => s.state === 'failed' || s.state === 'canceled').length;
  const leftOut = added.skipped.filter((k) => k.code !== 'symlink-skipped').length;
  if (!flags.acc.json) {
    const already = added.alreadyUploaded.length;
    const parts = [
      results.size > 0
        ? `${results.size - failed} of ${fileCount(results.size)} uploaded or skipped`
        : already > 0
          ? 'nothing to send'
          : 'no files uploaded',
      already ? `${fileCount(already)} already uploaded` : '',
      failed ? `${failed} failed` : '',
      leftOut ? `${leftOut} could not be read or used (listed above)` : '',
    ];
    process.stderr.write(`${parts.filter(Boolean).join(', ')}\n`);
  }
  return failed || leftOut ? 1 : 0;
}
