import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { chromiumPath } from '../../bin/test-browser.mjs';

/**
 * The Chromium the tests drive with playwright-core (no browser download): CHROMIUM_PATH, else
 * Debian's chromium or another usual install (bin/test-browser.mjs, which `npm test` runs
 * first and which installs it on Debian as root). Missing, it throws one line saying what to do.
 */
export const CHROMIUM_PATH = chromiumPath();

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const SCREENSHOT_DIR = path.resolve(__dirname, 'screenshots');

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and deletes its profile. */
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh profile folder (deleted by close, or at once when the launch
 * fails). Shared by every Chromium test (doors, renderer screens, SDK interop).
 */
export async function launchChromium(opts: { viewport?: { width: number; height: number } } = {}): Promise<Chromium> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'bl-chromium-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: opts.viewport ?? { width: 1280, height: 800 },
    })
    .catch((e: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      throw e;
    });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
