/**
 * Issue 19 on screen: against the real `blocklift serve` (embedded emulator), a file whose
 * bytes the app uploaded before is copied on the service, and its transfer's detail says so,
 * in English and in Chinese; the copy's Fmgr task is on the Tasks screen, labelled as that
 * transfer's.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Settings, TransferDetail } from '../../src-main/shared/contract';
import { shot, uploadedThrough, serveSuite } from './serve-app';

const served = serveSuite({ tmp: 'bl-e2e-same-', viewport: { width: 1400, height: 850 } });

async function uploadAndWait(file: string, key: string): Promise<TransferDetail> {
  return served.app.api<TransferDetail>('transfers.get', { id: await uploadedThrough(served.app, file, key) });
}

describe('bytes not sent twice, on screen', () => {
  it('the detail of a copied transfer says "copied on the service from <key>", its task is on the Tasks screen, then in Chinese', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 5);
    await writeFile(path.join(served.tmp, 'first.bin'), data);
    await writeFile(path.join(served.tmp, 'twin.bin'), data);
    const first = await uploadAndWait(path.join(served.tmp, 'first.bin'), 'e2e/first.bin');
    expect(first.copiedFrom).toBeNull();
    const twin = await uploadAndWait(path.join(served.tmp, 'twin.bin'), 'e2e/twin.bin');
    expect(twin.copiedFrom).toEqual({ bucket: 'local', key: 'e2e/first.bin' });
    expect(twin.verified).toBe(true);

    const row = served.page.locator('.transfer-scroll [role=row]').filter({ hasText: 'e2e/twin.bin' });
    await row.first().waitFor({ timeout: 30_000 });
    await row.first().dblclick();
    const drawer = served.page.getByRole('dialog');
    await expect
      .poll(() => drawer.getByText('copied on the service from e2e/first.bin').isVisible(), { timeout: 30_000 })
      .toBe(true);
    await shot(served.page, 'same-bytes-detail');
    await served.page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    // The copy's Fmgr task is on the Tasks screen like any other, labelled as this transfer's copy.
    await served.page.getByRole('tab', { name: 'Tasks' }).click();
    const label = `Copy for transfer #${twin.id} to e2e/twin.bin: its bytes were stored already, so they were not sent`;
    const task = served.page.locator('.ant-table-row').filter({ hasText: label });
    await expect.poll(() => task.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => task.textContent(), { timeout: 30_000 }).toContain('Finished');
    await task.click();
    const card = served.page.locator('.ant-card').filter({ hasText: 'States seen' });
    await expect.poll(() => card.getByText(label).isVisible(), { timeout: 30_000 }).toBe(true);
    await shot(served.page, 'same-bytes-task');
    await served.page.getByRole('tab', { name: 'Transfers' }).click();

    await served.app.api<Settings>('settings.set', { language: 'zh-CN' });
    await expect.poll(() => served.page.locator('html').getAttribute('lang'), { timeout: 30_000 }).toBe('zh-CN');
    await row.first().dblclick();
    await expect
      .poll(() => served.page.getByRole('dialog').getByText('已在服务端从 e2e/first.bin 复制').isVisible(), {
        timeout: 30_000,
      })
      .toBe(true);
    // The first upload sent its bytes: no such line in its detail.
    await served.page.keyboard.press('Escape');
    expect(served.pageErrors).toEqual([]);
  });
});
