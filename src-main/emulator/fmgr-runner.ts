import { urlsafeB64Encode } from '../protocol/base64';
import { fmgrNotificationState } from '../protocol/codes';
import { FopsSyntaxError, parseFop } from '../protocol/fops';
import type { EmulatorContext } from './contracts';
import { FmgrOpError, runFmgrOp } from './fmgr-ops';
import {
  taskStatusBody,
  type FmgrItemRecord,
  type FmgrStatusBody,
  type FmgrTaskRecord,
  type FmgrTaskStore,
} from './fmgr-store';
import { sendNotification, sleep, type NotifyRetry } from './notify';
import { ObjectStoreError } from './object-store';
import type { StopGroup } from './stop-group';

/**
 * Runs Fmgr tasks (fmgr.ts describes the states): items one after another, each state
 * lasting at least `stepDelayMs`, then the notifications. Every change is saved; once the
 * group is stopped nothing is saved any more, so a task resumes from its last saved state.
 */
export class FmgrRunner {
  private readonly signer;

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly store: FmgrTaskStore,
    private readonly work: StopGroup,
    private readonly opts: { retry: NotifyRetry; stepDelayMs: number },
  ) {
    this.signer = { accessKey: ctx.config.accessKey, secretKey: ctx.config.secretKey };
  }

  start(t: FmgrTaskRecord): void {
    this.work.spawn(`Fmgr task ${t.id}`, (signal) => this.run(t, signal));
  }

  private save(t: FmgrTaskRecord): boolean {
    if (this.work.stopped) return false;
    t.updatedAt = this.ctx.clock.now();
    this.store.save(t);
    return true;
  }

  private notify(t: FmgrTaskRecord, body: FmgrStatusBody, signal: AbortSignal): Promise<boolean> {
    if (t.notifyUrl === null) return Promise.resolve(true);
    const payload = Buffer.from(urlsafeB64Encode(JSON.stringify(body)), 'utf8');
    return sendNotification(new URL(t.notifyUrl), payload, 'text/plain', this.signer, this.opts.retry, signal);
  }

  /**
   * Sends one item's separate notification and records its outcome on the item. Never
   * rejects (it runs beside the task's processing): a store failure counts as not notified.
   */
  private async notifyItem(t: FmgrTaskRecord, item: FmgrItemRecord, signal: AbortSignal): Promise<boolean> {
    const others = t.items.filter((o) => o !== item);
    const code = others.some((o) => o.code === 0 || o.code === 1) ? 1 : t.items.some((o) => isFailed(o.code)) ? 2 : 3;
    const ok = await this.notify(t, taskStatusBody(t, [item], code, fmgrNotificationState(code)), signal);
    if (signal.aborted) return ok;
    item.code = item.code === 18 ? (ok ? 20 : 19) : ok ? 6 : 5;
    try {
      this.save(t);
    } catch (e) {
      this.ctx.logger.error(`Fmgr task ${t.id}: could not record a notification: ${(e as Error).message}`);
      return false;
    }
    return ok;
  }

  private async run(t: FmgrTaskRecord, signal: AbortSignal): Promise<void> {
    const notifying: Promise<boolean>[] = [];
    const separate = t.separate && t.notifyUrl !== null;
    if (t.code === 0) {
      if (!(await sleep(this.opts.stepDelayMs, signal))) return;
      t.code = 1;
      if (!this.save(t)) return;
    }
    for (const item of t.items) {
      if (separate && (item.code === 4 || item.code === 18)) notifying.push(this.notifyItem(t, item, signal));
      if (item.code !== 0 && item.code !== 1) continue;
      if (!(await this.runItem(t, item, signal))) return;
      // runItem moved the code on (3 or 2); TypeScript still has the narrowing of the check above.
      if (separate) item.code = (item.code as number) === 3 ? 4 : 18;
      if (!this.save(t)) return;
      if (separate) notifying.push(this.notifyItem(t, item, signal));
    }
    if (t.code === 1) {
      t.code = 3;
      if (!this.save(t)) return;
    }
    if (t.notifyUrl !== null) await this.finishNotifying(t, notifying, signal);
  }

  /** Runs one item to 3 (succeeded) or 2 (failed); false when the task must stop here. */
  private async runItem(t: FmgrTaskRecord, item: FmgrItemRecord, signal: AbortSignal): Promise<boolean> {
    item.code = 1;
    if (!this.save(t) || !(await sleep(this.opts.stepDelayMs, signal))) return false;
    try {
      const op = parseFop(t.op, item.fop);
      const r = await runFmgrOp(op, { ctx: this.ctx, force: t.force, signal });
      Object.assign(item, { code: 3, error: '', key: r.key, hash: r.hash, fsize: r.fsize, url: r.url });
    } catch (e) {
      if (signal.aborted) return false;
      const message =
        e instanceof FmgrOpError || e instanceof FopsSyntaxError || e instanceof ObjectStoreError
          ? e.message
          : `internal error: ${(e as Error).message}`;
      Object.assign(item, { code: 2, error: message });
    }
    return true;
  }

  /** 3 → 4 (notifying) → 6 when every notification was answered 200, else 5. */
  private async finishNotifying(t: FmgrTaskRecord, notifying: Promise<boolean>[], signal: AbortSignal): Promise<void> {
    if (t.code === 3) {
      if (!(await sleep(this.opts.stepDelayMs, signal))) return;
      t.code = 4;
      if (!t.separate) for (const item of t.items) item.code = item.code === 3 ? 4 : item.code === 2 ? 18 : item.code;
      if (!this.save(t)) return;
    }
    let ok: boolean;
    if (t.separate) {
      ok = (await Promise.all(notifying)).every(Boolean) && t.items.every((i) => i.code === 6 || i.code === 20);
    } else {
      ok = await this.notify(t, taskStatusBody(t, t.items, 3, fmgrNotificationState(3)), signal);
      for (const item of t.items)
        item.code = item.code === 4 ? (ok ? 6 : 5) : item.code === 18 ? (ok ? 20 : 19) : item.code;
    }
    if (signal.aborted) return;
    t.code = ok ? 6 : 5;
    this.save(t);
  }
}

function isFailed(code: number): boolean {
  return code === 2 || code === 18 || code === 19 || code === 20;
}
