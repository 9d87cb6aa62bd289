import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Recorder } from './report';

/** Sizes and counts of one form of the run; `SHORT` runs inside `npm test`, `LONG` before a release. */
export interface ChaosParams {
  form: 'short' | 'long';
  network: { files: number; maxBytes: number; bandwidthBytesPerSec: number };
  outage: { files: number; fileBytes: number };
  hostile: { fileBytes: number };
  fuzz: { requests: number; timeLimitMs: number };
}

const MiB = 1024 * 1024;

export const SHORT: ChaosParams = {
  form: 'short',
  network: { files: 40, maxBytes: 9 * MiB, bandwidthBytesPerSec: 48_000_000 },
  outage: { files: 4, fileBytes: 6 * MiB },
  hostile: { fileBytes: 1 * MiB + 17 },
  fuzz: { requests: 2_000, timeLimitMs: 30_000 },
};

export const LONG: ChaosParams = {
  form: 'long',
  network: { files: 200, maxBytes: 64 * MiB, bandwidthBytesPerSec: 24_000_000 },
  outage: { files: 12, fileBytes: 24 * MiB },
  hostile: { fileBytes: 9 * MiB + 5 },
  fuzz: { requests: 20_000, timeLimitMs: 300_000 },
};

/**
 * What the sections share: the recorder, one known secret key (used by every emulator and
 * client of the run, searched for at the end), the run's root folder (everything the run
 * writes lives under it) and what the security scan reads besides files.
 */
export interface ChaosContext {
  rec: Recorder;
  params: ChaosParams;
  seed: number;
  root: string;
  accessKey: string;
  secretKey: string;
  /** Error messages the run met (transfer errors, CLI stderr, reply bodies). */
  errorsSeen: string[];
  /** /proc/<pid>/cmdline (NULs as spaces) of every child process started. */
  childArgs: string[];
  /** Stdout and stderr of children, kept for the security scan. */
  childOutput: string[];
}

export async function newContext(rec: Recorder, params: ChaosParams, seed: number): Promise<ChaosContext> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bl-chaos-'));
  // Known, so the scan can look for it; random, so a leak cannot be a coincidence of defaults.
  const secretKey = `chaos-sk-${seed}-${Math.random().toString(36).slice(2, 12)}`;
  return { rec, params, seed, root, accessKey: 'chaos-ak', secretKey, errorsSeen: [], childArgs: [], childOutput: [] };
}

/** mulberry32: a small seeded PRNG, so a run replays from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A port free on 127.0.0.1 right now (for a server that must restart on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export const REPO = path.resolve(import.meta.dirname, '../..');
export const BLOCKLIFT = path.join(REPO, 'bin/blocklift.mjs');

export interface TrackedChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process is gone. */
  exited: Promise<number | string>;
}

/**
 * Starts `node [nodeArgs] bin/blocklift.mjs …args` and records its /proc cmdline (read at 'spawn',
 * which libuv emits after the exec succeeded) and its output for the security scan.
 */
export function spawnBlocklift(
  ctx: ChaosContext,
  args: string[],
  opts: SpawnOptions = {},
  nodeArgs: string[] = [],
): TrackedChild {
  const child = spawn(process.execPath, [...nodeArgs, BLOCKLIFT, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
  });
  let out = '';
  let err = '';
  let seen = false;
  const recordArgs = () => {
    if (seen || child.pid === undefined) return;
    seen = true;
    try {
      ctx.childArgs.push(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      ctx.childArgs.push(child.spawnargs.join(' '));
    }
  };
  child.once('spawn', recordArgs);
  child.stdout?.on('data', (c: Buffer) => {
    recordArgs();
    out += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    recordArgs();
    err += c.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (e) => {
      err += `spawn failed: ${e.message}`;
      resolve('spawn-error');
    });
    child.once('exit', (code, signal) => {
      ctx.childOutput.push(out, err);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `cond` every `everyMs` until it is true or `timeoutMs` passes; returns whether it became true. */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
