import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { stderrLogger } from '../../base/logger';
import { DAY_MS } from '../../emulator/clock';
import { FaultConfigError, parseFaultConfig, type FaultConfig } from '../../emulator/faults';
import {
  DEFAULT_ACCESS_KEY,
  DEFAULT_BUCKET,
  DEFAULT_SECRET_KEY,
  startEmulator,
  type RunningEmulator,
} from '../../emulator/server';
import { defaultDataDir } from '../../service/data-dir';
import { collect, wholeNumberParser } from '../option-parsers';
import { CliError } from '../cli-error';

/**
 * `blocklift emulator`: runs the local service until SIGINT/SIGTERM.
 * On start it prints the upload, management and download base URLs and the admin token
 * (as one JSON line with --json).
 */
export const DEFAULT_EMULATOR_PORT = 8088;
/** The emulator's data by default: `emulator/` in Blocklift's data folder (service/data-dir.ts), where the app's embedded one keeps it too. */
export function defaultEmulatorDataDir(): string {
  return path.join(defaultDataDir(), 'emulator');
}

/** --faults takes JSON text, or @file for a JSON file; --seed overrides its seed. */
export function readFaults(text: string | undefined, seed: number | undefined): FaultConfig | undefined {
  if (text === undefined && seed === undefined) return undefined;
  let raw: unknown = {};
  if (text !== undefined) {
    let json = text;
    if (text.startsWith('@')) {
      try {
        json = readFileSync(text.slice(1), 'utf8');
      } catch (e) {
        throw new CliError(`--faults: cannot read ${text.slice(1)}: ${(e as Error).message}`);
      }
    }
    try {
      raw = JSON.parse(json);
    } catch {
      throw new CliError(
        '--faults must be JSON (or @file.json), e.g. \'{"errors":[{"endpoints":["bput"],"rate":0.1,"status":503}]}\'',
      );
    }
  }
  try {
    const cfg = parseFaultConfig(raw);
    return seed === undefined ? cfg : { ...cfg, seed };
  } catch (e) {
    if (e instanceof FaultConfigError) throw new CliError(`--faults: ${e.message}`);
    throw e;
  }
}

export function register(program: Command): void {
  program
    .command('emulator')
    .description('run the local emulator of the storage service (upload, Fmgr, VCA, downloads) until Ctrl-C')
    .option(
      '--port <port>',
      `port on 127.0.0.1 (0 picks a free one)`,
      wholeNumberParser('--port', 0, 65535),
      DEFAULT_EMULATOR_PORT,
    )
    .option(
      '--data <dir>',
      "folder of objects, unmerged blocks and metadata (default: emulator/ in Blocklift's data folder, env BLOCKLIFT_DATA)",
    )
    .option('--ak <AK>', `access key the emulator accepts (env BLOCKLIFT_AK; default ${DEFAULT_ACCESS_KEY})`)
    .option(
      '--sk <SK>',
      'secret key the emulator signs and checks with (env BLOCKLIFT_SK; prefer it, flags show in ps)',
    )
    .option('--bucket <name>', `a bucket (repeatable; default "${DEFAULT_BUCKET}")`, collect)
    .option('--json', 'print the start information as one JSON line', false)
    .option(
      '--vca-labels <file>',
      'JSON file of VCA results per source URL or pattern (format in src-main/emulator/vca-labels.ts)',
    )
    .option(
      '--vca-delay-ms <ms>',
      'how long a VCA job stays "analysing"',
      wholeNumberParser('--vca-delay-ms', 0, 3_600_000),
    )
    .option(
      '--vca-disabled <bucket>',
      'a bucket without the smart media service: its VCA requests answer 401 (repeatable)',
      collect,
    )
    .option(
      '--faults <json>',
      'fault injection configuration, JSON or @file.json (format in src-main/emulator/faults.ts)',
    )
    .option(
      '--seed <n>',
      'seed of the fault injection PRNG (replays a run)',
      wholeNumberParser('--seed', 0, 2 ** 31 - 1),
    )
    .option(
      '--purge-age-days <days>',
      'purge unmerged blocks older than this',
      wholeNumberParser('--purge-age-days', 0, 3650),
      30,
    )
    .option('--admin-token <token>', 'bearer token of the /admin routes (random by default)')
    .action(async (o: Record<string, unknown>) => {
      const faults = readFaults(o.faults as string | undefined, o.seed as number | undefined);
      const ak = (o.ak as string | undefined) ?? (process.env.BLOCKLIFT_AK || DEFAULT_ACCESS_KEY);
      const sk = (o.sk as string | undefined) ?? (process.env.BLOCKLIFT_SK || DEFAULT_SECRET_KEY);
      let emu: RunningEmulator;
      try {
        emu = await startEmulator({
          port: o.port as number,
          dataDir: typeof o.data === 'string' ? o.data : defaultEmulatorDataDir(),
          accessKey: ak,
          secretKey: sk,
          buckets: (o.bucket as string[] | undefined) ?? [DEFAULT_BUCKET],
          faults,
          vcaLabelsFile: o.vcaLabels as string | undefined,
          vcaDelayMs: o.vcaDelayMs as number | undefined,
          smartMediaDisabledBuckets: o.vcaDisabled as string[] | undefined,
          purgeAgeMs: (o.purgeAgeDays as number) * DAY_MS,
          adminToken: o.adminToken as string | undefined,
          logger: stderrLogger('blocklift emulator: '),
        });
      } catch (e) {
        const err = e as Error & { code?: string };
        if (err.code === 'EADDRINUSE')
          throw new CliError(
            `port ${String(o.port)} is already in use: choose another with --port, or --port 0 for a free one`,
          );
        throw new CliError(`the emulator could not start: ${err.message}`);
      }
      const info = {
        uploadUrl: emu.uploadUrl,
        mgrUrl: emu.mgrUrl,
        downloadBaseUrl: emu.downloadBaseUrl,
        adminUrl: emu.adminUrl,
        adminToken: emu.adminToken,
        port: emu.port,
        dataDir: emu.dataDir,
        accessKey: ak,
        buckets: emu.config.buckets,
      };
      if (ak === DEFAULT_ACCESS_KEY || sk === DEFAULT_SECRET_KEY) {
        process.stderr.write(
          'blocklift emulator: warning: using the built-in test keys (--ak/--sk); fine for local testing, never for anything real\n',
        );
      }
      if (o.json === true) {
        process.stdout.write(`${JSON.stringify(info)}\n`);
      } else {
        process.stdout.write(
          [
            `Blocklift emulator listening on 127.0.0.1:${emu.port}`,
            `  upload URL:        ${info.uploadUrl}`,
            `  management URL:    ${info.mgrUrl}`,
            `  download base URL: ${info.downloadBaseUrl}/<bucket>/<key>`,
            `  admin URL:         ${info.adminUrl} (Authorization: Bearer ${info.adminToken})`,
            `  access key:        ${ak}`,
            `  buckets:           ${info.buckets.join(', ')}`,
            `  data:              ${info.dataDir}`,
            'Press Ctrl-C to stop.',
            '',
          ].join('\n'),
        );
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          if (o.json !== true) process.stderr.write(`blocklift emulator: ${signal}, stopping\n`);
          void emu.close().then(resolve, (e: unknown) => {
            process.stderr.write(`blocklift emulator: error while stopping: ${(e as Error).message}\n`);
            resolve();
          });
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
