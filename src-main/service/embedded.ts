import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { prefixedLogger, silentLogger, type Logger } from '../base/logger';
import { onPortElseAny, startEmulatorHost, type EmulatorHost, type HostMode } from '../emulator/host';
import type { HostedEmulatorOptions } from '../emulator/host-protocol';
import { DEFAULT_BUCKET } from '../emulator/server';
import type { AccountRepo } from '../store/account-repo';
import { readSecretFile, SecretError } from './secrets';

/** The name of the account of the embedded emulator (design.md "The embedded default"). */
export const LOCAL_ACCOUNT_NAME = 'Local';
export const LOCAL_ACCESS_KEY = 'blocklift-local';
/** The secret key file of the Local account, in the data folder, mode 0600. */
export const LOCAL_KEY_FILE = 'local-account.key';
export const EMULATOR_DIR = 'emulator';

export interface EmbeddedEmulator {
  /** The emulator, run off the app's main loop (a child process; emulator/host.ts). */
  emulator: EmulatorHost;
  accountId: number;
  /** The bucket the emulator serves (uploads of the Local account go there). */
  bucket: string;
}

/**
 * The Local account's secret: read from <dataDir>/local-account.key, or generated once
 * (random, 32 bytes) and written there with mode 0600 when the file does not exist. A file
 * others may read is refused (SecretError 'secret-file-unsafe', saying chmod 600).
 */
export function localSecret(dataDir: string): { file: string; secret: string } {
  const file = path.resolve(dataDir, LOCAL_KEY_FILE);
  try {
    return { file, secret: readSecretFile(file) };
  } catch (e) {
    if (!(e instanceof SecretError) || e.code !== 'secret-file-unreadable') throw e;
  }
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // Another process created it first: use that one.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return { file, secret: readSecretFile(file) };
    throw e;
  }
  return { file, secret };
}

/** What the app may set of the embedded emulator (the rest is the embedded default's). */
export type EmbeddedEmulatorOptions = Partial<Omit<HostedEmulatorOptions, 'dataDir'>> & {
  /** Child process (the default) or worker thread (emulator/host.ts). */
  hostMode?: HostMode;
};

/** The loopback port the Local account's upload URL names (the emulator's port of the last run), if any. */
function lastPort(accounts: AccountRepo): number | undefined {
  const url = accounts.byName(LOCAL_ACCOUNT_NAME)?.uploadUrl;
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const port = Number(u.port);
    return u.hostname === '127.0.0.1' && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the emulator off the app's main loop (a child process by default: emulator/host.ts)
 * on a loopback port (the last run's when it is free, else a random one), its data in <dataDir>/emulator, and creates or updates the
 * "Local" account pointing at it (upload and management URL; download domain = its download
 * URL of the bucket, so access URLs of uploaded objects work). The account row holds
 * `file:<key file>`, never the secret; the secret goes to the emulator only. What it reports
 * (internal errors, a background task that stopped, a crash and its restart) goes to
 * `logger`. After a crash it is restarted on the same data folder and port; when that port
 * is taken, on another, and the Local account gets the new URLs. The caller owns the
 * emulator and closes it (close waits until it stopped).
 */
export async function startEmbedded(
  dataDir: string,
  accounts: AccountRepo,
  overrides: EmbeddedEmulatorOptions = {},
  logger: Logger = silentLogger,
): Promise<EmbeddedEmulator> {
  const { file, secret } = localSecret(dataDir);
  const { hostMode, ...options } = overrides;
  let bucket = DEFAULT_BUCKET;
  const upsertLocal = (emulator: EmulatorHost) =>
    accounts.upsert({
      name: LOCAL_ACCOUNT_NAME,
      uploadUrl: emulator.uploadUrl,
      mgrUrl: emulator.mgrUrl,
      downloadDomain: `${emulator.downloadBaseUrl}/${bucket}`,
      accessKey: LOCAL_ACCESS_KEY,
      secretRef: `file:${file}`,
      tokenUrl: null,
    });
  // What the emulator reports goes to the app's log, never to the app's stderr.
  const emuLogger = prefixedLogger(logger, 'embedded emulator: ');
  const start = (port: number) =>
    startEmulatorHost({
      mode: hostMode,
      logger: emuLogger,
      emulator: {
        ...options,
        port,
        host: '127.0.0.1',
        dataDir: path.join(dataDir, EMULATOR_DIR),
        accessKey: LOCAL_ACCESS_KEY,
        secretKey: secret,
      },
      onRestarted: (emu) => {
        try {
          upsertLocal(emu);
        } catch (e) {
          emuLogger.error(`the Local account keeps its old URLs: ${(e as Error).message}`);
        }
      },
    });
  // The port of the last run (the Local account's URL), so that the URLs it gave out (video
  // jobs' sources, copied download URLs) keep working across restarts; another when it is taken.
  const emulator = await onPortElseAny(lastPort(accounts) ?? 0, start, emuLogger);
  try {
    bucket = emulator.config.buckets[0] ?? DEFAULT_BUCKET;
    const accountId = upsertLocal(emulator);
    return { emulator, accountId, bucket };
  } catch (e) {
    await emulator.close();
    throw e;
  }
}
