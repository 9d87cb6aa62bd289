import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppService, type AppServiceOptions } from '../../../src-main/service/app-service';
import type { AppEventMessage, Result, TransferTotals, TransferView } from '../../../src-main/shared/contract';
import { FAST_EMULATOR, FAST_POLICY } from './harness';

/** The app as a front end sees it: only the contract (verbs, Results, batched events). */
export class ContractWorld {
  svc!: AppService;
  events: AppEventMessage[] = [];
  tmp!: string;
  dataDir!: string;

  static async create(): Promise<ContractWorld> {
    const w = new ContractWorld();
    w.tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-contract-')));
    w.dataDir = path.join(w.tmp, 'data');
    return w;
  }

  async open(opts: Partial<AppServiceOptions> = {}): Promise<AppService> {
    this.svc = await AppService.open({
      dataDir: this.dataDir,
      emulatorOptions: FAST_EMULATOR,
      pollPolicy: FAST_POLICY,
      watcherBackend: 'parcel',
      wakeDetector: false,
      ...opts,
    });
    this.svc.on((e) => this.events.push(e));
    return this.svc;
  }

  async close(): Promise<void> {
    await this.svc?.close();
    await rm(this.tmp, { recursive: true, force: true });
  }

  /** The latest view of a transfer the batches carried. */
  lastSeen(id: number): TransferView | undefined {
    let v: TransferView | undefined;
    for (const e of this.events) if (e.name === 'transfers') v = e.payload.changed.find((t) => t.id === id) ?? v;
    return v;
  }

  /** The totals per state of the latest transfers batch. */
  lastTotals(): TransferTotals | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.name === 'transfers') return e.payload.totals;
    }
    return undefined;
  }

  /** The latest bytes done of a transfer the batches' progress carried. */
  lastProgress(id: number): number | undefined {
    let n: number | undefined;
    for (const e of this.events)
      if (e.name === 'transfers') n = e.payload.progress.find((p) => p.id === id)?.bytesDone ?? n;
    return n;
  }

  /** Waits for a batch after which `pred` holds (checked on every event). */
  until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          new Error(
            `timed out waiting for ${what}; last events: ${JSON.stringify(this.events.slice(-3)).slice(0, 1500)}`,
          ),
        );
      }, ms);
      const off = this.svc.on(() => {
        if (!pred()) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }
}

export function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}
