/**
 * sync-child.ts with its RSS diagnostics (sync-diag.ts) on: the same work, the same `rssMiB`,
 * and where it goes on stderr. Not part of `npm run bench`:
 * `node bin/run-ts.mjs test/bench/sync-diag-child.ts parcel <tree> <db>` (bench/profiles/2026-11-28-sync-rss-ab.txt).
 */
process.env.BENCH_SYNC_DIAG = '1';
await import('./sync-child');
export {};
