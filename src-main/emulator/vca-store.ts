import type { Db } from '../base/sqlite';
import { VCA_TYPES, type VcaJob, type VcaResultGroup, type VcaType } from '../protocol/types';

/**
 * Persistence of the emulator's video analysis jobs in its own SQLite database. Every state
 * change is written at once; on a restart, jobs still analysing or notifying resume (vca.ts).
 */

export interface VcaJobRecord {
  jobId: string;
  bucket: string;
  source: string;
  notifyUrl: string | null;
  /** The `type` filter of the creation request, or null for every type. */
  types: VcaType[] | null;
  /** 1 analysing, 2 failed, 3 succeeded. */
  code: number;
  desc: string;
  /** 0 not notified, 1 notifying, 2 notification failed, 3 succeeded. */
  notifyResult: number;
  results: VcaResultGroup[];
  createdAt: number;
  updatedAt: number;
}

export class VcaJobStore {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly getStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO emu_vca_jobs (job_id, bucket, source, notify_url, types, code, desc, notify_result, results, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateStmt = db.prepare(
      'UPDATE emu_vca_jobs SET code = ?, desc = ?, notify_result = ?, results = ?, updated_at = ? WHERE job_id = ?',
    );
    this.getStmt = db.prepare('SELECT * FROM emu_vca_jobs WHERE job_id = ?');
  }

  insert(j: VcaJobRecord): void {
    this.insertStmt.run(
      j.jobId,
      j.bucket,
      j.source,
      j.notifyUrl,
      j.types === null ? null : j.types.join(','),
      j.code,
      j.desc,
      j.notifyResult,
      JSON.stringify(j.results),
      j.createdAt,
      j.updatedAt,
    );
  }

  save(j: VcaJobRecord): void {
    this.updateStmt.run(j.code, j.desc, j.notifyResult, JSON.stringify(j.results), j.updatedAt, j.jobId);
  }

  get(jobId: string): VcaJobRecord | undefined {
    const row = this.getStmt.get(jobId);
    return row === undefined ? undefined : rowToJob(row);
  }

  /** Jobs still analysing (code 1) or notifying (notifyResult 1), oldest first. */
  unfinished(): VcaJobRecord[] {
    return this.db
      .prepare('SELECT * FROM emu_vca_jobs WHERE code = 1 OR notify_result = 1 ORDER BY created_at')
      .all()
      .map(rowToJob);
  }
}

function rowToJob(raw: unknown): VcaJobRecord {
  const row = raw as Record<string, unknown>;
  const jobId = String(row.job_id);
  let results: unknown;
  try {
    results = JSON.parse(String(row.results));
  } catch {
    results = undefined;
  }
  if (!Array.isArray(results)) throw new Error(`VCA job ${jobId} has unreadable results in the emulator database`);
  const types =
    typeof row.types === 'string'
      ? row.types.split(',').filter((t): t is VcaType => (VCA_TYPES as readonly string[]).includes(t))
      : null;
  return {
    jobId,
    bucket: String(row.bucket),
    source: String(row.source),
    notifyUrl: typeof row.notify_url === 'string' ? row.notify_url : null,
    types,
    code: Number(row.code),
    desc: String(row.desc),
    notifyResult: Number(row.notify_result),
    results: results as VcaResultGroup[],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The job object of `GET /v1/vca/search`. */
export function vcaJobBody(j: VcaJobRecord): VcaJob {
  return {
    jobId: j.jobId,
    code: j.code,
    desc: j.desc,
    notifyResult: j.notifyResult,
    results: j.code === 3 ? j.results : [],
  };
}
