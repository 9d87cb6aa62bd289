import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF,
  TOKEN_EXPIRED_HINT,
  backoffDelayMs,
  decide,
  failureFrom,
  type Failure,
  type RetryState,
} from '../../../src-main/engine/retry';
import { ServiceError } from '../../../src-main/protocol/errors';

const base: Failure = { call: 'bput', kind: 'service', status: 500, tokenExpired: false, tokenFresh: false };
const st: RetryState = { attempt: 1, conflict: 'skip', missingBlockRounds: 0 };

describe('decide (the error table of protocol-notes)', () => {
  const rows: Array<[string, Partial<Failure>, Partial<RetryState>, string, Record<string, unknown>?]> = [
    ['5xx retries with backoff', { status: 503 }, {}, 'retry'],
    ['599 retries', { status: 599 }, {}, 'retry'],
    ['429 retries', { status: 429 }, {}, 'retry'],
    ['network error retries', { kind: 'network', status: 0 }, {}, 'retry'],
    ['timeout retries', { kind: 'timeout', status: 0 }, {}, 'retry'],
    ['garbage reply retries', { kind: 'bad-reply', status: 200 }, {}, 'retry'],
    [
      'crc32 mismatch re-sends the chunk',
      { kind: 'bad-reply', status: 200, code: 'crc32-mismatch' },
      {},
      'resend-chunk',
    ],
    ['aborted stops', { kind: 'aborted', status: 0 }, {}, 'stop'],
    ['400 fails', { status: 400 }, {}, 'fail', { code: 'bad-request' }],
    [
      '401 on bput with a token the client thinks valid first gets a fresh token (same chunk, same ctx)',
      { status: 401 },
      {},
      'refresh-token',
    ],
    ['401 on bput with a fresh token restarts the block', { status: 401, tokenFresh: true }, {}, 'restart-block'],
    ['401 with an expired token refreshes it', { status: 401, tokenExpired: true }, {}, 'refresh-token'],
    [
      '401 on bput with an expired token refreshes it',
      { call: 'bput', status: 401, tokenExpired: true },
      {},
      'refresh-token',
    ],
    ['401 on mkblk with a valid token re-signs once', { call: 'mkblk', status: 401 }, {}, 'refresh-token'],
    [
      '401 on mkblk with a fresh token fails',
      { call: 'mkblk', status: 401, tokenFresh: true },
      {},
      'fail',
      { code: 'token-rejected' },
    ],
    ['401 on mkfile with a valid token re-signs once', { call: 'mkfile', status: 401 }, {}, 'refresh-token'],
    [
      '401 on mkfile with a fresh token (stale ctx) uploads the blocks again, like 412',
      { call: 'mkfile', status: 401, tokenFresh: true },
      {},
      'reupload-blocks',
    ],
    [
      '401 on mkfile with a fresh token after two rounds fails naming the block list',
      { call: 'mkfile', status: 401, tokenFresh: true },
      { missingBlockRounds: 2 },
      'fail',
      { code: 'block-list-rejected' },
    ],
    [
      '401 on bput, fresh and expired (clock skew) restarts the block',
      { status: 401, tokenExpired: true, tokenFresh: true },
      {},
      'restart-block',
    ],
    ['701 restarts the block', { status: 701 }, {}, 'restart-block'],
    ['406 applies skip', { call: 'mkfile', status: 406 }, {}, 'conflict', { policy: 'skip' }],
    ['406 applies rename', { call: 'mkfile', status: 406 }, { conflict: 'rename' }, 'conflict', { policy: 'rename' }],
    [
      '406 applies overwrite',
      { call: 'mkfile', status: 406 },
      { conflict: 'overwrite' },
      'conflict',
      { policy: 'overwrite' },
    ],
    ['412 re-uploads blocks', { call: 'mkfile', status: 412 }, {}, 'reupload-blocks'],
    [
      '412 again after two rounds fails',
      { call: 'mkfile', status: 412 },
      { missingBlockRounds: 2 },
      'fail',
      { code: 'blocks-missing' },
    ],
    ['413 fails', { call: 'mkfile', status: 413 }, {}, 'fail', { code: 'too-large' }],
    ['579 is done with a warning, never retried', { call: 'mkfile', status: 579 }, { attempt: 1 }, 'done-with-warning'],
    ['631 fails', { status: 631 }, {}, 'fail', { code: 'no-such-bucket' }],
    [
      '5xx after maxAttempts without progress fails',
      { status: 500 },
      { attempt: DEFAULT_BACKOFF.maxAttempts },
      'fail',
      { code: 'retries-exhausted' },
    ],
    ['token provider 401 fails', { call: 'token', status: 401 }, {}, 'fail', { code: 'token-provider-refused' }],
  ];
  for (const [name, f, s, action, extra] of rows) {
    it(name, () => {
      const d = decide({ ...base, ...f }, { ...st, ...s }, 0.5);
      expect(d.action).toBe(action);
      if (extra) expect(d).toMatchObject(extra);
    });
  }
});

describe('backoffDelayMs', () => {
  const p = { baseDelayMs: 100, maxDelayMs: 2000 };
  it('doubles per attempt with jitter in [half, full]', () => {
    expect(backoffDelayMs(0, 0, p)).toBe(50);
    expect(backoffDelayMs(0, 0.999999, p)).toBe(100);
    expect(backoffDelayMs(3, 0, p)).toBe(400);
    expect(backoffDelayMs(3, 1, p)).toBe(800);
  });
  it('is capped', () => {
    expect(backoffDelayMs(30, 1, p)).toBe(2000);
    expect(backoffDelayMs(30, 0, p)).toBe(1000);
  });
  it('decide uses the attempt for the delay (resets with the attempt count)', () => {
    const d1 = decide({ ...base, status: 500 }, { ...st, attempt: 1 }, 0, { ...DEFAULT_BACKOFF, baseDelayMs: 100 });
    const d3 = decide({ ...base, status: 500 }, { ...st, attempt: 3 }, 0, { ...DEFAULT_BACKOFF, baseDelayMs: 100 });
    expect(d1).toEqual({ action: 'retry', delayMs: 50 });
    expect(d3).toEqual({ action: 'retry', delayMs: 200 });
  });
});

describe('failureFrom (the words a failed transfer ends with)', () => {
  const fail = { action: 'fail', code: 'token-rejected' } as const;
  it('a token the service calls expired points at the clock, not at the keys', () => {
    const e = new ServiceError({ kind: 'service', endpoint: 'mkblk', status: 401, message: 'token expired' });
    const f = failureFrom(e, fail);
    expect(f.message).toContain(TOKEN_EXPIRED_HINT);
    expect(f.message).not.toContain('secret key');
  });
  it("an expired token is its own code, and the reply's request id is data (callers branch on them, never on words)", () => {
    const e = new ServiceError({
      kind: 'service',
      endpoint: 'mkblk',
      status: 401,
      message: 'token expired',
      requestId: 'req-7',
    });
    const f = failureFrom(e, fail);
    expect(f.code).toBe('token-expired');
    expect(f.requestId).toBe('req-7');
    const other = failureFrom(
      new ServiceError({ kind: 'service', endpoint: 'mkblk', status: 401, message: 'bad' }),
      fail,
    );
    expect(other.code).toBe('token-rejected');
    expect(other.requestId).toBeNull();
  });
  it('any other refused token points at the keys', () => {
    const e = new ServiceError({ kind: 'service', endpoint: 'mkblk', status: 401, message: 'bad token' });
    expect(failureFrom(e, fail).message).toContain('check the access key and secret key');
  });
});
