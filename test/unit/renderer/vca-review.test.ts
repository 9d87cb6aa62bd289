import { describe, expect, it } from 'vitest';
import type { VcaDecideInput } from '../../../src-main/shared/contract';
import type { VcaJobView } from '../../../src-main/shared/task-views';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { createAppStore } from '../../../src-renderer/store/store';
import { shownOf } from '../../../src-renderer/store/vca';
import {
  MAX_UNDO,
  pushUndo,
  shownItems,
  thresholdCounts,
  type UndoEntry,
} from '../../../src-renderer/store/vca-review';
import { job } from './fixtures';

/** The fixture page's first video: 6 labels, 3 of them at or above 0.75. */
const beach = () =>
  job(1, [
    ['scenario', 'beach', 0.97],
    ['scenario', 'outdoor', 0.88, 'accepted'],
    ['entity', 'surfboard', 0.81],
    ['entity', 'dog', 0.42],
    ['location', 'Bondi', 0.64],
    ['new-type', 'unlisted', 0.7],
  ]);

describe('review: threshold and undo (pure)', () => {
  it('shows the labels at or above the threshold, all of them on request, and counts both', () => {
    const j = beach();
    expect(shownItems(j, 0.75, false).map((i) => i.label.attribute)).toEqual(['beach', 'outdoor', 'surfboard']);
    expect(thresholdCounts(j, 0.75, false)).toEqual({ shown: 3, total: 6 });
    expect(thresholdCounts(j, 0.75, true)).toEqual({ shown: 6, total: 6 });
    expect(thresholdCounts(j, 0.42, false)).toEqual({ shown: 6, total: 6 });
    expect(thresholdCounts(j, 1, false)).toEqual({ shown: 0, total: 6 });
    expect(thresholdCounts(undefined, 0.5, false)).toEqual({ shown: 0, total: 0 });
  });

  it('keeps at most MAX_UNDO steps, dropping the oldest', () => {
    let stack: UndoEntry[] = [];
    for (let i = 0; i < MAX_UNDO + 5; i++) stack = pushUndo(stack, { jobId: 1, cursor: i, labels: [] });
    expect(stack).toHaveLength(MAX_UNDO);
    expect(stack[0]!.cursor).toBe(5);
    expect(pushUndo(stack, null)).toBe(stack);
  });
});

/** A service of plain jobs that answers decide like the real one (pending clears the correction). */
function service(jobs: VcaJobView[]) {
  const decided: VcaDecideInput[] = [];
  const bridge = fakeBridge({
    vca: {
      list: async () => ({ ok: true, value: structuredClone(jobs) }),
      decide: async (input) => {
        decided.push(input);
        const j = jobs.find((x) => x.id === input.jobId)!;
        for (const l of j.results.flatMap((g) => g.labels))
          if (l.id === input.labelId)
            Object.assign(l, {
              decision: input.decision,
              correctedText: input.decision === 'corrected' ? input.correctedText : null,
            });
        return { ok: true, value: structuredClone(j) };
      },
      create: async (input) =>
        'url' in input.source && input.source.bucket === 'nope'
          ? { ok: false, error: { code: 'vca-not-enabled', message: 'not enabled for nope', params: {} } }
          : { ok: true, value: job(9, []) },
    },
  });
  return { bridge, decided };
}

describe('review: actions through a bridge', () => {
  it('moves over the shown labels only, and over all of them once asked to show those below', async () => {
    const { bridge } = service([{ ...beach(), minConfidence: 0.75 }]);
    const app = createAppStore(bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    app.actions.vca.move(10);
    expect(shownOf(vca())[vca().cursor]?.label.attribute).toBe('surfboard');
    app.actions.vca.setShowBelow(true);
    // The cursor stays on the label it was on.
    expect(shownOf(vca())[vca().cursor]?.label.attribute).toBe('surfboard');
    app.actions.vca.previewThreshold(0.9);
    app.actions.vca.setShowBelow(false);
    expect(shownOf(vca()).map((i) => i.label.attribute)).toEqual(['beach']);
    expect(vca().cursor).toBe(0);
    app.dispose();
  });

  it('undoes the last decision with its correction, and advances to the next video when all shown are decided', async () => {
    const first = { ...beach(), minConfidence: 0.75 };
    const second = job(2, [['keyword', 'sun', 0.9]]);
    const { bridge, decided } = service([first, second]);
    const app = createAppStore(bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    await app.actions.vca.correct('sea'); // beach → corrected "sea"
    await app.actions.vca.reject(); // outdoor: accepted → rejected
    expect(vca().cursor).toBe(2);
    await app.actions.vca.undo(); // outdoor accepted again, the cursor back on it
    expect(decided.at(-1)).toEqual({ jobId: 1, labelId: 102, decision: 'accepted' });
    expect(vca().cursor).toBe(1);
    await app.actions.vca.move(1);
    await app.actions.vca.accept(); // surfboard: the last shown pending label
    // On to the other video that needs a person.
    expect(vca().currentId).toBe(2);
    expect(vca().cursor).toBe(0);
    await app.actions.vca.undo(); // back to the first video, surfboard pending again
    expect(vca().currentId).toBe(1);
    expect(shownOf(vca())[vca().cursor]?.label).toMatchObject({ attribute: 'surfboard', decision: 'pending' });
    await app.actions.vca.undo(); // undo of the correction: the text goes back with it
    await app.actions.vca.undo(); // nothing further back: the correction's step was the first
    expect(decided.at(-1)).toEqual({ jobId: 1, labelId: 101, decision: 'pending' });
    expect(vca().undo).toEqual([]);
    expect(shownOf(vca())[0]?.label).toMatchObject({ decision: 'pending', correctedText: null });
    app.dispose();
  });

  it('resolves "Analyse" to the service refusal for the form, or null when created', async () => {
    const { bridge } = service([]);
    const app = createAppStore(bridge);
    expect(await app.actions.vca.create({ url: 'http://x/v.mp4', accountId: 2, bucket: 'nope' })).toMatchObject({
      code: 'vca-not-enabled',
    });
    expect(await app.actions.vca.create({ url: ' http://x/v.mp4 ', bucket: ' ' })).toBeNull();
    expect(app.store.getState().vca.jobs.map((j) => j.id)).toEqual([9]);
    app.dispose();
  });
});
