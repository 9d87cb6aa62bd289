import { toCsv } from './csv';
import type { ExportRow } from './review';

/**
 * Export of accepted labels (see review.ts): one row per video and label, with type and
 * confidence. CSV is RFC 4180 (csv.ts) with a header record; JSON is an array of objects
 * with the same fields, confidence as a number.
 */
export const EXPORT_COLUMNS = [
  'job_id',
  'video',
  'bucket',
  'type',
  'label',
  'original_label',
  'confidence',
  'decision',
] as const;

export function exportCsv(rows: readonly ExportRow[]): string {
  return toCsv(
    EXPORT_COLUMNS,
    rows.map((r) => [r.jobId, r.video, r.bucket, r.type, r.label, r.originalLabel, r.confidence, r.decision]),
  );
}

export function exportJson(rows: readonly ExportRow[]): string {
  return `${JSON.stringify(rows, null, 2)}\n`;
}
