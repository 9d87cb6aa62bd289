/**
 * What a new user sees when an action fails or leaves a file out, in Chromium against the
 * real `blocklift serve`: "See what it would upload" on a folder that does not exist gives one
 * toast, titled in words ("Could not plan the folder") and naming the folder, not a second
 * one about the ignore preview nor a verb's name; dropped files of which one has a tab in its
 * name queue the others and a toast names the one left out and why.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TransferPage } from '../../src-main/shared/contract';
import { dropFiles, serveSuite } from './serve-app';

const served = serveSuite({ home: 'bl-e2e-toasts-', viewport: { width: 1400, height: 1000 } });

const toasts = () => served.page.locator('.ant-notification-notice');
const closeToasts = async () => {
  for (const close of await served.page.locator('.ant-notification-notice-close').all()) await close.click();
  await expect.poll(() => toasts().count()).toBe(0);
};

describe('error toasts', () => {
  it('planning a missing folder: one toast, titled in words, naming the folder', async () => {
    const missing = path.join(served.home, 'no-such-folder');
    await served.page.getByRole('tab', { name: 'Folders' }).click();
    await served.page.getByLabel('Folder path').fill(missing);
    await served.page.getByRole('button', { name: 'See what it would upload' }).click();
    const toast = toasts().filter({ hasText: 'Could not plan the folder' });
    await toast.waitFor();
    expect(await toast.textContent()).toContain(`${missing} does not exist`);
    // The app settles: no preview call left (the plan dialog is not open), and no other toast came.
    await expect.poll(() => served.page.getByRole('dialog').count()).toBe(0);
    expect(await toasts().count()).toBe(1);
    const text = (await toasts().allTextContents()).join('\n');
    expect(text).not.toMatch(/roots\.|\{\{|Something went wrong/);
    await closeToasts();
  });

  it('a dropped file with a tab in its name is named, with why, and the others are queued', async () => {
    await served.page.getByRole('tab', { name: 'Transfers' }).click();
    const files = [
      { name: 'one.txt', size: 10 },
      { name: 'two.txt', size: 20 },
      { name: 'a\tb.txt', size: 30 },
    ];
    await dropFiles(served.page, files);
    const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Upload' }).click();
    const toast = toasts().filter({ hasText: 'Some files were not added' });
    await toast.waitFor();
    const text = (await toast.textContent()) ?? '';
    expect(text).toContain('a\\tb.txt');
    expect(text).toContain('control character U+0009');
    await expect
      .poll(async () => (await served.app.api<TransferPage>('transfers.list', { states: ['done'] })).total, {
        timeout: 60_000,
      })
      .toBe(2);
    expect(served.pageErrors).toEqual([]);
  });
});
