import { describe, expect, it } from 'vitest';
import type { AccountInput, WatchRootView } from '../../../src-main/shared/contract';
import type { FmgrTaskView } from '../../../src-main/shared/task-views';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { buildOp } from '../../../src-renderer/screens/tasks/ops';
import { MAX_NOTICES, addNotice, applyBatchFinished, initial as appInitial } from '../../../src-renderer/store/app';
import { apply as applyRoots, initial as foldersInitial, rootCounts } from '../../../src-renderer/store/folders';
import { createAppStore } from '../../../src-renderer/store/store';
import { apply as applyTasks, initial as tasksInitial } from '../../../src-renderer/store/tasks';
import { fmgrTask } from './fixtures';

const root = (id: number, state: WatchRootView['state'] = 'watching'): WatchRootView => ({
  id,
  path: `/data/${id}`,
  accountId: 1,
  bucket: 'b',
  prefix: '',
  options: {},
  state,
  reason: null,
  reasonCode: null,
  reasonParams: null,
  pausedBy: null,
  counts: { indexed: 0, waiting: 0, uploaded: 0, ignored: 0, rejected: 0, failed: 0, inFlight: 0 },
  scanning: null,
  rejected: [],
  lastScanAt: null,
});

const task = (id: number, createdAt: number): FmgrTaskView =>
  fmgrTask({ id, persistentId: `p${id}`, createdAt, updatedAt: createdAt });

describe('folders and tasks slices: apply', () => {
  it('replaces changed roots in place, appends new ones, drops removed ones', () => {
    const s = { ...foldersInitial(), roots: [root(1), root(2), root(3)] };
    const next = applyRoots(s, { changed: [root(2, 'paused'), root(4)], removed: [3] });
    expect(next.roots.map((r) => [r.id, r.state])).toEqual([
      [1, 'watching'],
      [2, 'paused'],
      [4, 'watching'],
    ]);
  });

  it("counts a paused folder's unfinished files as paused, not uploading (its transfers are paused by the root)", () => {
    const counts = { indexed: 14, waiting: 0, uploaded: 0, ignored: 0, rejected: 0, failed: 0, inFlight: 14 };
    const paused = { ...root(1, 'paused'), pausedBy: 'user' as const, counts };
    expect(rootCounts(paused)).toContainEqual(['paused', 14]);
    expect(rootCounts(paused).map(([k]) => k)).not.toContain('inFlight');
    expect(rootCounts({ ...root(1), counts })).toContainEqual(['inFlight', 14]);
  });

  it('keeps tasks newest first as batches arrive', () => {
    const s = { ...tasksInitial(), tasks: [task(2, 20), task(1, 10)] };
    const next = applyTasks(s, { changed: [task(3, 30), { ...task(1, 10), tracking: 'done' }] });
    expect(next.tasks.map((t) => [t.id, t.tracking])).toEqual([
      [3, 'active'],
      [2, 'active'],
      [1, 'done'],
    ]);
    expect(applyTasks(s, { changed: [] })).toBe(s);
  });
});

describe('app slice: notices', () => {
  it('keeps at most MAX_NOTICES and one per identical error', () => {
    let s = appInitial();
    const error = { code: 'service-error' as const, message: 'The service answered 503: busy', params: {} };
    s = addNotice(s, { kind: 'error', error, context: 'transfers.retry' });
    s = addNotice(s, { kind: 'error', error, context: 'transfers.retry' });
    expect(s.notices).toHaveLength(1);
    for (let i = 0; i < MAX_NOTICES + 5; i++)
      s = addNotice(s, { kind: 'batch', counts: { done: i, failed: 0, skipped: 0, canceled: 0 } });
    expect(s.notices).toHaveLength(MAX_NOTICES);
    expect(s.notices.at(-1)).toMatchObject({ kind: 'batch', counts: { done: MAX_NOTICES + 4 } });
  });

  it('one "Uploads finished" notice at a time: a batch ending while one is up adds its counts to it', () => {
    let s = appInitial();
    s = applyBatchFinished(s, { done: 1, failed: 0, skipped: 0, canceled: 0 });
    s = addNotice(s, {
      kind: 'error',
      error: { code: 'service-error', message: 'busy', params: {} },
      context: 'transfers.retry',
    });
    s = applyBatchFinished(s, { done: 200, failed: 1, skipped: 0, canceled: 0 });
    s = applyBatchFinished(s, { done: 30, failed: 0, skipped: 2, canceled: 1 });
    const batches = s.notices.filter((n) => n.kind === 'batch');
    expect(batches).toEqual([
      expect.objectContaining({ kind: 'batch', counts: { done: 231, failed: 1, skipped: 2, canceled: 1 } }),
    ]);
    // the newest: shown afresh (a new id), after the error that came between
    expect(s.notices.map((n) => n.kind)).toEqual(['error', 'batch']);
    // once it was closed, the next batch has a notice of its own counts
    s = { ...s, notices: s.notices.filter((n) => n.kind !== 'batch') };
    s = applyBatchFinished(s, { done: 5, failed: 0, skipped: 0, canceled: 0 });
    expect(s.notices.at(-1)).toMatchObject({ kind: 'batch', counts: { done: 5 } });
  });

  it('turns pushed problems and finished batches into notices through the store', () => {
    const bridge = fakeBridge({});
    const app = createAppStore(bridge);
    bridge.push('problems', {
      problems: [
        { code: 'root-refused', message: '/x cannot be watched: gone', params: { path: '/x', reason: 'gone' }, at: 1 },
      ],
    });
    bridge.push('batchFinished', { done: 3, failed: 1, skipped: 0, canceled: 0 });
    expect(app.store.getState().app.notices.map((n) => n.kind)).toEqual(['problem', 'batch']);
    app.dispose();
  });
});

describe('settings slice: actions', () => {
  it('sends a secret only when one is typed, and takes the saved account (never a secret) back', async () => {
    const saved: AccountInput[] = [];
    const bridge = fakeBridge({
      accounts: {
        save: async (input) => {
          saved.push(input);
          return {
            ok: true,
            value: {
              id: 7,
              name: input.name,
              uploadUrl: input.uploadUrl,
              mgrUrl: null,
              downloadDomain: null,
              accessKey: null,
              tokenUrl: null,
              hasSecret: typeof input.secretKey === 'string',
              secret: typeof input.secretKey === 'string' ? 'stored · changed 2026-11-27' : null,
              isLocal: false,
              isDefault: false,
              proxy: { mode: 'system' },
            },
          };
        },
      },
      settings: {
        set: async (patch) => ({
          ok: false,
          error: { code: 'invalid-setting', message: 'bad', params: { name: Object.keys(patch)[0]!, detail: 'x' } },
        }),
      },
    });
    const app = createAppStore(bridge);
    expect(
      (await app.actions.settings.saveAccount({ name: 'Prod', uploadUrl: 'https://u.example', secretKey: 's3cret' }))
        .ok,
    ).toBe(true);
    expect(saved[0]!.secretKey).toBe('s3cret');
    const state = app.store.getState().settings;
    expect(state.accounts).toEqual([expect.objectContaining({ id: 7, hasSecret: true })]);
    expect(JSON.stringify(state)).not.toContain('s3cret');

    expect(await app.actions.settings.change({ keepAwake: true })).toBe(false);
    expect(app.store.getState().app.notices.at(-1)).toMatchObject({
      context: 'settings.set',
      error: { code: 'invalid-setting' },
    });
    app.dispose();
  });
});

describe('Fmgr operation forms', () => {
  it("refuses a value that breaks the operation's rule with the contract's words, as the door would", () => {
    expect(buildOp('fetch', { fetchURL: 'http://h/a', bucket: 'b', md5: 'abc' })).toEqual({
      ok: false,
      errors: { md5: { rule: 'fetch: md5 must be 32 hex digits, not "abc"' } },
    });
    expect(buildOp('copy', { srcBucket: 'a:b', srcKey: 'k', bucket: 'b' })).toEqual({
      ok: false,
      errors: { srcBucket: { rule: `copy: source bucket "a:b" cannot contain ':'` } },
    });
  });

  it('builds an operation from the typed values and names what is missing or malformed', () => {
    expect(buildOp('copy', { srcBucket: ' a ', srcKey: 'k', bucket: 'b', key: '' })).toEqual({
      ok: true,
      op: { op: 'copy', srcBucket: 'a', srcKey: 'k', bucket: 'b' },
    });
    expect(buildOp('fetch', { fetchURL: 'ftp://x', bucket: '' })).toEqual({
      ok: false,
      errors: { fetchURL: 'url', bucket: 'required' },
    });
    expect(buildOp('setdeadline', { bucket: 'b', deadline: '7' })).toEqual({
      ok: true,
      op: { op: 'setdeadline', bucket: 'b', deadline: 7 },
    });
    expect(buildOp('setdeadline', { bucket: 'b', deadline: '-1' })).toEqual({
      ok: false,
      errors: { deadline: 'count' },
    });
    expect(buildOp('compress', { bucket: 'b', keys: 'a\n\n b ', saveAsBucket: 'z', saveAsKey: 'all.zip' })).toEqual({
      ok: true,
      op: { op: 'compress', bucket: 'b', keys: ['a', 'b'], saveAsBucket: 'z', saveAsKey: 'all.zip' },
    });
    expect(buildOp('deletem3u8', { bucket: 'b', key: 'x.m3u8', deletets: true })).toEqual({
      ok: true,
      op: { op: 'deletem3u8', bucket: 'b', key: 'x.m3u8', deletets: 1 },
    });
  });
});

describe('settings slice: a refused account save', () => {
  it('is returned to the account dialog, which stays open and says it; no toast under its mask', async () => {
    const refusal = { code: 'account-invalid' as const, message: 'bad url', params: { detail: 'uploadUrl' } };
    const bridge = fakeBridge({ accounts: { save: async () => ({ ok: false, error: refusal }) } });
    const app = createAppStore(bridge);
    expect(await app.actions.settings.saveAccount({ name: 'Prod', uploadUrl: 'ftp://x' })).toEqual({
      ok: false,
      error: refusal,
    });
    expect(app.store.getState().app.notices).toEqual([]);
    expect(app.store.getState().settings.accounts).toEqual([]);
    app.dispose();
  });
});
