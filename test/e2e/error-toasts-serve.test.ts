/**
 * What a new user sees when an action fails or leaves a file out, in Chromium against the
 * real `blocklift serve`: "See what it would upload" on a folder that does not exist gives one
 * toast, titled in words ("Could not plan the folder") and naming the folder, not a second
 * one about the ignore preview nor a verb's name; dropped files of which one has a tab in its
 * name queue the others and a toast names the one left out and why.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferPage } from '../../src-main/shared/contract';
import type { Chromium } from './chromium';
import { dropFiles, openServedApp, startServe, type ServeApp } from './serve-app';

let home: string;
let app: ServeApp;
let browser: Chromium;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-e2e-toasts-')));
  app = await startServe({ home });
  ({ browser, page } = await openServedApp(app, { width: 1400, height: 1000 }, pageErrors));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const toasts = () => page.locator('.ant-notification-notice');
const closeToasts = async () => {
  for (const close of await page.locator('.ant-notification-notice-close').all()) await close.click();
  await expect.poll(() => toasts().count()).toBe(0);
};

describe('error toasts', () => {
  it('planning a missing folder: one toast, titled in words, naming the folder', async () => {
    const missing = path.join(home, 'no-such-folder');
    await page.getByRole('tab', { name: 'Folders' }).click();
    await page.getByLabel('Folder path').fill(missing);
    await page.getByRole('button', { name: 'See what it would upload' }).click();
    const toast = toasts().filter({ hasText: 'Could not plan the folder' });
    await toast.waitFor();
    expect(await toast.textContent()).toContain(`${missing} does not exist`);
    // The app settles: no preview call left (the plan dialog is not open), and no other toast came.
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await toasts().count()).toBe(1);
    const text = (await toasts().allTextContents()).join('\n');
    expect(text).not.toMatch(/roots\.|\{\{|Something went wrong/);
    await closeToasts();
  });

  it('a dropped file with a tab in its name is named, with why, and the others are queued', async () => {
    await page.getByRole('tab', { name: 'Transfers' }).click();
    const files = [
      { name: 'one.txt', size: 10 },
      { name: 'two.txt', size: 20 },
      { name: 'a\tb.txt', size: 30 },
    ];
    await dropFiles(page, files);
    const dialog = page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Upload' }).click();
    const toast = toasts().filter({ hasText: 'Some files were not added' });
    await toast.waitFor();
    const text = (await toast.textContent()) ?? '';
    expect(text).toContain('a\\tb.txt');
    expect(text).toContain('control character U+0009');
    await expect
      .poll(async () => (await app.api<TransferPage>('transfers.list', { states: ['done'] })).total, {
        timeout: 60_000,
      })
      .toBe(2);
    expect(pageErrors).toEqual([]);
  });
});
