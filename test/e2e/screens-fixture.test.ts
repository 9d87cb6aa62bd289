/**
 * The screens in real Chromium over the fixture service (plain data, 50,000 transfers): what
 * a person sees and does, with a screenshot of each step under test/e2e/screenshots/ and an
 * axe scan of every screen. The same App as the real entry; only the bridge differs.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixturePage, type FixturePage } from './fixture-page';

let fixture: FixturePage;
beforeAll(async () => {
  fixture = await startFixturePage();
});
afterAll(async () => fixture?.close());

async function dismissFirstRun(page: Page) {
  await page.getByRole('button', { name: /Got it|知道了/ }).click();
}

/** Serious or critical axe violations of the page as it is (colour contrast included), as "rule: target" lines. */
async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/**
 * Fires the window-wide drag events a person dragging files over the page causes. The code
 * runs in the page (a string: this file is compiled for Node, without the DOM's types).
 */
async function drag(page: Page, events: Array<{ type: string; target: 'body' | 'grid'; files?: string[] }>) {
  await page.evaluate(`(() => {
    for (const e of ${JSON.stringify(events)}) {
      const dt = new DataTransfer();
      for (const name of e.files ?? ['x.txt']) dt.items.add(new File(['contents of ' + name], name, { type: 'text/plain' }));
      const target = e.target === 'grid' ? document.querySelector('[role=grid]') : document.body;
      target.dispatchEvent(new DragEvent(e.type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  })()`);
}

describe('renderer screens in Chromium (fixture service)', () => {
  it('shows 50,000 transfers in a virtual grid that scrolls to the last row, with the first-run panel first', async () => {
    const page = await fixture.open();
    await expect.poll(() => page.getByRole('region', { name: 'Welcome to Blocklift' }).isVisible()).toBe(true);
    await fixture.shot(page, 'transfers-first-run');
    await dismissFirstRun(page);
    const grid = page.getByRole('grid', { name: 'Transfers' });
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe('50001');
    const rendered = await page.locator('.transfer-scroll [role=row]').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(100);
    await page.evaluate("(s => { s.scrollTop = s.scrollHeight })(document.querySelector('.transfer-scroll'))");
    await expect.poll(() => page.getByText('IMG_000001.jpg', { exact: true }).isVisible()).toBe(true);
    // Progress bars speak in words.
    const bar = page.getByRole('progressbar').first();
    expect(await bar.getAttribute('aria-valuetext')).toMatch(/%/);
    await fixture.shot(page, 'transfers-scrolled-to-end');
    expect(await axe(page)).toEqual([]);
    await page.context().close();
  });

  it('filters by state from the sidebar and shows a failed upload with the service message', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.getByRole('menuitem', { name: /Failed/ }).click();
    await expect.poll(() => page.getByRole('grid').getAttribute('aria-rowcount')).toBe('5001');
    await expect
      .poll(() => page.getByText('The service answered 631: bucket "archive" does not exist').first().isVisible())
      .toBe(true);
    await page.locator('.transfer-scroll [role=row]').first().dblclick();
    const drawer = page.getByRole('dialog');
    await expect
      .poll(() =>
        drawer.getByText('Does not match the service').or(drawer.getByText('Not checked yet')).first().isVisible(),
      )
      .toBe(true);
    await drawer.getByRole('tab', { name: 'Service reply' }).click();
    await expect.poll(() => drawer.getByText('req-7f3a9c').isVisible()).toBe(true);
    await fixture.shot(page, 'transfers-failed-detail');
    // The window's shortcuts work with the drawer open (its focus inside it): ? opens the sheet…
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });
    expect(await drawer.getByText('req-7f3a9c').isVisible()).toBe(true);
    // …Ctrl+F closes it and focuses the search…
    await page.keyboard.press('Control+f');
    await drawer.waitFor({ state: 'hidden' });
    await expect
      .poll(() => page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'))
      .toBe('Search key or path');
    // …Escape alone closes it, and Ctrl+4 switches screens from it.
    await page.locator('.transfer-scroll [role=row]').first().dblclick();
    await drawer.waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await page.locator('.transfer-scroll [role=row]').first().dblclick();
    await drawer.waitFor();
    await page.keyboard.press('Control+4');
    await expect.poll(() => page.getByRole('tab', { name: 'Video review', selected: true }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('a refused bulk action shows the reason in words and an action that can fix it', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.getByRole('button', { name: 'Retry failed' }).click();
    const toast = page.locator('.ant-notification-notice').filter({ hasText: 'cannot be reached' });
    await expect.poll(() => toast.isVisible()).toBe(true);
    expect(await toast.textContent()).toContain(
      'The service at http://127.0.0.1:9 cannot be reached: connect ECONNREFUSED',
    );
    await fixture.shot(page, 'transfers-refused-retry');
    await toast.getByRole('button', { name: 'Open Settings' }).click();
    await expect.poll(() => page.getByRole('tab', { name: 'Settings', selected: true }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('files dropped on the window: the overlay follows the drag, then the dropped files are uploaded', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    const overlay = page.getByTestId('drop-overlay');
    await drag(page, [
      { type: 'dragenter', target: 'body' },
      { type: 'dragenter', target: 'grid' },
      { type: 'dragleave', target: 'grid' },
    ]);
    expect(await overlay.isVisible()).toBe(true);
    await fixture.shot(page, 'transfers-drop-overlay');
    await drag(page, [{ type: 'dragleave', target: 'body' }]);
    expect(await overlay.count()).toBe(0);

    await drag(page, [
      { type: 'dragenter', target: 'body' },
      { type: 'drop', target: 'body', files: ['notes.txt', 'photo.jpg'] },
    ]);
    expect(await overlay.count()).toBe(0);
    const dialog = page.getByRole('dialog', { name: 'Upload dropped files' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('dropped-files').textContent()).toContain('photo.jpg');
    await fixture.shot(page, 'transfers-drop-dialog');
    await dialog.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.getByText('2 queued, 0 already uploaded, 0 skipped').isVisible()).toBe(true);
    await page.context().close();
  });

  it('reviews a video with the keyboard alone: threshold hides labels below it, undo, the ? sheet', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.keyboard.press('Control+4');
    await expect.poll(() => page.getByTestId('review-queue').textContent()).toBe('1 of 2 videos reviewed');
    const options = page.getByRole('option');
    // 3 of the 6 labels are at or above 0.75; the others are hidden until asked for.
    expect(await page.getByTestId('threshold-text').textContent()).toBe('0.75 · 3 of 6 shown');
    expect(await options.count()).toBe(3);
    expect(await page.getByTestId('no-times').textContent()).toMatch(/without times/);
    await page.keyboard.press('a'); // beach: accepted, cursor moves on
    await page.keyboard.press('j'); // skip outdoor (already accepted)
    await page.keyboard.press('r'); // surfboard: rejected, the last shown label
    await expect.poll(() => options.nth(0).textContent()).toContain('Accepted');
    await expect.poll(() => options.nth(2).textContent()).toContain('Rejected');
    await expect.poll(() => page.getByTestId('review-queue').textContent()).toBe('2 of 2 videos reviewed');
    await page.keyboard.press('Control+z'); // surfboard pending again
    await expect.poll(() => options.nth(2).textContent()).toContain('Pending');
    await expect.poll(() => page.getByTestId('review-queue').textContent()).toBe('1 of 2 videos reviewed');
    expect(await options.nth(2).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('e');
    const edit = page.getByRole('group', { name: 'Correct "surfboard" to' });
    await edit.getByRole('textbox').fill('puppy');
    // Keys typed in the correction field are text, not shortcuts.
    expect(await options.nth(0).textContent()).toContain('Accepted');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => options.nth(2).textContent()).toContain('puppy');
    await expect.poll(() => page.getByTestId('review-queue').textContent()).toBe('2 of 2 videos reviewed');
    await page.getByRole('switch', { name: 'Show labels below the threshold' }).click();
    await expect.poll(() => options.count()).toBe(6);
    expect(await page.getByTestId('threshold-text').textContent()).toBe('0.75 · 6 of 6 shown');
    await fixture.shot(page, 'vca-reviewed-by-keyboard');
    expect(await axe(page)).toEqual([]);
    // A save the service refuses (its database busy) stays on its label, marked, with Retry.
    const bondi = options.filter({ hasText: 'Bondi' });
    await bondi.click();
    await page.keyboard.press('a');
    await expect.poll(() => bondi.getAttribute('data-failed')).toBe('true');
    expect(await bondi.textContent()).toContain('Accepted');
    expect(await bondi.textContent()).toContain('Not saved');
    const notSaved = page.getByTestId('vca-not-saved');
    expect(await notSaved.textContent()).toContain('Bondi → Accepted: The queue database failed: database is locked');
    await fixture.shot(page, 'vca-not-saved');
    expect(await axe(page)).toEqual([]);
    await notSaved.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => bondi.getAttribute('data-failed')).toBeNull();
    expect(await notSaved.count()).toBe(0);
    expect(await bondi.textContent()).toContain('Accepted');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    expect(await sheet.getByRole('region', { name: 'Video review' }).textContent()).toContain('Undo the last decision');
    await fixture.shot(page, 'shortcuts-sheet');
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });
    await page.context().close();
  });

  it('Ctrl+F focuses the Transfers search, and single keys typed there stay text', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.keyboard.press('Control+f');
    const search = page.getByLabel('Search key or path');
    await expect
      .poll(() => page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")'))
      .toBe('Search key or path');
    await page.keyboard.type('?a');
    expect(await search.inputValue()).toBe('?a');
    expect(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count()).toBe(0);
    await page.context().close();
  });

  it('the Transfers list follows the search as it is typed, without Enter, and the newest text wins', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    const grid = page.getByRole('grid', { name: 'Transfers' });
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe('50001');
    const search = page.getByLabel('Search key or path');
    await search.click();
    // Typed fast, as a person does: only the last text is shown (IMG_049990 … IMG_049999, and the header row).
    await page.keyboard.type('IMG_0499');
    await page.keyboard.type('9');
    await expect.poll(() => grid.getAttribute('aria-rowcount'), { timeout: 10_000 }).toBe('11');
    expect(await page.getByText('IMG_049995.jpg', { exact: true }).isVisible()).toBe(true);
    // Emptied: the whole list again at once.
    await search.fill('');
    await expect.poll(() => grid.getAttribute('aria-rowcount'), { timeout: 10_000 }).toBe('50001');
    await page.context().close();
  });

  it('Settings offers the concurrency the service accepts, and says the range instead of changing a number silently', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.keyboard.press('Control+5');
    for (const name of ['Files at once', 'Blocks in flight per file']) {
      const input = page.getByRole('spinbutton', { name });
      await input.fill('999');
      await input.press('Tab');
      // The settings schema's bound (shared/schemas.ts CONCURRENCY_BOUNDS), said beside the field.
      await expect.poll(() => input.inputValue()).toBe('64');
      const item = page.locator('.ant-form-item').filter({ has: input });
      expect(await item.getByText('From 1 to 64', { exact: true }).isVisible()).toBe(true);
    }
    await page.context().close();
  });

  it('Settings says where secret keys are kept and, with no keyring, offers the weak store with what it means (issue 20.3)', async () => {
    const page = await fixture.open();
    await dismissFirstRun(page);
    await page.keyboard.press('Control+5');
    const store = page.getByTestId('settings-secret-store');
    await expect
      .poll(() => store.textContent())
      .toMatch(/^Where secret keys are kept: Session only: no keyring was found/);
    expect(await store.getAttribute('data-kind')).toBe('session');
    // The account's secret as the view says it, never the secret.
    expect(await page.getByText('Secret key: stored · changed 2026-11-27', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText(/anyone who can read your files can read it/).isVisible()).toBe(true);
    const weak = page.getByRole('switch', { name: 'Store secrets without a keyring (weak)' });
    expect(await weak.getAttribute('aria-checked')).toBe('false');
    await weak.click();
    await expect.poll(() => weak.getAttribute('aria-checked')).toBe('true');
    await fixture.shot(page, 'settings-secret-store');
    // An account whose session-only secret an earlier run kept asks for it again, saying why,
    // beside where secret keys are kept.
    expect(await page.getByText('Secret key: session ended · changed 2026-11-26', { exact: true }).isVisible()).toBe(
      true,
    );
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cloud' });
    await expect.poll(() => dialog.getByTestId('secret-enter-again').isVisible()).toBe(true);
    expect(await dialog.getByTestId('secret-enter-again').textContent()).toMatch(/no system keyring was found/);
    expect(await dialog.getByRole('textbox', { name: 'Secret key', exact: true }).isVisible()).toBe(true);
    expect(await dialog.getByTestId('secret-store').textContent()).toMatch(/^Where secret keys are kept: Session only/);
    await fixture.shot(page, 'settings-secret-enter-again');
    await page.context().close();
  });

  it(
    'switches to Chinese and to the dark theme from Settings, and every screen passes axe',
    { timeout: 300_000 },
    async () => {
      const page = await fixture.open();
      await dismissFirstRun(page);
      await page.keyboard.press('Control+5');
      await page.getByRole('radio', { name: '简体中文' }).click();
      await expect.poll(() => page.getByRole('tab', { name: '传输' }).isVisible()).toBe(true);
      expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
      await page.getByRole('radio', { name: '深色' }).click();
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('dark');
      const background = await page.evaluate("getComputedStyle(document.querySelector('.frame')).backgroundColor");
      expect(background).not.toBe('rgb(245, 245, 245)');
      await page.getByRole('switch', { name: '使用计划' }).click();
      await expect.poll(() => page.getByRole('grid', { name: '每周计划' }).isVisible()).toBe(true);
      // The week starts on Monday in Chinese.
      expect(await page.getByRole('rowheader').first().textContent()).toBe('周一');
      await fixture.shot(page, 'settings-zh-dark');
      const problems: Record<string, string[]> = {};
      const screens = ['transfers', 'folders', 'tasks', 'vca', 'settings'] as const;
      for (const [i, name] of screens.entries()) {
        await page.keyboard.press(`Control+${i + 1}`);
        await page.getByRole('tab', { name: /.+/, selected: true }).waitFor();
        await page.locator('main.screen').first().waitFor();
        await fixture.shot(page, `${name}-zh-dark`);
        problems[name] = await axe(page);
      }
      expect(problems).toEqual({ transfers: [], folders: [], tasks: [], vca: [], settings: [] });
      await page.context().close();
    },
  );
});
