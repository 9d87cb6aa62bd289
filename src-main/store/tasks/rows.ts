import type { TaskTracking } from '../../shared/task-views';
/**
 * Readers that validate values coming back from SQLite, so a damaged row fails with a
 * message naming the table and column instead of spreading a wrong type.
 */
export class TaskRowError extends Error {
  override readonly name = 'TaskRowError';
}

/** One union for tracking, defined with the views (shared/task-views.ts). */
export type Tracking = TaskTracking;
export const TRACKING_STATES: readonly Tracking[] = ['active', 'done', 'lost', 'failed', 'stopped'];

export class RowReader {
  constructor(
    private readonly table: string,
    private readonly row: Record<string, unknown>,
  ) {}

  int(col: string): number {
    const v = this.row[col];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'bigint') return Number(v);
    throw new TaskRowError(`${this.table}.${col} is not an integer`);
  }

  optInt(col: string): number | null {
    return this.row[col] === null || this.row[col] === undefined ? null : this.int(col);
  }

  num(col: string): number {
    const v = this.row[col];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    throw new TaskRowError(`${this.table}.${col} is not a number`);
  }

  str(col: string): string {
    const v = this.row[col];
    if (typeof v === 'string') return v;
    throw new TaskRowError(`${this.table}.${col} is not text`);
  }

  optStr(col: string): string | null {
    return this.row[col] === null || this.row[col] === undefined ? null : this.str(col);
  }

  oneOf<T extends string>(col: string, allowed: readonly T[]): T {
    const v = this.str(col);
    if (!(allowed as readonly string[]).includes(v))
      throw new TaskRowError(`${this.table}.${col} has unknown value ${v}`);
    return v as T;
  }

  optOneOf<T extends string>(col: string, allowed: readonly T[]): T | null {
    return this.row[col] === null || this.row[col] === undefined ? null : this.oneOf(col, allowed);
  }
}

export function reader(table: string, raw: unknown): RowReader {
  if (typeof raw !== 'object' || raw === null) throw new TaskRowError(`${table}: row is not an object`);
  return new RowReader(table, raw as Record<string, unknown>);
}

/** Common follow-up columns of fmgr_tasks and vca_jobs. */
export interface FollowUp {
  tracking: Tracking;
  errorCode: string | null;
  errorMessage: string | null;
  errorAt: number | null;
  consecutiveErrors: number;
  notFoundSince: number | null;
  polls: number;
  nextPollAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export function readFollowUp(r: RowReader): FollowUp {
  return {
    tracking: r.oneOf('tracking', TRACKING_STATES),
    errorCode: r.optStr('error_code'),
    errorMessage: r.optStr('error_message'),
    errorAt: r.optInt('error_at'),
    consecutiveErrors: r.int('consecutive_errors'),
    notFoundSince: r.optInt('not_found_since'),
    polls: r.int('polls'),
    nextPollAt: r.optInt('next_poll_at'),
    createdAt: r.int('created_at'),
    updatedAt: r.int('updated_at'),
    finishedAt: r.optInt('finished_at'),
  };
}

/** What a failed poll writes. */
export interface ErrorUpdate {
  code: string;
  message: string;
  /** The service said the id is unknown: starts (or keeps) the not-found clock. */
  notFound: boolean;
  tracking: Tracking;
  nextPollAt: number | null;
  nowMs: number;
}
