/** How often work held by a full disk (a transfer, a watched file) is tried again. */
export const DISK_FULL_RETRY_MS = 2000;

const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'disk-full']);

/**
 * Whether `e` (or an error it wraps as `cause`) says the disk is full: SQLite's
 * SQLITE_FULL, a file write's ENOSPC or EDQUOT, or an error already coded 'disk-full'.
 */
export function isDiskFull(e: unknown): boolean {
  let x: unknown = e;
  for (let depth = 0; depth < 8 && typeof x === 'object' && x !== null; depth++) {
    if (DISK_FULL_CODES.has(String((x as { code?: unknown }).code))) return true;
    x = (x as { cause?: unknown }).cause;
  }
  return false;
}
