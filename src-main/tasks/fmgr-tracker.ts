import { buildFop, FopsSyntaxError, type FmgrOp, type FmgrOpName } from '../protocol/fops';
import type { FmgrTaskStatus } from '../protocol/types';
import { FmgrRepo, type FmgrOrigin, type FmgrTaskRow } from '../store/tasks/fmgr-repo';
import { Listeners, NOTIFY_FMGR_PATH, notifyUrl, resolveDeps, type ResolvedDeps, type TrackerDeps } from './deps';
import { fmgrTaskView, isFmgrTerminal, type FmgrTaskView } from './fmgr-view';
import { classifyPollError } from './poll-errors';
import { nextPollDelayMs } from './poll-policy';
import { decideAfterError } from './follow-up';
import { PollTimers } from './poll-timers';
import { checkRemoteId, TaskError } from './task-error';
import { persistentIdOfUpload } from './upload-link';
import { explainServiceFailure } from './vca-errors';
import type { Tracking } from '../store/tasks/rows';

/**
 * Follows Fmgr tasks to their end: submits operations, tracks ids typed in or returned by
 * an upload with persistentOps, polls `fmgr/status` on the schedule of poll-policy.ts,
 * applies verified notifications (notify-receiver.ts) at once, and keeps every distinct
 * snapshot in SQLite. State survives a restart: call resume() after construction.
 *
 * Every change of a task is emitted to onChange listeners as a FmgrTaskView. The tracker
 * owns its timers and in-flight polls; dispose() stops them. It never closes clients.
 */
export class FmgrTracker {
  readonly repo: FmgrRepo;
  private readonly d: ResolvedDeps;
  private readonly timers = new PollTimers();
  private readonly listeners = new Listeners<FmgrTaskView>();

  constructor(deps: TrackerDeps) {
    this.d = resolveDeps(deps);
    this.repo = new FmgrRepo(this.d.db);
  }

  onChange(fn: (t: FmgrTaskView) => void): () => void {
    return this.listeners.add(fn);
  }

  get(taskId: number): FmgrTaskView | undefined {
    const t = this.repo.get(taskId);
    return t && this.view(t);
  }

  find(accountId: number, persistentId: string): FmgrTaskView | undefined {
    const t = this.repo.find(accountId, persistentId);
    return t && this.view(t);
  }

  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number } = {}): FmgrTaskView[] {
    return this.repo.list(opts).map((t) => this.view(t));
  }

  snapshots(taskId: number) {
    return this.repo.snapshots(taskId);
  }

  /**
   * Submits operations of one kind as one task and starts following it. Rejects with a
   * TaskError (code 'no-account', 'bad-operation', or the service failure's code) and
   * records nothing when the service did not accept the submission.
   */
  async submit(accountId: number, op: FmgrOpName, ops: readonly FmgrOp[], opts: { force?: 0 | 1; separate?: 0 | 1 } = {}, signal?: AbortSignal): Promise<FmgrTaskView> {
    const acct = this.d.account(accountId);
    if (!acct) throw new TaskError('no-account', `account ${accountId} has no management host; set its management URL first`);
    let fops: string;
    try {
      if (ops.length === 0) throw new FopsSyntaxError('give at least one operation');
      const wrong = ops.find((o) => o.op !== op);
      if (wrong) throw new FopsSyntaxError(`a ${op} submission cannot carry a ${wrong.op} operation`);
      fops = ops.map(buildFop).join(';');
    } catch (e) {
      if (e instanceof FopsSyntaxError) throw new TaskError('bad-operation', e.message, { cause: e });
      throw e;
    }
    const notifyURL = notifyUrl(this.d.publicBaseUrl(), NOTIFY_FMGR_PATH);
    let persistentId: string;
    try {
      ({ persistentId } = await acct.client.fmgrSubmit(op, ops, { ...opts, notifyURL }, signal));
    } catch (e) {
      const x = explainServiceFailure(e);
      throw new TaskError(x.code, `The ${op} task was not accepted: ${x.message}`, { cause: e });
    }
    return this.start({ accountId, persistentId, origin: 'submitted', mgrUrl: acct.mgrUrl, op, fops, notifyUrl: notifyURL });
  }

  /**
   * Starts following a persistentId typed in by a person (origin 'typed') or returned by an
   * upload whose policy had persistentOps (origin 'upload'; the service composes the
   * engine's result with this). Idempotent: a known id returns its task (a stopped, lost or
   * failed one becomes active again). Throws TaskError 'bad-input' for an unusable id.
   */
  track(accountId: number, persistentId: string, origin: Extract<FmgrOrigin, 'typed' | 'upload'> = 'typed'): FmgrTaskView {
    const pid = checkRemoteId(persistentId, 'persistentId');
    return this.start({ accountId, persistentId: pid, origin, mgrUrl: this.d.account(accountId)?.mgrUrl });
  }

  /**
   * For the service when an upload finished: follows the Fmgr task its persistentOps
   * started, read from the mkfile reply body (MkfileResult.body). Returns undefined when
   * the upload started no task.
   */
  trackUpload(accountId: number, mkfileBody: Record<string, unknown>, field = 'persistentId'): FmgrTaskView | undefined {
    const pid = persistentIdOfUpload(mkfileBody, field);
    return pid === undefined ? undefined : this.track(accountId, pid, 'upload');
  }

  private start(t: Parameters<FmgrRepo['ensure']>[0]): FmgrTaskView {
    const { task } = this.repo.ensure(t, this.d.now());
    if (task.tracking === 'active' && !this.timers.has(task.id)) {
      const delay = t.origin === 'typed' ? 0 : nextPollDelayMs(this.d.policy, { polls: task.polls, consecutiveErrors: 0, push: task.notifyUrl !== null }, this.d.random);
      this.scheduleAt(task.id, delay);
    }
    return this.changed(task);
  }

  /** Schedules every active task (after a restart); returns how many. */
  resume(): number {
    const now = this.d.now();
    let n = 0;
    for (let page = this.repo.list({ tracking: 'active', limit: 500 }); page.length > 0; page = this.repo.list({ tracking: 'active', limit: 500, beforeId: page[page.length - 1]!.id })) {
      for (const t of page) {
        if (this.timers.has(t.id)) continue;
        this.scheduleAt(t.id, t.nextPollAt === null ? 0 : Math.max(0, t.nextPollAt - now));
        n++;
      }
    }
    return n;
  }

  /** Polls now (the user pressed refresh); resolves with the task after the answer. */
  async pollNow(taskId: number): Promise<FmgrTaskView | undefined> {
    this.timers.cancel(taskId);
    await this.poll(taskId, this.timers.signal, true);
    return this.get(taskId);
  }

  /** Stops following a task; its data stays. */
  stop(taskId: number): FmgrTaskView | undefined {
    if (!this.repo.get(taskId)) return undefined;
    this.timers.cancel(taskId);
    return this.changed(this.repo.setTracking(taskId, 'stopped', this.d.now()));
  }

  /**
   * Applies a notification body whose signature the receiver verified: records it at once
   * (a task not known yet is created with origin 'notification'), and polls soon after to
   * record the service's final query code.
   */
  applyNotification(accountId: number, status: FmgrTaskStatus): FmgrTaskView {
    const pid = checkRemoteId(status.id, 'persistentId');
    const now = this.d.now();
    const { task } = this.repo.ensure({ accountId, persistentId: pid, origin: 'notification', mgrUrl: this.d.account(accountId)?.mgrUrl }, now);
    const tracking: Tracking = task.tracking === 'done' ? 'done' : 'active';
    const nextPollAt = tracking === 'active' ? now + this.d.policy.afterNotifyMs : null;
    const row = this.repo.recordStatus(task.id, status, { source: 'notify', tracking, nextPollAt, nowMs: now });
    this.timers.bump(task.id);
    if (tracking === 'active') this.scheduleAt(task.id, this.d.policy.afterNotifyMs);
    return this.changed(row);
  }

  /** Resolves when the task stops being active (done, lost, failed, stopped); rejects (TaskError aborted) on abort or dispose(). */
  waitUntilSettled(taskId: number, signal?: AbortSignal): Promise<FmgrTaskView> {
    return new Promise((resolve, reject) => {
      const check = (v: FmgrTaskView | undefined) => {
        if (!v) {
          finish();
          reject(new TaskError('bad-input', `no Fmgr task with row id ${taskId}`));
        } else if (v.tracking !== 'active') {
          finish();
          resolve(v);
        }
      };
      const onAbort = () => {
        finish();
        reject(new TaskError('aborted', 'stopped waiting'));
      };
      const off = this.listeners.add((v) => {
        if (v.id === taskId) check(v);
      });
      const finish = () => {
        off();
        signal?.removeEventListener('abort', onAbort);
        this.timers.signal.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted || this.timers.disposed) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      // dispose() ends every wait too.
      this.timers.signal.addEventListener('abort', onAbort, { once: true });
      check(this.get(taskId));
    });
  }

  async dispose(): Promise<void> {
    await this.timers.dispose();
    this.listeners.clear();
  }

  private scheduleAt(taskId: number, delayMs: number): void {
    this.timers.schedule(taskId, delayMs, (signal) => this.poll(taskId, signal, false));
  }

  private async poll(taskId: number, signal: AbortSignal, manual: boolean): Promise<void> {
    const task = this.repo.get(taskId);
    if (!task || (task.tracking !== 'active' && !manual) || signal.aborted) return;
    const acct = this.d.account(task.accountId);
    const push = task.notifyUrl !== null;
    if (!acct) {
      const row = this.repo.recordError(taskId, {
        code: 'no-account', message: `account ${task.accountId} has no management host any more; set it and track the task again`,
        notFound: false, tracking: 'failed', nextPollAt: null, nowMs: this.d.now(),
      });
      this.changed(row);
      return;
    }
    const epoch = this.timers.epoch(taskId);
    let status: FmgrTaskStatus;
    try {
      status = await acct.client.fmgrStatus(task.persistentId, signal);
      if (status.id !== task.persistentId) status = { ...status, id: task.persistentId };
    } catch (e) {
      const f = classifyPollError(e);
      if (f.cls === 'aborted' || this.timers.epoch(taskId) !== epoch) return;
      const now = this.d.now();
      const { tracking, delayMs: delay } = decideAfterError(this.d.policy, task, f, push, now, this.d.random);
      const row = this.repo.recordError(taskId, { ...f, notFound: f.cls === 'not-found', tracking, nextPollAt: tracking === 'active' ? now + delay : null, nowMs: now });
      if (tracking === 'active') this.scheduleAt(taskId, delay);
      this.changed(row);
      return;
    }
    // A notification that arrived meanwhile is newer than this answer, and scheduled its own poll.
    if (signal.aborted || this.timers.epoch(taskId) !== epoch) return;
    const now = this.d.now();
    const tracking: Tracking = isFmgrTerminal(status, push) ? 'done' : task.tracking === 'stopped' ? 'stopped' : 'active';
    // While the service is notifying (4), its outcome is near: the normal schedule, not the fallback.
    const delay = nextPollDelayMs(this.d.policy, { polls: task.polls + 1, consecutiveErrors: 0, push: push && status.code !== 4 }, this.d.random);
    const row = this.repo.recordStatus(taskId, status, { source: 'poll', tracking, nextPollAt: tracking === 'active' ? now + delay : null, nowMs: now });
    if (tracking === 'active') this.scheduleAt(taskId, delay);
    this.changed(row);
  }

  private view(t: FmgrTaskRow): FmgrTaskView {
    return fmgrTaskView(t, this.repo.items(t.id));
  }

  private changed(t: FmgrTaskRow): FmgrTaskView {
    const v = this.view(t);
    this.listeners.emit(v);
    return v;
  }
}
