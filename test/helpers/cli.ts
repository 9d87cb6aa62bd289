import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { withoutRootReadRights } from './unprivileged';

/**
 * Runs the real `blocklift` command (bin/blocklift.mjs) as a child process. The caller's
 * env comes on top of the test's; BLOCKLIFT_DATA must point at a temp folder (a test never
 * writes to the real home), so `env` requires it.
 */

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin/blocklift.mjs');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd: string;
  env: Record<string, string | undefined> & { BLOCKLIFT_DATA: string };
  /** SIGKILL after this many ms if still running. */
  killAfterMs?: number;
  /** Run without root's right to read every file (test/helpers/unprivileged.ts), for permission tests. */
  withoutRootReadRights?: boolean;
  /** Called with the child once spawned (to signal it, or wait for its output). */
  onSpawn?: (child: ChildProcess) => void;
  /** The script run instead of bin/blocklift.mjs (runStart). */
  script?: string;
}

export function runCli(args: readonly string[], opts: CliRunOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['BLOCKLIFT_DEBUG', 'BLOCKLIFT_DB']) delete env[name];
    Object.assign(env, opts.env);
    const [command, argv] = opts.withoutRootReadRights
      ? withoutRootReadRights(process.execPath, [opts.script ?? BIN, ...args])
      : [process.execPath, [opts.script ?? BIN, ...args]];
    const child = spawn(command, argv, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer =
      opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    opts.onSpawn?.(child);
  });
}

/**
 * `npm start` (bin/start.mjs) as a person runs it, as a child; like runCli (BLOCKLIFT_DATA
 * required). Only for a data folder an app already runs on: otherwise it would start one.
 */
export function runStart(args: readonly string[], opts: CliRunOptions): Promise<CliRun> {
  return runCli(args, { ...opts, script: path.join(ROOT, 'bin/start.mjs') });
}

/** The JSON lines of a --json run's stdout. */
export function jsonLines<T = Record<string, unknown>>(stdout: string): T[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}
