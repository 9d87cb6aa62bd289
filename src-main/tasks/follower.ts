import { Emitter } from '../common/emitter';
import type { MgrClient } from '../protocol/client';
import type { ErrorUpdate, FollowUp, Tracking } from '../store/tasks/rows';
import { resolveDeps, type ResolvedDeps, type TrackerDeps } from './deps';
import { decideAfterError } from './follow-up';
import { classifyPollError, type PollFailure } from './poll-errors';
import { nextPollDelayMs } from './poll-policy';
import { PollTimers } from './poll-timers';
import { TaskError } from './task-error';

/** A followed row (an Fmgr task or a VCA job) as its repository returns it. */
export interface FollowedRow extends FollowUp {
  id: number;
  accountId: number;
  notifyUrl: string | null;
}

/** What the follower needs of a repository; FmgrRepo and VcaRepo have these. */
export interface FollowedRepo<Row extends FollowedRow> {
  get(id: number): Row | undefined;
  find(accountId: number, remoteId: string): Row | undefined;
  findByRemoteId(remoteId: string): Row | undefined;
  remove(id: number): void;
  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number }): Row[];
  setTracking(id: number, tracking: Tracking, nowMs: number): Row;
  recordError(id: number, e: ErrorUpdate): Row;
}

/** Where a fresh answer of the service leaves the row. */
export interface RemoteUpdate {
  tracking: Tracking;
  nextPollAt: number | null;
  nowMs: number;
}

/**
 * The follow-up both trackers share: poll on the schedule of poll-policy.ts, record each
 * answer or error, stop at a terminal state, drop a poll answer older than a notification
 * (PollTimers epochs), resume after a restart, and emit every change as a view.
 * Subclasses say how to ask the service, how to record its answer, and when it is final.
 * Owns its timers and in-flight polls; dispose() stops them. It never closes clients.
 */
export abstract class Follower<Row extends FollowedRow, View extends { id: number; tracking: Tracking }, Remote> {
  protected readonly d: ResolvedDeps;
  protected readonly timers = new PollTimers();
  private readonly listeners = new Emitter<View>('task follower listener');

  constructor(
    deps: TrackerDeps,
    /** "task" or "job", for messages. */
    private readonly noun: string,
  ) {
    this.d = resolveDeps(deps);
  }

  protected abstract get rows(): FollowedRepo<Row>;
  protected abstract view(row: Row): View;
  /** Asks the service for the row's current state. */
  protected abstract fetchRemote(client: MgrClient, row: Row, signal: AbortSignal): Promise<Remote>;
  /** Records an answer of the service; returns the updated row. */
  protected abstract recordRemote(row: Row, remote: Remote, u: RemoteUpdate): Row;
  /** The answer is final (nothing more will change). */
  protected abstract isTerminal(remote: Remote, push: boolean): boolean;
  /** The service is notifying: its outcome is near, so poll on the normal schedule. */
  protected abstract isNotifying(remote: Remote): boolean;
  /** The message kept for a failed poll. */
  protected errorMessage(_e: unknown, f: PollFailure, _row: Row): string {
    return f.message;
  }

  onChange(fn: (v: View) => void): () => void {
    return this.listeners.add(fn);
  }

  get(id: number): View | undefined {
    const r = this.rows.get(id);
    return r && this.view(r);
  }

  find(accountId: number, remoteId: string): View | undefined {
    const r = this.rows.find(accountId, remoteId);
    return r && this.view(r);
  }

  /**
   * The row of a remote id (persistentId / jobId): the given account's if it has one, else
   * any account's (a remote id names one task or job of the service whatever local
   * account recorded it; the command line must not make a second row for it).
   */
  findAnyAccount(preferredAccountId: number, remoteId: string): View | undefined {
    const r = this.rows.find(preferredAccountId, remoteId) ?? this.rows.findByRemoteId(remoteId);
    return r && this.view(r);
  }

  /** Stops following and deletes the row with everything recorded about it (for a row made by mistake). */
  forget(id: number): void {
    this.timers.cancel(id);
    this.rows.remove(id);
  }

  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number } = {}): View[] {
    return this.rows.list(opts).map((r) => this.view(r));
  }

  /** Schedules every active row (after a restart); returns how many. */
  resume(): number {
    const now = this.d.now();
    let n = 0;
    for (
      let page = this.rows.list({ tracking: 'active', limit: 500 });
      page.length > 0;
      page = this.rows.list({ tracking: 'active', limit: 500, beforeId: page[page.length - 1]!.id })
    ) {
      for (const r of page) {
        if (this.timers.has(r.id)) continue;
        this.scheduleAt(r.id, r.nextPollAt === null ? 0 : Math.max(0, r.nextPollAt - now));
        n++;
      }
    }
    return n;
  }

  /** Polls now (the user pressed refresh); resolves with the row after the answer. */
  async pollNow(id: number): Promise<View | undefined> {
    this.timers.cancel(id);
    await this.poll(id, this.timers.signal, true);
    return this.get(id);
  }

  /** Stops following; the data stays. */
  stop(id: number): View | undefined {
    if (!this.rows.get(id)) return undefined;
    this.timers.cancel(id);
    return this.changed(this.rows.setTracking(id, 'stopped', this.d.now()));
  }

  /** Resolves when the row stops being active (done, lost, failed, stopped); rejects (TaskError aborted) on abort or dispose(). */
  waitUntilSettled(id: number, signal?: AbortSignal): Promise<View> {
    return new Promise((resolve, reject) => {
      const check = (v: View | undefined) => {
        if (!v) {
          finish();
          reject(new TaskError('bad-input', `no ${this.noun} with row id ${id}`));
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
        if (v.id === id) check(v);
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
      check(this.get(id));
    });
  }

  async dispose(): Promise<void> {
    await this.timers.dispose();
    this.listeners.clear();
  }

  /** After the repository's ensure(): schedules the first poll of an active row and emits it. */
  protected follow(row: Row, pollAtOnce: boolean): View {
    if (row.tracking === 'active' && !this.timers.has(row.id)) {
      const delay = pollAtOnce
        ? 0
        : nextPollDelayMs(
            this.d.policy,
            { polls: row.polls, consecutiveErrors: 0, push: row.notifyUrl !== null },
            this.d.random,
          );
      this.scheduleAt(row.id, delay);
    }
    return this.changed(row);
  }

  /**
   * Records a verified notification's content at once and polls soon after for the final code.
   *
   * A row that is already `done` keeps its final state: the notification goes to history
   * only (`keepHistory`, e.g. an Fmgr snapshot), nothing is scheduled, and the current state
   * changes only through a poll the user asks for (pollNow). Reason: a notification can
   * arrive late or be replayed (it is validly signed either way), and the body alone does
   * not say whether it is newer than what a poll saw: a separate=1 code-1 notification after
   * the end is stale, and the service only sends news after the end that a poll also shows.
   */
  protected applyPushed(row: Row, record: (u: RemoteUpdate) => Row, keepHistory?: (nowMs: number) => Row): View {
    const now = this.d.now();
    if (row.tracking === 'done') return this.changed(keepHistory ? keepHistory(now) : row);
    const updated = record({ tracking: 'active', nextPollAt: now + this.d.policy.afterNotifyMs, nowMs: now });
    this.timers.bump(row.id);
    this.scheduleAt(row.id, this.d.policy.afterNotifyMs);
    return this.changed(updated);
  }

  protected scheduleAt(id: number, delayMs: number): void {
    this.timers.schedule(id, delayMs, (signal) => this.poll(id, signal, false));
  }

  protected changed(row: Row): View {
    const v = this.view(row);
    this.listeners.emit(v);
    return v;
  }

  private async poll(id: number, signal: AbortSignal, manual: boolean): Promise<void> {
    const row = this.rows.get(id);
    if (!row || (row.tracking !== 'active' && !manual) || signal.aborted) return;
    const acct = this.d.account(row.accountId);
    const push = row.notifyUrl !== null;
    if (!acct) {
      this.changed(
        this.rows.recordError(id, {
          code: 'no-account',
          message: `account ${row.accountId} has no management host any more; set it and track the ${this.noun} again`,
          notFound: false,
          tracking: 'failed',
          nextPollAt: null,
          nowMs: this.d.now(),
        }),
      );
      return;
    }
    const epoch = this.timers.epoch(id);
    let remote: Remote;
    try {
      remote = await this.fetchRemote(acct.client, row, signal);
    } catch (e) {
      const f = classifyPollError(e);
      if (f.cls === 'aborted' || this.timers.epoch(id) !== epoch) return;
      const now = this.d.now();
      const { tracking, delayMs } = decideAfterError(this.d.policy, row, f, push, now, this.d.random);
      const updated = this.rows.recordError(id, {
        ...f,
        message: this.errorMessage(e, f, row),
        notFound: f.cls === 'not-found',
        tracking,
        nextPollAt: tracking === 'active' ? now + delayMs : null,
        nowMs: now,
      });
      if (tracking === 'active') this.scheduleAt(id, delayMs);
      this.changed(updated);
      return;
    }
    // A notification that arrived meanwhile is newer than this answer, and scheduled its own poll.
    if (signal.aborted || this.timers.epoch(id) !== epoch) return;
    const now = this.d.now();
    const tracking: Tracking = this.isTerminal(remote, push)
      ? 'done'
      : row.tracking === 'stopped'
        ? 'stopped'
        : 'active';
    const delay = nextPollDelayMs(
      this.d.policy,
      { polls: row.polls + 1, consecutiveErrors: 0, push: push && !this.isNotifying(remote) },
      this.d.random,
    );
    const updated = this.recordRemote(row, remote, {
      tracking,
      nextPollAt: tracking === 'active' ? now + delay : null,
      nowMs: now,
    });
    if (tracking === 'active') this.scheduleAt(id, delay);
    this.changed(updated);
  }
}
