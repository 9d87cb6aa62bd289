import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { silentLogger, type Logger } from '../base/logger';
import type { SweepResult } from './admin';
import type { EmulatorConfig, PutMeta, StoredObject } from './contracts';
import { DataDirInUseError, releaseOwnDataDirLock } from './data-lock';
import { objectUrl } from './download';
import type { FaultConfig, FaultEvent } from './faults';
import type {
  FromEmulator,
  HostCallName,
  HostCalls,
  HostedEmulatorOptions,
  HostedFacts,
  ToEmulator,
} from './host-protocol';
import type { UploadCounts } from './upload-counts';
import { EMULATOR_NODE_FLAGS } from './node-flags';

/**
 * An emulator off the caller's event loop: `startEmulator` (server.ts) run in a worker
 * thread or a child process (host-entry.ts), with the lifecycle of its owner. Start
 * resolves once it listens; a crash (the thread or process ends unasked) is logged and
 * followed by a restart on the same data folder and port (another port when that one is
 * taken: `onRestarted` tells the owner the new URLs); `close()` resolves once it stopped
 * cleanly. Its log lines and anything it writes to stdout/stderr go to `logger`. The
 * options (the secret key among them) reach the emulator through the thread's or the IPC
 * channel's messages only, never argv or the environment.
 */

export type HostMode = 'worker' | 'child';
/** The mode the app uses: chosen by measurement (README "Embedded, off the app's loop"). */
export const DEFAULT_HOST_MODE: HostMode = 'child';

export interface EmulatorHostOptions {
  emulator: HostedEmulatorOptions;
  mode?: HostMode;
  logger?: Logger;
  /** After a restart on another port: the host's URLs changed. */
  onRestarted?: (host: EmulatorHost) => void;
  /** Waits between restart attempts after a crash (ms); default 200, 1000, 5000, then it gives up. */
  restartDelaysMs?: readonly number[];
  /** How long close() waits for a clean stop before it ends the thread or process (ms). Default 15 s. */
  closeTimeoutMs?: number;
}

export interface EmulatorHost {
  readonly mode: HostMode;
  readonly uploadUrl: string;
  readonly mgrUrl: string;
  readonly downloadBaseUrl: string;
  readonly adminUrl: string;
  readonly adminToken: string;
  readonly port: number;
  readonly dataDir: string;
  readonly config: EmulatorConfig;
  /** How often it was restarted after a crash. */
  readonly restarts: number;
  objectUrl(bucket: string, key: string): string;
  /** The emulator's object store, through the channel. */
  readonly objects: {
    stat(bucket: string, key: string): Promise<StoredObject | undefined>;
    putBuffer(bucket: string, key: string, data: Uint8Array, meta: PutMeta): Promise<StoredObject>;
  };
  setFaults(cfg: FaultConfig): Promise<void>;
  faultEvents(): Promise<FaultEvent[]>;
  uploadCounts(): Promise<UploadCounts>;
  blockCount(): Promise<number>;
  sweepNow(): Promise<SweepResult>;
  /** The thread id and pid that serve its requests, and that thread's priority (its nice value). */
  where(): Promise<{ threadId: number; pid: number; priority: number }>;
  /** Resolves when it runs (at once, or after the restart under way); rejects when restarting gave up or it was closed. */
  whenRunning(): Promise<void>;
  /** Ends the thread or process abruptly, as a crash would (tests). */
  kill(): void;
  /** Stops it cleanly and waits for the thread or process to end. Idempotent. */
  close(): Promise<void>;
}

/** One thread or process running the emulator. */
interface Channel {
  send(m: ToEmulator): void;
  onMessage(fn: (m: FromEmulator) => void): void;
  /** Resolves when it ended, with how ("exit code 1", "signal SIGKILL", an uncaught error). */
  exited: Promise<string>;
  kill(): void;
}

const here = fileURLToPath(import.meta.url);
/** Run from the TypeScript sources (tests, tsx) rather than a bundle of dist/. */
const fromSources = here.endsWith('.ts');

/** host-entry.ts next to this file, or the bundle's emulator-host.(m)js next to its chunk. */
function entryFile(): string {
  const dir = path.dirname(here);
  return fromSources ? path.join(dir, 'host-entry.ts') : path.join(dir, `emulator-host${path.extname(here)}`);
}

/** tsx's ESM entry files (only from the sources, where tsx is a dev dependency). */
function tsxFiles(): { api: string; loader: string } {
  const dir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  return { api: path.join(dir, 'dist/esm/api/index.mjs'), loader: path.join(dir, 'dist/esm/index.mjs') };
}

function forwardLines(stream: Readable | null, logger: Logger, what: string): void {
  if (!stream) return;
  createInterface({ input: stream }).on('line', (line) => {
    if (line.trim()) logger.warn(`${what}: ${line}`);
  });
}

function workerChannel(logger: Logger): Channel {
  const entry = entryFile();
  const opts = { stdout: true, stderr: true } as const;
  const worker = fromSources
    ? new Worker(
        `import(${JSON.stringify(pathToFileURL(tsxFiles().api).href)})` +
          `.then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(entry).href)}); })`,
        { ...opts, eval: true },
      )
    : new Worker(entry, opts);
  forwardLines(worker.stdout, logger, 'stdout');
  forwardLines(worker.stderr, logger, 'stderr');
  let error: Error | undefined;
  worker.on('error', (e) => (error = e));
  const exited = new Promise<string>((resolve) =>
    worker.once('exit', (code) => resolve(error ? `uncaught ${error.name}: ${error.message}` : `exit code ${code}`)),
  );
  return {
    send: (m) => worker.postMessage(m),
    onMessage: (fn) => worker.on('message', fn),
    exited,
    kill: () => void worker.terminate(),
  };
}

function childChannel(logger: Logger): Channel {
  const entry = entryFile();
  const child: ChildProcess = fork(entry, [], {
    // Inspector or profiling flags of the app are not the emulator's.
    execArgv: [...EMULATOR_NODE_FLAGS, ...(fromSources ? ['--import', pathToFileURL(tsxFiles().loader).href] : [])],
    // Electron's binary runs as plain Node for it.
    env: process.versions.electron ? { ...process.env, ELECTRON_RUN_AS_NODE: '1' } : process.env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  forwardLines(child.stdout, logger, 'stdout');
  forwardLines(child.stderr, logger, 'stderr');
  const exited = new Promise<string>((resolve) => {
    // 'on', not 'once': a spawn failure and a later EPIPE of a send both land here, never unhandled.
    child.on('error', (e) => resolve(`could not start: ${e.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
  });
  return {
    send: (m) => {
      // A child that died at once: its exit says why; the pipe error is not the app's crash.
      if (child.connected) child.send(m, (e) => e && logger.warn(`could not reach the emulator: ${e.message}`));
    },
    onMessage: (fn) => child.on('message', (m) => fn(m as FromEmulator)),
    exited,
    kill: () => void child.kill('SIGKILL'),
  };
}

class StartFailed extends Error {}

interface Running {
  ch: Channel;
  facts: HostedFacts;
  pending: Map<number, { resolve(v: unknown): void; reject(e: Error): void }>;
  startedAt: number;
}

/** Starts one thread or process and waits until its emulator listens (or fails to). */
async function launch(mode: HostMode, options: HostedEmulatorOptions, logger: Logger): Promise<Running> {
  const ch = mode === 'worker' ? workerChannel(logger) : childChannel(logger);
  const pending: Running['pending'] = new Map();
  const started = new Promise<HostedFacts>((resolve, reject) => {
    ch.onMessage((m) => {
      if (m.t === 'ready') resolve(m.facts);
      else if (m.t === 'start-failed') {
        reject(
          m.name === 'DataDirInUseError'
            ? new DataDirInUseError(m.message)
            : Object.assign(new StartFailed(m.message), { name: m.name }),
        );
      } else if (m.t === 'log') logger[m.level](m.message, m.fields);
      else if (m.t === 'reply') {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.ok) p?.resolve(m.value);
        else p?.reject(new Error(m.message));
      }
    });
    void ch.exited.then((how) => {
      reject(new Error(`the emulator ended before it listened (${how})`));
      for (const p of pending.values()) p.reject(new Error(`the emulator ended (${how})`));
      pending.clear();
    });
  });
  ch.send({ t: 'start', options });
  try {
    return { ch, facts: await started, pending, startedAt: Date.now() };
  } catch (e) {
    ch.kill();
    await ch.exited;
    throw e;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits between start attempts while the data folder is locked: an emulator child of an app
 * that was killed notices its app is gone (the IPC channel closes) and stops within a second
 * or two, releasing the folder; an app restarted at once must not fail on it meanwhile.
 */
const LOCKED_RETRY_MS = [250, 500, 1000, 2000, 2000];

async function launchWhenFree(mode: HostMode, options: HostedEmulatorOptions, logger: Logger): Promise<Running> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await launch(mode, options, logger);
    } catch (e) {
      const wait = LOCKED_RETRY_MS[attempt];
      if (!(e instanceof DataDirInUseError) || wait === undefined) throw e;
      logger.info(`the data folder is still in use (${e.message}); trying again in ${wait} ms`);
      await sleep(wait);
    }
  }
}

/**
 * Starts on `port` and, when that port is taken, on any free one (port 0: any free one at
 * once), so that the URLs given out on it keep working across restarts whenever they can.
 * The embedded emulator's start (service/embedded.ts: the last run's port) and the host's
 * restart after a crash (its port before) both go through here.
 */
export async function onPortElseAny<T>(port: number, start: (port: number) => Promise<T>, logger: Logger): Promise<T> {
  if (port === 0) return start(0);
  try {
    return await start(port);
  } catch (e) {
    if (!/EADDRINUSE/.test((e as Error).message)) throw e;
    logger.warn(`port ${port} is taken; starting on another port`);
    return start(0);
  }
}

/** Starts the emulator in a child process (default) or a worker thread; resolves once it listens. */
export async function startEmulatorHost(opts: EmulatorHostOptions): Promise<EmulatorHost> {
  const mode = opts.mode ?? DEFAULT_HOST_MODE;
  const logger = opts.logger ?? silentLogger;
  const delays = opts.restartDelaysMs ?? [200, 1000, 5000];
  let run = await launchWhenFree(mode, opts.emulator, logger);
  const config: EmulatorConfig = { ...run.facts.config };
  let restarts = 0;
  let closing: Promise<void> | undefined;
  /** Set while a restart is under way: resolves when it runs again, rejects when it gave up. */
  let restarting: Promise<void> | undefined;
  let nextId = 1;
  const baseUrl = () => `http://127.0.0.1:${run.facts.port}`;

  const call = async <N extends HostCallName>(
    name: N,
    ...args: HostCalls[N]['args']
  ): Promise<HostCalls[N]['value']> => {
    if (restarting) await restarting;
    if (closing) throw new Error('the emulator is closed');
    const id = nextId++;
    const r = run;
    return new Promise((resolve, reject) => {
      r.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      r.ch.send({ t: 'call', id, name, args });
    });
  };

  const restart = async (how: string): Promise<void> => {
    const port = run.facts.port;
    // An emulator that crashed again soon after its restart counts towards giving up.
    for (let attempt = 0; ; attempt++) {
      if (mode === 'worker') releaseOwnDataDirLock(opts.emulator.dataDir);
      const delay = delays[attempt];
      if (delay === undefined) {
        logger.error(`gave up restarting after ${attempt} attempts (last: ${how}); restart the app`);
        throw new Error(`the embedded emulator stopped (${how}) and could not be restarted`);
      }
      await sleep(delay);
      if (closing) throw new Error('the emulator is closed');
      try {
        run = await onPortElseAny(port, (p) => launch(mode, { ...opts.emulator, port: p }, logger), logger);
        config.downloadBaseUrl = run.facts.config.downloadBaseUrl;
        restarts++;
        logger.info(`restarted on port ${run.facts.port}`);
        watch(run);
        if (run.facts.port !== port) opts.onRestarted?.(host);
        return;
      } catch (e) {
        how = (e as Error).message;
        logger.error(`restart failed: ${how}`);
      }
    }
  };

  const watch = (r: Running) => {
    void r.ch.exited.then((how) => {
      if (closing || r !== run) return;
      logger.error(`stopped unexpectedly (${how}); restarting it on port ${r.facts.port}`);
      restarting = restart(how).finally(() => (restarting = undefined));
      // Nobody may wait on it: a restart that gave up is logged above.
      restarting.catch(() => undefined);
    });
  };
  watch(run);

  const host: EmulatorHost = {
    mode,
    get uploadUrl() {
      return baseUrl();
    },
    get mgrUrl() {
      return baseUrl();
    },
    get downloadBaseUrl() {
      return config.downloadBaseUrl;
    },
    get adminUrl() {
      return `${baseUrl()}/admin`;
    },
    get adminToken() {
      return run.facts.adminToken;
    },
    get port() {
      return run.facts.port;
    },
    get dataDir() {
      return run.facts.dataDir;
    },
    config,
    get restarts() {
      return restarts;
    },
    objectUrl: (bucket, key) => objectUrl(config.downloadBaseUrl, bucket, key),
    objects: {
      stat: (bucket, key) => call('stat', bucket, key),
      putBuffer: (bucket, key, data, meta) => call('putBuffer', bucket, key, data, meta),
    },
    setFaults: (cfg) => call('setFaults', cfg),
    faultEvents: () => call('faultEvents'),
    uploadCounts: () => call('uploadCounts'),
    blockCount: () => call('blockCount'),
    sweepNow: () => call('sweepNow'),
    where: () => call('where'),
    whenRunning: async () => {
      if (restarting) await restarting;
      if (closing) throw new Error('the emulator is closed');
    },
    kill: () => run.ch.kill(),
    close: () => {
      closing ??= (async () => {
        await restarting?.catch(() => undefined);
        const r = run;
        r.ch.send({ t: 'close' });
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>(
          (resolve) => (timer = setTimeout(() => resolve('late'), opts.closeTimeoutMs ?? 15_000)),
        );
        const how = await Promise.race([r.ch.exited, late]);
        clearTimeout(timer);
        if (how === 'late') {
          logger.error('did not stop in time; ended it');
          r.ch.kill();
          await r.ch.exited;
          if (mode === 'worker') releaseOwnDataDirLock(opts.emulator.dataDir);
        }
      })();
      return closing;
    },
  };
  return host;
}
