import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { objectUrl } from '../../src-main/emulator/download';
import { spawnBlocklift, waitFor, type ChaosContext, type TrackedChild } from './context';

export interface EmulatorInfo {
  uploadUrl: string;
  mgrUrl: string;
  downloadBaseUrl: string;
  adminUrl: string;
  adminToken: string;
  port: number;
}

export interface EmulatorChild {
  info: EmulatorInfo;
  proc: TrackedChild;
  objectUrl(bucket: string, key: string): string;
  /** SIGKILL, then wait for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM; resolves with the exit code and whether emulator.lock is gone. */
  stop(): Promise<{ code: number | string; lockRemoved: boolean }>;
}

/**
 * `blocklift emulator --data D --port P --json` as a child process, with the run's keys in
 * the environment (never in its arguments). Resolves once it printed its start line.
 */
export async function startEmulatorChild(
  ctx: ChaosContext,
  dataDir: string,
  port: number,
  extra: string[] = [],
): Promise<EmulatorChild> {
  await mkdir(dataDir, { recursive: true });
  const proc = spawnBlocklift(
    ctx,
    ['emulator', '--data', dataDir, '--port', String(port), '--json', '--admin-token', 'chaos-admin', ...extra],
    { env: { ...process.env, BLOCKLIFT_AK: ctx.accessKey, BLOCKLIFT_SK: ctx.secretKey }, cwd: path.dirname(dataDir) },
  );
  let exited = false;
  void proc.exited.then(() => (exited = true));
  const line = () =>
    proc
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('{'));
  const ok = await waitFor(() => exited || line() !== undefined, 60_000);
  const first = line();
  if (!ok || first === undefined) {
    proc.child.kill('SIGKILL');
    throw new Error(`the emulator child did not start: ${proc.stderr().slice(0, 500)}`);
  }
  const info = JSON.parse(first) as EmulatorInfo;
  return {
    info,
    proc,
    objectUrl: (bucket, key) => objectUrl(info.downloadBaseUrl, bucket, key),
    async kill() {
      proc.child.kill('SIGKILL');
      await proc.exited;
    },
    async stop() {
      proc.child.kill('SIGTERM');
      const killer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
      const code = await proc.exited;
      clearTimeout(killer);
      return { code, lockRemoved: !existsSync(path.join(dataDir, 'emulator.lock')) };
    },
  };
}
