import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signUploadToken, type UploadPolicy } from '../../src-main/protocol/tokens';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../src-main/emulator/server';

/**
 * The emulator for tests: on 127.0.0.1, port 0, in a fresh temp folder, with short
 * notification retries and VCA delay. `close()` stops it and removes the folder it made;
 * `restart()` stops it and starts a new one on the same data (a different port).
 *
 *   const emu = await startTestEmulator();
 *   try { … emu.uploadUrl, emu.token({ scope: 'local:a.txt' }) … } finally { await emu.close(); }
 * or
 *   await withEmulator(async (emu) => { … });
 */
export interface TestEmulator extends RunningEmulator {
  /** First bucket (default "local"). */
  bucket: string;
  /** An upload token signed with the emulator's keys; scope defaults to the first bucket, deadline to one hour from the emulator's clock. */
  token(policy?: Partial<UploadPolicy>): string;
  /** Stops this instance (keeping the data) and starts a new one on the same data folder. */
  restart(overrides?: Partial<StartEmulatorOptions>): Promise<TestEmulator>;
}

export type TestEmulatorOptions = Partial<StartEmulatorOptions>;

export async function startTestEmulator(opts: TestEmulatorOptions = {}): Promise<TestEmulator> {
  const ownsDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'blocklift-emu-')));
  const full: StartEmulatorOptions = {
    notifyRetry: { attempts: 3, baseDelayMs: 50 },
    vcaDelayMs: 50,
    fmgrStepDelayMs: 5,
    ...opts,
    dataDir,
    port: opts.port ?? 0,
  };
  let emu: RunningEmulator;
  try {
    emu = await startEmulator(full);
  } catch (e) {
    if (ownsDir) await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  let keepDir = !ownsDir;
  const bucket = emu.config.buckets[0]!;
  const test: TestEmulator = {
    ...emu,
    bucket,
    token: (policy = {}) =>
      signUploadToken(emu.config.accessKey, emu.config.secretKey, {
        scope: bucket,
        deadline: emu.clock.now() + 3_600_000,
        ...policy,
      } as UploadPolicy),
    close: async () => {
      await emu.close();
      if (!keepDir) await rm(dataDir, { recursive: true, force: true });
    },
    restart: async (overrides = {}) => {
      keepDir = true;
      await emu.close();
      const next = await startTestEmulator({ ...opts, adminToken: emu.adminToken, ...overrides, dataDir });
      // The new instance owns the folder when this one did.
      if (ownsDir) {
        const innerClose = next.close;
        next.close = async () => {
          await innerClose();
          await rm(dataDir, { recursive: true, force: true });
        };
      }
      return next;
    },
  };
  return test;
}

/** Runs `fn` with a fresh test emulator and always closes it. */
export async function withEmulator<T>(
  fn: (emu: TestEmulator) => Promise<T>,
  opts: TestEmulatorOptions = {},
): Promise<T> {
  const emu = await startTestEmulator(opts);
  try {
    return await fn(emu);
  } finally {
    await emu.close();
  }
}
