import type { VcaLabelHit, VcaLabelQuery } from '../shared/contract';
import type { VcaLabelDecision } from '../shared/task-views';
import type { Db } from './db';

/**
 * The label browser's query: which videos carry a label (text, type) at or above a
 * confidence, over every VCA job. Ordered by confidence, highest first. A label's
 * `source` is the key of the uploaded object when the job came from a transfer, else the
 * video URL.
 */
export function queryVcaLabels(db: Db, q: VcaLabelQuery): { hits: VcaLabelHit[]; total: number } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (q.text) {
    terms.push(`(l.attribute LIKE ? ESCAPE '\\' OR l.corrected_text LIKE ? ESCAPE '\\')`);
    const like = `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    params.push(like, like);
  }
  if (q.type) {
    terms.push('l.type = ?');
    params.push(q.type);
  }
  if (q.minConfidence !== undefined) {
    terms.push('l.confidence >= ?');
    params.push(q.minConfidence);
  }
  const where = terms.length ? `WHERE ${terms.join(' AND ')}` : '';
  const from = `FROM vca_labels l JOIN vca_jobs j ON j.id = l.job_row LEFT JOIN transfers t ON t.id = j.transfer_id`;
  const total = db
    .prepare(`SELECT count(*) ${from} ${where}`)
    .pluck()
    .get(...params) as number;
  const rows = db
    .prepare(
      `SELECT j.id AS job_id, l.id AS label_id, l.type, COALESCE(l.corrected_text, l.attribute) AS attribute,
         l.confidence, l.decision, COALESCE(t.key, j.source_url, j.job_id) AS source
       ${from} ${where} ORDER BY l.confidence DESC, l.id LIMIT ? OFFSET ?`,
    )
    .all(...params, q.limit ?? 200, q.offset ?? 0) as Array<{
    job_id: number;
    label_id: number;
    type: string;
    attribute: string;
    confidence: number;
    decision: VcaLabelDecision;
    source: string;
  }>;
  return {
    total,
    hits: rows.map((r) => ({
      jobId: r.job_id,
      labelId: r.label_id,
      type: r.type,
      attribute: r.attribute,
      confidence: r.confidence,
      decision: r.decision,
      source: r.source,
    })),
  };
}
