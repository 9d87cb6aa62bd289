/**
 * A watched folder's problems in the UI's language, in Chromium against the real
 * `blocklift serve` (embedded emulator): a folder holding a file whose name has a control
 * character (its key is refused: a rejected file) and a link to nothing (with links
 * followed, a problem event). With the UI in Chinese, the notice says the problem
 * and the Folders screen says why the file was rejected in Chinese, built from the error
 * catalog's code and params, not the English message. Screenshot: folders-problems-zh.
 * Then the folder goes away (moved, as an unplugged drive): its card says why it is
 * unavailable in Chinese, the English on hover. Screenshot: folders-unavailable-zh.
 * Back and paused by the user: the card says so once, next to its title.
 */
import { mkdir, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Settings, WatchRootView } from '../../src-main/shared/contract';
import { shot, serveSuite } from './serve-app';

let trip: string;
const served = serveSuite({
  home: 'bl-e2e-home-',
  viewport: { width: 1300, height: 850 },
  prepare: async ({ home }) => {
    trip = path.join(home, 'Trip');
    await mkdir(trip);
    const old = new Date(Date.now() - 3600_000); // older than the stability window: ready at once
    for (const name of ['ok.txt', 'bell\u0007.txt']) {
      await writeFile(path.join(trip, name), 'x'.repeat(100));
      await utimes(path.join(trip, name), old, old);
    }
    await symlink(path.join(trip, 'nowhere'), path.join(trip, 'stale-link'));
  },
});

describe('a watched folder’s problems in Chinese (real serve, Chromium)', () => {
  it('says the dead link and the rejected file in Chinese, from their codes', async () => {
    const s = await served.app.api<Settings>('settings.set', { language: 'zh-CN' });
    expect(s.language).toBe('zh-CN');
    await expect.poll(() => served.page.locator('html').getAttribute('lang')).toBe('zh-CN');
    // Links followed (the default skips them), so the dead one is met and reported.
    await served.app.api('roots.add', {
      path: trip,
      bucket: 'local',
      prefix: 'trip/',
      options: { symlinks: 'follow' },
    });
    await expect
      .poll(async () => (await served.app.api<WatchRootView[]>('roots.list'))[0]?.rejected.map((r) => r.code), {
        timeout: 30_000,
      })
      .toEqual(['control-character']);

    // The dead link's problem, as a notice: the catalog's template in Chinese with its path.
    const notice = served.page.getByText('链接 stale-link 的目标不存在。');
    await notice.first().waitFor({ timeout: 30_000 });

    await served.page.getByRole('tab', { name: '文件夹' }).click();
    const rejected = served.page.getByText('名称包含控制字符；请重命名该文件。');
    await rejected.waitFor();
    // The English message, with the character's code, is the tooltip.
    expect(await rejected.getAttribute('title')).toContain('U+0007');
    expect(await served.page.getByText('points to nothing').count()).toBe(0);
    await shot(served.page, 'folders-problems-zh');
    expect(served.pageErrors).toEqual([]);
  });

  it('says in Chinese why the folder is unavailable once it is gone, from its code', async () => {
    await rename(trip, `${trip}-away`);
    await expect
      .poll(async () => (await served.app.api<WatchRootView[]>('roots.list'))[0], { timeout: 30_000 })
      .toMatchObject({ state: 'unavailable', reasonCode: 'root-missing', reasonParams: { path: trip } });

    const reason = served.page.getByText(`文件夹 ${trip} 不存在（驱动器已拔出或文件夹已移除？）；它回来后会继续监视。`);
    await reason.waitFor({ timeout: 30_000 });
    // The English, as the CLI and the log say it, is the tooltip.
    expect(await reason.getAttribute('title')).toBe(
      `the folder ${trip} is not there (unplugged drive or removed?); watching resumes when it returns`,
    );
    expect(await served.page.getByText('is not there', { exact: false }).count()).toBe(0);
    await shot(served.page, 'folders-unavailable-zh');
    expect(served.pageErrors).toEqual([]);
  });

  it('once back and paused by the user, says so once, next to its title', async () => {
    await rename(`${trip}-away`, trip);
    await expect
      .poll(async () => (await served.app.api<WatchRootView[]>('roots.list'))[0]?.state, { timeout: 30_000 })
      .toBe('watching');
    const [root] = await served.app.api<WatchRootView[]>('roots.list');
    await served.app.api('roots.pause', { id: root!.id });
    await served.page.getByText('由你暂停').waitFor({ timeout: 30_000 });
    // Not again as a reason under the title (the catalog's "由用户暂停。").
    expect(await served.page.getByText('由用户暂停').count()).toBe(0);
    expect(served.pageErrors).toEqual([]);
  });
});
