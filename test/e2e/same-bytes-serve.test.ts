/**
 * Issue 19 on screen: against the real `blocklift serve` (embedded emulator), a file whose
 * bytes the app uploaded before is copied on the service, and its transfer's detail says so,
 * in English and in Chinese; the copy's Fmgr task is on the Tasks screen, labelled as that
 * transfer's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings, TransferDetail } from '../../src-main/shared/contract';
import { SCREENSHOT_DIR, type Chromium } from './chromium';
import { openServedApp, shot, startServe, type ServeApp, uploadedThrough } from './serve-app';

let app: ServeApp;
let browser: Chromium;
let page: Page;
let tmp: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-e2e-same-')));
  app = await startServe();
  ({ browser, page } = await openServedApp(app, { width: 1400, height: 850 }, pageErrors));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function uploadAndWait(file: string, key: string): Promise<TransferDetail> {
  return app.api<TransferDetail>('transfers.get', { id: await uploadedThrough(app, file, key) });
}

describe('bytes not sent twice, on screen', () => {
  it('the detail of a copied transfer says "copied on the service from <key>", its task is on the Tasks screen, then in Chinese', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 5);
    await writeFile(path.join(tmp, 'first.bin'), data);
    await writeFile(path.join(tmp, 'twin.bin'), data);
    const first = await uploadAndWait(path.join(tmp, 'first.bin'), 'e2e/first.bin');
    expect(first.copiedFrom).toBeNull();
    const twin = await uploadAndWait(path.join(tmp, 'twin.bin'), 'e2e/twin.bin');
    expect(twin.copiedFrom).toEqual({ bucket: 'local', key: 'e2e/first.bin' });
    expect(twin.verified).toBe(true);

    const row = page.locator('.transfer-scroll [role=row]').filter({ hasText: 'e2e/twin.bin' });
    await row.first().waitFor({ timeout: 30_000 });
    await row.first().dblclick();
    const drawer = page.getByRole('dialog');
    await expect
      .poll(() => drawer.getByText('copied on the service from e2e/first.bin').isVisible(), { timeout: 30_000 })
      .toBe(true);
    await shot(page, 'same-bytes-detail');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    // The copy's Fmgr task is on the Tasks screen like any other, labelled as this transfer's copy.
    await page.getByRole('tab', { name: 'Tasks' }).click();
    const label = `Copy for transfer #${twin.id} to e2e/twin.bin: its bytes were stored already, so they were not sent`;
    const task = page.locator('.ant-table-row').filter({ hasText: label });
    await expect.poll(() => task.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => task.textContent(), { timeout: 30_000 }).toContain('Finished');
    await task.click();
    const card = page.locator('.ant-card').filter({ hasText: 'States seen' });
    await expect.poll(() => card.getByText(label).isVisible(), { timeout: 30_000 }).toBe(true);
    await shot(page, 'same-bytes-task');
    await page.getByRole('tab', { name: 'Transfers' }).click();

    await app.api<Settings>('settings.set', { language: 'zh-CN' });
    await expect.poll(() => page.locator('html').getAttribute('lang'), { timeout: 30_000 }).toBe('zh-CN');
    await row.first().dblclick();
    await expect
      .poll(() => page.getByRole('dialog').getByText('已在服务端从 e2e/first.bin 复制').isVisible(), {
        timeout: 30_000,
      })
      .toBe(true);
    // The first upload sent its bytes: no such line in its detail.
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });
});
