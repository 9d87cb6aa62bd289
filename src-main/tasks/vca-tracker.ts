import type { VcaJob } from '../protocol/types';
import type { Tracking } from '../store/tasks/rows';
import { VcaRepo, type LabelDecision, type VcaJobRow, type VcaJobUpdate, type VcaOrigin } from '../store/tasks/vca-repo';
import { objectAccessUrl } from './access-url';
import { Listeners, NOTIFY_VCA_PATH, notifyUrl, resolveDeps, type ResolvedDeps, type TrackerDeps } from './deps';
import { decideAfterError } from './follow-up';
import { classifyPollError } from './poll-errors';
import { nextPollDelayMs } from './poll-policy';
import { PollTimers } from './poll-timers';
import { acceptedRows, type ExportRow } from './review';
import { checkRemoteId, TaskError } from './task-error';
import { explainVcaError } from './vca-errors';
import { isVcaTerminal, vcaJobView, type VcaJobView } from './vca-view';

export interface CreateVcaJob {
  accountId: number;
  bucket: string;
  /** Complete http(s) URL of the video. */
  source: string;
  origin?: Extract<VcaOrigin, 'created' | 'watch' | 'transfer'>;
  transferId?: number;
  /** Threshold for labels nobody decided on; default 0.5. */
  minConfidence?: number;
}

/**
 * Follows VCA jobs to their end: creates them, polls `v1/vca/search` until code 2 or 3 (and
 * the notification, if any, settled), applies verified notifications at once, keeps labels
 * by type, and holds the reviewer's decisions (which survive restarts: they are in SQLite).
 * Same ownership rules as FmgrTracker: call resume() after construction, dispose() at the end.
 */
export class VcaTracker {
  readonly repo: VcaRepo;
  private readonly d: ResolvedDeps;
  private readonly timers = new PollTimers();
  private readonly listeners = new Listeners<VcaJobView>();

  constructor(deps: TrackerDeps) {
    this.d = resolveDeps(deps);
    this.repo = new VcaRepo(this.d.db);
  }

  onChange(fn: (j: VcaJobView) => void): () => void {
    return this.listeners.add(fn);
  }

  get(jobRow: number): VcaJobView | undefined {
    const j = this.repo.get(jobRow);
    return j && this.view(j);
  }

  find(accountId: number, jobId: string): VcaJobView | undefined {
    const j = this.repo.find(accountId, jobId);
    return j && this.view(j);
  }

  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number } = {}): VcaJobView[] {
    return this.repo.list(opts).map((j) => this.view(j));
  }

  /**
   * Creates a job for a video URL. Rejects with a TaskError whose code is a row of the VCA
   * error table (vca-errors.ts) or a general failure code, and records nothing, when the
   * service refuses; 'bad-input' for a source that is not an http(s) URL.
   */
  async create(c: CreateVcaJob, signal?: AbortSignal): Promise<VcaJobView> {
    const acct = this.d.account(c.accountId);
    if (!acct) throw new TaskError('no-account', `account ${c.accountId} has no management host; set its management URL first`);
    const bucket = c.bucket.trim();
    if (bucket === '') throw new TaskError('bucket-missing', 'No bucket was given. Choose the bucket the video belongs to and try again.');
    checkVideoUrl(c.source);
    const notify = notifyUrl(this.d.publicBaseUrl(), NOTIFY_VCA_PATH);
    let jobId: string;
    try {
      ({ jobId } = await acct.client.vcaCreate({ bucket, source: c.source, notifyUrl: notify }, signal));
    } catch (e) {
      const x = explainVcaError(e, { bucket, source: c.source });
      throw new TaskError(x.code, x.message, { cause: e });
    }
    return this.start({
      accountId: c.accountId, jobId, origin: c.origin ?? 'created', mgrUrl: acct.mgrUrl, bucket, sourceUrl: c.source,
      transferId: c.transferId, notifyUrl: notify, minConfidence: c.minConfidence,
    });
  }

  /** Creates a job for an uploaded object: its access URL from the account's download domain. */
  createForObject(a: { accountId: number; bucket: string; key: string; downloadDomain: string; transferId?: number; origin?: 'transfer' | 'watch'; minConfidence?: number }, signal?: AbortSignal): Promise<VcaJobView> {
    let source: string;
    try {
      source = objectAccessUrl(a.downloadDomain, a.key);
    } catch (e) {
      throw new TaskError('bad-input', (e as Error).message, { cause: e });
    }
    return this.create({ accountId: a.accountId, bucket: a.bucket, source, origin: a.origin ?? 'transfer', transferId: a.transferId, minConfidence: a.minConfidence }, signal);
  }

  /** Starts following a job id typed in (idempotent, like FmgrTracker.track). */
  track(accountId: number, jobId: string): VcaJobView {
    const id = checkRemoteId(jobId, 'jobId');
    return this.start({ accountId, jobId: id, origin: 'typed', mgrUrl: this.d.account(accountId)?.mgrUrl });
  }

  private start(j: Parameters<VcaRepo['ensure']>[0]): VcaJobView {
    const { job } = this.repo.ensure(j, this.d.now());
    if (job.tracking === 'active' && !this.timers.has(job.id)) {
      const delay = j.origin === 'typed' ? 0 : nextPollDelayMs(this.d.policy, { polls: job.polls, consecutiveErrors: 0, push: job.notifyUrl !== null }, this.d.random);
      this.scheduleAt(job.id, delay);
    }
    return this.changed(job);
  }

  resume(): number {
    const now = this.d.now();
    let n = 0;
    for (let page = this.repo.list({ tracking: 'active', limit: 500 }); page.length > 0; page = this.repo.list({ tracking: 'active', limit: 500, beforeId: page[page.length - 1]!.id })) {
      for (const j of page) {
        if (this.timers.has(j.id)) continue;
        this.scheduleAt(j.id, j.nextPollAt === null ? 0 : Math.max(0, j.nextPollAt - now));
        n++;
      }
    }
    return n;
  }

  async pollNow(jobRow: number): Promise<VcaJobView | undefined> {
    this.timers.cancel(jobRow);
    await this.poll(jobRow, this.timers.signal, true);
    return this.get(jobRow);
  }

  stop(jobRow: number): VcaJobView | undefined {
    if (!this.repo.get(jobRow)) return undefined;
    this.timers.cancel(jobRow);
    return this.changed(this.repo.setTracking(jobRow, 'stopped', this.d.now()));
  }

  /** Applies a verified notification body ({jobId, code, desc, results}); see FmgrTracker.applyNotification. */
  applyNotification(accountId: number, body: { jobId: string; code: number; desc: string; results: VcaJob['results'] }): VcaJobView {
    const id = checkRemoteId(body.jobId, 'jobId');
    const now = this.d.now();
    const { job } = this.repo.ensure({ accountId, jobId: id, origin: 'notification', mgrUrl: this.d.account(accountId)?.mgrUrl }, now);
    const tracking: Tracking = job.tracking === 'done' ? 'done' : 'active';
    const nextPollAt = tracking === 'active' ? now + this.d.policy.afterNotifyMs : null;
    const row = this.repo.recordJob(job.id, { code: body.code, desc: body.desc, results: body.results }, { fromPoll: false, tracking, nextPollAt, nowMs: now });
    this.timers.bump(job.id);
    if (tracking === 'active') this.scheduleAt(job.id, this.d.policy.afterNotifyMs);
    return this.changed(row);
  }

  /** Records the reviewer's decision on a label; throws ReviewInputError on bad input. */
  decide(labelId: number, decision: LabelDecision, correctedText?: string): VcaJobView {
    const label = this.repo.decide(labelId, decision, correctedText, this.d.now());
    return this.changed(this.repo.mustGet(label.jobRow));
  }

  setMinConfidence(jobRow: number, minConfidence: number): VcaJobView {
    return this.changed(this.repo.setMinConfidence(jobRow, minConfidence, this.d.now()));
  }

  /** Accepted labels of the given jobs (review.ts), one row per video and label, in the order given. */
  exportRows(jobRows: readonly number[]): ExportRow[] {
    return jobRows.flatMap((id) => acceptedRows(this.repo.mustGet(id), this.repo.labels(id)));
  }

  waitUntilSettled(jobRow: number, signal?: AbortSignal): Promise<VcaJobView> {
    return new Promise((resolve, reject) => {
      const check = (v: VcaJobView | undefined) => {
        if (!v) {
          finish();
          reject(new TaskError('bad-input', `no VCA job with row id ${jobRow}`));
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
        if (v.id === jobRow) check(v);
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
      check(this.get(jobRow));
    });
  }

  async dispose(): Promise<void> {
    await this.timers.dispose();
    this.listeners.clear();
  }

  private scheduleAt(jobRow: number, delayMs: number): void {
    this.timers.schedule(jobRow, delayMs, (signal) => this.poll(jobRow, signal, false));
  }

  private async poll(jobRow: number, signal: AbortSignal, manual: boolean): Promise<void> {
    const job = this.repo.get(jobRow);
    if (!job || (job.tracking !== 'active' && !manual) || signal.aborted) return;
    const acct = this.d.account(job.accountId);
    const push = job.notifyUrl !== null;
    if (!acct) {
      this.changed(this.repo.recordError(jobRow, {
        code: 'no-account', message: `account ${job.accountId} has no management host any more; set it and track the job again`,
        notFound: false, tracking: 'failed', nextPollAt: null, nowMs: this.d.now(),
      }));
      return;
    }
    const epoch = this.timers.epoch(jobRow);
    let found: VcaJob;
    try {
      found = await acct.client.vcaSearch(job.jobId, signal);
    } catch (e) {
      const f = classifyPollError(e);
      if (f.cls === 'aborted' || this.timers.epoch(jobRow) !== epoch) return;
      const now = this.d.now();
      const message = f.cls === 'not-found' ? explainVcaError(e, { jobId: job.jobId }).message : f.message;
      const { tracking, delayMs } = decideAfterError(this.d.policy, job, f, push, now, this.d.random);
      const row = this.repo.recordError(jobRow, { ...f, message, notFound: f.cls === 'not-found', tracking, nextPollAt: tracking === 'active' ? now + delayMs : null, nowMs: now });
      if (tracking === 'active') this.scheduleAt(jobRow, delayMs);
      this.changed(row);
      return;
    }
    // A notification that arrived meanwhile is newer than this answer, and scheduled its own poll.
    if (signal.aborted || this.timers.epoch(jobRow) !== epoch) return;
    const now = this.d.now();
    const tracking: Tracking = isVcaTerminal(found) ? 'done' : job.tracking === 'stopped' ? 'stopped' : 'active';
    // While the service is notifying (notifyResult 1), its outcome is near: the normal schedule.
    const delay = nextPollDelayMs(this.d.policy, { polls: job.polls + 1, consecutiveErrors: 0, push: push && found.notifyResult !== 1 }, this.d.random);
    const update: VcaJobUpdate = { code: found.code, desc: found.desc, notifyResult: found.notifyResult, results: found.results };
    const row = this.repo.recordJob(jobRow, update, { fromPoll: true, tracking, nextPollAt: tracking === 'active' ? now + delay : null, nowMs: now });
    if (tracking === 'active') this.scheduleAt(jobRow, delay);
    this.changed(row);
  }

  private view(j: VcaJobRow): VcaJobView {
    return vcaJobView(j, this.repo.labels(j.id));
  }

  private changed(j: VcaJobRow): VcaJobView {
    const v = this.view(j);
    this.listeners.emit(v);
    return v;
  }
}

function checkVideoUrl(source: string): void {
  let u: URL;
  try {
    u = new URL(source);
  } catch {
    throw new TaskError('bad-input', `"${source.slice(0, 200)}" is not a complete URL; give the video's address like https://example.com/video.mp4`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TaskError('bad-input', `the video URL must start with http:// or https://, not ${u.protocol}`);
}
