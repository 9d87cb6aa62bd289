import type { TransferProgress } from '../shared/events';
import type { TransferRequest, TransferSnapshot } from '../shared/models';

/**
 * The queue as its feeders (CLI, sync, UI) see it. The engine implements it; sync and the
 * service depend only on this interface.
 */
export interface TransferQueue {
  /** Inserts the requests as queued transfers in one transaction; returns their ids, in order. */
  enqueue(requests: readonly TransferRequest[]): number[];
  /** Current state of one transfer, or undefined when there is no such id. */
  get(id: number): TransferSnapshot | undefined;
  /**
   * Calls `listener` on every state change of any transfer (not on every progress tick).
   * Returns the function that unsubscribes.
   */
  onTransferChange(listener: (t: TransferSnapshot) => void): () => void;
}

/**
 * A retry as listeners see it: the words, when the next attempt is, and what to branch on:
 * `action` is the retry policy's (retry.ts: 'retry' is a wait with backoff, 'restart-block',
 * 'refresh-token'…) or 'disk-full' (the transfer waits for room on the disk).
 */
export interface RetryNews {
  reason: string;
  nextAttemptAt: number;
  action: string;
}

/** Progress of a running transfer (throttled to ~10 updates a second per transfer). */
export interface ProgressEvent extends TransferProgress {
  /** Set on the event sent at once when a call failed and will be tried again (not throttled). */
  retry?: RetryNews;
}

/**
 * What the UI, the scheduler of watched folders and the service use to steer transfers.
 * UploadEngine implements it next to TransferQueue.
 */
export interface TransferControl {
  /** Pauses a queued or running transfer (running: after its chunks in flight); false when not applicable. */
  pause(id: number): boolean;
  /** Puts a paused or failed transfer back in the queue; it continues from committed offsets. */
  resume(id: number): boolean;
  /** Cancels a transfer that has not finished; its uploaded blocks are forgotten. */
  cancel(id: number): boolean;
  pauseAll(): number;
  resumeAll(): number;
  cancelAll(): number;
  /** Bandwidth for all transfers together, bytes per second, applied at once; null for none. */
  setBandwidthLimit(bytesPerSec: number | null): void;
  onProgress(listener: (p: ProgressEvent) => void): () => void;
}
