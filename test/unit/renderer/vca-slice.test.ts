import { describe, expect, it } from 'vitest';
import type { VcaDecideInput, VcaLabelQuery } from '../../../src-main/shared/contract';
import type { VcaJobView } from '../../../src-main/shared/task-views';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { createAppStore } from '../../../src-renderer/store/store';
import { apply, initial, labelQuery, nextToReview, reviewItems, reviewProgress } from '../../../src-renderer/store/vca';
import { job } from './fixtures';

describe('vca slice: pure parts', () => {
  it('orders labels by the documented types, unknown types after, each by confidence', () => {
    const j = job(1, [
      ['custom-thing', 'x', 0.99],
      ['keyword', 'sun', 0.4],
      ['scenario', 'beach', 0.7],
      ['keyword', 'sand', 0.9],
      ['scenario', 'sea', 0.95],
    ]);
    expect(reviewItems(j).map((i) => i.label.attribute)).toEqual(['sea', 'beach', 'sand', 'sun', 'x']);
    expect(reviewItems(undefined)).toEqual([]);
  });

  it('counts a video as reviewed when no label at or above its threshold is pending, and skips jobs without labels', () => {
    const jobs = [
      job(1, [
        ['scenario', 'a', 0.9, 'accepted'],
        // Below the threshold (0.5) and pending: counts as rejected, needs nobody.
        ['entity', 'b', 0.2],
      ]),
      job(2, [
        ['scenario', 'a', 0.9, 'accepted'],
        ['entity', 'b', 0.6],
      ]),
      job(3, []),
    ];
    expect(reviewProgress(jobs)).toEqual({ reviewed: 1, total: 2 });
    expect(nextToReview(jobs, 1)).toBe(2);
    expect(nextToReview(jobs, 2)).toBeNull();
  });

  it('builds the label browser query: trimmed text, a type only when chosen, a confidence only within 0…1', () => {
    expect(labelQuery({ text: ' beach ', type: '', minConfidence: '0.8', page: 2 })).toEqual({
      text: 'beach',
      minConfidence: 0.8,
      offset: 100,
      limit: 50,
    });
    expect(labelQuery({ text: '', type: 'logo', minConfidence: '1.5', page: 0 })).toEqual({
      type: 'logo',
      offset: 0,
      limit: 50,
    });
    expect(labelQuery({ text: '', type: '', minConfidence: 'abc', page: -1 })).toEqual({ offset: 0, limit: 50 });
    expect(labelQuery({ text: '', type: '', minConfidence: '0', page: 0 }).minConfidence).toBe(0);
  });

  it('applies pushed jobs: replaces known ones, puts new ones first', () => {
    const s = { ...initial(), confirmed: [job(1, []), job(2, [])], jobs: [job(1, []), job(2, [])] };
    const changed = { ...job(2, []), state: 'failed' };
    const next = apply(s, { changed: [changed, job(3, [])] });
    expect(next.jobs.map((j) => j.id)).toEqual([3, 1, 2]);
    expect(next.jobs[2]!.state).toBe('failed');
  });
});

describe('vca slice: actions through a bridge', () => {
  it('sends the decision of the label under the cursor, takes the returned job and moves on', async () => {
    let current = job(1, [
      ['scenario', 'beach', 0.9],
      ['scenario', 'sea', 0.5],
    ]);
    const decided: VcaDecideInput[] = [];
    const queries: VcaLabelQuery[] = [];
    const bridge = fakeBridge({
      vca: {
        list: async () => ({ ok: true, value: [current] }),
        decide: async (input) => {
          decided.push(input);
          current = structuredClone(current) as VcaJobView;
          for (const g of current.results)
            for (const l of g.labels) if (l.id === input.labelId) l.decision = input.decision;
          return { ok: true, value: current };
        },
        labels: async (q) => {
          queries.push(q);
          return { ok: true, value: { hits: [], total: 0 } };
        },
      },
    });
    const app = createAppStore(bridge);
    await app.actions.vca.load();
    expect(app.store.getState().vca.currentId).toBe(1);
    await app.actions.vca.accept();
    expect(decided).toEqual([{ jobId: 1, labelId: 101, decision: 'accepted', correctedText: undefined }]);
    expect(app.store.getState().vca.cursor).toBe(1);
    await app.actions.vca.correct('ocean');
    expect(decided[1]).toMatchObject({ labelId: 102, decision: 'corrected', correctedText: 'ocean' });
    expect(reviewProgress(app.store.getState().vca.jobs)).toEqual({ reviewed: 1, total: 1 });

    await app.actions.vca.search({ text: 'beach', type: '', minConfidence: '0.8', page: 0 });
    expect(queries).toEqual([{ text: 'beach', minConfidence: 0.8, offset: 0, limit: 50 }]);
    expect(app.store.getState().vca.browser.searched).toBe(true);
    app.dispose();
  });
});
