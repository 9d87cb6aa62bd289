import type { Db } from '../db';
import type { VcaLabelDecision } from '../../shared/task-views';
import { FollowedTable } from './followed-table';
import type { VcaResultGroup, VcaResultType } from '../../protocol/types';
import { readFollowUp, reader, type ErrorUpdate, type FollowUp, type Tracking } from './rows';

/**
 * VCA jobs, their labels and the reviewer's decisions in SQLite (tables of migration 002).
 * A label is (type, attribute) within a job: results that arrive again (a poll after a
 * notification) update confidence and order and never touch a decision.
 */

export type VcaOrigin = 'created' | 'typed' | 'watch' | 'transfer' | 'notification';
const ORIGINS: readonly VcaOrigin[] = ['created', 'typed', 'watch', 'transfer', 'notification'];
/** One union for label decisions, defined with the views (shared/task-views.ts). */
export type LabelDecision = VcaLabelDecision;
export const LABEL_DECISIONS: readonly LabelDecision[] = ['pending', 'accepted', 'rejected', 'corrected'];

export interface VcaJobRow extends FollowUp {
  id: number;
  accountId: number;
  mgrUrl: string | null;
  jobId: string;
  bucket: string | null;
  sourceUrl: string | null;
  origin: VcaOrigin;
  transferId: number | null;
  notifyUrl: string | null;
  code: number | null;
  description: string | null;
  notifyResult: number | null;
  minConfidence: number;
}

export interface VcaLabelRow {
  id: number;
  jobRow: number;
  /** One of the six documented types, or a name the service sent that the spec does not list (kept raw). */
  type: VcaResultType;
  attribute: string;
  confidence: number;
  position: number;
  decision: LabelDecision;
  correctedText: string | null;
  decidedAt: number | null;
}

export interface NewVcaJob {
  accountId: number;
  jobId: string;
  origin: VcaOrigin;
  mgrUrl?: string;
  bucket?: string;
  sourceUrl?: string;
  transferId?: number;
  notifyUrl?: string;
  minConfidence?: number;
}

/** A job body as the search answers it or a notification carries it (notifyResult only in the former). */
export interface VcaJobUpdate {
  code: number;
  desc: string;
  notifyResult?: number;
  results: readonly VcaResultGroup<VcaResultType>[];
}

function toJob(raw: unknown): VcaJobRow {
  const r = reader('vca_jobs', raw);
  return {
    id: r.int('id'),
    accountId: r.int('account_id'),
    mgrUrl: r.optStr('mgr_url'),
    jobId: r.str('job_id'),
    bucket: r.optStr('bucket'),
    sourceUrl: r.optStr('source_url'),
    origin: r.oneOf('origin', ORIGINS),
    transferId: r.optInt('transfer_id'),
    notifyUrl: r.optStr('notify_url'),
    code: r.optInt('code'),
    description: r.optStr('description'),
    notifyResult: r.optInt('notify_result'),
    minConfidence: r.num('min_confidence'),
    ...readFollowUp(r),
  };
}

function toLabel(raw: unknown): VcaLabelRow {
  const r = reader('vca_labels', raw);
  return {
    id: r.int('id'),
    jobRow: r.int('job_row'),
    type: r.str('type'),
    attribute: r.str('attribute'),
    confidence: r.num('confidence'),
    position: r.int('position'),
    decision: r.oneOf('decision', LABEL_DECISIONS),
    correctedText: r.optStr('corrected_text'),
    decidedAt: r.optInt('decided_at'),
  };
}

export class ReviewInputError extends Error {
  override readonly name = 'ReviewInputError';
  constructor(
    readonly code: 'no-such-label' | 'no-such-job' | 'correction-empty' | 'threshold-range',
    message: string,
  ) {
    super(message);
  }
}

export class VcaRepo {
  private readonly followed: FollowedTable;

  constructor(private readonly db: Db) {
    this.followed = new FollowedTable(db, 'vca_jobs');
  }

  /** Returns the job of (accountId, jobId), creating it when new; given details fill empty columns. */
  ensure(j: NewVcaJob, nowMs: number): { job: VcaJobRow; created: boolean } {
    return this.db.transaction(() => {
      const existing = this.find(j.accountId, j.jobId);
      if (existing) {
        this.db
          .prepare(
            `UPDATE vca_jobs SET mgr_url = COALESCE(mgr_url, ?), bucket = COALESCE(bucket, ?), source_url = COALESCE(source_url, ?),
               transfer_id = COALESCE(transfer_id, ?), notify_url = COALESCE(notify_url, ?),
               not_found_since = CASE WHEN tracking IN ('stopped','lost','failed') THEN NULL ELSE not_found_since END,
               consecutive_errors = CASE WHEN tracking IN ('stopped','lost','failed') THEN 0 ELSE consecutive_errors END,
               finished_at = CASE WHEN tracking IN ('stopped','lost','failed') THEN NULL ELSE finished_at END,
               tracking = CASE WHEN tracking IN ('stopped','lost','failed') THEN 'active' ELSE tracking END,
               updated_at = ? WHERE id = ?`,
          )
          .run(
            j.mgrUrl ?? null,
            j.bucket ?? null,
            j.sourceUrl ?? null,
            j.transferId ?? null,
            j.notifyUrl ?? null,
            nowMs,
            existing.id,
          );
        return { job: this.mustGet(existing.id), created: false };
      }
      if (j.minConfidence !== undefined) checkThreshold(j.minConfidence);
      const info = this.db
        .prepare(
          `INSERT INTO vca_jobs (account_id, mgr_url, job_id, bucket, source_url, origin, transfer_id, notify_url, min_confidence, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, 0.5), ?, ?)`,
        )
        .run(
          j.accountId,
          j.mgrUrl ?? null,
          j.jobId,
          j.bucket ?? null,
          j.sourceUrl ?? null,
          j.origin,
          j.transferId ?? null,
          j.notifyUrl ?? null,
          j.minConfidence ?? null,
          nowMs,
          nowMs,
        );
      return { job: this.mustGet(Number(info.lastInsertRowid)), created: true };
    })();
  }

  get(id: number): VcaJobRow | undefined {
    const raw = this.db.prepare('SELECT * FROM vca_jobs WHERE id = ?').get(id);
    return raw === undefined ? undefined : toJob(raw);
  }

  mustGet(id: number): VcaJobRow {
    const j = this.get(id);
    if (!j) throw new ReviewInputError('no-such-job', `no VCA job with row id ${id}`);
    return j;
  }

  /** The row of a jobId in any account: the most recently updated when several accounts have it. */
  findByRemoteId(jobId: string): VcaJobRow | undefined {
    const raw = this.db
      .prepare('SELECT * FROM vca_jobs WHERE job_id = ? ORDER BY updated_at DESC, id DESC LIMIT 1')
      .get(jobId);
    return raw === undefined ? undefined : toJob(raw);
  }

  /** Deletes a job with its labels and decisions (foreign keys cascade). */
  remove(jobRow: number): void {
    this.db.prepare('DELETE FROM vca_jobs WHERE id = ?').run(jobRow);
  }

  find(accountId: number, jobId: string): VcaJobRow | undefined {
    const raw = this.db.prepare('SELECT * FROM vca_jobs WHERE account_id = ? AND job_id = ?').get(accountId, jobId);
    return raw === undefined ? undefined : toJob(raw);
  }

  /** Newest first; `tracking` filters, `limit` defaults to 200. */
  list(opts: { tracking?: Tracking; limit?: number; beforeId?: number } = {}): VcaJobRow[] {
    return this.followed.list(opts).map(toJob);
  }

  /** Labels of a job in result order. */
  labels(jobRow: number): VcaLabelRow[] {
    return this.db.prepare('SELECT * FROM vca_labels WHERE job_row = ? ORDER BY position, id').all(jobRow).map(toLabel);
  }

  label(labelId: number): VcaLabelRow | undefined {
    const raw = this.db.prepare('SELECT * FROM vca_labels WHERE id = ?').get(labelId);
    return raw === undefined ? undefined : toLabel(raw);
  }

  /**
   * Records a job body in one transaction: code, desc, notifyResult (when given), clears the
   * error, and upserts every label of `results` (a repeated attribute within a type keeps its
   * highest confidence). Decisions are never changed here.
   */
  recordJob(
    jobRow: number,
    job: VcaJobUpdate,
    u: { fromPoll: boolean; tracking: Tracking; nextPollAt: number | null; nowMs: number },
  ): VcaJobRow {
    this.db.transaction(() => {
      const upsert = this.db.prepare(
        `INSERT INTO vca_labels (job_row, type, attribute, confidence, position) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (job_row, type, attribute) DO UPDATE SET confidence = excluded.confidence, position = excluded.position`,
      );
      // A label repeated inside one body keeps its first position and its highest confidence.
      const labels = new Map<string, { type: string; attribute: string; confidence: number; position: number }>();
      let position = 0;
      for (const group of job.results) {
        for (const label of group.result) {
          const k = `${group.type}\u0000${label.attribute}`;
          const prev = labels.get(k);
          if (prev) prev.confidence = Math.max(prev.confidence, label.confidence);
          else labels.set(k, { type: group.type, attribute: label.attribute, confidence: label.confidence, position });
          position++;
        }
      }
      for (const l of labels.values()) upsert.run(jobRow, l.type, l.attribute, l.confidence, l.position);
      this.db
        .prepare(
          `UPDATE vca_jobs SET code = ?, description = ?, notify_result = COALESCE(?, notify_result), error_code = NULL,
             error_message = NULL, error_at = NULL, consecutive_errors = 0, not_found_since = NULL, polls = polls + ?,
             next_poll_at = ?, tracking = ?, finished_at = CASE WHEN ? = 'active' THEN NULL ELSE COALESCE(finished_at, ?) END,
             updated_at = ? WHERE id = ?`,
        )
        .run(
          job.code,
          job.desc,
          job.notifyResult ?? null,
          u.fromPoll ? 1 : 0,
          u.nextPollAt,
          u.tracking,
          u.tracking,
          u.nowMs,
          u.nowMs,
          jobRow,
        );
    })();
    return this.mustGet(jobRow);
  }

  recordError(jobRow: number, e: ErrorUpdate): VcaJobRow {
    this.followed.recordError(jobRow, e);
    return this.mustGet(jobRow);
  }

  setNextPoll(jobRow: number, nextPollAt: number | null): void {
    this.followed.setNextPoll(jobRow, nextPollAt);
  }

  setTracking(jobRow: number, tracking: Tracking, nowMs: number): VcaJobRow {
    this.followed.setTracking(jobRow, tracking, nowMs);
    return this.mustGet(jobRow);
  }

  /**
   * The reviewer's decision on one label. `corrected` needs the corrected text (trimmed,
   * not empty); other decisions clear it. `pending` takes the decision back.
   */
  decide(labelId: number, decision: LabelDecision, correctedText: string | undefined, nowMs: number): VcaLabelRow {
    const text = correctedText?.trim();
    if (decision === 'corrected' && !text)
      throw new ReviewInputError('correction-empty', 'a corrected label needs the corrected text');
    const info = this.db
      .prepare('UPDATE vca_labels SET decision = ?, corrected_text = ?, decided_at = ? WHERE id = ?')
      .run(decision, decision === 'corrected' ? text : null, decision === 'pending' ? null : nowMs, labelId);
    if (info.changes === 0) throw new ReviewInputError('no-such-label', `no label with id ${labelId}`);
    const row = this.label(labelId);
    if (!row) throw new ReviewInputError('no-such-label', `no label with id ${labelId}`);
    return row;
  }

  /** Sets the job's minimum confidence (0…1) for labels nobody decided on. */
  setMinConfidence(jobRow: number, minConfidence: number, nowMs: number): VcaJobRow {
    checkThreshold(minConfidence);
    const info = this.db
      .prepare('UPDATE vca_jobs SET min_confidence = ?, updated_at = ? WHERE id = ?')
      .run(minConfidence, nowMs, jobRow);
    if (info.changes === 0) throw new ReviewInputError('no-such-job', `no VCA job with row id ${jobRow}`);
    return this.mustGet(jobRow);
  }
}

function checkThreshold(v: number): void {
  if (!Number.isFinite(v) || v < 0 || v > 1)
    throw new ReviewInputError('threshold-range', `the minimum confidence must be between 0 and 1, not ${v}`);
}
