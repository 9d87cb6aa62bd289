/**
 * The real `blocklift serve` (embedded emulator, its data in a temp folder) for Chromium
 * tests: started as a child the way a user starts it, its login URL read from stdout, its
 * API callable with the printed token, stopped (SIGTERM, then SIGKILL) and its folder
 * deleted by `close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AddTransfersResult, Result, TransferDetail } from '../../src-main/shared/contract';
import type { VcaLabelsFile } from '../../src-main/emulator/vca-labels';
import type { VcaJobView } from '../../src-main/shared/task-views';
import { API_HTTP_PREFIX } from '../../src-main/shared/wire';
import { launchChromium, SCREENSHOT_DIR, type Chromium } from './chromium';

const ROOT = path.resolve(__dirname, '../..');

export interface ServeApp {
  loginUrl: string;
  origin: string;
  dataDir: string;
  /** The serve child's process id (a test may SIGSTOP / SIGCONT it: a service that does not answer for a while). */
  pid: number;
  /** Calls a verb of the app service over `POST /api/<method>`; rejects when the Result is an error. */
  api<T>(method: string, input?: unknown): Promise<T>;
  /** Paths under the data folder's staging area whose file name is `name`. */
  staged(name: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * `home`: the user's home of the serve child (HOME), which its folder browser shows; a test
 * gives a temp folder so that nothing of the real home is listed. `args` are added to the
 * command line (e.g. `--vca-labels <file>`). `signal`, aborted before the login URL is
 * printed, kills the child. When it fails to start, the child is killed and its folder deleted.
 * `dataDir` and `port`: a serve started again on the folder and port of one before it (the
 * caller then deletes that folder).
 */
export async function startServe(
  opts: { home?: string; args?: string[]; signal?: AbortSignal; dataDir?: string; port?: number } = {},
): Promise<ServeApp> {
  const tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'bl-e2e-serve-')));
  const dataDir = opts.dataDir ?? path.join(tmp, 'data');
  const port = String(opts.port ?? 0);
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/blocklift.mjs'), 'serve', '--port', port, '--data', dataDir, ...(opts.args ?? [])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: opts.home ? { ...process.env, HOME: opts.home, USERPROFILE: opts.home } : process.env,
    },
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(String(d)));
  let onAbort = () => {};
  const loginUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += String(d);
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr.join('')}`)));
    child.once('error', reject);
    onAbort = () => reject(new Error('serve: stopped before it printed its login URL'));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
  })
    .catch(async (e: unknown) => {
      // It did not start: nothing of it is left (the child killed, its folder deleted).
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      await rm(tmp, { recursive: true, force: true });
      throw e;
    })
    .finally(() => opts.signal?.removeEventListener('abort', onAbort));
  const url = new URL(loginUrl);
  const token = url.searchParams.get('token') ?? '';
  return {
    loginUrl,
    origin: url.origin,
    dataDir,
    pid: child.pid ?? 0,
    api: async <T>(method: string, input?: unknown): Promise<T> => {
      const res = await fetch(`${url.origin}${API_HTTP_PREFIX}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: input === undefined ? '' : JSON.stringify(input),
      });
      const r = (await res.json()) as Result<T>;
      if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
      return r.value;
    },
    staged: async (name) => {
      const entries = await readdir(path.join(dataDir, 'staging'), { recursive: true }).catch(() => []);
      return entries.filter((e) => path.basename(e) === name).map((e) => path.join(dataDir, 'staging', e));
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of the page as test/e2e/screenshots/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled' });
}

/**
 * Drops files on the window as a person dragging them from the desktop does: a DataTransfer
 * holding File objects (`size` bytes each, of a repeated pattern) in dragenter and drop
 * events dispatched on the body. Runs in the page (a string: this file is compiled for Node,
 * without the DOM's types).
 */
export async function dropFiles(page: Page, files: Array<{ name: string; size: number }>): Promise<void> {
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    for (const f of ${JSON.stringify(files)}) {
      const bytes = new Uint8Array(f.size);
      for (let i = 0; i < f.size; i++) bytes[i] = (i * 31 + f.name.length * 7) & 255;
      dt.items.add(new File([bytes], f.name, { type: 'application/octet-stream' }));
    }
    for (const type of ['dragenter', 'dragover', 'drop'])
      document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
  })()`);
}

/**
 * Drops real files or folders of this machine on the window as a person dragging them from
 * the file manager does: Chromium's own drag and drop (DevTools Input.dispatchDragEvent), so
 * the page gets the browser's real entries (a folder is a directory entry it walks).
 */
export async function dropPaths(context: BrowserContext, page: Page, paths: string[]): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
  await cdp.detach();
}

/**
 * Chromium on the served app as a person first opens it: the login URL, then the first-run
 * notice dismissed. The page's uncaught errors are pushed to `pageErrors`. When the page does
 * not open, the browser is closed before the error is thrown.
 */
export async function openServedApp(
  app: ServeApp,
  viewport: { width: number; height: number },
  pageErrors: string[],
): Promise<{ browser: Chromium; page: Page }> {
  const browser = await launchChromium({ viewport });
  try {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(app.loginUrl);
    const gotIt = page.getByRole('button', { name: 'Got it' });
    await gotIt.waitFor();
    await gotIt.click();
    return { browser, page };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** What a test file's tests share: the served app, the Chromium page open on it, and a temp folder of the file's. */
export interface ServedSuite {
  app: ServeApp;
  browser: Chromium;
  page: Page;
  /** The page's uncaught errors (pushed as they happen). */
  pageErrors: string[];
  /** With the `home` option: the serve child's home (HOME), a temp folder; '' without. */
  home: string;
  /** Without `home`: the temp folder (`tmp`, or one made for `vcaLabels`) for the tests' own files; '' without. */
  tmp: string;
}

export interface ServedSuiteOptions {
  /** Chromium's window. */
  viewport: { width: number; height: number };
  /** Prefix of a temp folder (under the OS's, its real path) made first and given to the serve child as its home. */
  home?: string;
  /** Prefix of a temp folder (under the OS's, its real path) made first for the tests' files. */
  tmp?: string;
  /** The results the serve's video analyses give: written as labels.json in the temp folder, passed as `--vca-labels`. */
  vcaLabels?: VcaLabelsFile;
  /** Runs before the serve starts, its temp folder made: writes what the tests need there. */
  prepare?: (served: ServedSuite) => Promise<void>;
}

/**
 * One served app and Chromium page for the tests of a file. Registers a beforeAll that makes
 * the temp folder (`home` or `tmp`), writes `vcaLabels` there, runs `prepare`, starts the
 * serve (startServe) and opens the page on it (openServedApp; the screenshot folder made), and
 * an afterAll that closes the browser, stops the serve and deletes the temp folder, each even
 * when another throws or the setup failed or timed out half-way (a serve still starting is
 * killed). Returns the handle whose fields the beforeAll fills; a file's own beforeAll, called
 * after this, runs once they are.
 */
export function serveSuite(opts: ServedSuiteOptions): ServedSuite {
  // Filled by the beforeAll: the tests, which run after it, see every field.
  const served = { pageErrors: [], home: '', tmp: '' } as unknown as ServedSuite;
  const stop = new AbortController();
  let dir = '';
  let setup: Promise<void> | undefined;
  beforeAll(async () => {
    setup = (async () => {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const prefix = opts.home ?? opts.tmp ?? (opts.vcaLabels ? 'bl-e2e-suite-' : undefined);
      if (prefix) dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
      if (opts.home) served.home = dir;
      else served.tmp = dir;
      const args: string[] = [];
      if (opts.vcaLabels) {
        const labelsFile = path.join(dir, 'labels.json');
        await writeFile(labelsFile, JSON.stringify(opts.vcaLabels));
        args.push('--vca-labels', labelsFile);
      }
      await opts.prepare?.(served);
      served.app = await startServe({ home: opts.home ? dir : undefined, args, signal: stop.signal });
      Object.assign(served, await openServedApp(served.app, opts.viewport, served.pageErrors));
    })();
    await setup;
  });
  afterAll(async () => {
    stop.abort();
    await setup?.catch(() => {});
    try {
      await served.browser?.close();
    } finally {
      try {
        await served.app?.close();
      } finally {
        if (dir) await rm(dir, { recursive: true, force: true });
      }
    }
  });
  return served;
}

/** Uploads `file` as `key` to the served app's Local bucket through `transfers.add`; resolves with its transfer id once it is done. */
export async function uploadedThrough(app: ServeApp, file: string, key: string): Promise<number> {
  const added = await app.api<AddTransfersResult>('transfers.add', { paths: [file], target: { bucket: 'local', key } });
  const id = added.queued[0]!;
  await expect
    .poll(async () => (await app.api<TransferDetail>('transfers.get', { id })).state, { timeout: 60_000 })
    .toBe('done');
  return id;
}

/** Asks the served app to analyse an uploaded transfer's video; resolves with the job once its tracking is done. */
export async function analysedThrough(app: ServeApp, transferId: number): Promise<VcaJobView> {
  const job = await app.api<VcaJobView>('vca.create', { source: { transferId } });
  await expect
    .poll(async () => (await app.api<VcaJobView>('vca.get', { id: job.id })).tracking, { timeout: 60_000 })
    .toBe('done');
  return app.api<VcaJobView>('vca.get', { id: job.id });
}
