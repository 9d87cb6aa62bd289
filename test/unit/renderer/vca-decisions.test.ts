import { describe, expect, it } from 'vitest';
import type { VcaDecideInput } from '../../../src-main/shared/contract';
import type { VcaJobView } from '../../../src-main/shared/task-views';
import type { UiError } from '../../../src-renderer/bridge/bridge';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { createAppStore } from '../../../src-renderer/store/store';
import { shownOf } from '../../../src-renderer/store/vca';
import {
  enqueue,
  fail,
  failuresByLabel,
  previousOf,
  rebase,
  retry,
  savingLabels,
  unsentCount,
  type Decision,
} from '../../../src-renderer/store/vca-decisions';
import { job } from './fixtures';

const refused = { code: 'not-found', message: 'no such label', params: {} } satisfies UiError;
const decision = (
  id: number,
  labelId: number,
  d: Decision['changes'][0]['decision'],
  state: Decision['state'] = 'queued',
): Decision => ({
  id,
  jobId: 1,
  kind: 'decide',
  changes: [{ labelId, decision: d, correctedText: null }],
  state,
});
const decisions = (j: VcaJobView) => new Map(j.results.flatMap((g) => g.labels).map((l) => [l.id, l.decision]));

describe('review decisions: the queue (pure)', () => {
  const j = job(1, [
    ['scenario', 'beach', 0.9],
    ['scenario', 'sea', 0.8],
  ]);

  it('counts as unsent (leaving the page would lose them) the decisions queued or in flight, not the failed ones', () => {
    expect(unsentCount([])).toBe(0);
    expect(unsentCount([decision(1, 101, 'accepted', 'failed')])).toBe(0);
    expect(unsentCount([decision(1, 101, 'accepted', 'failed'), decision(2, 102, 'accepted', 'sending')])).toBe(1);
    expect(unsentCount([decision(1, 101, 'accepted'), decision(2, 102, 'accepted', 'sending')])).toBe(2);
  });

  it('lays the decisions not yet confirmed over the service view, in order, and remembers what they replace', () => {
    const shown = rebase(j, [decision(1, 101, 'accepted'), decision(2, 102, 'rejected'), decision(3, 101, 'rejected')]);
    expect([...decisions(shown)]).toEqual([
      [101, 'rejected'],
      [102, 'rejected'],
    ]);
    expect(decisions(j).get(101)).toBe('pending');
    expect(previousOf(shown, [{ labelId: 101, decision: 'accepted', correctedText: null }])).toEqual([
      { labelId: 101, decision: 'rejected', correctedText: null },
    ]);
    expect(previousOf(shown, [{ labelId: 101, decision: 'rejected', correctedText: null }])).toEqual([]);
  });

  it('keeps a failed decision on its label until a newer one covers it, and retries it after the newer ones', () => {
    let q = [decision(1, 101, 'accepted', 'sending'), decision(2, 102, 'rejected')];
    q = fail(q, 1, refused);
    expect(q[0]).toMatchObject({ id: 1, state: 'failed', error: refused });
    expect([...failuresByLabel(q).keys()]).toEqual([101]);
    expect([...savingLabels(q)]).toEqual([102]);
    expect(retry(q, 1).map((d) => [d.id, d.state])).toEqual([
      [2, 'queued'],
      [1, 'queued'],
    ]);
    // A newer decision on the same label replaces the failed one.
    expect(enqueue(q, decision(3, 101, 'rejected')).map((d) => d.id)).toEqual([2, 3]);
    // A decision that fails after a newer one on its label was made has nothing left to retry.
    expect(
      fail([decision(4, 101, 'accepted', 'sending'), decision(5, 101, 'rejected')], 4, refused).map((d) => d.id),
    ).toEqual([5]);
  });
});

/**
 * A service double that holds each answer until the test lets it go, and applies a decision
 * to its own jobs only then (as the real one does when the call arrives): the network's
 * delay under the test's control.
 */
function slowService(jobs: VcaJobView[]) {
  const received: VcaDecideInput[] = [];
  const waiting: Array<() => void> = [];
  let refuse = new Set<number>();
  const bridge = fakeBridge({
    vca: {
      list: async () => ({ ok: true, value: structuredClone(jobs) }),
      decide: (input) =>
        new Promise((resolve) => {
          received.push(input);
          waiting.push(() => {
            if (refuse.has(input.labelId)) return resolve({ ok: false, error: refused });
            const j = jobs.find((x) => x.id === input.jobId)!;
            for (const l of j.results.flatMap((g) => g.labels))
              if (l.id === input.labelId)
                Object.assign(l, {
                  decision: input.decision,
                  correctedText: input.decision === 'corrected' ? input.correctedText : null,
                });
            resolve({ ok: true, value: structuredClone(j) });
          });
        }),
    },
  });
  /** Lets the oldest held answer go and waits for the store to take it. */
  const answer = async () => {
    waiting.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  const answerAll = async () => {
    while (waiting.length > 0) await answer();
  };
  return {
    bridge,
    received,
    waiting,
    answer,
    answerAll,
    refuseLabel: (ids: number[]) => (refuse = new Set(ids)),
    server: jobs,
  };
}

const tenLabels = () =>
  job(
    1,
    Array.from({ length: 10 }, (_, i) => ['keyword', `word-${i}`, 0.99 - i * 0.01] as [string, string, number]),
  );

describe('review decisions: keys faster than the network', () => {
  it('decides the label under the cursor at each key, in key order, one call at a time', async () => {
    const svc = slowService([tenLabels()]);
    const app = createAppStore(svc.bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    const shown = () => shownOf(vca()).map((i) => i.label.decision);
    // a, r, a, a, r with no answer in between: every key lands at once, the cursor moves at once.
    void app.actions.vca.accept();
    void app.actions.vca.reject();
    void app.actions.vca.accept();
    void app.actions.vca.accept();
    void app.actions.vca.reject();
    expect(vca().cursor).toBe(5);
    expect(shown().slice(0, 6)).toEqual(['accepted', 'rejected', 'accepted', 'accepted', 'rejected', 'pending']);
    // Only the first is on the wire; the others wait their turn.
    expect(svc.received).toHaveLength(1);
    await svc.answer();
    expect(svc.received).toHaveLength(2);
    // A pushed view from between two answers does not take back what is still queued.
    svc.bridge.push('vca', { changed: [structuredClone(svc.server[0]!)] });
    expect(shown().slice(0, 6)).toEqual(['accepted', 'rejected', 'accepted', 'accepted', 'rejected', 'pending']);
    await svc.answerAll();
    expect(svc.received.map((d) => [d.labelId, d.decision])).toEqual([
      [101, 'accepted'],
      [102, 'rejected'],
      [103, 'accepted'],
      [104, 'accepted'],
      [105, 'rejected'],
    ]);
    expect([...decisions(svc.server[0]!).values()].slice(0, 6)).toEqual(shown().slice(0, 6));
    expect(vca().decisions).toEqual([]);
    // The answers did not move the cursor.
    expect(vca().cursor).toBe(5);
    app.dispose();
  });

  it('a correction goes to the label it was opened on; undo goes back in order, even before the answers', async () => {
    const svc = slowService([tenLabels()]);
    const app = createAppStore(svc.bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    void app.actions.vca.accept(); // 101
    void app.actions.vca.move(1); // skip 102
    void app.actions.vca.correct(' verb ', 103); // the dialog opened on 103
    expect(vca().cursor).toBe(3);
    void app.actions.vca.undo(); // 103 back to pending, the cursor back on it
    expect(vca().cursor).toBe(2);
    void app.actions.vca.undo(); // 101 back to pending
    expect(vca().cursor).toBe(0);
    expect(shownOf(vca()).every((i) => i.label.decision === 'pending')).toBe(true);
    await svc.answerAll();
    expect(svc.received).toEqual([
      { jobId: 1, labelId: 101, decision: 'accepted' },
      { jobId: 1, labelId: 103, decision: 'corrected', correctedText: 'verb' },
      { jobId: 1, labelId: 103, decision: 'pending' },
      { jobId: 1, labelId: 101, decision: 'pending' },
    ]);
    expect([...decisions(svc.server[0]!).values()].every((d) => d === 'pending')).toBe(true);
    expect(vca().undo).toEqual([]);
    app.dispose();
  });

  it('a refused decision stays on its label, marked, the others go on; Retry sends it again', async () => {
    const svc = slowService([tenLabels()]);
    const app = createAppStore(svc.bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    svc.refuseLabel([102]);
    void app.actions.vca.accept();
    void app.actions.vca.reject();
    void app.actions.vca.accept();
    await svc.answerAll();
    expect(svc.received.map((d) => d.labelId)).toEqual([101, 102, 103]);
    expect([...failuresByLabel(vca().decisions).keys()]).toEqual([102]);
    // The label keeps what the reviewer decided, and one notice says why it was not saved.
    expect(shownOf(vca())[1]?.label.decision).toBe('rejected');
    expect(app.store.getState().app.notices.filter((n) => n.kind === 'error')).toHaveLength(1);
    expect(decisions(svc.server[0]!).get(102)).toBe('pending');
    svc.refuseLabel([]);
    const failed = vca().decisions[0]!;
    void app.actions.vca.retryDecision(failed.id);
    await svc.answerAll();
    expect(decisions(svc.server[0]!).get(102)).toBe('rejected');
    expect(vca().decisions).toEqual([]);
    app.dispose();
  });

  it('decisions a closed connection failed are sent again, in order, once the review loads after the reconnect', async () => {
    const svc = slowService([tenLabels()]);
    let closed = true;
    const call = svc.bridge.call;
    svc.bridge.call = ((method: never, input: never) =>
      closed && method === 'vca.decide'
        ? Promise.reject(new Error('socket closed'))
        : call(method, input)) as typeof svc.bridge.call;
    const app = createAppStore(svc.bridge);
    await app.actions.vca.load();
    const vca = () => app.store.getState().vca;
    await app.actions.vca.accept();
    await app.actions.vca.reject();
    expect(vca().decisions.map((d) => [d.state, d.error?.code])).toEqual([
      ['failed', 'bridge-closed'],
      ['failed', 'bridge-closed'],
    ]);
    closed = false;
    const loading = app.actions.vca.load();
    await new Promise((r) => setTimeout(r, 0));
    await svc.answerAll();
    await loading;
    expect(svc.received.map((d) => [d.labelId, d.decision])).toEqual([
      [101, 'accepted'],
      [102, 'rejected'],
    ]);
    expect(vca().decisions).toEqual([]);
    app.dispose();
  });
});
