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
