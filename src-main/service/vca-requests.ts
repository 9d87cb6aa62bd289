import type { CoreProblem } from '../shared/events';
import type { AccountRepo } from '../store/account-repo';
import type { VcaRequestsRepo, VcaRequestInput, VcaRequestRecord } from '../store/vca-requests-repo';
import { objectAccessUrl } from '../tasks/access-url';
import { classifyPollError, type PollFailure } from '../tasks/poll-errors';
import { DEFAULT_POLL_POLICY, nextPollDelayMs, type PollPolicy } from '../tasks/poll-policy';
import { TaskError } from '../tasks/task-error';
import type { VcaTracker } from '../tasks/vca-tracker';

export interface VcaRequestQueueDeps {
  repo: VcaRequestsRepo;
  accounts: Pick<AccountRepo, 'get'>;
  vca: Pick<VcaTracker, 'create'>;
  problem: (p: CoreProblem) => void;
  /** Aborted when the core closes: attempts in flight stop, their rows stay pending. */
  signal: AbortSignal;
  /** Backoff between attempts: the trackers' error backoff (poll-policy.ts). */
  policy?: PollPolicy;
  now?: () => number;
  random?: () => number;
}

/**
 * VCA jobs the core must create for uploaded videos, never lost (store/vca-requests-repo.ts):
 * - `request()` writes the request to SQLite first, then asks the service;
 * - a failure that may pass (network, timeout, 5xx, 408, 429, our own error) is retried with
 *   the trackers' error backoff (nextPollDelayMs), forever; the first such failure is a
 *   'problem' event saying Blocklift keeps trying;
 * - a failure asking again cannot fix (a row of the VCA error table such as bucket not found
 *   or source invalid, another 4xx, no download domain, no management host) marks the
 *   request 'failed' with its message and is a 'problem' event; no further attempt;
 * - on success the request row is deleted and the job is followed by the VcaTracker;
 * - `resume()` (core open) schedules every pending request at its due time.
 * The account's current download domain is used at each attempt (the stored one when the
 * account has none any more), so a changed domain is picked up by the retries.
 */
export class VcaRequestQueue {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly policy: PollPolicy;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly d: VcaRequestQueueDeps) {
    this.policy = d.policy ?? DEFAULT_POLL_POLICY;
    this.now = d.now ?? Date.now;
    this.random = d.random ?? Math.random;
  }

  /** Stores the request, then tries at once. Never throws: a storage failure is a problem. */
  request(r: VcaRequestInput): void {
    let rec: VcaRequestRecord;
    try {
      rec = this.d.repo.add(r, this.now());
    } catch (e) {
      this.d.problem({
        code: 'vca-request-not-stored',
        message: `no VCA job for ${r.key}: the request could not be stored (${(e as Error).message})`,
        key: r.key,
        rootId: r.rootId ?? undefined,
        transferId: r.transferId ?? undefined,
      });
      return;
    }
    this.attempt(rec.id);
  }

  /** Schedules every pending request (at open). */
  resume(): void {
    if (this.d.signal.aborted) return;
    for (const r of this.d.repo.list('pending')) this.schedule(r.id, r.nextAttemptAt);
  }

  /** Requests stored (pending and failed), oldest first. */
  list(): VcaRequestRecord[] {
    return this.d.repo.list();
  }

  /** Waits for the attempts in flight (after the signal aborted, they end quickly). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()]);
  }

  /** Stops the timers; pending rows stay for the next open. */
  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private schedule(id: number, atMs: number): void {
    if (this.d.signal.aborted) return;
    const old = this.timers.get(id);
    if (old) clearTimeout(old);
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        this.attempt(id);
      },
      Math.max(0, atMs - this.now()),
    );
    this.timers.set(id, t);
  }

  private attempt(id: number): void {
    if (this.d.signal.aborted || this.inFlight.has(id)) return;
    const p = this.run(id)
      .catch((e: unknown) => {
        // Storage failed while recording the outcome: say so; the row is as it was.
        if (!this.d.signal.aborted)
          this.d.problem({
            code: 'vca-request-failed',
            message: `a VCA job request could not be updated: ${(e as Error).message}`,
          });
      })
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, p);
  }

  private async run(id: number): Promise<void> {
    const r = this.d.repo.get(id);
    if (!r || r.state !== 'pending') return;
    const about = { key: r.key, rootId: r.rootId ?? undefined, transferId: r.transferId ?? undefined };
    const domain = this.d.accounts.get(r.accountId)?.downloadDomain ?? r.downloadDomain;
    if (!domain) {
      this.fail(
        r,
        {
          code: 'vca-no-download-domain',
          message: 'the account has no download domain; set one in the account settings',
        },
        about,
      );
      return;
    }
    try {
      const source = objectAccessUrl(domain, r.key);
      this.d.repo.setSource(r.id, domain, source, this.now());
      await this.d.vca.create(
        { accountId: r.accountId, bucket: r.bucket, source, origin: r.origin, transferId: r.transferId ?? undefined },
        this.d.signal,
      );
    } catch (e) {
      const f = classify(e);
      if (f.cls === 'aborted' || this.d.signal.aborted) return; // stays pending: the next open tries again
      if (f.cls === 'fatal') this.fail(r, f, about);
      else this.retryLater(r, f, about);
      return;
    }
    this.d.repo.remove(r.id);
  }

  private fail(
    r: VcaRequestRecord,
    f: { code: string; message: string },
    about: Omit<CoreProblem, 'code' | 'message'>,
  ): void {
    this.d.repo.fail(r.id, f, this.now());
    this.d.problem({ ...about, code: f.code, message: `no VCA job for ${r.key}: ${f.message}` });
  }

  private retryLater(r: VcaRequestRecord, f: PollFailure, about: Omit<CoreProblem, 'code' | 'message'>): void {
    const attempts = r.attempts + 1;
    const delayMs = nextPollDelayMs(
      this.policy,
      { polls: attempts, consecutiveErrors: attempts, push: false },
      this.random,
    );
    const now = this.now();
    const next = this.d.repo.retryLater(r.id, f, now + delayMs, now);
    if (!next) return;
    if (attempts === 1)
      this.d.problem({
        ...about,
        code: f.code,
        message: `the VCA job for ${r.key} is not created yet and will be asked for again: ${f.message}`,
      });
    this.schedule(r.id, next.nextAttemptAt);
  }
}

/**
 * What a failed creation means: the service's answer decides (poll-errors.ts: network,
 * timeout, 5xx, 408, 429, unreadable → retry; another 4xx, including every row of the VCA
 * error table → fatal). A TaskError without a service cause is our own check of the input
 * (bad-input, no-account, bucket-missing): fatal. Anything else (a SQLite busy error) retries.
 */
function classify(e: unknown): PollFailure {
  if (e instanceof TaskError) {
    if (e.cause === undefined) return { cls: 'fatal', code: e.code, message: e.message };
    const f = classifyPollError(e.cause);
    return { ...f, code: e.code, message: e.message };
  }
  if (e instanceof Error && e.name === 'AccessUrlError') return { cls: 'fatal', code: 'bad-input', message: e.message };
  return classifyPollError(e);
}
