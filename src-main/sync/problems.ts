import { catalogMessage, type ErrorCode, type ErrorParams } from '../shared/errors';
import type { WatchRootEvent } from './events';
import type { ScanProblem } from './scanner';

export type ProblemEvent = Extract<WatchRootEvent, { type: 'problem' }>;

/**
 * A watched folder's problem as an event: the code of the error catalog (shared/errors.ts),
 * its English message filled from the catalog's template, and the params sent along so a UI
 * can say it in its own language. The type refuses a param the template needs and lacks.
 * Every problem event of this layer is made here (or by `scanProblemEvent`).
 */
export function problemEvent<C extends ErrorCode>(
  rootId: number,
  relPath: string,
  code: C,
  params: ErrorParams<C>,
): ProblemEvent {
  return { type: 'problem', rootId, relPath, code, message: catalogMessage(code, params), params };
}

/** What the walk could not read or follow (scanner.ts builds it from the catalog the same way), as an event. */
export function scanProblemEvent(rootId: number, p: ScanProblem): ProblemEvent {
  return { type: 'problem', rootId, relPath: p.relPath, code: p.code, message: p.message, params: p.params };
}

/**
 * Why a root is paused or unavailable (its state event's reason): a catalog code, its
 * English message and params, built like a problem. A RootUnavailableError is one.
 */
export interface RootReason {
  code: ErrorCode;
  message: string;
  params: Record<string, string | number>;
}

export function rootReason<C extends ErrorCode>(code: C, params: ErrorParams<C>): RootReason {
  return { code, message: catalogMessage(code, params), params };
}
