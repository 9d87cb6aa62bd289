/**
 * What covered what, or left space empty, in the served app (real `blocklift serve`, embedded
 * emulator) in an 800x600 Chromium window, the smallest the app is meant for, in English and
 * Chinese, light and dark: the "Uploads finished" toast hid the header, close button and tabs
 * of an open transfer detail panel for its 6 seconds, and covered the top bar; the "Access
 * refused" tag of the top bar sat under the toasts after serve was started again with a new
 * token; the Tasks screen's "New operation" card stood beside the short "Track" card at a
 * fixed width, leaving an empty strip below one and beside the other. Each is measured with
 * bounding boxes (and, for "covered", what the window hit-tests at the control's centre).
 * Toasts moved to the bottom edge must still not cover a dialog's buttons there.
 * Screenshots layout-800-*.png.
 */
import AxeBuilder from '@axe-core/playwright';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dropFiles, serveSuite, shot, startServe } from './serve-app';

const served = serveSuite({ tmp: 'bl-e2e-layout-800-', viewport: { width: 800, height: 600 } });

const LOOKS = [
  ['en', 'light'],
  ['zh-CN', 'light'],
  ['en', 'dark'],
  ['zh-CN', 'dark'],
] as const;

async function look(language: string, theme: string): Promise<void> {
  await served.app.api('settings.set', { language, theme });
  await served.page.reload();
  await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe(language);
  await expect.poll(() => served.page.locator('html').getAttribute('data-theme')).toBe(theme);
}

const toasts = () => served.page.locator('.ant-notification-notice');

async function closeToasts(): Promise<void> {
  for (const close of await served.page.locator('.ant-notification-notice-close').all()) await close.click();
  await expect.poll(() => toasts().count()).toBe(0);
}

/** Waits until what `locator` matches has stopped moving (toasts and drawers slide in). */
async function settled(locator: Locator): Promise<void> {
  await locator.first().waitFor();
  let last = '';
  await expect
    .poll(
      async () => {
        const now = JSON.stringify(await locator.evaluateAll((els) => els.map((e) => e.getBoundingClientRect())));
        const same = now === last;
        last = now;
        return same;
      },
      { interval: 150 },
    )
    .toBe(true);
}

/** Uploads a small file through the service (a batch of one): its "Uploads finished" toast comes when it is done. */
async function upload(name: string): Promise<void> {
  const file = path.join(served.tmp, name);
  await writeFile(file, `${name}\n`);
  await served.app.api('transfers.add', { paths: [file], target: { bucket: 'local', key: name } });
}

/**
 * The controls matched by `selector` (on screen) that a toast covers: its box overlaps a
 * toast's box, or the window's hit test at its centre lands on something else. Each as
 * "<text>: <why>"; with the number of toasts up, so that a test can insist there was one.
 * Runs in the page (a string: this file is compiled without the DOM's types).
 */
async function coveredByToasts(selector: string): Promise<{ toasts: number; controls: number; covered: string[] }> {
  return (await served.page.evaluate(`(() => {
    const notices = [...document.querySelectorAll('.ant-notification-notice')].map((n) => n.getBoundingClientRect());
    const covered = [];
    let controls = 0;
    for (const el of document.querySelectorAll(${JSON.stringify(selector)})) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
      if (getComputedStyle(el).visibility !== 'visible') continue; // the tabs' "more" button, kept hidden
      controls++;
      const name = (el.textContent || el.getAttribute('aria-label') || el.className).trim().slice(0, 40);
      if (notices.some((n) => n.left < r.right && r.left < n.right && n.top < r.bottom && r.top < n.bottom))
        covered.push(name + ': overlaps a toast');
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !el.contains(hit)) covered.push(name + ': under ' + (hit ? hit.className : 'nothing'));
    }
    return { toasts: notices.length, controls, covered };
  })()`)) as { toasts: number; controls: number; covered: string[] };
}

/**
 * Uploads `file`, and once its "Uploads finished" toast is up and still, takes screenshot
 * `name` and returns what of `selector` the toasts cover.
 */
async function toastOver(file: string, selector: string, name: string): ReturnType<typeof coveredByToasts> {
  await upload(file);
  await settled(toasts());
  await shot(served.page, name);
  return coveredByToasts(selector);
}

/** The top bar: the screens' tabs, the connection tag and the shortcuts button. */
const TOP_BAR = '.screens > .ant-tabs-nav [role=tab], .frame-extra .ant-tag, .frame-extra button';
/** The open drawer's controls: its title, close button, tabs and buttons. */
const DRAWER = [
  '.ant-drawer-title',
  '.ant-drawer-close',
  '.ant-drawer-body [role=tab]',
  '.ant-drawer-body button',
  '.ant-drawer-extra button',
].join(', ');

/** Serious or critical axe violations inside the toasts (colour contrast included), as "rule: target" lines. */
async function toastAxe(): Promise<string[]> {
  const result = await new AxeBuilder({ page: served.page }).include('.ant-notification').analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/**
 * What makes a toast hard to read: not whole in the window, a title or text cut by its box,
 * no edge of its own (in the dark theme a toast over a detail panel has the panel's
 * background, and its shadow does not show), a blank band of actions without a button.
 */
async function toastsUnclear(): Promise<string[]> {
  return (await served.page.evaluate(`(() => {
    const out = [];
    for (const n of document.querySelectorAll('.ant-notification-notice')) {
      const title = n.querySelector('.ant-notification-notice-title').textContent;
      const r = n.getBoundingClientRect();
      if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) out.push('off the window: ' + title);
      for (const el of n.querySelectorAll('.ant-notification-notice-title, .ant-notification-notice-description'))
        if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) out.push('cut: ' + el.textContent);
      const cs = getComputedStyle(n);
      if (!(parseFloat(cs.borderTopWidth) >= 1) || cs.borderTopColor === cs.backgroundColor) out.push('no edge: ' + title);
      for (const a of n.querySelectorAll('.ant-notification-notice-actions'))
        if (!a.querySelector('button')) out.push('blank actions: ' + title);
    }
    return out;
  })()`)) as string[];
}

describe('the served app at 800x600: nothing covered, no empty strip', () => {
  it('the "Uploads finished" toast covers neither an open transfer detail panel\'s controls nor the top bar', async () => {
    for (const [language, theme] of LOOKS) {
      const where = `${language} ${theme}`;
      await look(language, theme);
      await served.page.getByRole('tab').first().click();

      // The top bar with a toast up.
      const bar = await toastOver(`bar-${language}-${theme}.txt`, TOP_BAR, `layout-800-toast-bar-${language}-${theme}`);
      expect(bar.toasts, where).toBe(1);
      expect(bar.controls, where).toBe(7);
      expect(bar.covered, where).toEqual([]);
      await closeToasts();

      // An open detail panel, then the toast of another batch.
      const opened = `open-${language}-${theme}.txt`;
      await upload(opened);
      const row = served.page.locator('.transfer-scroll [role=row]').filter({ hasText: opened });
      await expect.poll(() => row.locator('.state').textContent(), { timeout: 60_000 }).not.toMatch(/Queued|排队/);
      await settled(toasts());
      await closeToasts();
      await row.dblclick();
      await served.page.locator('.ant-drawer-title').filter({ hasText: opened }).waitFor();
      await settled(served.page.locator('.ant-drawer-section'));
      const panel = await toastOver(
        `later-${language}-${theme}.txt`,
        DRAWER,
        `layout-800-toast-detail-${language}-${theme}`,
      );
      expect(panel.toasts, where).toBe(1);
      // Title, close, three tabs, "Copy key" and "Copy URL".
      expect(panel.controls, where).toBeGreaterThanOrEqual(7);
      expect(panel.covered, where).toEqual([]);
      // The toast itself: whole, and its text readable over the panel.
      expect(await toastsUnclear(), where).toEqual([]);
      expect(await toastAxe(), where).toEqual([]);
      await served.page.keyboard.press('Escape');
      await served.page.locator('.ant-drawer-section').waitFor({ state: 'hidden' });
      await closeToasts();
    }
    expect(served.pageErrors).toEqual([]);
  });

  it('the Tasks screen\'s "Track" and "New operation" cards leave no empty strip', async () => {
    for (const [language, theme] of LOOKS) {
      const where = `${language} ${theme}`;
      await look(language, theme);
      await served.page.getByRole('tab').nth(2).click();
      const cards = served.page.locator('main.screen .ant-card');
      await expect.poll(() => cards.count(), { message: where }).toBe(2);
      await shot(served.page, `layout-800-tasks-${language}-${theme}`);
      // The part of the band the cards stand in (the page's content width, from the top of
      // the first card to the bottom of the last) that no card covers: the gaps between
      // cards (16 px) aside, sampled every 4 px.
      const empty = (await served.page.evaluate(`(() => {
        const page = document.querySelector('main.screen .page');
        const cs = getComputedStyle(page);
        const p = page.getBoundingClientRect();
        const left = p.left + parseFloat(cs.paddingLeft);
        const right = p.right - parseFloat(cs.paddingRight);
        const boxes = [...document.querySelectorAll('main.screen .ant-card')].map((c) => c.getBoundingClientRect());
        const top = Math.min(...boxes.map((b) => b.top));
        const bottom = Math.max(...boxes.map((b) => b.bottom));
        const GAP = 8;
        let all = 0;
        let bare = 0;
        for (let y = top + 2; y < bottom; y += 4)
          for (let x = left + 2; x < right; x += 4) {
            all++;
            if (!boxes.some((b) => x >= b.left - GAP && x <= b.right + GAP && y >= b.top - GAP && y <= b.bottom + GAP)) bare++;
          }
        return bare / all;
      })()`)) as number;
      expect(empty, where).toBeLessThan(0.02);
    }
    expect(served.pageErrors).toEqual([]);
  });

  it("a dialog opened with a toast up stands above it: its buttons, scrolled down to the window's bottom edge, are not under the toast", async () => {
    await look('en', 'light');
    await served.page.getByRole('tab').first().click();
    await upload('before-the-dialog.txt');
    await settled(toasts());
    // Enough files that the dialog is taller than the window.
    await dropFiles(
      served.page,
      Array.from({ length: 30 }, (_, i) => ({ name: `dropped-${i}.txt`, size: 100 })),
    );
    const dialog = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    await settled(served.page.locator('.ant-modal'));
    // At 800x600 the dialog is taller than the window: its buttons come into view at the bottom edge.
    await dialog.locator('.ant-modal-footer').scrollIntoViewIfNeeded();
    await shot(served.page, 'layout-800-dialog-over-toast');
    // What the window hit-tests at the centre of each button (a toast below the dialog may overlap it; it is not on top).
    const under = (await served.page
      .evaluate(`[...document.querySelectorAll('.ant-modal-footer button')].flatMap((b) => {
      const r = b.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit && b.contains(hit) ? [] : [b.textContent + ': under ' + (hit ? hit.className : 'nothing')];
    })`)) as string[];
    expect(await toasts().count()).toBe(1);
    expect(await dialog.locator('.ant-modal-footer button').count()).toBe(2);
    expect(under).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await closeToasts();
  });

  it('an add the service refuses is said inside the dialog, which stays open with what was typed (a toast would be under its mask)', async () => {
    await look('en', 'light');
    await served.page.getByRole('tab').first().click();
    await served.page.locator('.toolbar').getByRole('button', { name: 'Add by path' }).click();
    const dialog = served.page.getByRole('dialog', { name: 'Add by path' });
    await dialog.waitFor();
    const missing = path.join(served.tmp, 'no-such-photo.jpg');
    await dialog.getByLabel('Paths on this computer (one per line)').fill(missing);
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    const alert = dialog.getByRole('alert').filter({ hasText: 'Could not add the files' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`${missing} does not exist`);
    expect(await dialog.getByLabel('Paths on this computer (one per line)').inputValue()).toBe(missing);
    expect(await toasts().count()).toBe(0);
    await settled(served.page.locator('.ant-modal'));
    await shot(served.page, 'layout-800-add-refused-in-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('the "Access refused" tag stays in sight with toasts up, after serve was started again with a new token', async () => {
    await look('en', 'light');
    await served.page.getByRole('tab').nth(1).click();
    // A toast that stays (an error), and the toast of a batch (6 s).
    await served.page.getByLabel('Folder path').fill(path.join(served.tmp, 'no-such-folder'));
    await served.page.getByRole('button', { name: 'See what it would upload' }).click();
    await toasts().filter({ hasText: 'Could not plan the folder' }).waitFor();
    await upload('before-restart.txt');
    await toasts().filter({ hasText: 'Uploads finished' }).waitFor();

    // Started again on the same port (its data folder its own): a new token, which this page has not.
    const port = Number(new URL(served.app.origin).port);
    await served.app.close();
    served.app = await startServe({ port });
    const tag = served.page.locator('.frame-extra .ant-tag');
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Access refused');
    await settled(toasts());
    await shot(served.page, 'layout-800-refused-toasts');
    const bar = await coveredByToasts(`${TOP_BAR}, main.screen [role=alert]`);
    expect(bar.toasts).toBeGreaterThanOrEqual(1);
    expect(bar.controls).toBe(8);
    expect(bar.covered).toEqual([]);
    expect(await toastsUnclear()).toEqual([]);
  });
});
