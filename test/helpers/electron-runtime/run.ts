import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs a built Electron main process (dist/electron/main.js of `appPath`) under plain Node
 * with the stand-in `electron` module (electron.mjs, through register.mjs): its real module
 * graph, real service, real SQLite, in `dir` (appData, the single-instance lock) with its data
 * folder in `dir/data` unless `env.BLOCKLIFT_DATA` says otherwise.
 */

const REGISTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'register.mjs');

export interface StandInEvent {
  ev: string;
  [k: string]: unknown;
}

export interface StandInApp {
  child: ChildProcess;
  events: StandInEvent[];
  stderr: () => string;
  /** Resolves with the first event (already seen or coming) named `ev` that `match` accepts. */
  waitFor(ev: string, match?: (e: StandInEvent) => boolean, timeoutMs?: number): Promise<StandInEvent>;
  /** Sends a command to the stand-in (electron.mjs `commands`) and resolves with its reply value. */
  command(cmd: string, args?: Record<string, unknown>): Promise<unknown>;
  /** The exit code (or signal) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export interface StandInOptions {
  appPath: string;
  dir: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Packages that must not load at start (a load fails as a missing module). */
  block?: string[];
  /** Refuse packages the app's files load that are not in package.json dependencies. */
  onlyDependencies?: boolean;
  packaged?: boolean;
  /** Files whose existence each 'app-event' report carries (seen as the event's listeners return). */
  watch?: string[];
}

export function startStandIn(opts: StandInOptions): StandInApp {
  mkdirSync(opts.dir, { recursive: true });
  const child = spawn(
    process.execPath,
    ['--import', REGISTER, path.join(opts.appPath, 'dist/electron/main.js'), ...(opts.args ?? [])],
    {
      cwd: opts.cwd ?? opts.appPath,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        BLOCKLIFT_DATA: path.join(opts.dir, 'data'),
        STANDIN_DIR: opts.dir,
        STANDIN_APP_PATH: opts.appPath,
        STANDIN_BLOCK: (opts.block ?? []).join(','),
        STANDIN_ONLY_DEPENDENCIES: opts.onlyDependencies ? '1' : '',
        STANDIN_PACKAGED: opts.packaged ? '1' : '',
        STANDIN_WATCH: (opts.watch ?? []).join(path.delimiter),
        ...opts.env,
      },
    },
  );
  const events: StandInEvent[] = [];
  const waiters = new Set<{ ev: string; match: (e: StandInEvent) => boolean; resolve: (e: StandInEvent) => void }>();
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout?.resume();
  child.on('message', (m: StandInEvent) => {
    events.push(m);
    for (const w of waiters)
      if (w.ev === m.ev && w.match(m)) {
        waiters.delete(w);
        w.resolve(m);
      }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let nextId = 1;
  const app: StandInApp = {
    child,
    events,
    stderr: () => stderr,
    waitFor(ev, match = () => true, timeoutMs = 30_000) {
      const seen = events.find((e) => e.ev === ev && match(e));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { ev, match, resolve };
        waiters.add(w);
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(
            new Error(
              `no '${ev}' from the app in ${timeoutMs} ms; events: ${events.map((e) => e.ev).join(', ')}; stderr: ${stderr}`,
            ),
          );
        }, timeoutMs);
        void exited.then(() => {
          if (!waiters.has(w)) return;
          waiters.delete(w);
          clearTimeout(timer);
          reject(
            new Error(
              `the app exited before '${ev}'; events: ${events.map((e) => e.ev).join(', ')}; stderr: ${stderr}`,
            ),
          );
        });
        w.resolve = (e) => {
          clearTimeout(timer);
          resolve(e);
        };
      });
    },
    async command(cmd, args = {}) {
      const id = nextId++;
      const reply = app.waitFor('reply', (e) => e.id === id);
      child.send({ cmd, id, ...args });
      const r = await reply;
      if (r.error) throw new Error(String(r.error));
      return r.value;
    },
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return app;
}
