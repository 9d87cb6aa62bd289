import type { MgrClient } from '../protocol/client';
import type { VcaJob } from '../protocol/types';
import { VcaRepo, type LabelDecision, type VcaJobRow, type VcaOrigin } from '../store/tasks/vca-repo';
import { objectAccessUrl } from './access-url';
import { NOTIFY_VCA_PATH, notifyUrl, type TrackerDeps } from './deps';
import { Follower, type RemoteUpdate } from './follower';
import type { PollFailure } from './poll-errors';
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
export class VcaTracker extends Follower<VcaJobRow, VcaJobView, VcaJob> {
  readonly repo: VcaRepo;

  constructor(deps: TrackerDeps) {
    super(deps, 'VCA job');
    this.repo = new VcaRepo(this.d.db);
  }

  protected get rows(): VcaRepo {
    return this.repo;
  }

  /**
   * Creates a job for a video URL. Rejects with a TaskError whose code is a row of the VCA
   * error table (vca-errors.ts) or a general failure code, and records nothing, when the
   * service refuses; 'bad-input' for a source that is not an http(s) URL.
   */
  async create(c: CreateVcaJob, signal?: AbortSignal): Promise<VcaJobView> {
    const acct = this.d.account(c.accountId);
    if (!acct)
      throw new TaskError('no-account', `account ${c.accountId} has no management host; set its management URL first`);
    const bucket = c.bucket.trim();
    if (bucket === '')
      throw new TaskError(
        'bucket-missing',
        'No bucket was given. Choose the bucket the video belongs to and try again.',
      );
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
      accountId: c.accountId,
      jobId,
      origin: c.origin ?? 'created',
      mgrUrl: acct.mgrUrl,
      bucket,
      sourceUrl: c.source,
      transferId: c.transferId,
      notifyUrl: notify,
      minConfidence: c.minConfidence,
    });
  }

  /** Creates a job for an uploaded object: its access URL from the account's download domain. */
  createForObject(
    a: {
      accountId: number;
      bucket: string;
      key: string;
      downloadDomain: string;
      transferId?: number;
      origin?: 'transfer' | 'watch';
      minConfidence?: number;
    },
    signal?: AbortSignal,
  ): Promise<VcaJobView> {
    let source: string;
    try {
      source = objectAccessUrl(a.downloadDomain, a.key);
    } catch (e) {
      throw new TaskError('bad-input', (e as Error).message, { cause: e });
    }
    return this.create(
      {
        accountId: a.accountId,
        bucket: a.bucket,
        source,
        origin: a.origin ?? 'transfer',
        transferId: a.transferId,
        minConfidence: a.minConfidence,
      },
      signal,
    );
  }

  /** Starts following a job id typed in (idempotent, like FmgrTracker.track). */
  track(accountId: number, jobId: string): VcaJobView {
    const id = checkRemoteId(jobId, 'jobId');
    return this.start({ accountId, jobId: id, origin: 'typed', mgrUrl: this.d.account(accountId)?.mgrUrl });
  }

  private start(j: Parameters<VcaRepo['ensure']>[0]): VcaJobView {
    return this.follow(this.repo.ensure(j, this.d.now()).job, j.origin === 'typed');
  }

  /**
   * Applies a verified notification body ({jobId, code, desc, results}); see
   * FmgrTracker.applyNotification. A job already done keeps its results and state (VCA keeps
   * no snapshots, so the body is not stored); pollNow refreshes it.
   */
  applyNotification(
    accountId: number,
    body: { jobId: string; code: number; desc: string; results: VcaJob['results'] },
  ): VcaJobView {
    const id = checkRemoteId(body.jobId, 'jobId');
    const { job } = this.repo.ensure(
      { accountId, jobId: id, origin: 'notification', mgrUrl: this.d.account(accountId)?.mgrUrl },
      this.d.now(),
    );
    return this.applyPushed(job, (u) =>
      this.repo.recordJob(
        job.id,
        { code: body.code, desc: body.desc, results: body.results },
        { fromPoll: false, ...u },
      ),
    );
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

  protected fetchRemote(client: MgrClient, job: VcaJobRow, signal: AbortSignal): Promise<VcaJob> {
    return client.vcaSearch(job.jobId, signal);
  }

  protected recordRemote(job: VcaJobRow, found: VcaJob, u: RemoteUpdate): VcaJobRow {
    return this.repo.recordJob(
      job.id,
      { code: found.code, desc: found.desc, notifyResult: found.notifyResult, results: found.results },
      { fromPoll: true, ...u },
    );
  }

  protected isTerminal(found: VcaJob): boolean {
    return isVcaTerminal(found);
  }

  /** While the service is notifying (notifyResult 1), its outcome is near. */
  protected isNotifying(found: VcaJob): boolean {
    return found.notifyResult === 1;
  }

  protected override errorMessage(e: unknown, f: PollFailure, job: VcaJobRow): string {
    return f.cls === 'not-found' ? explainVcaError(e, { jobId: job.jobId }).message : f.message;
  }

  protected view(j: VcaJobRow): VcaJobView {
    return vcaJobView(j, this.repo.labels(j.id));
  }
}

function checkVideoUrl(source: string): void {
  let u: URL;
  try {
    u = new URL(source);
  } catch {
    throw new TaskError(
      'bad-input',
      `"${source.slice(0, 200)}" is not a complete URL; give the video's address like https://example.com/video.mp4`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TaskError('bad-input', `the video URL must start with http:// or https://, not ${u.protocol}`);
}
