/**
 * A service that stops answering without closing the connection (its process stopped with
 * SIGSTOP: the kernel keeps the socket open), against the real `blocklift serve` in real
 * Chromium: the page's connection tag says the app is not answering within the liveness
 * check's time, and says "Connected" again once the process runs on (SIGCONT).
 */
import { describe, expect, it } from 'vitest';
import { PING_EVERY_MS, STALLED_AFTER_MS } from '../../src-renderer/bridge/websocket';
import { shot, serveSuite } from './serve-app';

const served = serveSuite({ viewport: { width: 1280, height: 800 } });

describe('a service that stops answering', () => {
  it('is shown as not answering while it is stopped, and as connected again when it runs on', async () => {
    const tag = served.page.locator('.frame-extra .ant-tag').first();
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Connected');
    process.kill(served.app.pid, 'SIGSTOP');
    try {
      // Nothing arrives: a ping goes out after PING_EVERY_MS of quiet, and STALLED_AFTER_MS
      // after the last frame the tag changes (the page's own timers; the service is frozen).
      await expect
        .poll(() => tag.textContent(), { timeout: STALLED_AFTER_MS + PING_EVERY_MS + 20_000, interval: 500 })
        .toBe('Not answering: what you do waits for it');
      await shot(served.page, 'connection-not-answering');
    } finally {
      process.kill(served.app.pid, 'SIGCONT');
    }
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Connected');
    expect(served.pageErrors).toEqual([]);
  }, 120_000);
});
