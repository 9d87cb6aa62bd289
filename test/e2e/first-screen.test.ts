import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUCKET } from '../../src-main/emulator/server';
import type { AddTransfersResult, Result, TransferPage } from '../../src-main/shared/contract';
import { API_HTTP_PREFIX } from '../../src-main/shared/wire';
import { launchChromium, SCREENSHOT_DIR, type Chromium } from './chromium';

const ROOT = path.resolve(__dirname, '../..');

/** Starts `blocklift serve` as a user would, and reads the URL it prints. */
async function startServe(dataDir: string): Promise<{ child: ChildProcess; loginUrl: string; stderr: string[] }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/blocklift.mjs'), 'serve', '--port', '0', '--data', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(String(d)));
  const loginUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr.join('')}`)));
  });
  return { child, loginUrl, stderr };
}

describe('the served app in Chromium', () => {
  let tmp = '';
  let serve: Awaited<ReturnType<typeof startServe>>;
  let browser: Chromium | undefined;

  beforeAll(async () => {
    tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-e2e-')));
    serve = await startServe(path.join(tmp, 'data'));
  });

  afterAll(async () => {
    await browser?.close();
    if (serve?.child.exitCode === null) serve.child.kill('SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  });

  it('shows the first screen with the transfers the app really made', async () => {
    const url = new URL(serve.loginUrl);
    const token = url.searchParams.get('token') ?? '';
    const api = async <T>(method: string, input: unknown): Promise<T> => {
      const res = await fetch(`${url.origin}${API_HTTP_PREFIX}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      const r = (await res.json()) as Result<T>;
      if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
      return r.value;
    };
    const file = path.join(tmp, 'e2e-hello.txt');
    await writeFile(file, 'uploaded before the browser opened\n');
    const added = await api<AddTransfersResult>('transfers.add', { paths: [file], target: { bucket: DEFAULT_BUCKET } });
    expect(added.queued).toHaveLength(1);
    for (;;) {
      const page = await api<TransferPage>('transfers.list', { states: ['done'] });
      if (page.total === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    browser = await launchChromium();
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Nothing the page asks for is missing (a browser asks for /favicon.ico when the page names no icon).
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(serve.loginUrl);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await page.getByText('e2e-hello.txt').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    expect(refused).toEqual([]);
    // The page names its icon (else the browser asks for /favicon.ico, which the door does not
    // have: an error in the console on every load), and the door serves it.
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href, 'the page names no icon').toBeTruthy();
    const res = await page.request.get(new URL(href!, page.url()).href);
    const icon = `${res.status()} ${res.headers()['content-type']}`;
    expect(icon).toBe('200 image/png');
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, 'first-screen.png'),
      fullPage: true,
      animations: 'disabled',
    });
    expect(errors).toEqual([]);
  });

  it('stops on SIGTERM with exit code 0, its start and stop in the data folder’s log (no token)', async () => {
    const exited = new Promise<number | null>((resolve) => serve.child.once('exit', (code) => resolve(code)));
    serve.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const log = readFileSync(path.join(tmp, 'data', 'logs', 'blocklift.log'), 'utf8');
    expect(log).toMatch(/info serve .* started at http:\/\/127\.0\.0\.1:\d+/);
    expect(log).toMatch(/info serve stopped \(SIGTERM\)/);
    expect(log).not.toContain(new URL(serve.loginUrl).searchParams.get('token'));
  });
});
