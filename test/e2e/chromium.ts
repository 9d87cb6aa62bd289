import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium; the tests drive it with playwright-core (no browser download). */
export const CHROMIUM_PATH = process.env.BLOCKLIFT_CHROMIUM ?? '/usr/bin/chromium';

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
 * Launches Chromium with a fresh profile folder (deleted by close). Shared by every
 * Chromium test (doors, renderer screens, SDK interop).
 */
export async function launchChromium(opts: { viewport?: { width: number; height: number } } = {}): Promise<Chromium> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'bl-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
