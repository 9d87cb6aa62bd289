import { readAccountFlags, type AccountFlags } from './account-options';
import { openApp, type CliApi } from './app-client';
import { CliError } from './cli-error';
import { connectRunningApp } from './door-client';
import { valueOf } from './service-result';

/**
 * What the `fmgr` and `vca` commands open: the running app of the data folder (its door),
 * or the app service here on the database with the flags' account as a session account
 * named by the management host (`sessionAccountName`). Either way only the contract's verbs.
 * With no management host given and an app running, the app's default account is used (as
 * `upload` does): its keys are the app's, and its embedded emulator's port is the app's to know.
 */

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

/** What a command that calls the app's verbs works with; close() releases it. */
export interface ServiceContext {
  flags: AccountFlags;
  api: CliApi;
  /** The flags' account in the app. */
  accountId: number;
  /** The running app's door URL when handed to it; null when this process runs the service. */
  handedTo: string | null;
  close(): Promise<void>;
}

/**
 * Opens the running app, or the app service on the --db file (no engine run, no embedded
 * emulator, no other task polled), with the flags' account. `signed`: the call needs AK and SK.
 */
export async function openTasksService(opts: Record<string, unknown>, signed: boolean): Promise<ServiceContext> {
  const given = readAccountFlags(opts);
  if (!given.mgrUrl) {
    const running = await inRunningApp(given);
    if (running) return running;
  }
  const flags = tasksFlags(opts, signed);
  const app = await openApp(flags, {
    account: {
      name: sessionAccountName(flags.mgrUrl),
      uploadUrl: flags.uploadUrl ?? flags.mgrUrl,
      mgrUrl: flags.mgrUrl,
      accessKey: flags.accessKey,
      secretKey: flags.secretKey,
      tokenUrl: flags.tokenUrl,
    },
    sameAccount: (a) => a.mgrUrl === flags.mgrUrl && (!flags.accessKey || a.accessKey === flags.accessKey),
    inProcess: {
      embeddedEmulator: false,
      startEngine: false,
      resumeTrackers: false,
      startWatching: false,
      wakeDetector: false,
    },
  });
  return { flags, api: app.api, accountId: app.accountId!, handedTo: app.handedTo, close: () => app.close() };
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

/** The running app of the data folder with its default account, when one runs; undefined otherwise. */
async function inRunningApp(flags: AccountFlags): Promise<ServiceContext | undefined> {
  const door = await connectRunningApp(flags.dataDir, flags.db);
  if (!door) return undefined;
  try {
    // As the app resolves an account not named (AccountsUseCase.resolve): its default, else the Local one, else the only one.
    const all = valueOf(await door.accounts.list());
    const account =
      all.find((a) => a.isDefault) ?? all.find((a) => a.isLocal) ?? (all.length === 1 ? all[0] : undefined);
    if (!account?.mgrUrl)
      throw new CliError(
        `the Blocklift app running on this data folder (${door.url}) has no default account with a management host: give one with --mgr-url (or BLOCKLIFT_MGR_URL), or set it in the app's Settings`,
      );
    return { flags, api: door, accountId: account.id, handedTo: door.url, close: () => door.close() };
  } catch (e) {
    await door.close();
    throw e;
  }
}
