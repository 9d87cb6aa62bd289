/**
 * A walk through every screen in English and Chinese, light and dark, over the fixture
 * service: each screen (and the `?` sheet) gets a screenshot under test/e2e/screenshots/
 * (walk-<lang>-<theme>-<screen>.png), an axe scan (no serious or critical violation), a check
 * that no visible text is cut off by its box, and in Chinese a check that the text uses
 * full-width punctuation (no Latin full stop or comma after a Chinese character).
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

const SCREENS = ['transfers', 'folders', 'tasks', 'vca', 'settings'] as const;
const TAB_NAMES = {
  en: ['Transfers', 'Folders', 'Tasks', 'Video review', 'Settings'],
  'zh-CN': ['传输', '文件夹', '任务', '视频审核', '设置'],
};
const SCHEDULE_SWITCH = { en: 'Use a schedule', 'zh-CN': '使用计划' };

async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/**
 * Visible text its own box cuts off: an element with text of its own whose content is wider
 * (or taller) than the box that hides the rest, unless a title attribute gives the whole text.
 * The Transfers grid's rows are left out: their fixed height is what keeps 50,000 rows smooth,
 * and a long key or error there ends in an ellipsis by design, whole in its tooltip and in the
 * detail drawer. Runs in the page (a string: this file is compiled without the DOM's types).
 */
const TRUNCATED = `(() => {
  const cut = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    if (!own) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > innerHeight) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible' || el.closest('[aria-hidden=true]')) continue;
    const clipsX = cs.overflowX !== 'visible' || cs.textOverflow === 'ellipsis';
    const clipsY = cs.overflowY === 'hidden' || cs.overflowY === 'clip';
    const wide = clipsX && el.scrollWidth > el.clientWidth + 1;
    const tall = clipsY && el.scrollHeight > el.clientHeight + 1;
    if ((wide || tall) && !el.closest('[title], .transfer-scroll [role=row]')) cut.push(own.slice(0, 80));
  }
  return cut;
})()`;

/** Chinese text followed or preceded by Latin punctuation ("还没有传输. 把…"). */
const LATIN = String.raw`/[\u3400-\u9fff][.,;:!?]|[.,;:]\s*[\u3400-\u9fff]|[!?][\u3400-\u9fff]/`;
const LATIN_PUNCTUATION = `(() => {
  const latin = ${LATIN};
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent || '';
    const el = n.parentElement;
    if (!el || !el.getClientRects().length || el.closest('[aria-hidden=true]')) continue;
    if (latin.test(text)) bad.push(text.trim().slice(0, 80));
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder]')) {
    for (const text of [el.getAttribute('aria-label'), el.getAttribute('placeholder')])
      if (text && latin.test(text)) bad.push(text.slice(0, 80));
  }
  return bad;
})()`;

/** No finite animation or transition outside the Transfers grid is running. */
const SETTLED = `document.getAnimations().every((a) => {
  const target = a.effect && a.effect.target;
  if (target && target.closest && target.closest('.transfer-scroll')) return true;
  return a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity;
})`;

interface Findings {
  axe: string[];
  truncated: string[];
  latinPunctuation: string[];
}

async function look(page: Page, name: string, zh: boolean): Promise<Findings> {
  // Tabs slide their ink bar and dialogs fade in: look once those have stopped. The live
  // progress feed keeps some transitions going, so a timeout here is not a failure.
  await page.waitForFunction(SETTLED, undefined, { timeout: 10_000 }).catch(() => undefined);
  await fixture.shot(page, name);
  return {
    axe: await axe(page),
    truncated: (await page.evaluate(TRUNCATED)) as string[],
    latinPunctuation: zh ? ((await page.evaluate(LATIN_PUNCTUATION)) as string[]) : [],
  };
}

const clean: Findings = { axe: [], truncated: [], latinPunctuation: [] };

describe('a walk through every screen in two languages and two themes', () => {
  for (const lang of ['en', 'zh-CN'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`${lang}, ${colorScheme}: every screen and the shortcuts sheet`, { timeout: 300_000 }, async () => {
        const zh = lang === 'zh-CN';
        const page = await fixture.open({ rows: 500, colorScheme, locale: lang === 'en' ? 'en-US' : 'zh-CN' });
        await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
        await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(colorScheme);
        const found: Record<string, Findings> = {};
        found['first-run'] = await look(page, `walk-${lang}-${colorScheme}-first-run`, zh);
        await page.getByRole('button', { name: zh ? '知道了' : 'Got it' }).click();
        for (const [i, screen] of SCREENS.entries()) {
          await page.keyboard.press(`Control+${i + 1}`);
          await page.getByRole('tab', { name: TAB_NAMES[lang][i], selected: true }).waitFor();
          await page.locator('main.screen').first().waitFor();
          // The screen's data has arrived (its list, table or form is on screen).
          await page.waitForFunction('!document.querySelector("main.screen .ant-spin-spinning")');
          if (screen === 'settings') {
            // With the weekly schedule on, its grid and levels (Limited with its rate) are looked at too.
            await page.getByRole('switch', { name: SCHEDULE_SWITCH[lang] }).click();
            await page.getByRole('grid', { name: zh ? '每周计划' : 'Weekly schedule' }).waitFor();
          }
          found[screen] = await look(page, `walk-${lang}-${colorScheme}-${screen}`, zh);
        }
        await page.locator('body').click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: zh ? '键盘快捷键' : 'Keyboard shortcuts' }).waitFor();
        found['shortcuts'] = await look(page, `walk-${lang}-${colorScheme}-shortcuts`, zh);
        expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, clean])));
        await page.context().close();
      });
    }
  }
});
