import type { Command } from 'commander';
import { databaseFile, dataDirFromFlags } from '../service/data-dir';
import { CliError } from './cli-error';

/**
 * The account flags shared by `upload`, `watch`, `fmgr` and `vca`, with their environment
 * fallbacks (BLOCKLIFT_AK, BLOCKLIFT_SK, BLOCKLIFT_UPLOAD_URL, BLOCKLIFT_MGR_URL,
 * BLOCKLIFT_TOKEN_URL). Parsed once here; commands receive `AccountFlags`.
 */

export interface AccountFlags {
  uploadUrl?: string;
  mgrUrl?: string;
  accessKey?: string;
  secretKey?: string;
  tokenUrl?: string;
  /** --data, else the folder of --db, else BLOCKLIFT_DATA or the per-user app-data folder (service/data-dir.ts). */
  dataDir: string;
  /** The --db file, or blocklift.db in dataDir. */
  db: string;
  json: boolean;
}

export function addAccountOptions(cmd: Command): Command {
  return cmd
    .option('--upload-url <url>', 'upload host URL (env BLOCKLIFT_UPLOAD_URL)')
    .option('--mgr-url <url>', 'management host URL (env BLOCKLIFT_MGR_URL)')
    .option('--ak <AK>', 'access key (env BLOCKLIFT_AK)')
    .option('--sk <SK>', 'secret key (env BLOCKLIFT_SK); prefer the env var, flags show in ps')
    .option('--token-url <url>', 'remote upload-token provider instead of a secret key (env BLOCKLIFT_TOKEN_URL)')
    .option(
      '--data <folder>',
      "the app's data folder: queue, index, logs (env BLOCKLIFT_DATA; default: per-user app data)",
    )
    .option('--db <file>', 'the queue database, for tests and scripts (default: blocklift.db in the data folder)')
    .option('--json', 'machine-readable output: one JSON object per line', false);
}

function validUrl(value: string | undefined, flag: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new CliError(`${flag} "${value}" is not a URL; give it like http://127.0.0.1:8080`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new CliError(`${flag} must be an http:// or https:// URL, not ${u.protocol}`);
  return value.replace(/\/+$/, '');
}

/** Reads the flags of `addAccountOptions`, falling back to the environment. */
export function readAccountFlags(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): AccountFlags {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const db = str(opts.db);
  const dataDir = dataDirFromFlags({ data: str(opts.data), db }, env);
  return {
    uploadUrl: validUrl(str(opts.uploadUrl) ?? env.BLOCKLIFT_UPLOAD_URL, '--upload-url'),
    mgrUrl: validUrl(str(opts.mgrUrl) ?? env.BLOCKLIFT_MGR_URL, '--mgr-url'),
    accessKey: str(opts.ak) ?? env.BLOCKLIFT_AK,
    secretKey: str(opts.sk) ?? env.BLOCKLIFT_SK,
    tokenUrl: validUrl(str(opts.tokenUrl) ?? env.BLOCKLIFT_TOKEN_URL, '--token-url'),
    dataDir,
    db: db ?? databaseFile(dataDir),
    json: opts.json === true,
  };
}

/** Throws a CliError naming what is missing for signing requests locally or remotely. */
export function requireCredentials(flags: AccountFlags): void {
  if (flags.tokenUrl) return;
  const missing = [!flags.accessKey && '--ak (or BLOCKLIFT_AK)', !flags.secretKey && '--sk (or BLOCKLIFT_SK)'].filter(
    Boolean,
  );
  if (missing.length)
    throw new CliError(`missing ${missing.join(' and ')}; or give --token-url to get tokens from a token provider`);
}

/** Throws a CliError unless the flags can upload in this process: an upload URL and a way to sign. */
export function requireUploadAccount(flags: AccountFlags): void {
  if (!flags.uploadUrl)
    throw new CliError(
      '--upload-url (or BLOCKLIFT_UPLOAD_URL) is required, e.g. http://127.0.0.1:8088 for `blocklift emulator`',
    );
  requireCredentials(flags);
}

/** Whether a running app's account is the one the upload flags describe (same upload host and access key). */
export function sameUploadAccount(
  flags: AccountFlags,
): (a: { uploadUrl: string; accessKey: string | null }) => boolean {
  return (a) => a.uploadUrl === flags.uploadUrl && (!flags.accessKey || a.accessKey === flags.accessKey);
}
