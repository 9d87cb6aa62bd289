/**
 * A service that stops answering without closing the connection (its process stopped with
 * SIGSTOP: the kernel keeps the socket open), against the real `blocklift serve` in real
 * Chromium: the page's connection tag says the app is not answering within the liveness
 * check's time, and says "Connected" again once the process runs on (SIGCONT).
 */
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PING_EVERY_MS, STALLED_AFTER_MS } from '../../src-renderer/bridge/websocket';
import { SCREENSHOT_DIR, type Chromium } from './chromium';
import { openServedApp, shot, startServe, type ServeApp } from './serve-app';

let app: ServeApp;
let browser: Chromium;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  app = await startServe();
  ({ browser, page } = await openServedApp(app, { width: 1280, height: 800 }, pageErrors));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('a service that stops answering', () => {
  it('is shown as not answering while it is stopped, and as connected again when it runs on', async () => {
    const tag = page.locator('.frame-extra .ant-tag').first();
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Connected');
    process.kill(app.pid, 'SIGSTOP');
    try {
      // Nothing arrives: a ping goes out after PING_EVERY_MS of quiet, and STALLED_AFTER_MS
      // after the last frame the tag changes (the page's own timers; the service is frozen).
      await expect
        .poll(() => tag.textContent(), { timeout: STALLED_AFTER_MS + PING_EVERY_MS + 20_000, interval: 500 })
        .toBe('Not answering: what you do waits for it');
      await shot(page, 'connection-not-answering');
    } finally {
      process.kill(app.pid, 'SIGCONT');
    }
    await expect.poll(() => tag.textContent(), { timeout: 30_000 }).toBe('Connected');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
