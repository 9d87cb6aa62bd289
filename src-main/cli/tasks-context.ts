import { AppCore } from '../service/app-core';
import { AppService } from '../service/app-service';
import type { Db } from '../store/db';
import type { FmgrTracker } from '../tasks/fmgr-tracker';
import { TaskError } from '../tasks/task-error';
import type { VcaTracker } from '../tasks/vca-tracker';
import { readAccountFlags, type AccountFlags } from './account-options';
import { CliError } from './cli-error';

/**
 * What the `fmgr` and `vca` commands open: the app service (the verbs) or, for the
 * subcommands that still need the trackers' own lookups, the app core; both with the flags'
 * account as a session account named by the management host (`sessionAccountName`).
 */

/** What the fmgr and vca commands work with; close() releases all of it. */
export interface TasksContext {
  flags: AccountFlags;
  db: Db;
  /** The session account of the flags (its secret kept in memory only). */
  accountId: number;
  fmgr: FmgrTracker;
  vca: VcaTracker;
  close(): Promise<void>;
}

/**
 * Opens the app core on the --db file (no engine run, no embedded emulator, no other task
 * polled) with the flags' account as a session account. `signed`: the call needs AK and SK.
 */
export async function openTasksContext(opts: Record<string, unknown>, signed: boolean): Promise<TasksContext> {
  const flags = tasksFlags(opts, signed);
  const dbFile = flags.db;
  let core: AppCore;
  try {
    core = await AppCore.open({
      dataDir: flags.dataDir,
      dbFile,
      embeddedEmulator: false,
      startEngine: false,
      resumeTrackers: false,
      startWatching: false,
    });
  } catch (e) {
    throw new CliError(`cannot open the database ${dbFile}: ${(e as Error).message}`);
  }
  const accountId = core.useSessionAccount({
    name: sessionAccountName(flags.mgrUrl),
    uploadUrl: flags.uploadUrl ?? flags.mgrUrl,
    mgrUrl: flags.mgrUrl,
    accessKey: flags.accessKey,
    secretKey: flags.secretKey,
    tokenUrl: flags.tokenUrl,
  });
  return { flags, db: core.db, accountId, fmgr: core.fmgr, vca: core.vca, close: () => core.close() };
}

/**
 * The session account of fmgr/vca commands is named by the management host only, normalized
 * (`cli https://mgr.example.com`, no trailing slash, lower-case host, default port dropped):
 * the same host with or without --ak, --upload-url or a trailing slash is one account, so a
 * job created with one set of flags is found with another.
 */
export function sessionAccountName(mgrUrl: string): string {
  let u: URL;
  try {
    u = new URL(mgrUrl.trim());
  } catch {
    throw new CliError(`--mgr-url "${mgrUrl}" is not a URL; give the management host like http://127.0.0.1:8088`);
  }
  return `cli ${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The flags of an fmgr/vca command, checked: a management host, and AK+SK when the call is `signed`. */
function tasksFlags(opts: Record<string, unknown>, signed: boolean): AccountFlags & { mgrUrl: string } {
  const flags = readAccountFlags(opts);
  if (!flags.mgrUrl)
    throw new CliError('missing --mgr-url (or BLOCKLIFT_MGR_URL): the management host, e.g. http://127.0.0.1:8088');
  if (signed) {
    const missing = [!flags.accessKey && '--ak (or BLOCKLIFT_AK)', !flags.secretKey && '--sk (or BLOCKLIFT_SK)'].filter(
      Boolean,
    );
    if (missing.length)
      throw new CliError(
        `missing ${missing.join(' and ')}: management calls are signed with the account's keys (a token provider cannot sign them)`,
      );
  }
  return { ...flags, mgrUrl: flags.mgrUrl };
}

/** What a command that calls the app service's verbs works with; close() releases it. */
export interface ServiceContext {
  flags: AccountFlags;
  service: AppService;
  /** The session account of the flags (its secret kept in memory only). */
  accountId: number;
  close(): Promise<void>;
}

/**
 * Opens the app service on the --db file (no engine run, no embedded emulator, no other task
 * polled) with the flags' account as a session account. `signed`: the call needs AK and SK.
 */
export async function openTasksService(opts: Record<string, unknown>, signed: boolean): Promise<ServiceContext> {
  const flags = tasksFlags(opts, signed);
  let service: AppService;
  try {
    service = await AppService.open({
      dataDir: flags.dataDir,
      dbFile: flags.db,
      embeddedEmulator: false,
      startEngine: false,
      resumeTrackers: false,
      startWatching: false,
      wakeDetector: false,
    });
  } catch (e) {
    throw new CliError(`cannot open the database ${flags.db}: ${(e as Error).message}`);
  }
  const accountId = service.useSessionAccount({
    name: sessionAccountName(flags.mgrUrl),
    uploadUrl: flags.uploadUrl ?? flags.mgrUrl,
    mgrUrl: flags.mgrUrl,
    accessKey: flags.accessKey,
    secretKey: flags.secretKey,
    tokenUrl: flags.tokenUrl,
  });
  return { flags, service, accountId, close: () => service.close() };
}

/** Turns a TaskError into the CLI's one-line error. */
export function cliErrorOf(e: unknown): unknown {
  if (e instanceof TaskError)
    return new CliError(e.message, e.code === 'bad-input' || e.code === 'bad-operation' ? 2 : 1);
  return e;
}

/** An AbortSignal that fires on Ctrl-C or after --timeout seconds; dispose() removes both. */
export function waitSignal(timeoutSeconds: number | undefined): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onSig = () => ac.abort(new Error('interrupted'));
  process.once('SIGINT', onSig);
  const timer =
    timeoutSeconds === undefined ? undefined : setTimeout(() => ac.abort(new Error('timeout')), timeoutSeconds * 1000);
  return {
    signal: ac.signal,
    dispose: () => {
      process.removeListener('SIGINT', onSig);
      if (timer) clearTimeout(timer);
    },
  };
}

export function seconds(flag: string) {
  return (v: string): number => {
    if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) <= 0)
      throw new CliError(`${flag} must be a number of seconds above 0, not "${v}"`);
    return Number(v);
  };
}
