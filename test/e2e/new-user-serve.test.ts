/**
 * What a new user met in the served app (real `blocklift serve`, embedded emulator, Chromium
 * at 800x600, the smallest window the app is meant for): a double-clicked "Upload" queued the
 * batch twice; a failed video analysis and a failed Fmgr copy looked like successes; the
 * current video of the review was not marked; Transfers and Video review did not fit the
 * window; the first-run panel came back after a reload; a dropped file's details named its
 * deleted staged copy; a watched folder's path was cut under its card's buttons and a Tasks
 * heading set one character a line (Folders, Tasks and Settings are checked in English and
 * Chinese, light and dark). Screenshots new-user-*.png.
 */
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AccountView, TransferPage } from '../../src-main/shared/contract';
import type { FmgrTaskView, VcaJobView } from '../../src-main/shared/task-views';
import { DOOR_STAGE_COMMIT_PATH, DOOR_STAGE_PATH } from '../../src-main/shared/wire';
import { objectAccessUrl } from '../../src-main/tasks/access-url';
import { dropFiles, shot, uploadedThrough, analysedThrough, serveSuite } from './serve-app';

const VIDEOS = ['first-video', 'second-video'] as const;

const served = serveSuite({
  tmp: 'bl-e2e-new-user-',
  viewport: { width: 800, height: 600 },
  vcaLabels: {
    jobs: VIDEOS.map((v) => ({
      match: `http://127.0.0.1:*/${v}.mp4`,
      results: {
        scenario: [
          { attribute: `${v} beach`, confidence: 0.9 },
          { attribute: `${v} sea`, confidence: 0.8 },
        ],
      },
    })),
  },
});

/**
 * How far the page scrolls sideways: the document wider than its window, or the screen shown
 * (main.screen, which scrolls on its own) wider than its box. 0 or less when it fits.
 */
const pageOverflow = () =>
  served.page.evaluate(`Math.max(
    document.documentElement.scrollWidth - document.documentElement.clientWidth,
    ...[...document.querySelectorAll('main.screen')].filter((m) => m.offsetParent !== null).map((m) => m.scrollWidth - m.clientWidth),
  )`) as Promise<number>;

async function uploadedVideo(video: string): Promise<number> {
  const file = path.join(served.tmp, `${video}.mp4`);
  await writeFile(file, Buffer.alloc(4096, 7));
  return uploadedThrough(served.app, file, `${video}.mp4`);
}

describe('a new user in the served app at 800x600', () => {
  it('"Got it" on the first-run panel holds after a reload (no transfer yet)', async () => {
    expect((await served.app.api<{ firstRun: boolean }>('app.status')).firstRun).toBe(true);
    await served.page.reload();
    // The door's status has arrived (Settings shows the data folder from it), and the panel is not back.
    await served.page.getByRole('tab', { name: 'Settings' }).click();
    await served.page.getByText(served.app.dataDir).first().waitFor();
    expect(await served.page.getByRole('button', { name: 'Got it' }).count()).toBe(0);
    await served.page.getByRole('tab', { name: 'Transfers' }).click();
  });

  it('a double-clicked "Upload" sends the dropped files once, and the dialog shows it is working', async () => {
    // Every staging request the page makes, and which have ended.
    const opened: Request[] = [];
    const commits: Request[] = [];
    const ended = new Set<Request>();
    served.page.on('request', (r) => {
      if (r.method() !== 'POST') return;
      const p = new URL(r.url()).pathname;
      if (p === DOOR_STAGE_PATH) opened.push(r);
      if (p === DOOR_STAGE_COMMIT_PATH) commits.push(r);
    });
    served.page.on('requestfinished', (r) => ended.add(r));
    served.page.on('requestfailed', (r) => ended.add(r));
    const files = Array.from({ length: 30 }, (_, i) => ({
      name: `small-${String(i).padStart(2, '0')}.txt`,
      size: 500,
    }));
    await dropFiles(served.page, files);
    const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    const upload = dialog.getByRole('button', { name: 'Upload' });
    await upload.dblclick();
    // Busy from the first click: the button and the count of files sent so far.
    await dialog.waitFor({ state: 'hidden', timeout: 60_000 });
    // Each batch opened was committed and answered: nothing more is on its way.
    await expect.poll(() => commits.length >= opened.length && commits.every((c) => ended.has(c))).toBe(true);
    expect(opened).toHaveLength(1);
    expect(commits).toHaveLength(1);
    const list = await served.app.api<TransferPage>('transfers.list', { text: 'small-' });
    expect(list.total).toBe(files.length);
    await shot(served.page, 'new-user-dropped-800');
  });

  it('the add dialog is busy with a count while the files are sent', async () => {
    const files = Array.from({ length: 200 }, (_, i) => ({
      name: `busy-${String(i).padStart(3, '0')}.txt`,
      size: 200,
    }));
    await dropFiles(served.page, files);
    const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    // Each file is held by the door until the page has seen the dialog busy.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await served.page.route(`**${DOOR_STAGE_PATH}/**`, async (route) => {
      await held;
      await route.continue();
    });
    await dialog.getByRole('button', { name: 'Upload' }).click();
    const status = dialog.getByTestId('add-progress');
    await expect.poll(() => status.textContent()).toMatch(/Sending \d+ of 200 files/);
    expect(await dialog.getByRole('button', { name: 'Upload' }).getAttribute('aria-busy')).toBe('true');
    expect(await dialog.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    await shot(served.page, 'new-user-add-busy-800');
    release();
    await dialog.waitFor({ state: 'hidden', timeout: 120_000 });
    await served.page.unroute(`**${DOOR_STAGE_PATH}/**`);
    expect((await served.app.api<TransferPage>('transfers.list', { text: 'busy-' })).total).toBe(files.length);
  });

  it('a dropped file, once uploaded, is named as it was dropped in its details, not by its deleted staged copy', async () => {
    // The files of the tests before have ended: the list no longer moves under the double-click.
    const active = ['queued', 'hashing', 'uploading', 'completing'];
    await expect
      .poll(async () => (await served.app.api<TransferPage>('transfers.list', { states: active })).total, {
        timeout: 60_000,
      })
      .toBe(0);
    await dropFiles(served.page, [{ name: 'holiday-notes.txt', size: 3000 }]);
    const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = served.page.locator('.transfer-scroll [role=row]').filter({ hasText: 'holiday-notes.txt' });
    await expect.poll(() => row.locator('.state').textContent(), { timeout: 60_000 }).toBe('Done');
    // The staged copy is gone once the upload is done.
    await expect.poll(() => served.app.staged('holiday-notes.txt')).toEqual([]);
    const [t] = (await served.app.api<TransferPage>('transfers.list', { text: 'holiday-notes' })).rows;
    expect(t?.droppedAs).toBe('holiday-notes.txt');
    // The row's tooltip names the file as dropped, not the staging folder.
    expect(await row.locator('.name').getAttribute('title')).toBe('holiday-notes.txt');
    await row.dblclick();
    const drawer = served.page.getByRole('dialog').filter({ hasText: 'Overview' });
    const dropped = drawer.getByTestId('dropped-as');
    await dropped.waitFor();
    const text = (await drawer.textContent()) ?? '';
    expect(text).not.toContain(path.join(served.app.dataDir, 'staging'));
    expect(await dropped.textContent()).toContain('holiday-notes.txt');
    expect(await dropped.textContent()).toContain('the copy was deleted when the transfer ended');
    expect(await drawer.getByText('Local path', { exact: true }).count()).toBe(0);
    await shot(served.page, 'new-user-dropped-detail-800');
    await served.page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('Transfers fits the window: no sideways scroll, every column heading whole', async () => {
    await served.page.getByRole('tab', { name: 'Transfers' }).click();
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    // No heading of the grid is cut by its cell ("Spee" for "Speed").
    const cut = (await served.page.evaluate(`[...document.querySelectorAll('.transfer-head [role=columnheader]')]
      .filter((c) => c.offsetParent !== null && (c.scrollWidth > c.clientWidth || c.getBoundingClientRect().right > document.documentElement.clientWidth))
      .map((c) => c.textContent)`)) as string[];
    expect(cut).toEqual([]);
    await shot(served.page, 'new-user-transfers-800');
  });

  it('a failed video analysis is Failed, in red, with the reason; a failed Fmgr copy is Failed with the item error', async () => {
    const [local] = await served.app.api<AccountView[]>('accounts.list', undefined);
    const missing = objectAccessUrl(local?.downloadDomain ?? '', 'no-such-video.mp4');
    const failed = await served.app.api<VcaJobView>('vca.create', { source: { url: missing } });
    await expect
      .poll(async () => (await served.app.api<VcaJobView>('vca.get', { id: failed.id })).code, { timeout: 60_000 })
      .toBe(2);
    const task = await served.app.api<FmgrTaskView>('fmgr.submit', {
      ops: [{ op: 'copy', srcBucket: 'local', srcKey: 'no-such-key', bucket: 'local', key: 'copy-of-nothing' }],
    });
    await expect
      .poll(async () => (await served.app.api<FmgrTaskView>('fmgr.get', { id: task.id })).tracking, { timeout: 60_000 })
      .toBe('done');

    await served.page.getByRole('tab', { name: 'Tasks' }).click();
    const row = served.page.locator('.ant-table-row').filter({ hasText: task.persistentId });
    await expect.poll(() => row.getByTestId('task-outcome').textContent()).toBe('Failed');
    expect(await row.textContent()).not.toContain('Finished');
    expect(await row.getByTestId('task-failed-items').textContent()).toContain('file not found');
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    await row.scrollIntoViewIfNeeded();
    await shot(served.page, 'new-user-tasks-failed-800');

    await served.page.getByRole('tab', { name: 'Video review' }).click();
    const job = served.page.locator('.vca-job').filter({ hasText: 'no-such-video.mp4' });
    const tag = job.locator('.ant-tag').first();
    await expect.poll(() => tag.textContent()).toBe('Failed');
    expect(await tag.getAttribute('class')).toMatch(/ant-tag-(error|red)/);
    expect(await job.getByTestId('vca-job-failure').textContent()).toMatch(
      /^Analysis failed: source cannot be fetched/,
    );
  });

  it('Video review fits the window, marks the current video, and `n` moves the mark', async () => {
    for (const v of VIDEOS) {
      await analysedThrough(served.app, await uploadedVideo(v));
    }
    await served.page.getByRole('tab', { name: 'Video review' }).click();
    const title = served.page.getByRole('heading', { name: 'Video review' });
    await title.waitFor();
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    const job = (name: string) => served.page.locator('.vca-job').filter({ hasText: `${name}.mp4` });
    await expect.poll(() => job(VIDEOS[0]).getByRole('button').isVisible()).toBe(true);
    await job(VIDEOS[0]).getByRole('button').click();
    await expect.poll(() => served.page.getByRole('option').count()).toBeGreaterThan(0);
    // Clicking a job does not scroll the page sideways; the title is whole, the job list in the window.
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    expect(
      await served.page.evaluate(
        'window.scrollX + Math.max(...[...document.querySelectorAll("main.screen")].filter((m) => m.offsetParent !== null).map((m) => m.scrollLeft))',
      ),
    ).toBe(0);
    const titleBox = await title.boundingBox();
    expect(titleBox?.x ?? -1).toBeGreaterThanOrEqual(0);
    const listBox = await served.page.locator('.vca-jobs').boundingBox();
    expect((listBox?.x ?? -1) >= 0 && (listBox?.x ?? 0) + (listBox?.width ?? 0) <= 800).toBe(true);

    // The current job is marked to the eye (its button's text bold, a background) and to a screen reader.
    const current = served.page.locator('.vca-jobs [aria-current="true"]');
    await expect.poll(() => current.textContent()).toContain(`${VIDEOS[0]}.mp4`);
    const look = (name: string) =>
      served.page.evaluate(`(() => {
        const item = [...document.querySelectorAll('.vca-job')].find((j) => j.textContent.includes(${JSON.stringify(`${name}.mp4`)}));
        const b = item.querySelector('button');
        const text = getComputedStyle(b.querySelector('.vca-job-name') ?? b);
        return { weight: Number(text.fontWeight), background: getComputedStyle(b).backgroundColor, current: b.getAttribute('aria-current') };
      })()`) as Promise<{ weight: number; background: string; current: string | null }>;
    // The button's style changes with a transition: wait for it to end.
    await expect.poll(async () => (await look(VIDEOS[0])).weight).toBe(600);
    const marked = await look(VIDEOS[0]);
    const plain = await look(VIDEOS[1]);
    expect(plain.weight).toBeLessThan(600);
    expect(marked.background).not.toBe(plain.background);
    expect([marked.current, plain.current]).toEqual(['true', null]);
    await shot(served.page, 'new-user-review-800');

    await served.page.locator('body').click({ position: { x: 5, y: 5 } });
    await served.page.keyboard.press('n');
    await expect.poll(async () => (await look(VIDEOS[1])).current).toBe('true');
    await expect.poll(async () => (await look(VIDEOS[1])).weight).toBe(600);
    expect((await look(VIDEOS[0])).current).toBeNull();
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    await shot(served.page, 'new-user-review-next-800');
    expect(served.pageErrors).toEqual([]);
  });
  it('Folders, Tasks and Settings fit the window in English and Chinese, light and dark: no title or heading cut, nothing off to the side', async () => {
    // A long path whose last folder has no space to wrap at: its card's title is the whole path.
    const folder = path.join(
      served.tmp,
      'Photos from the long summer holiday on the coast',
      'a-folder-name-with-no-space-in-it-at-all',
    );
    mkdirSync(folder, { recursive: true });
    await served.app.api('roots.add', { path: folder, bucket: 'local', prefix: 'holiday/' });
    // A task in the Tasks table (with an item error, the longest state text).
    await served.app.api('fmgr.submit', {
      ops: [{ op: 'copy', srcBucket: 'local', srcKey: 'not-there', bucket: 'local', key: 'copy-of-not-there' }],
    });
    // Titles, headings and labels whose text is cut by their box (or off the window), and
    // table headings set on more than one line ("条目" was one character a line).
    const cut = () =>
      served.page.evaluate(`(() => {
        const W = document.documentElement.clientWidth;
        const out = [];
        const shown = (el) => el.offsetParent !== null && el.getBoundingClientRect().width > 0;
        for (const el of document.querySelectorAll('main.screen .ant-card-head-title, main.screen .ant-card-extra, main.screen th, main.screen .ant-form-item-label > label, main.screen h1, main.screen button')) {
          if (!shown(el)) continue;
          const r = el.getBoundingClientRect();
          if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') out.push('cut: ' + el.textContent);
          if (r.right > W + 1 || r.left < -1) out.push('off the window: ' + el.textContent);
        }
        for (const th of document.querySelectorAll('main.screen th')) {
          if (!shown(th) || !th.textContent.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(th);
          if (new Set([...range.getClientRects()].map((x) => Math.round(x.top))).size > 1) out.push('on two lines: ' + th.textContent);
        }
        return out;
      })()`) as Promise<string[]>;
    // The tabs by position (their names change with the language): Folders, Tasks, Settings.
    const screens = [
      [1, 'folders'],
      [2, 'tasks'],
      [4, 'settings'],
    ] as const;
    for (const [language, theme] of [
      ['en', 'light'],
      ['zh-CN', 'light'],
      ['en', 'dark'],
      ['zh-CN', 'dark'],
    ] as const) {
      await served.app.api('settings.set', { language, theme });
      await served.page.reload();
      await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe(language);
      await expect.poll(() => served.page.locator('html').getAttribute('data-theme')).toBe(theme);
      for (const [tab, name] of screens) {
        await served.page.getByRole('tab').nth(tab).click();
        if (name === 'folders')
          await served.page.locator('.root-path, .ant-card-head-title').filter({ hasText: folder }).first().waitFor();
        if (name === 'tasks') await served.page.locator('main.screen .ant-table-row').first().waitFor();
        expect(await pageOverflow(), `${name} ${language} ${theme}`).toBeLessThanOrEqual(0);
        expect(await cut(), `${name} ${language} ${theme}`).toEqual([]);
        // Tasks: the table, below the forms, in the picture.
        if (name === 'tasks') await served.page.locator('main.screen .ant-table').scrollIntoViewIfNeeded();
        await shot(served.page, `new-user-${name}-${language}-${theme}-800`);
      }
    }
    await served.app.api('settings.set', { language: 'en', theme: 'light' });
    await served.page.reload();
    await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe('en');
    expect(served.pageErrors).toEqual([]);
  });
});
