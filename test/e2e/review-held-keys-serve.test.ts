/**
 * A reviewer's fast hands on the review screen: the real `blocklift serve` (embedded emulator,
 * VCA labels from a file written here: three videos of 6 labels) in Chromium.
 *
 * A held key: Chromium sends the key's auto-repeats (keydown with `repeat`) as the OS does.
 * A held "a" or "r" decides the label under the cursor once, not label after label and then,
 * past the last one, the labels of the next video the reviewer never saw; a held "j" still
 * moves the cursor on. Checked in the service and on screen after a reload.
 *
 * Keys pressed while the service does not answer (SIGSTOP), then a reload: the decisions live
 * only in the page until answered, so the browser asks before leaving; staying, every key is
 * saved once the service answers, and the reload after shows them all.
 * Screenshots: review-held-keys.png, review-unsent-reload.png (the keys waiting to be saved).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VcaJobView } from '../../src-main/shared/task-views';
import { analysedThrough, serveSuite, shot, uploadedThrough } from './serve-app';

const VIDEOS = ['held-a', 'held-b', 'held-c'] as const;
const N = 6;

const results = (v: string) => ({
  scenario: Array.from({ length: N }, (_, i) => ({ attribute: `${v} ${i + 1}`, confidence: 0.95 - i * 0.05 })),
});
const served = serveSuite({
  tmp: 'bl-e2e-held-',
  viewport: { width: 1400, height: 1000 },
  vcaLabels: { jobs: VIDEOS.map((v) => ({ match: `http://127.0.0.1:*/${v}.mp4`, results: results(v) })) },
});
const jobs = new Map<string, VcaJobView>();

/** Every video's labels as the service has them, one letter each (p, a, r, c), in list order. */
async function saved(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [v, job] of jobs) {
    const now = await served.app.api<VcaJobView>('vca.get', { id: job.id });
    out[v] = now.results.flatMap((g) => g.labels.map((l) => l.decision[0])).join('');
  }
  return out;
}

/** The decisions the review lists, one letter each, and the video it shows. */
async function shown(): Promise<{ video: string | null; decisions: string }> {
  const decisions = await served.page
    .locator('.label-list [role=option]')
    // The first tag of an option is its decision (a "Not saved" tag may follow).
    .evaluateAll((els) =>
      els.map((el) => (el.querySelector('.ant-tag')?.textContent ?? '?')[0]!.toLowerCase()).join(''),
    );
  const video = await served.page.locator('.vca-review video').getAttribute('aria-label');
  return { video: video && path.basename(video), decisions };
}

/** Holds `key` down: one press and `repeats` auto-repeats (Chromium marks a keydown of a key already down as a repeat), then lets go. */
async function hold(key: string, repeats: number): Promise<void> {
  for (let i = 0; i <= repeats; i++) await served.page.keyboard.down(key);
  await served.page.keyboard.up(key);
}

describe('review keys held down, and a reload before they are saved (real serve, embedded emulator, Chromium)', () => {
  it('analyses three videos of 6 labels each', async () => {
    for (const [i, v] of VIDEOS.entries()) {
      const file = path.join(served.tmp, `${v}.mp4`);
      await writeFile(file, Buffer.alloc(4096, i + 1));
      jobs.set(v, await analysedThrough(served.app, await uploadedThrough(served.app, file, `${v}.mp4`)));
    }
  });

  it('a held "a" or "r" decides one label; a held "j" moves on; nothing of another video is touched', async () => {
    await served.page.getByRole('tab', { name: 'Video review' }).click();
    await served.page.locator('.vca-job').filter({ hasText: 'held-a.mp4' }).getByRole('button').click();
    await expect.poll(async () => (await shown()).decisions).toBe('pppppp');
    for (const close of await served.page.locator('.ant-notification-notice-close').all()) await close.click();
    await served.page.locator('body').click({ position: { x: 5, y: 5 } });

    // Held for 12 repeats: more than the video has labels (before, it went on into the next video).
    await hold('a', 12);
    expect(await shown()).toEqual({ video: 'held-a.mp4', decisions: 'appppp' });
    // A held "j" moves the cursor three labels on (one press, two repeats), then a held "r" rejects one.
    await hold('j', 2);
    await hold('r', 12);
    expect(await shown()).toEqual({ video: 'held-a.mp4', decisions: 'appprp' });
    await expect.poll(() => served.page.locator('[data-saving], [data-failed]').count(), { timeout: 30_000 }).toBe(0);
    await shot(served.page, 'review-held-keys');
    expect(await saved()).toEqual({ 'held-a': 'appprp', 'held-b': 'pppppp', 'held-c': 'pppppp' });

    // A reload shows what the service has.
    await served.page.reload();
    await served.page.getByRole('tab', { name: 'Video review' }).click();
    await served.page.locator('.vca-job').filter({ hasText: 'held-a.mp4' }).getByRole('button').click();
    await expect.poll(async () => (await shown()).decisions).toBe('appprp');
  });

  it('a reload while decisions wait for the service asks first; staying, every key is saved', async () => {
    await served.page.locator('.vca-job').filter({ hasText: 'held-b.mp4' }).getByRole('button').click();
    await expect.poll(async () => (await shown()).video).toBe('held-b.mp4');
    await served.page.locator('body').click({ position: { x: 5, y: 5 } });
    process.kill(served.app.pid, 'SIGSTOP');
    let dialogType = '';
    try {
      for (const k of ['a', 'r', 'a']) await served.page.keyboard.press(k);
      expect(await shown()).toEqual({ video: 'held-b.mp4', decisions: 'arappp' });
      await shot(served.page, 'review-unsent-reload');
      const dialog = served.page.waitForEvent('dialog', { timeout: 5_000 });
      // Dismissed below (the person stays), so this navigation never happens.
      const reload = served.page.reload({ timeout: 5_000 }).catch(() => undefined);
      const d = await dialog;
      dialogType = d.type();
      await d.dismiss();
      await reload;
    } finally {
      process.kill(served.app.pid, 'SIGCONT');
    }
    expect(dialogType).toBe('beforeunload');
    await expect.poll(() => served.page.locator('[data-saving], [data-failed]').count(), { timeout: 30_000 }).toBe(0);
    expect(await saved()).toEqual({ 'held-a': 'appprp', 'held-b': 'arappp', 'held-c': 'pppppp' });

    // Nothing waits now: the reload goes ahead without asking and shows what the service has.
    let asked = false;
    served.page.once('dialog', (d) => {
      asked = true;
      void d.accept();
    });
    await served.page.reload();
    expect(asked).toBe(false);
    await served.page.getByRole('tab', { name: 'Video review' }).click();
    await served.page.locator('.vca-job').filter({ hasText: 'held-b.mp4' }).getByRole('button').click();
    await expect.poll(async () => (await shown()).decisions).toBe('arappp');
    expect(served.pageErrors).toEqual([]);
  });
});
