import { DISK_FULL_RETRY_MS, StopRequest, diskFullFailure, isDiskFull, sleep, type TransferFailure } from './errors';
import type { EndBatch, EndRecorded } from './end-batch';
import type { EngineStore, TransferRecord } from './ports';
import type { TransferState } from '../shared/models';
import type { ProgressTracker } from './progress';
import { runAttempt, type RunEnd } from './run-attempt';
import type { TransferNews } from './transfer-news';
import type { UploadOutcome } from './upload-deps';
import type { UploadResources } from './upload-resources';

/** What a run needs of its engine. */
export interface RunContext {
  readonly store: EngineStore;
  readonly resources: UploadResources;
  readonly ends: EndBatch;
  readonly news: TransferNews;
  readonly now: () => number;
  /** Whether the engine closed (read at each step: a close can come while the run waits). */
  closed(): boolean;
}

/** One launched run's controls: `ctrl` stops softly (between chunks), `hard` cuts requests in flight. */
export interface RunHandles {
  readonly ctrl: AbortController;
  readonly hard: AbortController;
  readonly tracker: ProgressTracker;
  /** Whether the admission's stat found the file small enough for a form upload (engine.ts `isSmall`). */
  readonly small: boolean;
  /** Told each state the run writes (its phases: uploading, completing); the engine's slot count follows. */
  readonly phase?: (state: TransferState) => void;
}

/**
 * Runs a transfer to its end and records that end (through the EndBatch). A full disk holds
 * it instead of failing it: the run is tried again every DISK_FULL_RETRY_MS (from the blocks
 * the database kept) until the disk has room, the user stops it or the engine closes; the
 * same holds for recording the end. `release` frees the run's slot, with the final write.
 */
export async function runToEnd(
  ctx: RunContext,
  rec: TransferRecord,
  run: RunHandles,
  release: () => void,
): Promise<void> {
  const { ctrl, tracker } = run;
  let end = await attempt(ctx, rec, run);
  while (end.failure?.code === 'disk-full' && !ctx.closed()) {
    if (!(await holdOnDiskFull(ctx, rec.id, tracker, end.failure, ctrl.signal))) {
      end = { stopTo: (ctrl.signal.reason as StopRequest).to };
      break;
    }
    end = await attempt(ctx, ctx.store.getTransfer(rec.id) ?? rec, run);
  }
  if (end.failure?.code === 'disk-full') end = { stopTo: 'queued' };
  for (;;) {
    const recorded = await ctx.ends.record(() => {
      let r: EndRecorded;
      try {
        r = finish(ctx, rec, tracker, end.outcome, end.failure, end.stopTo);
        return r;
      } finally {
        // The slot is freed with the final write (EndBatch pumps in its transaction), not
        // while a full disk keeps that write from happening.
        if (r! !== 'disk-full' || ctx.closed()) release();
      }
    });
    if (recorded !== 'disk-full' || ctx.closed()) return;
    await holdOnDiskFull(ctx, rec.id, tracker, diskFullFailure(null), new AbortController().signal);
  }
}

/** Tells listeners a full disk holds the transfer, waits; false when stopped meanwhile. */
async function holdOnDiskFull(
  ctx: RunContext,
  id: number,
  tracker: ProgressTracker,
  failure: TransferFailure,
  signal: AbortSignal,
): Promise<boolean> {
  const reason = `disk-full: ${failure.message} → retry`;
  ctx.news.retry(id, tracker, reason, DISK_FULL_RETRY_MS, 'disk-full');
  ctx.news.log('warn', 'retry', reason, id);
  try {
    await sleep(DISK_FULL_RETRY_MS, signal);
    return true;
  } catch {
    return !(signal.reason instanceof StopRequest);
  }
}

/** One try of a transfer's upload (run-attempt.ts), wired to the engine's writes and events. */
function attempt(
  ctx: RunContext,
  rec: TransferRecord,
  { ctrl, hard, tracker, small, phase }: RunHandles,
): Promise<RunEnd> {
  const { store, news } = ctx;
  return runAttempt(
    rec,
    () => ctx.resources.depsFor(rec.accountId),
    {
      setState: (id, patch) => {
        news.setState(id, patch);
        if (patch.state) phase?.(patch.state);
      },
      progress: (bytesDone, total) => news.bytes(rec.id, tracker, bytesDone, total),
      retried: (reason, delayMs, about) => {
        news.retry(rec.id, tracker, reason, delayMs, about.action);
        try {
          const cur = store.getTransfer(rec.id);
          store.updateTransfer(rec.id, { attempts: (cur?.attempts ?? 0) + 1 });
        } catch {
          // counting attempts is best effort; the retry itself goes on
        }
        news.log('warn', 'retry', reason, rec.id, { requestId: about.requestId });
      },
      log: (line) => news.log(line.level, line.kind, line.message, rec.id),
    },
    ctrl,
    hard,
    small,
  );
}

/**
 * Records how a run ended; a failing store write here is logged, never thrown. Returns
 * 'disk-full' when the disk had no room for it (the caller tries again).
 */
function finish(
  ctx: RunContext,
  rec: TransferRecord,
  tracker: ProgressTracker,
  outcome: UploadOutcome | undefined,
  failure: TransferFailure | undefined,
  stopTo: StopRequest['to'] | undefined,
): 'recorded' | 'disk-full' | 'failed' {
  const { store, news } = ctx;
  const t = ctx.now();
  try {
    if (stopTo) {
      if (stopTo === 'canceled') store.deleteBlocks(rec.id);
      news.setState(rec.id, { state: stopTo, finishedAt: stopTo === 'canceled' ? t : null });
    } else if (outcome) {
      tracker.setDone(tracker.totalBytes);
      news.finishState(rec.id, {
        state: outcome.state,
        key: outcome.key,
        etag: outcome.etag,
        remoteHash: outcome.remoteHash,
        returnBody: outcome.returnBody,
        warning: outcome.warning,
        copiedFrom: outcome.copiedFrom ?? null,
        ...(outcome.file ?? {}),
        lastError: null,
        finishedAt: t,
      });
    } else if (failure) {
      news.setState(rec.id, {
        state: 'failed',
        lastError: { code: failure.code, message: failure.message },
        finishedAt: t,
      });
      news.log('error', 'transfer-failed', failure.message, rec.id, { requestId: failure.requestId });
    }
    return 'recorded';
  } catch (e) {
    if (isDiskFull(e)) return 'disk-full';
    // The database refused the write (read-only?): tell listeners what we know anyway.
    const snap = news.get(rec.id);
    if (snap) {
      const lastError = failure
        ? { code: failure.code, message: failure.message }
        : { code: 'db-write-failed', message: `could not record the result: ${(e as Error).message}` };
      news.changes.emit({ ...snap, state: 'failed', lastError });
    }
    return 'failed';
  }
}
