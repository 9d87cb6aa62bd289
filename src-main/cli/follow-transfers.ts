import type { TransferView } from '../shared/contract';
import { TERMINAL_TRANSFER_STATES } from '../shared/models';
import type { CliApp } from './app-client';
import { RetryNotices } from './retry-notices';
import { valueOf } from './service-result';

export interface TransferWatcher {
  progress(id: number, bytesDone: number): void;
  retrying(t: TransferView, reason: string, nextAttemptAt: number): void;
  finished(t: TransferView): void;
  /** A transfer waits for the upload schedule's next window (said once). */
  heldBySchedule(t: TransferView): void;
}

export interface FollowOutcome {
  /** The last view of every transfer that settled. */
  results: Map<number, TransferView>;
  /** Ctrl-C / SIGTERM before all settled. */
  interrupted: boolean;
  /** The running app stopped before all settled. */
  lost: boolean;
}

/**
 * Follows transfers through the app's `transfers` batches until each settled (done, failed,
 * skipped, canceled), Ctrl-C, or the running app went away. `subscribe` first, before the
 * transfers are added (nothing is missed), then `follow(ids)`.
 */
export function transferFollower(app: CliApp, out: TransferWatcher) {
  const views = new Map<number, TransferView>();
  const results = new Map<number, TransferView>();
  const notices = new RetryNotices();
  let mine: Set<number> | undefined;
  let scheduleSaid = false;
  let interrupted = false;
  let wake = () => {};
  // From the subscription on (the add included): Ctrl-C ends following, never the process mid-call.
  const onSignal = () => {
    interrupted = true;
    wake();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const settle = (v: TransferView) => {
    views.set(v.id, v);
    if (!mine?.has(v.id) || results.has(v.id)) return;
    if (v.state === 'paused' && v.pausedBy === 'schedule' && !scheduleSaid) {
      scheduleSaid = true;
      out.heldBySchedule(v);
    }
    if (!TERMINAL_TRANSFER_STATES.includes(v.state)) return;
    results.set(v.id, v);
    out.finished(v);
    if (results.size === mine.size) wake();
  };
  const unsubscribe = app.api.on((e) => {
    if (e.name !== 'transfers') return;
    for (const v of e.payload.changed) settle(v);
    if (!mine) return;
    for (const p of e.payload.progress) {
      if (!mine.has(p.id) || results.has(p.id)) continue;
      out.progress(p.id, p.bytesDone);
      const n = notices.accept(p);
      const v = n && views.get(n.id);
      if (n && v) out.retrying(v, n.reason, n.nextAttemptAt);
    }
  });

  const off = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unsubscribe();
  };

  async function follow(ids: readonly number[]): Promise<FollowOutcome> {
    mine = new Set(ids);
    let lost = false;
    const done = new Promise<void>((r) => (wake = r));
    if (interrupted) wake();
    app.onLost(() => {
      lost = true;
      wake();
    });
    // The app's timers do not hold this process open; this wait does while it lasts.
    const keepAlive = setInterval(() => {}, 1 << 30);
    try {
      for (const id of ids) {
        if (interrupted) break;
        const v = valueOf(await app.api.transfers.get({ id }));
        out.progress(id, v.bytesDone);
        settle(v);
      }
      if (results.size < mine.size) await done;
    } finally {
      clearInterval(keepAlive);
      off();
    }
    return { results, interrupted, lost };
  }

  return { follow, stop: off };
}
