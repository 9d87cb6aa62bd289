import type { MgrClient } from '../protocol/client';
import type { Db } from '../store/db';
import { DEFAULT_POLL_POLICY, type PollPolicy } from './poll-policy';

/** Paths, below the public base URL, where notifications-receiver.ts listens. */
export const NOTIFY_FMGR_PATH = '/notify/fmgr';
export const NOTIFY_VCA_PATH = '/notify/vca';

/** An account's management host, as the trackers need it. */
export interface MgrAccount {
  /** The client for this account; the caller owns it and closes it (trackers never do). */
  client: MgrClient;
  /** Its management URL, recorded with each task so that another process can find it. */
  mgrUrl: string;
}

/**
 * What the Fmgr and VCA trackers are built from. `account` answers undefined for an account
 * that has no management host (or no longer exists). `publicBaseUrl` is read at each
 * submission (settings may change while running): when it gives a URL, submissions carry a
 * notify URL below it and polling slows to a fallback rate.
 */
export interface TrackerDeps {
  db: Db;
  account: (accountId: number) => MgrAccount | undefined;
  publicBaseUrl?: () => string | undefined;
  policy?: PollPolicy;
  now?: () => number;
  random?: () => number;
}

export interface ResolvedDeps extends Required<Omit<TrackerDeps, 'publicBaseUrl'>> {
  publicBaseUrl: () => string | undefined;
}

export function resolveDeps(d: TrackerDeps): ResolvedDeps {
  return {
    db: d.db,
    account: d.account,
    publicBaseUrl: d.publicBaseUrl ?? (() => undefined),
    policy: d.policy ?? DEFAULT_POLL_POLICY,
    now: d.now ?? Date.now,
    random: d.random ?? Math.random,
  };
}

/** The notify URL for a kind of notification, or undefined when no public base URL is set. */
export function notifyUrl(
  publicBaseUrl: string | undefined,
  path: typeof NOTIFY_FMGR_PATH | typeof NOTIFY_VCA_PATH,
): string | undefined {
  if (!publicBaseUrl) return undefined;
  return new URL(`${publicBaseUrl.replace(/\/+$/, '')}${path}`).href;
}
