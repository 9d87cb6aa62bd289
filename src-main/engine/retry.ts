import { backoffMs } from '../common/backoff';
import type { ServiceError } from '../protocol/errors';
import type { ConflictPolicy } from '../shared/models';
import { TransferFailure } from './errors';
import type { RetryAbout } from './upload-deps';

/**
 * The one place that decides what to do after a failed call (protocol-notes "Error codes of
 * the upload endpoints"). Pure: the same input gives the same decision; randomness for
 * jitter comes in as a number in [0, 1).
 */

export type FailureKind = 'service' | 'bad-reply' | 'network' | 'timeout' | 'aborted';
/** 'form' is the one-request form upload of a small file: treated like mkfile (conflict, 579, callback). */
export type CallName = 'mkblk' | 'bput' | 'mkfile' | 'form' | 'token';

export interface Failure {
  call: CallName;
  kind: FailureKind;
  /** HTTP status, 0 without a reply. */
  status: number;
  /** The error's code (e.g. 'crc32-mismatch' for a damaged chunk). */
  code?: string | number;
  /** True when the token used is past (or within the safety margin of) its deadline. */
  tokenExpired: boolean;
  /** True when this call already used a token fetched after a 401. */
  tokenFresh: boolean;
}

export interface RetryState {
  /** Consecutive failures without progress (reset after any chunk is acknowledged). */
  attempt: number;
  conflict: ConflictPolicy;
  /** 412 answers already handled for this file. */
  missingBlockRounds: number;
}

export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Failures without progress after which the transfer fails. */
  maxAttempts: number;
  maxMissingBlockRounds: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxAttempts: 8,
  maxMissingBlockRounds: 2,
};

export type Decision =
  | { action: 'retry'; delayMs: number }
  | { action: 'resend-chunk'; delayMs: number }
  | { action: 'restart-block'; delayMs: number }
  | { action: 'refresh-token' }
  | { action: 'reupload-blocks' }
  | { action: 'conflict'; policy: ConflictPolicy }
  | { action: 'done-with-warning' }
  | { action: 'stop' }
  | { action: 'fail'; code: string };

/** The common backoff (common/backoff.ts) with "equal jitter": half fixed, half random; capped. */
export function backoffDelayMs(
  attempt: number,
  random: number,
  p: Pick<BackoffPolicy, 'baseDelayMs' | 'maxDelayMs'>,
): number {
  return backoffMs(attempt, { baseMs: p.baseDelayMs, maxMs: p.maxDelayMs }, random);
}

/**
 * What to do after `f`. `state.attempt` counts failures since the last progress, this one
 * included (1 for the first failure).
 */
export function decide(f: Failure, state: RetryState, random: number, p: BackoffPolicy = DEFAULT_BACKOFF): Decision {
  if (f.kind === 'aborted') return { action: 'stop' };
  const delayMs = backoffDelayMs(state.attempt - 1, random, p);
  const exhausted = state.attempt >= p.maxAttempts;
  const transient = (d: Decision): Decision => (exhausted ? { action: 'fail', code: 'retries-exhausted' } : d);

  if (f.kind === 'network' || f.kind === 'timeout') return transient({ action: 'retry', delayMs });
  if (f.kind === 'bad-reply') {
    if (f.code === 'crc32-mismatch') return transient({ action: 'resend-chunk', delayMs });
    return transient({ action: 'retry', delayMs });
  }
  // kind 'service': the service answered with an error status.
  switch (f.status) {
    case 400:
      return { action: 'fail', code: 'bad-request' };
    case 401:
      if (f.call === 'token') return { action: 'fail', code: 'token-provider-refused' };
      // First a fresh token, also when ours looks valid (the service's clock may be ahead):
      // a bput then resends the same chunk with the same ctx (a refused request does not use it).
      if (!f.tokenFresh) return { action: 'refresh-token' };
      // A fresh token refused: on bput the ctx is what was refused, so the block starts over;
      if (f.call === 'bput') return transient({ action: 'restart-block', delayMs: 0 });
      // on mkfile the block list is (a ctx that is not its block's last): upload the blocks again, like 412;
      if (f.call === 'mkfile')
        return state.missingBlockRounds < p.maxMissingBlockRounds
          ? { action: 'reupload-blocks' }
          : { action: 'fail', code: 'block-list-rejected' };
      // on mkblk the token itself.
      return { action: 'fail', code: 'token-rejected' };
    case 406:
      return { action: 'conflict', policy: state.conflict };
    case 412:
      return state.missingBlockRounds < p.maxMissingBlockRounds
        ? { action: 'reupload-blocks' }
        : { action: 'fail', code: 'blocks-missing' };
    case 413:
      return { action: 'fail', code: 'too-large' };
    case 579:
      return { action: 'done-with-warning' };
    case 631:
      return { action: 'fail', code: 'no-such-bucket' };
    case 701:
      return transient({ action: 'restart-block', delayMs: 0 });
    default:
      break;
  }
  if (f.status === 429 || f.status >= 500) return transient({ action: 'retry', delayMs });
  if (f.status === 403) return { action: 'fail', code: 'forbidden' };
  if (f.status === 404) return { action: 'fail', code: 'not-found' };
  return transient({ action: 'retry', delayMs });
}

/** The message a person sees for a failure code (the service's own message is appended). */
export const FAILURE_HINTS: Record<string, string> = {
  'bad-request': 'the service refused the request as malformed',
  'token-rejected': 'the service rejected the upload token: check the access key and secret key (or the token URL)',
  'token-provider-refused': 'the token provider refused to issue a token',
  'blocks-missing': 'the service kept saying blocks are missing after they were uploaded again',
  'block-list-rejected':
    "the service kept refusing mkfile's block list (a ctx that is not its block's last, or of an unknown block) with a fresh token, also after the blocks were uploaded again",
  'too-large': 'the file is larger than the upload policy allows (fsizeLimit)',
  'no-such-bucket': 'the bucket does not exist: check --bucket',
  forbidden: 'the service refused access',
  'not-found': 'the upload URL answered 404: check --upload-url',
  'retries-exhausted': 'gave up after repeated failures without progress',
};

export const TOKEN_EXPIRED_HINT =
  "the service says the upload token expired although it was just made: this computer's clock (or the token provider's) is behind; set the time right";

/** What listeners of a retry branch on: the decision's action and the reply's request id. */
export function retryAbout(e: ServiceError, d: Decision): RetryAbout {
  return { action: d.action, requestId: e.requestId ?? null };
}

/**
 * The failure a transfer ends with when `d` gives up on `e`: its code, the hint before the
 * service's message, and the reply's request id. A token the service calls expired was
 * signed with a deadline already past on its clock: the keys are fine, this machine's clock
 * is behind (or the token provider's), so the code is `token-expired`, not `token-rejected`
 * (service/credential-holds.ts holds an account for the second only).
 */
export function failureFrom(e: ServiceError, d: Decision): TransferFailure {
  const decided = d.action === 'fail' ? d.code : 'unexpected';
  // The service's own words are the only sign of an expired token (the status is 401 either way).
  const code = decided === 'token-rejected' && /expired/i.test(e.serviceMessage ?? '') ? 'token-expired' : decided;
  const hint = code === 'token-expired' ? TOKEN_EXPIRED_HINT : FAILURE_HINTS[code];
  return new TransferFailure(code, hint ? `${hint} (${e.message})` : e.message, {
    cause: e,
    requestId: e.requestId ?? null,
  });
}
