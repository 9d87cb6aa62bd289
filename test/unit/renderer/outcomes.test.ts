import { describe, expect, it } from 'vitest';
import type { FmgrItemView, FmgrTaskView } from '../../../src-main/shared/task-views';
import { failedItems, jobFailure, jobPhase, taskOutcome } from '../../../src-renderer/store/outcomes';
import { fmgrTask, job } from './fixtures';

function item(index: number, code: number, error: string | null = null): FmgrItemView {
  return {
    index,
    cmd: 'copy',
    code,
    state: code === 2 ? 'failure' : 'success',
    description: '',
    error,
    hash: null,
    fsize: null,
    key: null,
    url: null,
    decompresslist: null,
  };
}

/** A task the app followed to its end: the service answered code 6 (`notification succeeded`). */
function task(items: FmgrItemView[], extra: Partial<FmgrTaskView> = {}): FmgrTaskView {
  return fmgrTask({
    tracking: 'done',
    code: 6,
    codeSource: 'poll',
    state: 'notification succeeded',
    items,
    polls: 1,
    finishedAt: 1,
    ...extra,
  });
}

describe('outcomes: a VCA job', () => {
  it('whose service code is 2 failed, with the service reason, although the app stopped following it', () => {
    const failed = {
      ...job(1, []),
      tracking: 'done' as const,
      code: 2,
      state: 'analysis failed',
      description: 'source cannot be fetched',
    };
    expect(jobPhase(failed)).toBe('failed');
    expect(jobFailure(failed)).toBe('source cannot be fetched');
    expect(jobFailure({ ...failed, description: null })).toBe('analysis failed');
  });

  it('that succeeded (code 3) is done, one still followed is analysing, a lost one failed with the app error', () => {
    expect(jobPhase({ ...job(1, []), code: 3 })).toBe('done');
    expect(jobFailure({ ...job(1, []), code: 3 })).toBeNull();
    expect(jobPhase({ ...job(1, []), code: 1, tracking: 'active' })).toBe('analysing');
    const lost = { ...job(1, []), code: null, tracking: 'lost' as const, error: { code: 'x', message: 'gone', at: 1 } };
    expect([jobPhase(lost), jobFailure(lost)]).toEqual(['failed', 'gone']);
  });
});

describe('outcomes: an Fmgr task', () => {
  it('whose one item failed is failed, not finished, although its code is 6 (notification succeeded)', () => {
    const t = task([item(0, 2, 'file not found: b:missing')]);
    expect(taskOutcome(t)).toBe('failed');
    expect(failedItems(t).map((i) => i.error)).toEqual(['file not found: b:missing']);
  });

  it('with some items failed (2 or 18-20) is partly failed; with none it follows its tracking', () => {
    expect(taskOutcome(task([item(0, 3), item(1, 19, 'x')]))).toBe('partial');
    expect(taskOutcome(task([item(0, 3), item(1, 6)]))).toBe('done');
    expect(taskOutcome(task([item(0, 2, 'x')], { tracking: 'active', code: 1 }))).toBe('active');
    expect(taskOutcome(task([], { code: 2, codeSource: 'notify' }))).toBe('failed');
    expect(taskOutcome(task([], { tracking: 'lost' }))).toBe('lost');
  });
});
