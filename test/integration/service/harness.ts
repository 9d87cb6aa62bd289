import { mkdtemp, realpath, rm, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppEvent } from '../../../src-main/shared/events';
import { AppCore, type AppCoreOptions } from '../../../src-main/service/app-core';

import { FAST_POLICY } from '../../helpers/fast-policy';

export { FAST_POLICY };

/** Short delays of the embedded emulator, as test/helpers/emulator.ts uses. */
export const FAST_EMULATOR = { notifyRetry: { attempts: 3, baseDelayMs: 50 }, vcaDelayMs: 50, fmgrStepDelayMs: 5 };

/**
 * One test's world: a temp folder with a data folder and a watched folder, and the core
 * opened on it (the embedded emulator by default). Every event of the core is recorded in
 * `events`, across reopenings. `close()` closes the core and removes the folder.
 */
export class CoreWorld {
  core!: AppCore;
  events: AppEvent[] = [];
  tmp!: string;
  dataDir!: string;
  folder!: string;
  private off: (() => void) | undefined;
  private recording = true;

  static async create(): Promise<CoreWorld> {
    const w = new CoreWorld();
    w.tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-service-it-')));
    w.dataDir = path.join(w.tmp, 'data');
    w.folder = path.join(w.tmp, 'watched');
    await mkdir(w.folder);
    return w;
  }

  async open(opts: Partial<AppCoreOptions> = {}): Promise<AppCore> {
    this.recording = true;
    this.core = await AppCore.open({
      dataDir: this.dataDir,
      emulatorOptions: FAST_EMULATOR,
      pollPolicy: FAST_POLICY,
      watcherBackend: 'parcel',
      ...opts,
      // From the start: a job resumed at open can reach done before open() resolves.
      onEvent: (e) => {
        if (this.recording) this.events.push(e);
      },
    });
    this.off = () => {
      this.recording = false;
    };
    return this.core;
  }

  async closeCore(): Promise<void> {
    this.off?.();
    await this.core?.close();
  }

  async close(): Promise<void> {
    await this.closeCore();
    await rm(this.tmp, { recursive: true, force: true });
  }

  /** Resolves with the first recorded event (past or future) that `pred` accepts; rejects after timeoutMs. */
  waitFor<T extends AppEvent>(pred: (e: AppEvent) => e is T, timeoutMs?: number): Promise<T>;
  waitFor(pred: (e: AppEvent) => boolean, timeoutMs?: number): Promise<AppEvent>;
  waitFor(pred: (e: AppEvent) => boolean, timeoutMs = 50_000): Promise<AppEvent> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          new Error(
            `no such event within ${timeoutMs} ms; last events: ${JSON.stringify(this.events.slice(-5)).slice(0, 2000)}`,
          ),
        );
      }, timeoutMs);
      const off = this.core.on((e) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }
}

export type EventOf<K extends AppEvent['type']> = Extract<AppEvent, { type: K }>;
export const isType =
  <K extends AppEvent['type']>(type: K, pred: (e: EventOf<K>) => boolean = () => true) =>
  (e: AppEvent): e is EventOf<K> =>
    e.type === type && pred(e as EventOf<K>);
