import type { TransferTotals } from '../shared/contract';
import { TRANSFER_STATES } from '../shared/models';

/** Transfer counts by state, all zero: where the store's count starts and the window's before its first page. */
export function emptyTotals(): TransferTotals {
  return Object.fromEntries(TRANSFER_STATES.map((s) => [s, 0])) as TransferTotals;
}
