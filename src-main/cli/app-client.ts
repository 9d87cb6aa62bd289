import type { AccountView, AppApi, AppEventMessage } from '../shared/contract';
import type { AppService, AppServiceOptions } from '../service/app-service';
import { apiOfCalls } from './api-of-calls';
import { QueueInUseError } from '../service/queue-lock';
import type { AccountFlags } from './account-options';
import { CliError } from './cli-error';
import { connectRunningApp } from './door-client';
import { valueOf } from './service-result';
import type { SessionAccountInput } from '../service/use-cases';

/**
 * What `upload`, `watch`, `fmgr` and `vca` talk to: the app running on the same data folder
 * (its door, door-client.ts) when there is one, else the app service opened in this process
 * on the database. Both are the contract (AppApi) plus its event batches, so a command is
 * written once; `handedTo` says which (the running app's URL, or null).
 */
export interface CliApi extends AppApi {
  on(listener: (e: AppEventMessage) => void): () => void;
}

export interface CliApp {
  api: CliApi;
  /** The running app's door URL when the work was handed to it; null when this process does it. */
  handedTo: string | null;
  /** The account of the flags in the app (undefined: the app's default account). */
  accountId: number | undefined;
  /** Called once if the running app stops while this command follows its work. */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/** The account the flags describe (kept in memory only when this process runs the work). */
export type FlagsAccount = SessionAccountInput;

export interface OpenAppOptions {
  /** How to open the app service here when no app runs (the data folder and database come from the flags). */
  inProcess: Omit<AppServiceOptions, 'dataDir' | 'dbFile'>;
  /** The flags' account; undefined: the app's default account. */
  account: FlagsAccount | undefined;
  /** A running app's account that is the flags' one (same host and access key). */
  sameAccount: (a: AccountView) => boolean;
  /** Checks that only matter when this process does the work (credentials given); throws CliError. */
  beforeInProcess?: () => void;
  /** false: never hand off (a dry run reads the database only). Default true. */
  handOff?: boolean;
}

export async function openApp(flags: AccountFlags, o: OpenAppOptions): Promise<CliApp> {
  const door = o.handOff === false ? undefined : await connectRunningApp(flags.dataDir, flags.db);
  if (door) {
    try {
      const accountId = o.account ? await accountInApp(door, o.account, o.sameAccount) : undefined;
      return { api: door, handedTo: door.url, accountId, onLost: (l) => door.onLost(l), close: () => door.close() };
    } catch (e) {
      await door.close();
      throw e;
    }
  }
  o.beforeInProcess?.();
  // Loaded here: a command handed to a running app never loads the engine and the database.
  const { AppService } = await import('../service/app-service');
  let service;
  const internal = new Map<string, unknown>();
  try {
    service = await AppService.open({
      ...o.inProcess,
      dataDir: flags.dataDir,
      dbFile: flags.db,
      onInternalError: (method, e) => internal.set(method, e),
    });
  } catch (e) {
    if (e instanceof QueueInUseError)
      throw new CliError(
        `${e.message}, or give this command another data folder (--data <folder>) or queue (--db <file>)`,
        1,
        e.code,
      );
    throw new CliError(`cannot open the database ${flags.db}: ${(e as Error).message}`, 1);
  }
  const accountId = o.account ? service.useSessionAccount(o.account) : undefined;
  const api = rethrowingInternal(service, internal);
  return { api, handedTo: null, accountId, onLost: () => undefined, close: () => service.close() };
}

/**
 * The in-process service whose verbs reject with the original error where the envelope
 * answered 'internal': the command's "unexpected error" (exit 70) then names what broke and
 * logs its stack, as it did before the service stood between.
 */
function rethrowingInternal(service: AppService, internal: Map<string, unknown>): CliApi {
  const api = apiOfCalls(async (method, input) => {
    internal.delete(method);
    const r = await service.invoke(method, input);
    if (!r.ok && r.error.code === 'internal' && internal.has(method)) throw internal.get(method);
    return r;
  });
  return { ...api, on: (l) => service.on(l) };
}

/**
 * The flags' account in the running app: an account of the app's own for the same host and
 * access key (one the user set up there), else the command line's account of that name,
 * saved with the flags' secret (it goes to the app's secret store, as the Settings form
 * sends it; the rows named "cli …" are the command line's own, and a secret this process
 * kept in memory before is not in the app).
 */
async function accountInApp(
  api: AppApi,
  account: FlagsAccount,
  sameAccount: (a: AccountView) => boolean,
): Promise<number> {
  const all = valueOf(await api.accounts.list());
  const configured = all.find((a) => !a.name.startsWith('cli ') && sameAccount(a));
  if (configured) return configured.id;
  const mine = all.find((a) => a.name === account.name);
  const saved = valueOf(
    await api.accounts.save({
      ...(mine ? { id: mine.id } : {}),
      name: account.name,
      uploadUrl: account.uploadUrl,
      mgrUrl: account.mgrUrl ?? null,
      downloadDomain: account.downloadDomain ?? null,
      accessKey: account.accessKey ?? null,
      ...(account.secretKey ? { secretKey: account.secretKey } : {}),
      tokenUrl: account.tokenUrl ?? null,
    }),
  );
  if (!mine) process.stderr.write(`blocklift: added the account "${saved.name}" to the running app\n`);
  return saved.id;
}

/** Says once, at the start, that the work goes to the running app (on stderr; stdout stays the results). */
export function sayHandedOff(app: CliApp, what: string): void {
  if (app.handedTo) process.stderr.write(`blocklift: ${what} handed to the Blocklift app running at ${app.handedTo}\n`);
}
