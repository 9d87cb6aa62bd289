import { isDiskFull } from './disk-full';

/**
 * What a failed SQLite write means for the work that tried it (better-sqlite3 throws a
 * SqliteError whose `code` is SQLite's extended result code name, e.g. SQLITE_BUSY_SNAPSHOT):
 * - `disk-full`: SQLITE_FULL, ENOSPC, EDQUOT (base/disk-full.ts): wait for room.
 * - `busy`: another connection holds the database (SQLITE_BUSY*, SQLITE_LOCKED*,
 *   SQLITE_PROTOCOL) past the busy timeout: try again later.
 * - `io`: the disk failed a read or write (SQLITE_IOERR*, SQLITE_NOMEM): try again later.
 * - `row`: this statement's data was refused (SQLITE_CONSTRAINT*: a constraint or trigger;
 *   SQLITE_MISMATCH, SQLITE_TOOBIG, SQLITE_RANGE): the same data fails again; other rows go on.
 * - `corrupt`: the file is damaged (SQLITE_CORRUPT*, SQLITE_NOTADB): a person must act.
 * - `closed`: the connection was closed (the app is quitting): nothing to report.
 * - `other`: anything else (SQLITE_READONLY, SQLITE_CANTOPEN, a bug).
 */
export type SqliteFailure = 'disk-full' | 'busy' | 'io' | 'row' | 'corrupt' | 'closed' | 'other';

const PREFIXES: ReadonlyArray<[string, SqliteFailure]> = [
  ['SQLITE_BUSY', 'busy'],
  ['SQLITE_LOCKED', 'busy'],
  ['SQLITE_PROTOCOL', 'busy'],
  ['SQLITE_IOERR', 'io'],
  ['SQLITE_NOMEM', 'io'],
  ['SQLITE_CONSTRAINT', 'row'],
  ['SQLITE_MISMATCH', 'row'],
  ['SQLITE_TOOBIG', 'row'],
  ['SQLITE_RANGE', 'row'],
  ['SQLITE_CORRUPT', 'corrupt'],
  ['SQLITE_NOTADB', 'corrupt'],
];

/** better-sqlite3's words for a statement run on a closed connection (a TypeError, no code). */
const CLOSED_MESSAGE = 'The database connection is not open';

export function sqliteFailureOf(e: unknown): SqliteFailure {
  if (isDiskFull(e)) return 'disk-full';
  if (e instanceof TypeError && e.message === CLOSED_MESSAGE) return 'closed';
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'other';
  // An extended code is the primary one plus a suffix: SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT.
  for (const [prefix, kind] of PREFIXES) if (code === prefix || code.startsWith(`${prefix}_`)) return kind;
  return 'other';
}

/** The code and message of a failure, for a person: "SQLITE_BUSY: database is locked". */
export function failureDetail(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
