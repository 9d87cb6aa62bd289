import type { Command } from 'commander';
import { CliError } from './cli-error';

/**
 * The account flags shared by `upload`, `watch`, `fmgr` and `vca`, with their environment
 * fallbacks (BLOCKLIFT_AK, BLOCKLIFT_SK, BLOCKLIFT_UPLOAD_URL, BLOCKLIFT_MGR_URL,
 * BLOCKLIFT_TOKEN_URL). Parsed once here; commands receive `AccountFlags`.
 */
/** Where the CLI keeps its queue, index and tasks unless --db says otherwise. */
export const DEFAULT_DB_FILE = './.blocklift/blocklift.db';

export interface AccountFlags {
  uploadUrl?: string;
  mgrUrl?: string;
  accessKey?: string;
  secretKey?: string;
  tokenUrl?: string;
  /** The --db file, or DEFAULT_DB_FILE. */
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
    .option('--db <file>', `SQLite database of the queue (default: ${DEFAULT_DB_FILE})`)
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
  return {
    uploadUrl: validUrl(str(opts.uploadUrl) ?? env.BLOCKLIFT_UPLOAD_URL, '--upload-url'),
    mgrUrl: validUrl(str(opts.mgrUrl) ?? env.BLOCKLIFT_MGR_URL, '--mgr-url'),
    accessKey: str(opts.ak) ?? env.BLOCKLIFT_AK,
    secretKey: str(opts.sk) ?? env.BLOCKLIFT_SK,
    tokenUrl: validUrl(str(opts.tokenUrl) ?? env.BLOCKLIFT_TOKEN_URL, '--token-url'),
    db: str(opts.db) ?? DEFAULT_DB_FILE,
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
