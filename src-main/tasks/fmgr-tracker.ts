import type { MgrClient } from '../protocol/client';
import { buildFop, FopsSyntaxError, type FmgrOp, type FmgrOpName } from '../protocol/fops';
import type { FmgrTaskStatus } from '../protocol/types';
import { FmgrRepo, type FmgrOrigin, type FmgrTaskRow } from '../store/tasks/fmgr-repo';
import { NOTIFY_FMGR_PATH, notifyUrl, type TrackerDeps } from './deps';
import { Follower, type RemoteUpdate } from './follower';
import type { FmgrTaskFor } from '../shared/task-views';
import { fmgrTaskView, isFmgrTerminal, type FmgrTaskView } from './fmgr-view';
import { checkRemoteId, TaskError } from './task-error';
import { persistentIdOfUpload } from './upload-link';
import { explainServiceFailure } from './vca-errors';

/**
 * Follows Fmgr tasks to their end: submits operations, tracks ids typed in or returned by
 * an upload with persistentOps, polls `fmgr/status` on the schedule of poll-policy.ts,
 * applies verified notifications (notify-receiver.ts) at once, and keeps every distinct
 * snapshot in SQLite. State survives a restart: call resume() after construction.
 *
 * Every change of a task is emitted to onChange listeners as a FmgrTaskView. The tracker
 * owns its timers and in-flight polls; dispose() stops them. It never closes clients.
 */
export class FmgrTracker extends Follower<FmgrTaskRow, FmgrTaskView, FmgrTaskStatus> {
  readonly repo: FmgrRepo;

  constructor(deps: TrackerDeps) {
    super(deps, 'Fmgr task');
    this.repo = new FmgrRepo(this.d.db);
  }

  protected get rows(): FmgrRepo {
    return this.repo;
  }

  snapshots(taskId: number) {
    return this.repo.snapshots(taskId);
  }

  /**
   * Submits operations of one kind as one task and starts following it; `forTransfer` names
   * the transfer the upload engine submits it for (service/engine-fmgr.ts). Rejects with a
   * TaskError (code 'no-account', 'bad-operation', or the service failure's code) and
   * records nothing when the service did not accept the submission.
   */
  async submit(
    accountId: number,
    op: FmgrOpName,
    ops: readonly FmgrOp[],
    opts: { force?: 0 | 1; separate?: 0 | 1 } = {},
    signal?: AbortSignal,
    forTransfer?: FmgrTaskFor,
  ): Promise<FmgrTaskView> {
    const acct = this.d.account(accountId);
    if (!acct)
      throw new TaskError('no-account', `account ${accountId} has no management host; set its management URL first`);
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
    return this.start({
      accountId,
      persistentId,
      origin: 'submitted',
      mgrUrl: acct.mgrUrl,
      op,
      fops,
      notifyUrl: notifyURL,
      ...(forTransfer ? { forTransfer } : {}),
    });
  }

  /**
   * Starts following a persistentId typed in by a person (origin 'typed') or returned by an
   * upload whose policy had persistentOps (origin 'upload'; the service composes the
   * engine's result with this). Idempotent: a known id returns its task (a stopped, lost or
   * failed one becomes active again). Throws TaskError 'bad-input' for an unusable id.
   */
  track(
    accountId: number,
    persistentId: string,
    origin: Extract<FmgrOrigin, 'typed' | 'upload'> = 'typed',
  ): FmgrTaskView {
    const pid = checkRemoteId(persistentId, 'persistentId');
    return this.start({ accountId, persistentId: pid, origin, mgrUrl: this.d.account(accountId)?.mgrUrl });
  }

  /**
   * For the service when an upload finished: follows the Fmgr task its persistentOps
   * started, read from the mkfile reply body (MkfileResult.body). Returns undefined when
   * the upload started no task.
   */
  trackUpload(
    accountId: number,
    mkfileBody: Record<string, unknown>,
    field = 'persistentId',
  ): FmgrTaskView | undefined {
    const pid = persistentIdOfUpload(mkfileBody, field);
    return pid === undefined ? undefined : this.track(accountId, pid, 'upload');
  }

  private start(t: Parameters<FmgrRepo['ensure']>[0]): FmgrTaskView {
    return this.follow(this.repo.ensure(t, this.d.now()).task, t.origin === 'typed');
  }

  /**
   * Applies a notification body whose signature the receiver verified: records it at once
   * (a task not known yet is created with origin 'notification'), and polls soon after to
   * record the service's final query code. For a task already done it is kept as a snapshot
   * only (Follower.applyPushed says why).
   */
  applyNotification(accountId: number, status: FmgrTaskStatus): FmgrTaskView {
    const pid = checkRemoteId(status.id, 'persistentId');
    const { task } = this.repo.ensure(
      { accountId, persistentId: pid, origin: 'notification', mgrUrl: this.d.account(accountId)?.mgrUrl },
      this.d.now(),
    );
    return this.applyPushed(
      task,
      (u) => this.repo.recordStatus(task.id, status, { source: 'notify', ...u }),
      (nowMs) => this.repo.keepSnapshot(task.id, status, 'notify', nowMs),
    );
  }

  protected async fetchRemote(client: MgrClient, task: FmgrTaskRow, signal: AbortSignal): Promise<FmgrTaskStatus> {
    const status = await client.fmgrStatus(task.persistentId, signal);
    return status.id === task.persistentId ? status : { ...status, id: task.persistentId };
  }

  protected recordRemote(task: FmgrTaskRow, status: FmgrTaskStatus, u: RemoteUpdate): FmgrTaskRow {
    return this.repo.recordStatus(task.id, status, { source: 'poll', ...u });
  }

  protected isTerminal(status: FmgrTaskStatus, push: boolean): boolean {
    return isFmgrTerminal(status, push);
  }

  /** While the service is notifying (4), its outcome is near. */
  protected isNotifying(status: FmgrTaskStatus): boolean {
    return status.code === 4;
  }

  protected view(t: FmgrTaskRow): FmgrTaskView {
    return fmgrTaskView(t, this.repo.items(t.id));
  }
}
