import { isServiceError } from '../protocol/errors';
import { explainServiceFailure, isVcaJobNotFound } from './vca-errors';

/**
 * What a failed status poll means for the follow-up of a task or job:
 * - `retry`: may succeed later (network, timeout, 5xx, 429, a reply we could not read);
 * - `not-found`: the service does not know the id; retried until the give-up rule of
 *   poll-policy.ts says it is lost;
 * - `fatal`: asking again cannot help (another 4xx such as 400 for a malformed id);
 * - `aborted`: we canceled the call ourselves (shutdown); nothing to record.
 */
export type PollErrorClass = 'retry' | 'not-found' | 'fatal' | 'aborted';

export interface PollFailure {
  cls: PollErrorClass;
  code: string;
  message: string;
}

export function classifyPollError(e: unknown): PollFailure {
  if (!isServiceError(e)) {
    // Our own fault (a SQLite busy error, a bug): keep the task and try again later.
    return { cls: 'retry', ...explainServiceFailure(e) };
  }
  if (e.kind === 'aborted') return { cls: 'aborted', code: 'aborted', message: 'Canceled.' };
  if (e.kind !== 'service') return { cls: 'retry', ...explainServiceFailure(e) };
  if (e.endpoint === 'fmgr-status' && e.status === 404) {
    return {
      cls: 'not-found',
      code: 'not-found',
      message: `The service does not know this task id (404: ${e.serviceMessage}). Blocklift keeps asking for a while in case it is new.`,
    };
  }
  if (e.endpoint === 'vca-search' && isVcaJobNotFound(e)) {
    return {
      cls: 'not-found',
      code: 'not-found',
      message: `The service does not know this job id (${e.status}: ${e.serviceMessage}). Blocklift keeps asking for a while in case it is new.`,
    };
  }
  if (e.status >= 500 || e.status === 429 || e.status === 408) return { cls: 'retry', ...explainServiceFailure(e) };
  return { cls: 'fatal', ...explainServiceFailure(e) };
}

/** Whether the thrown value is our own cancellation (the tracker is shutting down). */
export function isAbort(e: unknown): boolean {
  return isServiceError(e) && e.kind === 'aborted';
}
