import type { Result } from '../shared/contract';
import type { FmgrTaskView, VcaJobView } from '../shared/task-views';
import type { CliApi } from './app-client';
import type { CliError } from './cli-error';

interface Followed {
  id: number;
  tracking: string;
}

export interface FollowOptions<V extends Followed> {
  service: CliApi;
  /** The event batch that carries the views ('fmgr' tasks or 'vca' jobs). */
  area: 'fmgr' | 'vca';
  id: number;
  /** The current view (the item may have settled before the subscription). */
  get: () => Promise<Result<V>>;
  /** Called with each view seen while the item is still active. */
  onActive: (v: V) => void;
  /** Aborted (Ctrl-C, --timeout): the error to exit with. */
  stopped: (reason: string) => CliError;
  signal: AbortSignal;
}

/**
 * Follows an Fmgr task or VCA job through the app service's event batches until its tracking
 * leaves 'active' (a batch carries the latest view; the last one always arrives), and
 * resolves with that view. The service's timers do not hold the process open, so this wait
 * does while it lasts.
 */
export async function followUntilSettled<V extends Followed>(o: FollowOptions<V>): Promise<V> {
  let off = () => {};
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    return await new Promise<V>((resolve, reject) => {
      const seen = (v: V) => {
        if (v.id !== o.id) return;
        if (v.tracking !== 'active') resolve(v);
        else o.onActive(v);
      };
      off = o.service.on((e) => {
        if (e.name === o.area)
          (e.payload.changed as Array<FmgrTaskView | VcaJobView>).forEach((v) => seen(v as unknown as V));
      });
      const abort = () => reject(o.stopped(String((o.signal.reason as Error | undefined)?.message ?? 'aborted')));
      if (o.signal.aborted) abort();
      o.signal.addEventListener('abort', abort, { once: true });
      void o.get().then((r) => r.ok && seen(r.value));
    });
  } finally {
    clearInterval(keepAlive);
    off();
  }
}
