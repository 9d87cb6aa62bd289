import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { databaseFile, defaultDataDir, stagingDir } from '../../service/data-dir';
import { APP_VERSION } from '../../shared/version';
import { CliError } from '../cli-error';
import { wholeNumber } from '../option-parsers';

/** dist/renderer of the project this command runs from (compiled in dist/cli/, or the sources under tsx). */
function rendererDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'renderer');
}

/**
 * `blocklift serve`: the app with its web UI in a browser (servers, NAS boxes, machines
 * without the desktop runtime). Runs until SIGINT/SIGTERM, then lets in-flight chunks
 * commit, closes the database and exits 0.
 */
export function register(program: Command): void {
  program
    .command('serve')
    .description('run the app headless: the web UI and its API on http://127.0.0.1:<port>/ behind a printed token')
    .option('--port <p>', 'port to listen on (0: any free port)', '7420')
    .option('--data <dir>', `the app's data folder (default: ${defaultDataDir()})`)
    .option('--host <h>', 'listen on this address instead of 127.0.0.1 (reachable from other machines: a warning)')
    .option(
      '--vca-labels <file>',
      "the embedded emulator's video analysis results: JSON per source URL or pattern (format in src-main/emulator/vca-labels.ts)",
    )
    .addOption(new Option('--dev-renderer <url>', 'npm run dev: the Vite dev server').hideHelp())
    .action(async (o: ServeOptions) => {
      process.exitCode = await runServe(o);
    });
}

interface ServeOptions {
  port: string;
  data?: string;
  host?: string;
  vcaLabels?: string;
  devRenderer?: string;
}

/**
 * A data folder (or a folder above it) that is a file would fail deep in the start with
 * ENOTDIR; say so as a usage error instead (exit 2).
 */
function checkDataFolder(dataDir: string): void {
  for (let d = dataDir; ; d = path.dirname(d)) {
    let kind;
    try {
      kind = statSync(d, { throwIfNoEntry: false });
    } catch (e) {
      // ENOTDIR: a folder above this one is a file (found further up).
      if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
    }
    if (kind) {
      if (kind.isDirectory()) return;
      throw new CliError(
        d === dataDir
          ? `the data folder ${dataDir} is a file, not a folder: give --data a folder (it is created if missing)`
          : `the data folder ${dataDir} cannot be created: ${d} is a file, not a folder; give --data another folder`,
      );
    }
    if (path.dirname(d) === d) return;
  }
}

async function runServe(o: ServeOptions): Promise<number> {
  const asked = wholeNumber('--port', o.port, 0, 65535);
  // Loaded here, not at the top: the other commands start without the HTTP framework.
  const { freeLoopbackPort, openLocalDoor } = await import('../../headless/local-door');
  const port = asked === 0 ? await freeLoopbackPort() : asked;
  const dataDir = path.resolve(o.data ?? defaultDataDir());
  checkDataFolder(dataDir);
  if (o.host)
    process.stderr.write(
      `blocklift serve: WARNING: listening on ${o.host}: anyone who can reach it and has the token controls this app; plain HTTP, so use it on a trusted network or behind TLS.\n`,
    );
  const { AppService } = await import('../../service/app-service');
  const { RotatingLog } = await import('../../service/log-file');
  const { DoorConfigError } = await import('../../headless/server');
  const { browsingFolderChooser } = await import('../../headless/browse');
  // Notify URLs of the tasks the app submits point at this door (its receiver is mounted at /notify/).
  const { QueueInUseError } = await import('../../service/queue-lock');
  // Before the service: the embedded emulator reports into it from its start.
  const log = new RotatingLog({ dataDir });
  let service;
  try {
    service = await AppService.open({
      dataDir,
      logger: log.logger(),
      // "Choose folder…" answers the folder browser's listing (the user's home and below).
      door: { door: 'headless', chooseFolder: browsingFolderChooser(os.homedir()) },
      publicBaseUrl: `http://127.0.0.1:${port}`,
      ...(o.vcaLabels ? { emulatorOptions: { vcaLabelsFile: path.resolve(o.vcaLabels) } } : {}),
    });
  } catch (e) {
    // Another process (the CLI, another serve, the desktop app) runs the queue of this data folder.
    if (e instanceof QueueInUseError)
      throw new CliError(`${e.message}, or run serve on another data folder (--data <folder>)`, 1, e.code);
    throw e;
  }
  // The door, and door.json once it listens: the command line finds this app there and hands
  // its work to it (the desktop app opens the same local door).
  let local;
  try {
    local = await openLocalDoor({
      backend: service,
      dataDir,
      dbFile: databaseFile(dataDir),
      version: APP_VERSION,
      rendererDir: rendererDir(),
      stagingDir: stagingDir(dataDir),
      host: o.host,
      port,
      exposed: o.host !== undefined,
      devRendererUrl: o.devRenderer,
    });
  } catch (e) {
    await service.close();
    if (e instanceof DoorConfigError) throw new CliError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliError(`port ${port} is in use (another blocklift serve?); choose one with --port, or --port 0`);
    throw e;
  }
  const door = local.door;
  const unfollow = log.follow((l) => service.on(l));
  log.write('info', `serve ${APP_VERSION} started at ${door.url} (token not logged)`);
  process.stdout.write(
    `Blocklift ${APP_VERSION} is running. Open this URL (it carries the access token):\n  ${door.loginUrl}\ndata: ${dataDir}\nPress Ctrl-C to stop.\n`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stderr.write(`blocklift serve: ${signal}, letting in-flight chunks commit…\n`);
  await local.close();
  unfollow();
  await service.close();
  log.write('info', `serve stopped (${signal})`);
  return 0;
}
