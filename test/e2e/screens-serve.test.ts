/**
 * The screens in Chromium against the real `blocklift serve` on its embedded emulator: what a
 * person does (drop files, pause and resume, read why an upload failed, submit an Fmgr task,
 * review a video with the keyboard and export it, switch language and theme), each test
 * saving a screenshot under test/e2e/screenshots/ and checking what is on screen. The tests
 * share one serve child and run in order (the VCA test reviews a video dropped by the first).
 */
import { readFile, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AccountView, Settings, TransferPage } from '../../src-main/shared/contract';
import { objectAccessUrl } from '../../src-main/tasks/access-url';
import { dropFiles, shot, serveSuite } from './serve-app';

const served = serveSuite({ viewport: { width: 1400, height: 850 } });

/** The row of the Transfers grid whose name is `name`. */
const row = (name: string) => served.page.locator('.transfer-scroll [role=row]').filter({ hasText: name });
const stateOf = (name: string) => row(name).locator('.state').textContent();

/** Drops files and confirms the "Upload dropped files" dialog. */
async function dropAndUpload(files: Array<{ name: string; size: number }>, screenshot?: string) {
  await dropFiles(served.page, files);
  const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
  await dialog.waitFor();
  for (const f of files) expect(await dialog.getByTestId('dropped-files').textContent()).toContain(f.name);
  if (screenshot) await shot(served.page, screenshot);
  await dialog.getByRole('button', { name: 'Upload' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Sets the app's own bandwidth limit. With a limit, chunks are fixed at 256 KiB so that a
 * 4 MiB file takes many limited chunks (the limiter lets a chunk go, then holds the next).
 */
async function setBandwidth(bytesPerSecond: number | null) {
  const chunkSize = bytesPerSecond === null ? null : 256 * 1024;
  const s = await served.app.api<Settings>('settings.set', { bandwidthLimit: bytesPerSecond, chunkSize });
  expect([s.bandwidthLimit, s.chunkSize]).toEqual([bytesPerSecond, chunkSize]);
}

/** Selects the one row `name` with its checkbox and runs a selection action (Pause, Resume…). */
async function actOn(name: string, action: 'Pause' | 'Resume') {
  const box = row(name).getByRole('checkbox');
  if (!(await box.isChecked())) await box.check();
  await served.page.getByRole('button', { name: action, exact: true }).click();
}

describe('the served app in Chromium (real serve, embedded emulator)', () => {
  it('files dropped on the window upload through the staging route and reach Done', async () => {
    // Nothing has run yet: the throughput chart says so over its baseline (not an empty box).
    expect(await served.page.locator('svg.sparkline').getAttribute('data-note')).toBe('idle');
    await dropAndUpload(
      [
        { name: 'notes.txt', size: 2_000 },
        { name: 'clip.mp4', size: 300_000 },
      ],
      'serve-drop-dialog',
    );
    await expect.poll(() => stateOf('notes.txt'), { timeout: 60_000 }).toBe('Done');
    await expect.poll(() => stateOf('clip.mp4'), { timeout: 60_000 }).toBe('Done');
    expect(await row('clip.mp4').textContent()).toContain('clip.mp4');
    // Uploaded for real: the service kept both objects, and the staged copies are gone.
    const done = await served.app.api<TransferPage>('transfers.list', { states: ['done'] });
    expect(done.rows.map((r) => r.key).sort()).toEqual(expect.arrayContaining([expect.stringMatching(/clip\.mp4$/)]));
    await expect.poll(() => served.app.staged('notes.txt')).toEqual([]);
    await shot(served.page, 'serve-dropped-done');
  });

  it('pauses and resumes an upload the bandwidth limit keeps slow', async () => {
    await setBandwidth(32 * 1024);
    await dropAndUpload([{ name: 'big.bin', size: 6 * 1024 * 1024 }]);
    await expect.poll(() => stateOf('big.bin'), { timeout: 60_000 }).toBe('Uploading');
    // A speed was measured: the chart draws its line (and no longer says anything over it).
    // At 32 KiB/s the first chunk's bytes take seconds to be acknowledged and measured.
    const chart = served.page.locator('svg.sparkline');
    await expect.poll(() => chart.getAttribute('data-note'), { timeout: 30_000 }).toBeNull();
    expect(await chart.locator('polyline').count()).toBe(1);
    await actOn('big.bin', 'Pause');
    await expect.poll(() => stateOf('big.bin')).toBe('Paused');
    await shot(served.page, 'serve-paused');
    await actOn('big.bin', 'Resume');
    await expect.poll(() => stateOf('big.bin')).toMatch(/^(Queued|Uploading)$/);
    await setBandwidth(null);
    await expect.poll(() => stateOf('big.bin'), { timeout: 90_000 }).toBe('Done');
    await shot(served.page, 'serve-resumed-done');
  });

  it('an upload whose file is removed while paused fails and says why in words', async () => {
    const clear = served.page.getByRole('button', { name: 'Clear selection' });
    if (await clear.isVisible()) await clear.click();
    await setBandwidth(32 * 1024);
    await dropAndUpload([{ name: 'gone.bin', size: 6 * 1024 * 1024 }]);
    await expect.poll(() => stateOf('gone.bin'), { timeout: 60_000 }).toBe('Uploading');
    await actOn('gone.bin', 'Pause');
    await expect.poll(() => stateOf('gone.bin')).toBe('Paused');
    const staged = await served.app.staged('gone.bin');
    expect(staged).toHaveLength(1);
    await rm(staged[0] ?? '');
    await actOn('gone.bin', 'Resume');
    await setBandwidth(null);
    await expect.poll(() => stateOf('gone.bin'), { timeout: 60_000 }).toBe('Failed');
    // The batch's toast: a failure is no success (a warning, not a tick), and it stays until closed.
    const toast = served.page.locator('.ant-notification-notice').filter({ hasText: 'Uploads finished, some failed' });
    await toast.waitFor();
    await expect.poll(() => toast.locator('.ant-notification-notice-icon-warning').count()).toBe(1);
    await shot(served.page, 'serve-batch-failed-toast');
    await toast.locator('.ant-notification-notice-close').click();
    await toast.waitFor({ state: 'hidden' });
    const error = row('gone.bin').locator('.row-error');
    // The row says why first (it names the file already); its tooltip and the detail keep the path.
    await expect.poll(() => error.textContent()).toBe('This file does not exist (moved or deleted?)');
    await row('gone.bin').locator('.cell-name').dblclick();
    // A dropped file: named as dropped, its staged copy (the one removed) said as where it was
    // sent from; its failure names it as dropped too, never by that staged copy's path.
    const drawer = served.page.getByRole('dialog').filter({ hasText: 'Dropped file' });
    const reason = drawer.getByText('gone.bin does not exist (moved or deleted?)', { exact: true });
    await expect.poll(() => reason.isVisible()).toBe(true);
    await reason.click({ trial: true }); // waits until the drawer stops sliding in
    await shot(served.page, 'serve-failed-reason');
    await served.page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('submits an Fmgr copy from the Tasks form and shows its states', async () => {
    const [notes] = (await served.app.api<TransferPage>('transfers.list', { text: 'notes.txt', states: ['done'] }))
      .rows;
    expect(notes).toBeDefined();
    await served.page.getByRole('tab', { name: 'Tasks' }).click();
    const form = served.page.locator('.ant-card').filter({ hasText: 'New operation' });
    // Checked before submit: the required fields are named.
    await form.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => form.getByText('Source bucket is required').isVisible()).toBe(true);
    await form.getByLabel('Source bucket').fill(notes?.bucket ?? '');
    await form.getByLabel('Source key').fill(notes?.key ?? '');
    await form.getByLabel('Bucket', { exact: true }).fill(notes?.bucket ?? '');
    await form.getByLabel('Key', { exact: true }).fill('copies/notes.txt');
    await form.getByRole('button', { name: 'Submit' }).click();
    const task = served.page.locator('.ant-table-row').first();
    await expect.poll(() => task.textContent(), { timeout: 60_000 }).toContain('Finished');
    expect(await task.textContent()).toMatch(/copy/i);
    await task.click();
    await expect.poll(() => served.page.getByText('States seen').isVisible()).toBe(true);
    await expect.poll(() => served.page.getByText('copies/notes.txt').first().isVisible()).toBe(true);
    await shot(served.page, 'serve-fmgr-task');
  });

  it('reviews a video job with j/k/a/r and exports the accepted labels as CSV', async () => {
    // Analysed from the screen's form: the uploaded clip's access URL, the default account, no
    // bucket (the Local account's own).
    const [clip] = (await served.app.api<TransferPage>('transfers.list', { text: 'clip.mp4' })).rows;
    const [local] = await served.app.api<AccountView[]>('accounts.list', undefined);
    const url = objectAccessUrl(local?.downloadDomain ?? '', clip?.key ?? '');
    await served.page.getByRole('tab', { name: 'Video review' }).click();
    await served.page.getByLabel('Video URL').fill(url);
    await served.page.getByRole('button', { name: 'Analyse' }).click();
    await expect.poll(() => served.page.getByLabel('Video URL').inputValue()).toBe('');
    expect(await served.page.getByTestId('vca-create-error').count()).toBe(0);
    const job = served.page.locator('.vca-job').filter({ hasText: 'clip.mp4' });
    await expect.poll(() => job.locator('.ant-tag').first().textContent(), { timeout: 60_000 }).toBe('Done');
    await job.getByRole('button').click();
    const options = served.page.getByRole('option');
    await expect.poll(() => options.count()).toBeGreaterThan(1);
    const first = (await options.nth(0).locator('.label-text').textContent()) ?? '';
    const second = (await options.nth(1).locator('.label-text').textContent()) ?? '';
    await served.page.locator('body').click({ position: { x: 5, y: 5 } });
    await served.page.keyboard.press('a'); // first label: accepted, the cursor moves on
    await expect.poll(() => options.nth(0).textContent()).toContain('Accepted');
    await served.page.keyboard.press('k'); // back to the first
    await expect.poll(() => options.nth(0).getAttribute('aria-selected')).toBe('true');
    await served.page.keyboard.press('j'); // and down to the second
    await expect.poll(() => options.nth(1).getAttribute('aria-selected')).toBe('true');
    await served.page.keyboard.press('r');
    await expect.poll(() => options.nth(1).textContent()).toContain('Rejected');
    await shot(served.page, 'serve-vca-reviewed');
    const download = served.page.waitForEvent('download');
    await served.page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('vca-labels.csv');
    const csv = (await readFile((await file.path()) ?? '', 'utf8')).replace(/^\uFEFF/, '');
    const lines = csv.trim().split(/\r\n/);
    expect(lines[0]).toBe('job_id,video,bucket,type,label,original_label,confidence,decision');
    // The accepted label with its decision, the rejected one left out, the rest kept by the threshold.
    const rows = lines.slice(1).map((l) => l.split(','));
    expect(rows.find((r) => r[4] === first)?.[7], csv).toBe('accepted');
    expect(
      rows.some((r) => r[4] === second),
      csv,
    ).toBe(false);
    expect(
      rows.every((r) => r[7] === 'accepted' || r[7] === 'above-threshold'),
      csv,
    ).toBe(true);
  });

  it('switches to Chinese and the dark theme: <html lang> and the navigation follow', async () => {
    await served.page.getByRole('tab', { name: 'Settings' }).click();
    await served.page.getByRole('radio', { name: '简体中文' }).click();
    await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe('zh-CN');
    for (const name of ['传输', '文件夹', '设置'])
      expect(await served.page.getByRole('tab', { name }).isVisible()).toBe(true);
    expect(await served.page.getByRole('tab', { name: 'Transfers' }).count()).toBe(0);
    await served.page.getByRole('radio', { name: '深色' }).click();
    await expect.poll(() => served.page.locator('html').getAttribute('data-theme')).toBe('dark');
    const background = await served.page.evaluate("getComputedStyle(document.querySelector('.frame')).backgroundColor");
    expect(background).not.toBe('rgb(245, 245, 245)');
    // Kept by the service: a new page opens in Chinese and dark.
    const settings = await served.app.api<Settings>('settings.get');
    expect([settings.language, settings.theme]).toEqual(['zh-CN', 'dark']);
    await served.page.getByRole('tab', { name: '传输' }).click();
    await shot(served.page, 'serve-zh-dark');
    expect(served.pageErrors).toEqual([]);
  });
});
