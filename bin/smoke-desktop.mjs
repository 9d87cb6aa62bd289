#!/usr/bin/env node
// `npm run smoke:desktop`: the desktop app's first real run, checked end to end with the real
// Electron runtime: on a machine where it is installed (node_modules/electron/dist), this
// starts the built app (under Xvfb on Linux when there is no display) with a temporary data
// folder, waits for its window, calls a verb through the real preload and IPC, drops a file
// on the window and queues its path (the File's path as Electron's webUtils gives it), waits
// for the upload to the embedded emulator, quits, and checks the exit code and that the queue
// database holds the upload as done. Run it before a release (README.md).
//
// Where the runtime is absent (these build machines cannot download it) it says so in one
// line and exits 0: nothing was checked, and it says that too. Exit 1 when a check fails.
// It drives Electron with playwright-core's Electron support (`_electron.launch`).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { buildMain, buildRenderer, ROOT, staleReason } from './build-lib.mjs';
import { electronBinary, ensureElectronNative } from './electron-runtime.mjs';

const say = (line) => console.log(`smoke:desktop: ${line}`);
const STEP_MS = 60_000;

const binary = electronBinary();
if (!binary) {
  say(
    'the Electron runtime is not installed here (node_modules/electron/dist), so nothing was checked; run this where `npm start` opens a window',
  );
  process.exit(0);
}

/** A display for Electron: the session's, else a private Xvfb (Linux). Returns { env, stop }. */
async function display() {
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
    return { env: {}, stop: () => undefined };
  if (spawnSync('sh', ['-c', 'command -v Xvfb'], { encoding: 'utf8' }).status !== 0)
    throw new Error('no display, and no Xvfb to make one (Debian/Ubuntu: apt-get install xvfb)');
  // -displayfd: Xvfb picks a free display number and writes it on fd 3.
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const number = await new Promise((resolve, reject) => {
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before giving a display`)));
    setTimeout(() => reject(new Error('Xvfb gave no display in 10 s')), 10_000).unref();
  });
  return { env: { DISPLAY: `:${number}` }, stop: () => xvfb.kill() };
}

async function waitFor(what, fn, ms = STEP_MS) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main() {
  if (staleReason('main')) await buildMain();
  if (staleReason('renderer')) await buildRenderer();
  const native = await ensureElectronNative(binary);
  if (!native.ok) throw new Error(native.reason);

  const work = mkdtempSync(path.join(os.tmpdir(), 'blocklift-smoke-'));
  const screen = await display();
  let app;
  try {
    const data = path.join(work, 'data');
    const file = path.join(work, 'drop', 'smoke.bin');
    mkdirSync(path.dirname(file), { recursive: true });
    // Two blocks and a bit: the chunked path, not only the form upload.
    writeFileSync(file, randomBytes(9 * 1024 * 1024 + 123));

    const { _electron } = await import('playwright-core');
    const args = [ROOT];
    // Chromium refuses to run as root with its sandbox (CI containers).
    if (process.getuid?.() === 0) args.unshift('--no-sandbox');
    app = await _electron.launch({
      executablePath: binary,
      args,
      timeout: STEP_MS,
      env: {
        ...process.env,
        ...screen.env,
        BLOCKLIFT_DATA: data,
        // Chromium's profile (Electron's userData) in the temporary folder too.
        XDG_CONFIG_HOME: path.join(work, 'config'),
      },
    });
    const page = await app.firstWindow({ timeout: STEP_MS });
    await page.waitForLoadState('load');
    say(`window open at ${page.url()}`);

    const status = await page.evaluate(() => window.blocklift.invoke('app.status', undefined));
    if (!status?.ok) throw new Error(`app.status through the preload: ${JSON.stringify(status)}`);
    say('app.status answered through the preload and IPC');

    // A real File with a local path (set like a file chooser does), dropped on the window.
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.id = 'smoke-file';
      input.style.display = 'none';
      document.body.append(input);
    });
    await page.setInputFiles('#smoke-file', file);
    const dropped = await page.evaluate(() => {
      const f = document.querySelector('#smoke-file').files[0];
      const dt = new DataTransfer();
      dt.items.add(f);
      for (const type of ['dragenter', 'dragover', 'drop'])
        window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      return window.blocklift.pathForFile(f);
    });
    if (dropped !== file) throw new Error(`the dropped File's path is ${JSON.stringify(dropped)}, not ${file}`);
    say(`dropped ${path.basename(file)}: its path came back through webUtils`);
    const added = await page.evaluate(
      (p) => window.blocklift.invoke('transfers.add', { paths: [p], target: { bucket: 'local' } }),
      dropped,
    );
    if (!added?.ok) throw new Error(`transfers.add: ${JSON.stringify(added)}`);

    const done = await waitFor('the upload to finish', async () => {
      const list = await page.evaluate(() => window.blocklift.invoke('transfers.list', {}));
      const row = list?.ok ? list.value.rows.find((r) => r.localPath === file) : undefined;
      if (row?.state === 'failed') throw new Error(`the upload failed: ${row.lastError?.message}`);
      return row?.state === 'done' ? row : null;
    });
    if (!done.verified) throw new Error('the upload finished but its etag was not verified');
    say(`uploaded ${done.size} bytes, etag ${done.etag} verified`);

    const proc = app.process();
    const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
    await app.evaluate(({ app: electronApp }) => electronApp.quit());
    const end = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(null), STEP_MS))]);
    app = undefined;
    if (!end) throw new Error(`the app did not exit within ${STEP_MS / 1000} s of Quit`);
    if (end.code !== 0) throw new Error(`the app exited with ${end.code ?? end.signal}`);
    say('quit: exit code 0');

    const Database = createRequire(import.meta.url)('better-sqlite3');
    const db = new Database(path.join(data, 'blocklift.db'), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT state, etag FROM transfers WHERE local_path = ?').get(file);
      if (row?.state !== 'done' || !row.etag) throw new Error(`after quit the queue holds ${JSON.stringify(row)}`);
    } finally {
      db.close();
    }
    say('after quit, the queue database holds the upload as done: every check passed');
  } finally {
    await app?.close().catch(() => undefined);
    screen.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    say(`FAILED: ${e?.message ?? e}`);
    process.exit(1);
  },
);
