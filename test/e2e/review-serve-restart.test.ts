/**
 * `blocklift serve` killed (SIGKILL) in the middle of a review burst and started again by the
 * person on the same data folder and port, the browser tab left open: the real serve
 * (embedded emulator, VCA labels from a file written here) in Chromium.
 *
 * The new serve has a new access token, so the open tab's cookie is refused: the tab says
 * so and what to do (open the address serve printed), not "reconnecting" forever. Once that
 * address is opened in the browser, the tab connects again by itself, and the keys pressed
 * before the crash that the old serve never saved are saved: the service ends with exactly
 * the keys pressed, in order, and a reload shows it.
 * Screenshots: review-restart-refused.png (the tab after the restart), review-restart-after.png.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcaJobView } from '../../src-main/shared/task-views';
import { SCREENSHOT_DIR, type Chromium } from './chromium';
import { analysedThrough, openServedApp, shot, startServe, uploadedThrough, type ServeApp } from './serve-app';

let tmp: string;
let dataDir: string;
let labelsFile: string;
let port: number;
let app: ServeApp;
let browser: Chromium;
let page: Page;
const pageErrors: string[] = [];
let job: VcaJobView;

/** A port free on 127.0.0.1 now (the serve restarted must get the same one). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return p;
}

beforeAll(async () => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  tmp = await mkdtemp(path.join(os.tmpdir(), 'bl-e2e-restart-'));
  dataDir = path.join(tmp, 'data');
  labelsFile = path.join(tmp, 'labels.json');
  const scenario = Array.from({ length: 8 }, (_, i) => ({ attribute: `crash ${i + 1}`, confidence: 0.9 - i * 0.01 }));
  await writeFile(
    labelsFile,
    JSON.stringify({ jobs: [{ match: 'http://127.0.0.1:*/crash.mp4', results: { scenario } }] }),
  );
  port = await freePort();
  app = await startServe({ dataDir, port, args: ['--vca-labels', labelsFile] });
  ({ browser, page } = await openServedApp(app, { width: 1300, height: 900 }, pageErrors));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The decisions the review lists, one letter each (p, a, r, c). */
const shown = (): Promise<string> =>
  page
    .locator('.label-list [role=option]')
    // The first tag of an option is its decision (a "Not saved" tag may follow).
    .evaluateAll((els) =>
      els.map((el) => (el.querySelector('.ant-tag')?.textContent ?? '?')[0]!.toLowerCase()).join(''),
    );

async function saved(): Promise<string> {
  const now = await app.api<VcaJobView>('vca.get', { id: job.id });
  return now.results.flatMap((g) => g.labels.map((l) => l.decision[0])).join('');
}

describe('serve killed mid-review and started again (real serve, embedded emulator, Chromium)', () => {
  it('analyses a video of 8 labels', async () => {
    const file = path.join(tmp, 'crash.mp4');
    await writeFile(file, Buffer.alloc(5000, 3));
    job = await analysedThrough(app, await uploadedThrough(app, file, 'crash.mp4'));
  });

  it('the open tab says how to get back in, then saves exactly the keys pressed before the crash', async () => {
    await page.getByRole('tab', { name: 'Video review' }).click();
    await page.locator('.vca-job').filter({ hasText: 'crash.mp4' }).getByRole('button').click();
    await expect.poll(shown).toBe('pppppppp');
    for (const close of await page.locator('.ant-notification-notice-close').all()) await close.click();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    for (const k of ['a', 'r']) await page.keyboard.press(k);
    await expect.poll(saved).toBe('arpppppp');
    // A burst the service never answers: stopped, then killed.
    process.kill(app.pid, 'SIGSTOP');
    for (const k of ['a', 'a', 'r']) await page.keyboard.press(k);
    process.kill(app.pid, 'SIGKILL');
    await expect.poll(shown).toBe('araarppp');
    await app.close(); // its own temp folder (the data folder is this test's)

    app = await startServe({ dataDir, port, args: ['--vca-labels', labelsFile] });
    expect(new URL(app.loginUrl).port).toBe(String(port));
    const tag = page.locator('.frame-extra .ant-tag');
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Access refused');
    // Above the screen, what to do, with this door's address.
    await expect(page.getByRole('alert').filter({ hasText: 'this page cannot get in' }).textContent()).resolves.toBe(
      `Blocklift was started again, with a new access token, so this page cannot get in. Open the address it printed (${app.origin}/?token=…): this page then connects again by itself and saves what it has not saved yet.`,
    );
    await shot(page, 'review-restart-refused');
    // Nothing of the burst reached the new serve while the tab could not get in.
    expect(await saved()).toBe('arpppppp');

    // The person opens the printed address (another tab of the same browser): the old tab gets in.
    const other = await browser.context.newPage();
    await other.goto(app.loginUrl);
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Connected');
    await other.close();
    expect(await page.getByRole('alert').filter({ hasText: 'this page cannot get in' }).count()).toBe(0);
    await expect.poll(saved, { timeout: 30_000 }).toBe('araarppp');
    await expect.poll(() => page.locator('[data-saving], [data-failed]').count(), { timeout: 30_000 }).toBe(0);
    await shot(page, 'review-restart-after');

    await page.reload();
    await page.getByRole('tab', { name: 'Video review' }).click();
    await page.locator('.vca-job').filter({ hasText: 'crash.mp4' }).getByRole('button').click();
    await expect.poll(shown).toBe('araarppp');
    expect(pageErrors).toEqual([]);
  });
});
