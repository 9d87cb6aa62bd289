import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  API_VERBS,
  type ApiArea,
  type AppApi,
  type AppEventMessage,
  type AppEvents,
  type Result,
} from '../shared/contract';
import type { AppEvent } from '../shared/events';
import { TERMINAL_TRANSFER_STATES, type TransferState } from '../shared/models';
import { Emitter } from '../common/emitter';
import { accountsArea } from './api/accounts';
import type { DoorCapabilities, ServiceContext } from './api/context';
import { area } from './api/envelope';
import { appError } from './api/errors';
import { rootsArea } from './api/roots';
import { appArea, settingsArea } from './api/settings';
import { fmgrArea, vcaArea } from './api/tasks';
import { transfersArea } from './api/transfers';
import { AppCore, type AppCoreOptions } from './app-core';
import { EventCoalescer, type FlushClock } from './event-coalescer';
import { startHealthMonitor } from './process-health';
import type { SessionAccountInput, UseCases } from './use-cases';

export interface AppServiceOptions extends AppCoreOptions {
  /** What the door can do that the service cannot (open a folder…). */
  door?: DoorCapabilities;
  /** Batching of events: interval (default 100 ms) and clock (tests). */
  events?: { intervalMs?: number; clock?: FlushClock };
  /**
   * Also receives what a verb threw that no mapping knows (answered 'internal', written to
   * the event log): an in-process caller (the CLI) reports it with its stack.
   */
  onInternalError?: (method: string, e: unknown) => void;
}

export type { DoorCapabilities };

/**
 * The app service: every verb of the contract (shared/contract.ts `AppApi`) as a thin
 * adapter (api/) over the use cases of a private AppCore (use-cases/). Each verb's input is parsed with its zod schema and every failure comes back as
 * `{ ok: false, error }` with a code of the catalog (api/envelope.ts); verbs never reject.
 * Events come through `on(listener)`, batched for a UI (event-coalescer.ts), after the
 * change that caused them committed. No reply, event or log line carries a secret.
 *
 * `AppService.open(opts)` opens the core (database, embedded emulator when due, engine,
 * trackers, watched folders); `close()` sends the pending batch and closes everything.
 */
export class AppService implements AppApi {
  readonly transfers: AppApi['transfers'];
  readonly roots: AppApi['roots'];
  readonly fmgr: AppApi['fmgr'];
  readonly vca: AppApi['vca'];
  readonly accounts: AppApi['accounts'];
  readonly settings: AppApi['settings'];
  readonly app: AppApi['app'];

  private readonly listeners = new Emitter<AppEventMessage>('app service event listener');
  private readonly coalescer: EventCoalescer;
  private readonly eventLog: UseCases['eventLog'];
  private readonly batches: Array<{ left: Set<number>; counts: AppEvents['batchFinished'] }> = [];
  private readonly offCore: () => void;
  private closed: Promise<void> | undefined;
  private readonly onInternalError: AppServiceOptions['onInternalError'];

  private constructor(
    private readonly core: AppCore,
    opts: AppServiceOptions,
  ) {
    this.onInternalError = opts.onInternalError;
    const uc = core.useCases;
    this.eventLog = uc.eventLog;
    this.coalescer = new EventCoalescer({
      emit: (e) => this.listeners.emit(e),
      transferView: (s) => uc.transfers.view(s.id),
      rootView: (id) => uc.roots.view(id),
      totals: () => uc.transfers.totals(),
      onError: (e) => this.logInternal('events', e),
      intervalMs: opts.events?.intervalMs,
      clock: opts.events?.clock,
    });
    const ctx: ServiceContext = {
      transfers: uc.transfers,
      roots: uc.roots,
      fmgr: uc.fmgr,
      vca: uc.vca,
      settings: uc.settings,
      accounts: uc.accounts,
      app: uc.app,
      coalescer: this.coalescer,
      door: opts.door ?? {},
      emit: (name, payload) => this.listeners.emit({ name, payload } as AppEventMessage),
      trackBatch: (ids) => {
        if (ids.length)
          this.batches.push({ left: new Set(ids), counts: { done: 0, failed: 0, skipped: 0, canceled: 0 } });
      },
    };
    const sink = (method: string, e: unknown) => this.logInternal(method, e);
    this.transfers = area('transfers', transfersArea(ctx), sink);
    this.roots = area('roots', rootsArea(ctx), sink);
    this.fmgr = area('fmgr', fmgrArea(ctx), sink);
    this.vca = area('vca', vcaArea(ctx), sink);
    this.accounts = area('accounts', accountsArea(ctx), sink);
    this.settings = area('settings', settingsArea(ctx), sink);
    this.app = area('app', appArea(ctx), sink);
    this.offCore = core.on((e) => this.onCoreEvent(e));
  }

  static async open(opts: AppServiceOptions): Promise<AppService> {
    // Events the core emits while it opens (resumed trackers, VCA requests) are kept and
    // handed to the service once it exists, so none is lost between open and subscribe.
    let early: AppEvent[] | undefined = [];
    startHealthMonitor();
    const core = await AppCore.open({ ...opts, onEvent: (e) => early?.push(e) });
    const service = new AppService(core, opts);
    const kept = early;
    early = undefined;
    for (const e of kept) service.onCoreEvent(e);
    return service;
  }

  /**
   * Subscribes to every event (names: APP_EVENT_NAMES); returns the unsubscribe function.
   * A listener that throws does not stop the others.
   */
  on(listener: (e: AppEventMessage) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Calls a verb by its method name ("transfers.list"), as a door routes a request. Never rejects. */
  invoke(method: string, input: unknown): Promise<Result<unknown>> {
    const [a, v] = method.split('.') as [string, string | undefined];
    const verbs = Object.hasOwn(API_VERBS, a) ? (API_VERBS as Record<string, readonly string[]>)[a] : undefined;
    if (!verbs || v === undefined || !verbs.includes(v))
      return Promise.resolve({ ok: false, error: appError('unknown-method', { method: method.slice(0, 100) }) });
    const fn = (this[a as ApiArea] as unknown as Record<string, (i: unknown) => Promise<Result<unknown>>>)[v]!;
    return fn(input);
  }

  /** Mount under the public base URL's path: POST …/notify/fmgr and …/notify/vca. */
  get notificationHandler(): (req: IncomingMessage, res: ServerResponse) => void {
    return this.core.notificationHandler;
  }

  private onCoreEvent(e: AppEvent): void {
    switch (e.type) {
      case 'transfer-changed': {
        const t = e.transfer;
        this.coalescer.transferChanged(t);
        if (TERMINAL_TRANSFER_STATES.includes(t.state)) this.batchStep(t.id, t.state);
        break;
      }
      case 'transfer-progress':
        this.coalescer.transferProgress(e.progress);
        break;
      case 'watch':
        this.coalescer.rootChanged(e.event.rootId);
        // 'queued' lists files the transfers batch already carries; the rest is the folder's console.
        if (e.event.type !== 'queued' && e.event.type !== 'scan-started') this.coalescer.rootActivity(e.event);
        if (e.event.type === 'problem')
          this.coalescer.problem({
            code: e.event.code,
            message: e.event.message,
            // The catalog template's params (the UI translates by code), and where it happened.
            params: { ...e.event.params, relPath: e.event.relPath },
            at: Date.now(),
            rootId: e.event.rootId,
          });
        break;
      case 'fmgr-task-changed':
        this.coalescer.fmgrChanged(e.task);
        break;
      case 'vca-job-changed':
        this.coalescer.vcaChanged(e.job);
        break;
      case 'problem': {
        const { code, message, params, ...about } = e.problem;
        this.coalescer.problem({ code, message, params: params ?? {}, at: Date.now(), ...about });
        break;
      }
    }
  }

  /** A transfer of a batch ended: when the whole batch has, one batchFinished event. */
  private batchStep(id: number, state: TransferState): void {
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const b = this.batches[i]!;
      if (!b.left.delete(id)) continue;
      if (state === 'done' || state === 'failed' || state === 'skipped' || state === 'canceled') b.counts[state]++;
      if (b.left.size === 0) {
        this.batches.splice(i, 1);
        this.listeners.emit({ name: 'batchFinished', payload: b.counts });
      }
    }
  }

  private logInternal(method: string, e: unknown): void {
    this.onInternalError?.(method, e);
    try {
      this.eventLog.logEvent({
        level: 'error',
        kind: 'internal',
        message: `${method}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      });
    } catch {
      // the event log is best effort
    }
  }

  /**
   * An account given for this run only (CLI flags): upserted by name, its secret kept in this
   * process's memory (a `memory:` reference in the row), never written, never in a reply or
   * event. Not a verb: no door routes it, so a secret never crosses a door. Returns its id,
   * for the `accountId` of the verbs.
   */
  useSessionAccount(a: SessionAccountInput): number {
    return this.core.useCases.accounts.useSessionAccount(a);
  }

  close(): Promise<void> {
    // The pending batch goes out while the database is open; what closing the core changes
    // (running transfers back to queued) is what the next open reports.
    this.closed ??= (async () => {
      this.offCore();
      this.coalescer.close();
      this.listeners.clear();
      await this.core.close();
    })();
    return this.closed;
  }
}
