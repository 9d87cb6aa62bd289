/**
 * Adding a watched folder in Chromium against the real `blocklift serve` (embedded emulator):
 * the folder chosen in the screen's folder browser (the headless door's answer to
 * `app.chooseFolder`), its options set in the plan dialog (ignore rules with their live
 * matches, key template with its example, video analysis), and its first upload following
 * them: the ignored file never uploads, the video is analysed. The serve child's home is a
 * temp folder, so the browser lists nothing of the real one. A real folder dropped on the
 * window (Chromium's own drag and drop) offers "Upload once" and "Watch this folder".
 * Screenshots of the folder browser and of the plan with options, in English and Chinese, and
 * of the drop dialog.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { describe, expect, it } from 'vitest';
import type { Settings, TransferPage, WatchRootView } from '../../src-main/shared/contract';
import type { VcaJobView } from '../../src-main/shared/task-views';
import { dropPaths, shot, serveSuite } from './serve-app';

/** Files of a folder to watch, written an hour ago (older than the stability window: ready at once). */
async function folderOf(dir: string, files: Record<string, number>): Promise<void> {
  const old = new Date(Date.now() - 3600_000);
  for (const [rel, size] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, Buffer.alloc(size, rel.length));
    await utimes(file, old, old);
  }
}

const served = serveSuite({
  home: 'bl-e2e-home-',
  viewport: { width: 1400, height: 1000 },
  prepare: async ({ home }) => {
    await folderOf(path.join(home, 'Projects', 'shoot'), {
      'keep.txt': 2_000,
      'debug.log': 3_000,
      'clip.mp4': 200_000,
      'raw/take1.mp4': 50_000,
    });
    await folderOf(path.join(home, 'Documents'), { 'report.txt': 1_000, 'build.log': 500 });
    await folderOf(path.join(home, 'Drops', 'pics'), { 'a.jpg': 1_500, 'b.jpg': 2_500 });
  },
});

/** Serious or critical axe violations of the page as it is (colour contrast included), as "rule: target" lines. */
async function axe(): Promise<string[]> {
  const result = await new AxeBuilder({ page: served.page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/**
 * Opens "Choose folder…" (which starts at the folder typed in the path field, else the home),
 * goes `up` folders up, and walks down `names`; returns the dialog.
 */
async function browseTo(
  labels: { choose: string; title: string; up: string; open: (name: string) => string },
  from: string,
  up: number,
  names: string[],
) {
  await served.page.getByRole('button', { name: labels.choose }).click();
  const dialog = served.page.getByRole('dialog', { name: labels.title });
  await dialog.waitFor();
  const shown = () => dialog.getByTestId('browser-path').textContent();
  await expect.poll(shown).toBe(from);
  for (let i = 1; i <= up; i++) {
    await dialog.getByRole('button', { name: labels.up }).click();
    await expect.poll(shown).toBe(path.resolve(from, ...Array<string>(i).fill('..')));
  }
  const open = labels.open;
  for (const [i, name] of names.entries()) {
    await dialog.getByRole('button', { name: open(name) }).click();
    await expect
      .poll(() => dialog.getByTestId('browser-path').textContent())
      .toBe(path.join(served.home, ...names.slice(0, i + 1)));
  }
  return dialog;
}

describe('adding a folder in the served app (real serve, embedded emulator)', () => {
  it('chooses the folder in the browser dialog, sets its options in the plan, and the first upload follows them', async () => {
    await served.page.getByRole('tab', { name: 'Folders' }).click();
    await served.page.getByRole('button', { name: 'Choose folder…' }).waitFor();
    await shot(served.page, 'folders-add-en');
    const shoot = path.join(served.home, 'Projects', 'shoot');
    const en = { choose: 'Choose folder…', title: 'Choose a folder', up: 'Up', open: (n: string) => `Open ${n}` };
    const dialog = await browseTo(en, served.home, 0, ['Projects', 'shoot']);
    expect(await dialog.getByRole('button', { name: 'Open raw' }).isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('and 3 files');
    await shot(served.page, 'folders-browser-en');
    expect(await axe()).toEqual([]);
    await dialog.getByRole('button', { name: 'Choose this folder' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await served.page.getByLabel('Folder path').inputValue()).toBe(shoot);

    await served.page.getByRole('button', { name: 'See what it would upload' }).click();
    const plan = served.page.getByRole('dialog', { name: `Plan for ${shoot}` });
    await plan.waitFor();
    const summary = plan.getByTestId('plan-summary');
    await expect.poll(() => summary.locator('h4').textContent(), { timeout: 30_000 }).toMatch(/^4 files to upload/);
    // The ignore rule: its match is listed live, and the plan counts it out.
    await plan.getByLabel(/^Ignore rules/).fill('*.log');
    const matches = plan.getByTestId('ignore-matches');
    await expect.poll(() => matches.textContent(), { timeout: 30_000 }).toMatch(/1 ignored, 3 uploaded/);
    expect(await matches.textContent()).toContain('debug.log');
    await expect.poll(() => summary.locator('h4').textContent(), { timeout: 30_000 }).toMatch(/^3 files to upload/);
    // A template the service refuses is said in the dialog, and nothing can start with it.
    await plan.getByLabel('Key template').fill('{nope}/{relpath}');
    const refused = plan.getByTestId('plan-error');
    await expect.poll(() => refused.textContent(), { timeout: 30_000 }).toMatch(/unknown placeholder \{nope\}/);
    expect(await plan.getByRole('button', { name: /^Start/ }).isEnabled()).toBe(false);
    await plan.getByLabel('Key template').fill('shoot/{relpath}');
    await expect
      .poll(() => plan.getByTestId('key-example').textContent())
      .toBe('Example key: shoot/photos/2024/beach.jpg');
    await plan.getByRole('checkbox', { name: /^Analyse uploaded videos/ }).check();
    const start = plan.getByRole('button', { name: /^Start: upload 3 files/ });
    await expect.poll(() => start.isEnabled(), { timeout: 30_000 }).toBe(true);
    await shot(served.page, 'folders-plan-options-en');
    expect(await axe()).toEqual([]);
    await start.click();
    await plan.waitFor({ state: 'hidden' });

    // The root was added with the options of the dialog.
    const [root] = await served.app.api<WatchRootView[]>('roots.list');
    expect(root?.path).toBe(shoot);
    expect(root?.options).toMatchObject({ ignore: ['*.log'], keyTemplate: 'shoot/{relpath}', vcaForVideos: true });
    // Its first upload followed them: the keys by the template, the ignored file never uploaded.
    const doneKeys = async () =>
      (await served.app.api<TransferPage>('transfers.list', { states: ['done'] })).rows.map((r) => r.key).sort();
    await expect
      .poll(doneKeys, { timeout: 60_000 })
      .toEqual(['shoot/clip.mp4', 'shoot/keep.txt', 'shoot/raw/take1.mp4']);
    const logged = await served.app.api<TransferPage>('transfers.list', { text: 'debug.log' });
    expect(logged.total).toBe(0);
    // And the videos were analysed (the Local account has a download domain): jobs that finish.
    const jobs = async () =>
      (await served.app.api<VcaJobView[]>('vca.list', {}))
        .map((j) => `${j.sourceUrl?.replace(/^.*\//, '')}:${j.tracking}`)
        .sort();
    await expect.poll(jobs, { timeout: 90_000 }).toEqual(['clip.mp4:done', 'take1.mp4:done']);
    const card = served.page.locator('.ant-card').filter({ hasText: shoot });
    await expect
      .poll(() => card.locator('.ant-card-head .ant-tag').textContent(), { timeout: 30_000 })
      .toBe('Watching');
    // Its options later: the drawer shows the rules it was added with, and previews new ones as they are typed.
    await card.getByRole('button', { name: 'Options' }).click();
    const drawer = served.page.getByRole('dialog', { name: `Options of ${shoot}` });
    await drawer.waitFor();
    const rules = drawer.getByLabel(/^Ignore rules/);
    expect(await rules.inputValue()).toBe('*.log');
    await rules.fill('*.log\nraw/');
    await expect.poll(() => drawer.textContent(), { timeout: 30_000 }).toMatch(/2 ignored, 2 uploaded/);
    expect(await drawer.textContent()).toContain('raw/take1.mp4');
    await served.page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('a folder dropped on the window offers "Upload once" or "Watch this folder"', async () => {
    await served.page.getByRole('tab', { name: 'Transfers' }).click();
    const pics = path.join(served.home, 'Drops', 'pics');
    const dropped = served.page.getByRole('dialog', { name: 'Upload dropped files' });
    await dropPaths(served.browser.context, served.page, [pics]);
    await dropped.waitFor();
    const listed = dropped.getByTestId('dropped-files');
    await expect.poll(() => listed.textContent()).toContain('pics/a.jpg');
    expect(await listed.textContent()).toContain('pics/b.jpg');
    expect(await dropped.textContent()).toContain('“pics” is a folder');
    await dropped.getByRole('button', { name: 'Upload once' }).click({ trial: true }); // waits until it stops moving in
    await shot(served.page, 'folders-drop-dialog-en');
    expect(await axe()).toEqual([]);
    // Once: its files upload, keyed by their path in the drop.
    await dropped.getByRole('button', { name: 'Upload once' }).click();
    await dropped.waitFor({ state: 'hidden' });
    const keys = async () =>
      (await served.app.api<TransferPage>('transfers.list', { text: 'pics/', states: ['done'] })).rows
        .map((r) => r.key)
        .sort();
    await expect.poll(keys, { timeout: 60_000 }).toEqual(['pics/a.jpg', 'pics/b.jpg']);
    // Watch: a browser cannot tell where the folder is, so the folder browser opens to point at it.
    await dropPaths(served.browser.context, served.page, [pics]);
    await dropped.waitFor();
    await dropped.getByRole('button', { name: 'Watch this folder' }).click();
    await dropped.waitFor({ state: 'hidden' });
    expect(await served.page.getByRole('tab', { name: 'Folders' }).getAttribute('aria-selected')).toBe('true');
    const chooser = served.page.getByRole('dialog', { name: 'Choose a folder' });
    await chooser.waitFor();
    await expect.poll(() => chooser.getByTestId('browser-path').textContent()).toBe(served.home);
    await chooser.getByRole('button', { name: 'Open Drops' }).click();
    await chooser.getByRole('button', { name: 'Open pics' }).click();
    await expect.poll(() => chooser.getByTestId('browser-path').textContent()).toBe(pics);
    await chooser.getByRole('button', { name: 'Choose this folder' }).click();
    expect(await served.page.getByLabel('Folder path').inputValue()).toBe(pics);
  });

  it('shows the folder browser and the plan with its options in Chinese', async () => {
    const s = await served.app.api<Settings>('settings.set', { language: 'zh-CN' });
    expect(s.language).toBe('zh-CN');
    await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await served.page.getByRole('tab', { name: '文件夹' }).click();
    // The path field holds the folder chosen above: the browser starts there; two folders up is the home.
    const zh = { choose: '选择文件夹…', title: '选择文件夹', up: '上一级', open: (n: string) => `打开 ${n}` };
    const dialog = await browseTo(zh, path.join(served.home, 'Drops', 'pics'), 2, []);
    await shot(served.page, 'folders-browser-zh-CN');
    await dialog.getByRole('button', { name: '打开 Documents' }).click();
    await expect.poll(() => dialog.getByTestId('browser-path').textContent()).toBe(path.join(served.home, 'Documents'));
    expect(await dialog.textContent()).toContain('这里没有文件夹');
    expect(await dialog.textContent()).toContain('另有 2 个文件');
    await dialog.getByRole('button', { name: '选择此文件夹' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const documents = path.join(served.home, 'Documents');
    expect(await served.page.getByLabel('文件夹路径').inputValue()).toBe(documents);
    await served.page.getByRole('button', { name: '查看将上传的内容' }).click();
    const plan = served.page.getByRole('dialog', { name: `${documents} 的上传计划` });
    await plan.waitFor();
    await plan.getByLabel(/^忽略规则/).fill('*.log');
    await expect.poll(() => plan.getByTestId('ignore-matches').textContent(), { timeout: 30_000 }).toMatch(/忽略 1 个/);
    await plan.getByRole('checkbox', { name: /^分析上传的视频/ }).check();
    const start = plan.getByRole('button', { name: /^开始：上传 1 个文件/ });
    await expect.poll(() => start.isEnabled(), { timeout: 30_000 }).toBe(true);
    await shot(served.page, 'folders-plan-options-zh-CN');
    await plan.getByRole('button', { name: /^取\s?消$/ }).click(); // antd spaces two-character Chinese labels
    await plan.waitFor({ state: 'hidden' });
    // Canceled: nothing of that folder is watched.
    expect((await served.app.api<WatchRootView[]>('roots.list')).map((r) => r.path)).not.toContain(documents);
    expect(served.pageErrors).toEqual([]);
  });
});
