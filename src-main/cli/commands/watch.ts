import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Result } from '../../shared/contract';
import { WATCHER_BACKENDS, type WatcherBackend } from '../../shared/models';
import { WATCH_OPTION_DEFAULTS, WATCH_OPTION_FIELDS, type WatchRootOptionsInput } from '../../shared/watch-views';
import { addAccountOptions, readAccountFlags, requireUploadAccount, sameUploadAccount } from '../account-options';
import { openApp, sayHandedOff, type CliApp } from '../app-client';
import { valueOf } from '../service-result';
import { collect, wholeNumber } from '../option-parsers';
import { emulatorDataDirRefusal } from '../../service/emulator-guard';
import { CliError } from '../cli-error';
import { checked } from '../input-check';
import { confirmNewRoot, printActivity, printPlan } from '../watch-report';

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

function parseFlags(opts: Record<string, unknown>): WatchFlags {
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
  // Checked with the contract's rules for a folder's options (shared/watch-views.ts), said with the flag.
  const options = checked(
    WATCH_OPTION_FIELDS,
    {
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
    },
    (p) => `${OPTION_FLAGS[String(p[0])] ?? ''} (option ${String(p[0])})`.trimStart(),
  );
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

/** The flag of each folder option the command sets. */
const OPTION_FLAGS: Partial<Record<keyof WatchRootOptionsInput, string>> & Record<string, string | undefined> = {
  ignore: '--ignore',
  useDefaultIgnores: '--no-default-ignores',
  includeOnly: '--include',
  includeHidden: '--hidden',
  symlinks: '--follow-symlinks',
  stabilityMs: '--stability-ms',
  conflict: '--conflict',
  localDelete: '--delete-remote',
  rename: '--no-server-side-rename',
  keyTemplate: '--key-template',
  vcaForVideos: '--analyse-videos',
};

interface WatchFlags {
  acc: ReturnType<typeof readAccountFlags>;
  bucket: string;
  downloadDomain: string | undefined;
  prefix: string;
  options: WatchRootOptionsInput;
  backend: WatcherBackend;
  concurrency: number;
}

/** The running app of the data folder, or the app service here with only this folder watched. */
function openWatchApp(f: WatchFlags, dryRun: boolean): Promise<CliApp> {
  const { acc } = f;
  return openApp(acc, {
    account: acc.uploadUrl
      ? {
          name: `cli ${acc.uploadUrl}${acc.accessKey ? ` ${acc.accessKey}` : ''}`,
          uploadUrl: acc.uploadUrl,
          mgrUrl: acc.mgrUrl,
          downloadDomain: f.downloadDomain,
          accessKey: acc.accessKey,
          secretKey: acc.tokenUrl ? undefined : acc.secretKey,
          tokenUrl: acc.tokenUrl,
        }
      : undefined,
    sameAccount: sameUploadAccount(acc),
    beforeInProcess: () => {
      if (dryRun) return;
      requireUploadAccount(acc);
    },
    inProcess: {
      embeddedEmulator: false,
      startEngine: !dryRun,
      // Only the given folder is watched (other stored roots are not started).
      startWatching: false,
      // One uploading process per queue database (the core takes the lock); a dry run uploads nothing.
      queueLock: dryRun ? false : 'blocklift watch',
      watcherBackend: f.backend,
      engine: {
        limits: { maxFiles: f.concurrency, maxBlocks: f.concurrency },
        defaultConflict: f.options.conflict ?? WATCH_OPTION_DEFAULTS.conflict,
      },
    },
  });
}

/** Whether the app already watches this folder (then no plan-and-confirm). */
async function watchedAlready(app: CliApp, folder: string): Promise<boolean> {
  let real = path.resolve(folder);
  try {
    real = realpathSync(real);
  } catch {
    // the app says what is wrong with the folder
  }
  return valueOf(await app.api.roots.list()).some((r) => r.path === real || r.path === path.resolve(folder));
}

/** Refusals of the folder are the command's input: exit 2, with a hint when it is Blocklift's own data folder. */
function refusal(r: Result<unknown>, dataDir: string): void {
  if (r.ok || (r.error.code !== 'root-refused' && r.error.code !== 'path-not-found')) return;
  const code = r.error.params.refusal;
  const hint =
    code === 'root-inside-data-folder' || code === 'root-is-data-folder'
      ? ` (Blocklift's data folder ${dataDir}; give --data a folder outside what you watch)`
      : '';
  throw new CliError(`${r.error.message}${hint}`);
}

/**
 * Runs the watch through the app's verbs: the app running on the data folder when there is
 * one (the folder is then watched by it, also after this command ends), else the app
 * service here on the --db file, with the flags' account as a session account (its secret
 * kept in memory, never written) and no embedded emulator.
 */
async function runWatch(folder: string, opts: Record<string, unknown>): Promise<number> {
  const f = parseFlags(opts);
  const dryRun = opts.dryRun === true;
  const refused = await emulatorDataDirRefusal(folder, f.acc.dataDir);
  if (refused) throw new CliError(refused.message);
  const app = await openWatchApp(f, dryRun);
  const shown = printActivity(app, f.acc.json, f.bucket);
  try {
    const input = { path: path.resolve(folder), bucket: f.bucket, prefix: f.prefix, options: { ...f.options } };
    const planned = await app.api.roots.plan(input);
    refusal(planned, f.acc.dataDir);
    const plan = valueOf(planned);
    if (dryRun) {
      printPlan(plan, f.acc.json);
      return 0;
    }
    sayHandedOff(app, 'the folder is');
    if (!(await watchedAlready(app, folder)) && !(await confirmNewRoot(plan, f.acc.json, opts.yes === true))) {
      process.stderr.write('blocklift: not started; nothing was queued\n');
      return 1;
    }
    const ended = stopSignal(app);
    try {
      const added = await app.api.roots.add({
        ...input,
        ...(app.accountId !== undefined ? { accountId: app.accountId } : {}),
      });
      refusal(added, f.acc.dataDir);
      shown.setRoot(valueOf(added).id);
      const why = await ended.promise;
      if (why === 'lost') {
        process.stderr.write('blocklift: the running app stopped; run the same command again to go on watching\n');
        return 1;
      }
    } finally {
      ended.dispose();
    }
    // Watching ends only when interrupted: 130, as for any interrupted command.
    process.stderr.write(
      app.handedTo
        ? `blocklift: stopped following; the running app (${app.handedTo}) goes on watching the folder (remove it there to stop)\n`
        : 'blocklift: interrupted; the same command continues from the index\n',
    );
    return 130;
  } finally {
    shown.stop();
    await app.close();
  }
}

/** Resolves on Ctrl-C / SIGTERM, or when the running app goes away; holds the process open meanwhile. */
function stopSignal(app: CliApp): { promise: Promise<'signal' | 'lost'>; dispose(): void } {
  let done!: (why: 'signal' | 'lost') => void;
  const promise = new Promise<'signal' | 'lost'>((r) => (done = r));
  const onSignal = () => done('signal');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  app.onLost(() => done('lost'));
  const keepAlive = setInterval(() => {}, 1 << 30);
  return {
    promise,
    dispose: () => {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
