import { describe, expect, it } from 'vitest';
import { batchLook, noticeScreen } from '../../../src-renderer/components/errors';
import type { UiError } from '../../../src-renderer/bridge/bridge';
import { applyProblems, initial, type Notice } from '../../../src-renderer/store/app';

describe('notices: the screen their button opens', () => {
  const problem = (p: { code: string; rootId?: number; transferId?: number }) =>
    applyProblems(initial(), { problems: [{ message: 'm', params: {}, at: 1, ...p }] }).notices[0]!;

  it('a watched folder’s problem opens Folders, whatever its code; one transfer’s opens Transfers', () => {
    expect(noticeScreen(problem({ code: 'watch-failed', rootId: 3 }))).toBe('folders');
    expect(noticeScreen(problem({ code: 'path-unreadable', rootId: 3 }))).toBe('folders');
    expect(noticeScreen(problem({ code: 'path-unreadable', transferId: 9 }))).toBe('transfers');
    expect(noticeScreen(problem({ code: 'path-unreadable' }))).toBeNull();
  });

  it('an error opens the screen that fixes it; a finished batch opens Transfers', () => {
    const error = (code: UiError['code']): Notice => ({
      id: 1,
      kind: 'error',
      context: 'x',
      error: { code, message: 'm', params: {} },
    });
    expect(noticeScreen(error('root-refused'))).toBe('folders');
    expect(noticeScreen(error('service-auth-failed'))).toBe('settings');
    expect(noticeScreen(error('internal'))).toBeNull();
    expect(noticeScreen({ id: 1, kind: 'batch', counts: { done: 1, failed: 0, skipped: 0, canceled: 0 } })).toBe(
      'transfers',
    );
  });
});

describe('a finished batch’s toast', () => {
  it('with a failure it warns, stays until closed and opens the failed transfers; without one it is a success for 6 s', () => {
    expect(batchLook({ failed: 1 })).toEqual({
      type: 'warning',
      titleKey: 'notices.batchFailedTitle',
      duration: 0,
      states: ['failed'],
    });
    expect(batchLook({ failed: 0 })).toEqual({
      type: 'success',
      titleKey: 'notices.batchTitle',
      duration: 6,
      states: [],
    });
  });
});
