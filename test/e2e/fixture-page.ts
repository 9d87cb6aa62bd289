/**
 * The fixture page in Chromium: builds test/e2e/fixture-app with the project's Vite config,
 * serves it on 127.0.0.1 (port 0), and opens pages in Chromium (bin/test-browser.mjs finds it) through
 * playwright-core. Everything stops in `close()`.
 */
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { chromiumPath } from '../../bin/test-browser.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SCREENSHOTS = path.join(ROOT, 'test/e2e/screenshots');
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html' };

export interface FixturePage {
  /** `params`: more of the fixture page's query parameters (test/e2e/fixture-app/main.tsx). */
  open(options?: {
    rows?: number;
    colorScheme?: 'light' | 'dark';
    locale?: string;
    params?: Record<string, string | number>;
  }): Promise<Page>;
  shot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startFixturePage(): Promise<FixturePage> {
  const outDir = path.join(ROOT, 'dist/fixture-app');
  // vitest sets NODE_ENV=test, which makes the kit give every element the id "test-id": build as users get it.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    root: path.join(ROOT, 'test/e2e/fixture-app'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  }).finally(() => {
    process.env.NODE_ENV = nodeEnv;
  });
  const server: Server = createServer((req, res) => {
    const wanted = path.join(outDir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file =
      wanted.startsWith(outDir) && existsSync(wanted) && statSync(wanted).isFile()
        ? wanted
        : path.join(outDir, 'index.html');
    res.setHeader('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream');
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser: Browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    open: async ({ rows = 50_000, colorScheme = 'light', locale = 'en-US', params = {} } = {}) => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 850 }, colorScheme, locale });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const query = new URLSearchParams(
        Object.entries({ rows, ...params }).map(([k, v]): [string, string] => [k, String(v)]),
      );
      await page.goto(`${base}?${query}`);
      await page.getByRole('tab', { name: /Transfers|传输/ }).waitFor();
      return page;
    },
    shot: async (page, name) => {
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, animations: 'disabled' });
      return file;
    },
    close: async () => {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
