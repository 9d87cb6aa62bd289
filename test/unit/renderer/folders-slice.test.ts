import { describe, expect, it } from 'vitest';
import type { FolderChoice, FolderListing, Result, RootInput, RootPlan } from '../../../src-main/shared/contract';
import { fakeBridge } from '../../../src-renderer/bridge/fake';
import { createAppStore } from '../../../src-renderer/store/store';

const listing = (p: string, parent: string | null): FolderListing => ({
  path: p,
  parent,
  entries: [{ name: 'sub', path: `${p}/sub`, kind: 'folder', size: null }],
});
const ok = <T>(value: T): Result<T> => ({ ok: true, value });

function planOf(files: number): RootPlan {
  return {
    newFiles: files,
    changedFiles: 0,
    unchangedFiles: 0,
    ignoredFiles: 0,
    rejectedFiles: 0,
    renamedFiles: 0,
    waitingFiles: 0,
    newBytes: files,
    changedBytes: 0,
    unchangedBytes: 0,
    ignoredBytes: 0,
    filesToUpload: files,
    bytesToUpload: files,
    estimatedSeconds: 1,
    assumedBytesPerSecond: 1,
    speedSource: 'default',
  } as RootPlan;
}

describe('folders slice: choosing a folder', () => {
  it('takes the folder the system dialog chose (desktop), and nothing when it was canceled', async () => {
    const answers: FolderChoice[] = [{ kind: 'chosen', path: '/home/me/Pictures' }, { kind: 'canceled' }];
    const bridge = fakeBridge({ app: { chooseFolder: async () => ok(answers.shift() as FolderChoice) } });
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.folders.chooseFolder('/home/me');
    expect(app.store.getState().folders.chosen).toEqual({ path: '/home/me/Pictures', n: 1 });
    await app.actions.folders.chooseFolder();
    expect(app.store.getState().folders.chosen).toEqual({ path: '/home/me/Pictures', n: 1 });
    expect(app.store.getState().folders.browser).toBeNull();
    expect(bridge.calls.filter((c) => c.method === 'app.chooseFolder').map((c) => c.input)).toEqual([
      { path: '/home/me' },
      {},
    ]);
    app.dispose();
  });

  it('browses a listing (headless): opens folders, goes up, chooses the one shown', async () => {
    const bridge = fakeBridge({
      app: {
        chooseFolder: async (input) => {
          const p = input.path ?? '/home/me';
          return ok({ kind: 'listing', listing: listing(p, p === '/home/me' ? null : '/home/me') });
        },
      },
    });
    const app = createAppStore(bridge, { refreshMs: 0 });
    const folders = () => app.store.getState().folders;
    await app.actions.folders.chooseFolder();
    expect(folders().browser).toEqual({ listing: listing('/home/me', null), loading: false });
    await app.actions.folders.browseTo('/home/me/sub');
    expect(folders().browser?.listing.path).toBe('/home/me/sub');
    app.actions.folders.chooseBrowsed();
    expect(folders().browser).toBeNull();
    expect(folders().chosen).toEqual({ path: '/home/me/sub', n: 1 });
    app.dispose();
  });

  it('starts at the top when the typed path is not one the browser shows', async () => {
    const bridge = fakeBridge({
      app: {
        chooseFolder: async (input) =>
          input.path
            ? { ok: false, error: { code: 'path-not-found', message: 'no', params: { path: input.path } } }
            : ok({ kind: 'listing', listing: listing('/home/me', null) }),
      },
    });
    const app = createAppStore(bridge, { refreshMs: 0 });
    await app.actions.folders.chooseFolder('/etc');
    expect(app.store.getState().folders.browser?.listing.path).toBe('/home/me');
    expect(app.store.getState().app.notices).toEqual([]);
    app.dispose();
  });
});

describe('folders slice: the plan with its options', () => {
  it('plans again with the options, keeps only the answer for the latest, and adds with the options shown', async () => {
    const pending: Array<(r: Result<RootPlan>) => void> = [];
    const added: RootInput[] = [];
    const bridge = fakeBridge({
      roots: {
        plan: (input) =>
          new Promise((resolve) => {
            pending.push(resolve);
            void input;
          }),
        add: async (input) => (added.push(input), { ok: false, error: { code: 'internal', message: 'x', params: {} } }),
      },
    });
    const app = createAppStore(bridge, { refreshMs: 0 });
    const draft = () => app.store.getState().folders.draft;
    const first = app.actions.folders.plan({ path: '/w', bucket: 'local' });
    pending.shift()?.(ok(planOf(4)));
    await first;
    expect(draft()).toMatchObject({ plan: { filesToUpload: 4 }, planning: false });
    const older = app.actions.folders.replan({ ignore: ['*.tmp'] });
    // While planning, the last plan stays shown.
    expect(draft()).toMatchObject({
      plan: { filesToUpload: 4 },
      planning: true,
      input: { options: { ignore: ['*.tmp'] } },
    });
    const newer = app.actions.folders.replan({ ignore: ['*.log'] });
    pending[1]?.(ok(planOf(3)));
    await newer;
    pending[0]?.(ok(planOf(2))); // the answer for the older options comes last: dropped
    await older;
    expect(draft()).toMatchObject({
      plan: { filesToUpload: 3 },
      planning: false,
      input: { options: { ignore: ['*.log'] } },
    });
    // Options the service refuses: said in the dialog (draft.error), not as a notice; no plan to start.
    const refused = app.actions.folders.replan({ keyTemplate: '{nope}' });
    pending[2]?.({ ok: false, error: { code: 'invalid-input', message: 'unknown placeholder {nope}', params: {} } });
    await refused;
    expect(draft()).toMatchObject({ plan: null, planning: false, error: { code: 'invalid-input' } });
    expect(app.store.getState().app.notices).toEqual([]);
    await app.actions.folders.confirm({ ignore: ['*.log'], vcaForVideos: true });
    expect(added).toEqual([{ path: '/w', bucket: 'local', options: { ignore: ['*.log'], vcaForVideos: true } }]);
    app.dispose();
  });
});

describe('transfers slice: a dropped folder', () => {
  it('is offered for watching with its path where the door knows it, without one in a browser', async () => {
    const desktop = createAppStore(fakeBridge({}, { pathForFile: (f) => `/home/me/${(f as { name: string }).name}` }), {
      refreshMs: 0,
    });
    const photos = { name: 'photos' };
    await desktop.actions.transfers.dropFiles([photos], async () => [], { name: 'photos', file: photos });
    expect(desktop.store.getState().transfers.adding?.folder).toEqual({ name: 'photos', path: '/home/me/photos' });
    desktop.dispose();
    const browser = createAppStore(
      fakeBridge({}, { stageFiles: async () => ok({ queued: [], alreadyUploaded: [], skipped: [], bytesQueued: 0 }) }),
      { refreshMs: 0 },
    );
    await browser.actions.transfers.dropFiles([photos], async () => [], { name: 'photos', file: photos });
    expect(browser.store.getState().transfers.adding?.folder).toEqual({ name: 'photos', path: null });
    browser.dispose();
  });
});
