import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { AppCore } from '../../service/app-core';
import type { WatchEvent } from '../../shared/events';
import type { VcaJobView } from '../../shared/task-views';
import { WatchOptionsError, normalizeWatchOptions } from '../../sync/options';
import type { SyncPlan } from '../../sync/plan';
import { RootRefusedError, isInside } from '../../sync/root-guard';
import { WATCHER_BACKENDS, type WatcherBackend } from '../../sync/watcher';
import { addAccountOptions, takeQueueLock, readAccountFlags, requireCredentials } from '../account-options';
import { collect, wholeNumber } from '../option-parsers';
import { findEmulatorDataDir } from '../../service/emulator-guard';
import { printable } from '../../service/expand-paths';
import { CliError } from '../cli-error';
import { RetryNotices, clockTime } from '../retry-notices';

export function register(program: Command): void {
  const cmd = program
    .command('watch')
    .description(
      'watch a folder and upload every finished file once, until interrupted (the same --db continues from its index)',
    )
    .argument('<folder>', 'the folder to watch')
    .option('--bucket <b>', 'destination bucket (required)')
    .option('--prefix <p>', 'prefix put before every key (e.g. "camera/")', '')
    .option(
      '--key-template <t>',
      'key after the prefix: {relpath} {dir} {name} {stem} {ext} {yyyy} {mm} {dd} {hh} {date}',
      '{relpath}',
    )
    .option('--dry-run', 'show what would be uploaded (new, changed, unchanged, ignored, bytes, time) and exit')
    .option('--yes', 'adding a new folder: start without asking (the plan is still printed)')
    .option('--ignore <rule>', 'ignore rule, gitignore syntax (repeatable)', collect)
    .option('--no-default-ignores', 'do not leave out .DS_Store, Thumbs.db, *.tmp, *.part, ~$*, .git/ …')
    .option('--include <glob>', 'upload only files matching this glob (repeatable)', collect)
    .option('--hidden', 'upload files and folders whose name starts with a dot')
    .option('--follow-symlinks', 'follow symbolic links (loop-safe); default: skip them')
    .option('--stability-ms <ms>', 'a file is uploaded after its size and mtime stayed the same this long', '2000')
    .option('--conflict <policy>', 'when the key exists: skip, overwrite or rename', 'overwrite')
    .option('--delete-remote', 'a file deleted locally is deleted on the service too (Fmgr delete; needs --mgr-url)')
    .option(
      '--analyse-videos',
      'start a video content analysis (VCA) job for every uploaded video (needs --mgr-url and --download-domain)',
    )
    .option(
      '--download-domain <url>',
      "base URL where the bucket's objects are downloaded (for VCA source URLs), e.g. https://media.example.com",
    )
    .option('--no-server-side-rename', 'upload a renamed file again instead of an Fmgr copy/move')
    .option('--backend <name>', `watcher backend: ${WATCHER_BACKENDS.join(' or ')}`, 'parcel')
    .option('--concurrency <N>', 'files uploading at once', '4');
  addAccountOptions(cmd).action(async (folder: string, opts: Record<string, unknown>) => {
    process.exitCode = await runWatch(folder, opts);
  });
}

function parseFlags(opts: Record<string, unknown>) {
  const acc = readAccountFlags(opts);
  const bucket = typeof opts.bucket === 'string' ? opts.bucket : '';
  if (!bucket) throw new CliError('--bucket is required');
  const backend = String(opts.backend) as WatcherBackend;
  if (!WATCHER_BACKENDS.includes(backend))
    throw new CliError(`--backend must be ${WATCHER_BACKENDS.join(' or ')}, not "${backend}"`);
  if (opts.deleteRemote && !acc.mgrUrl)
    throw new CliError('--delete-remote needs --mgr-url (or BLOCKLIFT_MGR_URL) for the Fmgr delete');
  const downloadDomain = typeof opts.downloadDomain === 'string' ? opts.downloadDomain : undefined;
  if (opts.analyseVideos && (!acc.mgrUrl || !downloadDomain)) {
    throw new CliError(
      '--analyse-videos needs --mgr-url (the VCA service) and --download-domain (where the service fetches the uploaded video from)',
    );
  }
  let options;
  try {
    options = normalizeWatchOptions({
      ignore: opts.ignore ?? [],
      useDefaultIgnores: opts.defaultIgnores !== false,
      includeOnly: opts.include ?? [],
      includeHidden: opts.hidden === true,
      symlinks: opts.followSymlinks ? 'follow' : 'skip',
      stabilityMs: wholeNumber('--stability-ms', opts.stabilityMs, 0, 3_600_000),
      conflict: opts.conflict,
      localDelete: opts.deleteRemote ? 'delete-remote' : 'keep',
      rename: opts.serverSideRename === false ? 'upload' : 'server-side',
      keyTemplate: opts.keyTemplate,
      vcaForVideos: opts.analyseVideos === true,
    });
  } catch (e) {
    if (e instanceof WatchOptionsError) throw new CliError(e.message.replace('watch option ', 'option '));
    throw e;
  }
  return {
    acc,
    bucket,
    downloadDomain,
    prefix: String(opts.prefix ?? ''),
    options,
    backend,
    concurrency: wholeNumber('--concurrency', opts.concurrency, 1, 64),
  };
}

const MiB = 1024 * 1024;

function printPlan(plan: SyncPlan, json: boolean, out: NodeJS.WritableStream = process.stdout): void {
  if (json) {
    out.write(`${JSON.stringify({ type: 'plan', ...plan })}\n`);
    return;
  }
  const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;
  const lines = [
    `new        ${plan.newFiles} files, ${mib(plan.newBytes)}`,
    `changed    ${plan.changedFiles} files, ${mib(plan.changedBytes)}`,
    `retry      ${plan.retryFiles} files, ${mib(plan.retryBytes)}`,
    `unchanged  ${plan.unchangedFiles} files, ${mib(plan.unchangedBytes)}`,
    `ignored    ${plan.ignoredFiles} files, ${mib(plan.ignoredBytes)}`,
    `renamed    ${plan.renamedFiles} files (server-side, no upload)`,
    `rejected   ${plan.rejectedFiles} files (names the service cannot take)`,
    `to upload  ${plan.filesToUpload} files, ${mib(plan.bytesToUpload)}` +
      (plan.estimatedSeconds === null
        ? ''
        : `, about ${Math.ceil(plan.estimatedSeconds)} s at ${mib(plan.assumedBytesPerSecond)}/s (${plan.speedSource === 'measured' ? 'measured from recent transfers of this database' : 'assumed; no transfers measured yet'})`),
    ...plan.rejected.map((r) => `  rejected ${printable(r.relPath)}: ${r.message}`),
    ...plan.problems.map((p) => `  problem ${printable(p.relPath)}: ${p.message}`),
  ];
  out.write(`${lines.join('\n')}\n`);
}

/**
 * Plan-and-confirm for a folder new to this database: on a terminal, prints the plan and
 * asks (unless --yes); in a script (no TTY), prints the plan to stderr and goes on.
 * Returns false when the user declined.
 */
async function confirmNewRoot(plan: SyncPlan, json: boolean, yes: boolean): Promise<boolean> {
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (!tty) {
    printPlan(plan, json, process.stderr);
    return true;
  }
  printPlan(plan, json);
  if (yes) return true;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question('Start uploading? [y/N] ');
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** One line per finished file on stdout (JSON with --json); everything else on stderr. */
function report(e: WatchEvent, json: boolean): void {
  if (e.type === 'file-done') {
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ path: e.relPath, key: e.key, hash: e.etag, size: e.size, status: e.status, ...(e.from ? { from: e.from } : {}), ...(e.error ? { error: e.error } : {}) })}\n`,
      );
    } else {
      process.stdout.write(
        `${e.status.padEnd(8)} ${printable(e.relPath)} → ${printable(e.key)} (${e.size} bytes)${e.etag ? ` ${e.etag}` : ''}${e.error ? `: ${e.error.message}` : ''}\n`,
      );
    }
  } else if (e.type === 'rejected' || e.type === 'problem') {
    process.stderr.write(`blocklift: ${e.relPath ? printable(e.relPath) : '(root)'}: ${e.message}\n`);
  } else if (e.type === 'state' && (e.state === 'unavailable' || e.state === 'watching')) {
    process.stderr.write(`blocklift: ${e.state}${e.reason ? `: ${e.reason}` : ''}\n`);
  } else if (e.type === 'scan-finished') {
    const c = e.counts;
    process.stderr.write(
      `blocklift: reconciled in ${e.durationMs} ms: ${c.newFiles} new, ${c.changedFiles} changed, ${c.unchangedFiles} unchanged, ${c.ignoredFiles} ignored, ${c.waitingFiles} still being written\n`,
    );
  }
}

/** One line when a video's analysis ends: its labels (JSON with --json, as `vca show` gives them). */
function reportVcaJob(job: VcaJobView, json: boolean): void {
  const labels = job.results.flatMap((g) =>
    g.labels.map((l) => ({ type: g.type, label: l.correctedText ?? l.attribute, confidence: l.confidence })),
  );
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ vcaJob: job.jobId, source: job.sourceUrl, state: job.state, labels, ...(job.error ? { error: job.error } : {}) })}\n`,
    );
  } else {
    const text = labels.map((l) => `${l.label} ${l.confidence}`).join(', ');
    process.stdout.write(
      `vca      ${job.sourceUrl ?? job.jobId}: ${job.state ?? job.error?.message ?? job.tracking}${text ? ` (${text})` : ''}\n`,
    );
  }
}

/** Says at once when the engine will retry (an outage must not look like silence), on stderr (a JSON line with --json). */
function reportRetries(core: AppCore, json: boolean): void {
  const notices = new RetryNotices();
  core.engine.onProgress((p) => {
    const n = notices.accept(p);
    const s = n && core.engine.get(n.id);
    if (!n || !s) return;
    if (json) {
      const at = new Date(n.nextAttemptAt).toISOString();
      const line = { status: 'retrying', key: s.key, path: s.localPath, reason: n.reason, nextAttemptAt: at };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    } else
      process.stderr.write(
        `blocklift: retrying ${printable(s.key)}: ${n.reason}; next attempt at ${clockTime(n.nextAttemptAt)}\n`,
      );
  });
}

/**
 * Runs the watch over the app core (service/app-core.ts) on the --db file, with the flags'
 * account as a session account (its secret kept in memory, never written) and no embedded
 * emulator. Only the given folder is watched (other stored roots are not started).
 */
async function runWatch(folder: string, opts: Record<string, unknown>): Promise<number> {
  const f = parseFlags(opts);
  const dbFile = f.acc.db;
  if (!f.acc.uploadUrl && !opts.dryRun)
    throw new CliError(
      '--upload-url (or BLOCKLIFT_UPLOAD_URL) is required, e.g. http://127.0.0.1:8088 for `blocklift emulator`',
    );
  if (!opts.dryRun) requireCredentials(f.acc);
  const emulatorData = await findEmulatorDataDir(folder);
  if (emulatorData)
    throw new CliError(
      `${folder} ${isInside(path.resolve(folder), emulatorData) ? 'is inside' : 'holds'} the emulator's data folder ${emulatorData}: watching it would upload the emulator's own files forever; watch another folder, or give the emulator a --data folder outside it (its default is in Blocklift's data folder)`,
    );
  // One uploading process per queue database (service/queue-lock.ts); a dry run uploads nothing.
  const lock = opts.dryRun ? undefined : takeQueueLock(dbFile, 'blocklift watch');
  let core: AppCore;
  try {
    core = await AppCore.open({
      dataDir: f.acc.dataDir,
      dbFile,
      embeddedEmulator: false,
      startEngine: false,
      startWatching: false,
      watcherBackend: f.backend,
      engine: { limits: { maxFiles: f.concurrency, maxBlocks: f.concurrency }, defaultConflict: f.options.conflict },
    });
  } catch (e) {
    lock?.release();
    throw new CliError(`cannot open the database ${dbFile}: ${(e as Error).message}`);
  }
  try {
    const input = { folder, prefix: f.prefix, options: { ...f.options } };
    if (opts.dryRun) {
      const { plan } = await core.watch.plan(input);
      printPlan(plan, f.acc.json);
      return 0;
    }
    const accountId = core.useSessionAccount({
      name: `cli ${f.acc.uploadUrl}${f.acc.accessKey ? ` ${f.acc.accessKey}` : ''}`,
      uploadUrl: f.acc.uploadUrl!,
      mgrUrl: f.acc.mgrUrl,
      downloadDomain: f.downloadDomain,
      accessKey: f.acc.accessKey,
      secretKey: f.acc.tokenUrl ? undefined : f.acc.secretKey,
      tokenUrl: f.acc.tokenUrl,
    });
    reportRetries(core, f.acc.json);
    core.on((e) => {
      if (e.type === 'watch') report(e.event, f.acc.json);
      else if (e.type === 'vca-job-changed' && e.job.tracking !== 'active') reportVcaJob(e.job, f.acc.json);
      else if (e.type === 'problem') process.stderr.write(`blocklift: ${e.problem.message}\n`);
    });
    const { plan, isNew } = await core.watch.plan(input);
    if (isNew && !(await confirmNewRoot(plan, f.acc.json, opts.yes === true))) {
      process.stderr.write('blocklift: not started; nothing was queued\n');
      return 1;
    }
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      core.engine.start();
      await core.watch.addRoot({ ...input, accountId, bucket: f.bucket });
      await stopped;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    // Watching ends only when interrupted: 130, as for any interrupted command.
    process.stderr.write('blocklift: interrupted; the same command continues from the index\n');
    return 130;
  } catch (e) {
    if (e instanceof RootRefusedError) {
      const hint =
        e.code === 'root-inside-data-folder' || e.code === 'root-is-data-folder'
          ? ` (Blocklift's data folder ${f.acc.dataDir}; give --data a folder outside what you watch)`
          : '';
      throw new CliError(`${e.message}${hint}`);
    }
    throw e;
  } finally {
    await core.close();
    lock?.release();
  }
}
